//! A retrieval collection: documents loaded into a fresh in-memory cairn store through the
//! service's import path (so ids, times and every document survive, duplicates included), and
//! searched through the service exactly as the CLI searches.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Arc;

use anyhow::Result;
use cairn_core::config::{Config, Limits, SearchConfig};
use cairn_core::embedding::Embedder;
use cairn_core::memory::MemoryFilter;
use cairn_core::memory::MemoryRecord;
use cairn_core::scope::ProjectName;
use cairn_core::search::{FuzzyMode, SearchMode, SearchRequest};
use cairn_core::store::Store;
use cairn_core::testing::local;
use cairn_core::{Api, ApiParts, Category, Memory, MemoryId, Scope, Source};
use cairn_store_postgres::testing::fresh_store;
use cairn_store_sqlite::SqliteStore;
use jiff::Timestamp;

/// Which store a collection is loaded into: a private in-memory SQLite store (the default), or
/// a fresh schema of a PostgreSQL database, to compare the two backends on the same data.
#[derive(Debug, Clone, Default)]
pub enum Backend {
    #[default]
    Sqlite,
    /// A PostgreSQL URL; each collection gets a schema of its own.
    Postgres(String),
}

impl Backend {
    /// A new, empty store.
    pub fn fresh_store(&self) -> Result<Box<dyn Store>> {
        Ok(match self {
            Backend::Sqlite => Box::new(SqliteStore::open_in_memory()?),
            Backend::Postgres(url) => Box::new(fresh_store(url, "bench")?.0),
        })
    }
}

/// The search modes the harness measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Exact full-text search only.
    Lexical,
    /// Typo-tolerant search only.
    Fuzzy,
    /// What cairn does without a model: lexical, with fuzzy for the words no memory holds.
    LexicalFuzzy,
    /// Meaning only.
    Semantic,
    /// What cairn does with a model: lexical+fuzzy and semantic, fused.
    Hybrid,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::Lexical,
        Mode::Fuzzy,
        Mode::LexicalFuzzy,
        Mode::Semantic,
        Mode::Hybrid,
    ];

    /// The modes that can run: the semantic ones only with a model.
    pub fn available(with_model: bool) -> Vec<Mode> {
        Mode::ALL
            .into_iter()
            .filter(|mode| with_model || !matches!(mode, Mode::Semantic | Mode::Hybrid))
            .collect()
    }

    fn request(self) -> (SearchMode, FuzzyMode) {
        match self {
            Mode::Lexical => (SearchMode::Lexical, FuzzyMode::Never),
            Mode::Fuzzy => (SearchMode::Fuzzy, FuzzyMode::Auto),
            Mode::LexicalFuzzy => (SearchMode::Lexical, FuzzyMode::Auto),
            Mode::Semantic => (SearchMode::Semantic, FuzzyMode::Auto),
            Mode::Hybrid => (SearchMode::Hybrid, FuzzyMode::Auto),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Fuzzy => "fuzzy",
            Mode::LexicalFuzzy => "lexical+fuzzy",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
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
    /// The project it is stored in; global when unset.
    pub project: Option<ProjectName>,
}

pub struct Collection {
    api: Api,
    keys: HashMap<MemoryId, String>,
    /// Seconds spent embedding the documents (0 without a model).
    pub embed_seconds: f64,
}

impl Collection {
    /// Loads the documents; with a model, embeds them all before returning. `search` is the
    /// ranking configuration the searches use.
    pub fn load(
        documents: Vec<Document>,
        embedder: Option<Arc<dyn Embedder>>,
        search: &SearchConfig,
        backend: &Backend,
    ) -> Result<Self> {
        // Benchmark documents are not agent memories: lift the size limits so every one loads.
        let config = Config {
            limits: Limits {
                max_content_bytes: 1 << 20,
                max_title_chars: 10_000,
                ..Limits::default()
            },
            search: search.clone(),
            ..Config::default()
        };
        let parts = ApiParts {
            embedder,
            ..ApiParts::new(backend.fresh_store()?)
        };
        let api = Api::open(parts, &config);
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
                    document.project.map_or(Scope::Global, Scope::Project),
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
        api.import(&local(), &mut Cursor::new(jsonl.into_bytes()), &mut |_| {})?;
        let embed_seconds = match api.has_model() {
            true => api.embed_pending(&mut |_| {})?.seconds,
            false => 0.0,
        };
        Ok(Collection {
            api,
            keys,
            embed_seconds,
        })
    }

    /// The keys of the top `k` results for `query` in `mode`.
    pub fn search(&self, query: &str, k: usize, mode: Mode) -> Result<Vec<String>> {
        Ok(self
            .scored(query, k, mode, None)?
            .into_iter()
            .map(|(key, _)| key)
            .collect())
    }

    /// The keys of the top `k` results for `query` in `mode`, searched over every project from
    /// `from` (when given), each with the raw score of the first signal that found it (BM25,
    /// similarity, cosine). A question cairn refuses (an invalid query) finds nothing: a miss,
    /// not a crash.
    pub fn scored(
        &self,
        query: &str,
        k: usize,
        mode: Mode,
        from: Option<&ProjectName>,
    ) -> Result<Vec<(String, f64)>> {
        Ok(self.ranked(query, k, mode, from)?.unwrap_or_default())
    }

    /// What [`Collection::scored`] finds, or `None` when cairn refuses `query` as invalid (what
    /// a user would see as an error).
    pub fn ranked(
        &self,
        query: &str,
        k: usize,
        mode: Mode,
        from: Option<&ProjectName>,
    ) -> Result<Option<Vec<(String, f64)>>> {
        let (search_mode, fuzzy) = mode.request();
        let request = SearchRequest {
            fuzzy,
            mode: Some(search_mode),
            from_project: from.cloned(),
            ..SearchRequest::new(query, MemoryFilter::default(), k)
        };
        let hits = match self.api.search_request(&local(), &request) {
            Ok(results) => results.hits,
            Err(cairn_core::Error::Invalid { .. }) => return Ok(None),
            Err(other) => return Err(other.into()),
        };
        Ok(Some(
            hits.iter()
                .filter_map(|hit| {
                    let key = self.keys.get(&hit.memory.id)?.clone();
                    Some((key, hit.signals.first().map_or(0.0, |s| s.raw)))
                })
                .collect(),
        ))
    }
}
