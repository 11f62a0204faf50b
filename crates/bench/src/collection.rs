//! A retrieval collection: documents loaded into a fresh in-memory cairn store through the
//! service's import path (so ids, times and every document survive, duplicates included), and
//! searched through the service exactly as the CLI searches.

use std::collections::HashMap;
use std::io::Cursor;

use anyhow::Result;
use cairn_core::config::Limits;
use cairn_core::exchange::MemoryRecord;
use cairn_core::search::{FuzzyMode, SearchRequest};
use cairn_core::store::MemoryFilter;
use cairn_core::{Category, Memory, MemoryId, MemoryService, Scope, Source};
use cairn_store_sqlite::SqliteStore;
use jiff::Timestamp;

/// The search modes the harness measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Exact full-text search only.
    Lexical,
    /// Typo-tolerant search only.
    Fuzzy,
    /// What cairn does by default: lexical, with fuzzy when lexical finds too little.
    LexicalFuzzy,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Lexical, Mode::Fuzzy, Mode::LexicalFuzzy];

    fn fuzzy(self) -> FuzzyMode {
        match self {
            Mode::Lexical => FuzzyMode::Never,
            Mode::Fuzzy => FuzzyMode::Only,
            Mode::LexicalFuzzy => FuzzyMode::Auto,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Fuzzy => "fuzzy",
            Mode::LexicalFuzzy => "lexical+fuzzy",
        }
    }
}

/// One document to load.
pub struct Document {
    /// The dataset's own id (a LoCoMo `dia_id`, a Cranfield doc number).
    pub key: String,
    pub title: Option<String>,
    pub content: String,
    pub created_at: Timestamp,
}

pub struct Collection {
    service: MemoryService,
    keys: HashMap<MemoryId, String>,
}

impl Collection {
    pub fn load(documents: Vec<Document>) -> Result<Self> {
        // Benchmark documents are not agent memories: lift the size limits so every one loads.
        let limits = Limits {
            max_content_bytes: 1 << 20,
            max_title_chars: 10_000,
            ..Limits::default()
        };
        let service = MemoryService::new(Box::new(SqliteStore::open_in_memory()?), limits);
        let mut keys = HashMap::new();
        let mut jsonl = String::new();
        for document in documents {
            let id = MemoryId::generate();
            keys.insert(id, document.key);
            let memory = Memory {
                id,
                title: document.title,
                category: Category::Fact,
                ..Memory::plain(
                    document.content,
                    Scope::Global,
                    Source::Import,
                    document.created_at,
                )
            };
            jsonl.push_str(&serde_json::to_string(&MemoryRecord {
                memory,
                revisions: Vec::new(),
            })?);
            jsonl.push('\n');
        }
        service.import(&mut Cursor::new(jsonl.into_bytes()), &mut |_| {})?;
        Ok(Collection { service, keys })
    }

    /// The keys of the top `k` results for `query` in `mode`.
    pub fn search(&self, query: &str, k: usize, mode: Mode) -> Result<Vec<String>> {
        let request = SearchRequest {
            fuzzy: mode.fuzzy(),
            ..SearchRequest::new(query, MemoryFilter::default(), k)
        };
        let hits = match self.service.search(&request) {
            Ok(results) => results.hits,
            // A question with nothing searchable in it finds nothing; that is a miss, not a crash.
            Err(cairn_core::Error::Invalid { .. }) => Vec::new(),
            Err(other) => return Err(other.into()),
        };
        Ok(hits
            .iter()
            .filter_map(|hit| self.keys.get(&hit.memory.id).cloned())
            .collect())
    }
}
