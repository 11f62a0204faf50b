//! Search: one query, several signals, one fused ranking.
//!
//! A query is parsed once into a [`SearchQuery`]. Each [`Signal`] (today: lexical BM25 over the
//! full-text index; fuzzy and semantic plug in beside it) ranks candidates independently under the
//! same [`MemoryFilter`], so filters compose with every mode. [`fusion::Fusion`] merges the ranked
//! lists by reciprocal-rank fusion, and the service loads and pages the winners. Each
//! [`SearchHit`] keeps every signal's rank and raw score, which is what `--explain` shows.
//!
//! The lexical query is, for now, the query's words combined with OR and ranked by BM25 (so
//! documents holding more of the words rank first). Every word is quoted for the backend, so no
//! input can be mistaken for query syntax.

pub mod fusion;

use std::fmt;

use jiff::Timestamp;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::memory::Memory;
use crate::store::{MemoryFilter, Store};

/// The longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 2_000;

/// A parsed search query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    pub text: String,
    pub lexical: LexicalQuery,
}

impl SearchQuery {
    pub fn parse(text: &str) -> Result<Self> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(Error::invalid(
                "query",
                format!("is {} bytes; the limit is {MAX_QUERY_BYTES}", text.len()),
            ));
        }
        let terms = words(text);
        if terms.is_empty() {
            return Err(Error::invalid(
                "query",
                "has no words to search for (letters or digits)",
            ));
        }
        Ok(SearchQuery {
            text: text.trim().to_string(),
            lexical: LexicalQuery { terms },
        })
    }
}

/// What the full-text signal matches: any of these words (lowercased, unique, in query order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexicalQuery {
    pub terms: Vec<String>,
}

/// Splits text into words the way the full-text index does (letters and digits; everything
/// else separates), lowercased and unique.
pub fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let word = word.to_lowercase();
        if !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// The independent rankers that feed fusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalKind {
    Lexical,
}

impl fmt::Display for SignalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignalKind::Lexical => "lexical",
        })
    }
}

/// One candidate from one signal, with the signal's own score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct SignalHit {
    pub id: MemoryId,
    pub raw: f64,
}

/// A ranker. Returns at most `depth` hits, best first, never a memory the filter excludes.
pub trait Signal: Send + Sync {
    fn kind(&self) -> SignalKind;
    fn rank(
        &self,
        store: &dyn Store,
        query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>>;
}

/// BM25 over the store's full-text index.
pub struct LexicalSignal;

impl Signal for LexicalSignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Lexical
    }

    fn rank(
        &self,
        store: &dyn Store,
        query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>> {
        store.lexical(&query.lexical, filter, now, depth)
    }
}

/// A search as adapters ask for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub filter: MemoryFilter,
    pub limit: usize,
    pub offset: usize,
}

/// How one signal saw a result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignalScore {
    pub signal: SignalKind,
    /// 1-based rank within that signal.
    pub rank: usize,
    /// The signal's own score (BM25 for lexical; higher is better).
    pub raw: f64,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub memory: Memory,
    /// The fused score (higher is better).
    pub score: f64,
    pub signals: Vec<SignalScore>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_the_index_and_are_unique() {
        assert_eq!(
            words("Why does `snake_case` fail? Snake-case!"),
            ["why", "does", "snake", "case", "fail"]
        );
        assert_eq!(words("Café naïve 42"), ["café", "naïve", "42"]);
    }

    #[test]
    fn queries_without_words_or_over_the_limit_are_refused_naming_the_field() {
        for bad in [
            String::new(),
            "  ?! ".into(),
            "x".repeat(MAX_QUERY_BYTES + 1),
        ] {
            assert_eq!(SearchQuery::parse(&bad).unwrap_err().field(), Some("query"));
        }
    }
}
