//! Search: one query, several signals, one fused ranking.
//!
//! A query is parsed once into a [`SearchQuery`]. Each [`Signal`] — lexical BM25 over the
//! full-text index, fuzzy (typo-tolerant) words, semantic nearest neighbours — ranks candidates
//! independently under the same [`MemoryFilter`], so filters compose with every mode.
//! [`fusion::Fusion`] merges the ranked lists by normalised scores, and the service loads
//! and pages the winners. Each
//! [`SearchHit`] keeps every signal's rank and raw score, which is what `--explain` shows.
//!
//! Queries use the language of [`crate::query`]; the signals are [`lexical`], [`fuzzy`] and
//! [`semantic`]; a [`SearchMode`] says which run.

pub mod fusion;
pub mod fuzzy;
pub mod lexical;
pub mod pipeline;
pub mod semantic;
pub mod snippet;

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::image::Image;
use crate::memory::filter::MemoryFilter;
use crate::memory::model::Memory;
use crate::memory::store::SignalHit;
use crate::query::SearchQuery;
use crate::relation::Annotation;
use crate::scope::ProjectName;
use crate::store::Store;

pub use lexical::{LexicalSignal, RANKING_WINDOW, window_for};
pub use pipeline::Searcher;

/// The independent rankers that feed fusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalKind {
    Lexical,
    Fuzzy,
    Semantic,
}

impl fmt::Display for SignalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignalKind::Lexical => "lexical",
            SignalKind::Fuzzy => "fuzzy",
            SignalKind::Semantic => "semantic",
        })
    }
}

/// What one signal found: its hits, best first, the words it matched (for highlighting), and
/// the words typed bare that are in no memory at all (likely typos; the lexical signal knows).
#[derive(Debug, Clone, PartialEq)]
pub struct SignalRanking {
    pub kind: SignalKind,
    pub hits: Vec<SignalHit>,
    pub matched_words: Vec<String>,
    pub unknown_words: Vec<String>,
}

impl SignalRanking {
    /// A ranking of `hits`, all of them kept.
    pub fn of(kind: SignalKind, hits: Vec<SignalHit>) -> Self {
        SignalRanking {
            kind,
            hits,
            matched_words: Vec::new(),
            unknown_words: Vec::new(),
        }
    }
}

/// What every signal of one search is given.
pub struct SignalInput<'a> {
    pub store: &'a dyn Store,
    pub query: &'a SearchQuery,
    pub filter: &'a MemoryFilter,
    pub now: Timestamp,
    /// How many hits the page needs (offset + limit).
    pub depth: usize,
    /// What the signals that ran before this one found, in order.
    pub earlier: &'a [SignalRanking],
}

/// A ranker. The pipeline runs a list of them in order and fuses what they found, so a new
/// signal plugs in by joining the list.
pub trait Signal {
    fn kind(&self) -> SignalKind;

    /// At most `input.depth` hits, best first, never a memory the filter excludes; `None` when
    /// the signal does not run for this search (fuzzy, when every word is in some memory).
    fn rank(&self, input: &SignalInput<'_>) -> Result<Option<SignalRanking>>;
}

/// When the fuzzy signal runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FuzzyMode {
    /// For the words of the query no memory holds (typos), each within a typo's edit budget.
    #[default]
    Auto,
    /// Always, beside exact search (`--fuzzy`).
    Always,
    /// Never (`--no-fuzzy`).
    Never,
}

/// Which signals a search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Keywords (BM25), with near-spellings when they find little.
    Lexical,
    /// Typo-tolerant words alone.
    Fuzzy,
    /// Meaning alone (needs an embedding model).
    Semantic,
    /// Keywords, near-spellings and meaning, fused. The default when a model is present.
    Hybrid,
}

impl SearchMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Lexical => "lexical",
            SearchMode::Fuzzy => "fuzzy",
            SearchMode::Semantic => "semantic",
            SearchMode::Hybrid => "hybrid",
        }
    }

    /// Whether this mode needs an embedding model.
    pub fn is_semantic(self) -> bool {
        matches!(self, SearchMode::Semantic | SearchMode::Hybrid)
    }
}

impl fmt::Display for SearchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A search as adapters ask for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub filter: MemoryFilter,
    pub limit: usize,
    pub offset: usize,
    /// Make an implicit AND exact: only memories holding every item.
    pub strict: bool,
    pub fuzzy: FuzzyMode,
    /// Fuzzy similarity threshold (0–1); `search.fuzzy_threshold` when unset.
    pub threshold: Option<f64>,
    /// Which signals run; unset means hybrid when a model is present, else lexical.
    pub mode: Option<SearchMode>,
    /// The project the search is made from: its memories rank first among comparable hits
    /// (`search.project_weight`). Unset, it is the filter's project, if the filter names one.
    pub from_project: Option<ProjectName>,
}

impl SearchRequest {
    /// A request with the defaults: first page of `limit`, soft query, automatic fuzzy.
    pub fn new(query: impl Into<String>, filter: MemoryFilter, limit: usize) -> Self {
        SearchRequest {
            query: query.into(),
            filter,
            limit,
            offset: 0,
            strict: false,
            fuzzy: FuzzyMode::Auto,
            threshold: None,
            mode: None,
            from_project: None,
        }
    }
}

/// How one signal saw a result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignalScore {
    pub signal: SignalKind,
    /// 1-based rank within that signal.
    pub rank: usize,
    /// The signal's own score (BM25 for lexical, similarity for fuzzy and semantic; higher is
    /// better).
    pub raw: f64,
    /// Lexical, fused with another signal: the share (0–1) of the query's words the memory
    /// holds, which weighs the vote (see [`fusion`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<f64>,
}

/// The small boosts added to a fused score, in units of one first place (see
/// [`fusion`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Boosts {
    pub recency: f64,
    pub importance: f64,
    /// For a memory of the project the search is made from.
    pub project: f64,
}

impl Boosts {
    /// Every boost together.
    pub fn total(&self) -> f64 {
        self.recency + self.importance + self.project
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub memory: Memory,
    /// The final score: fused signals plus boosts (higher is better).
    pub score: f64,
    pub signals: Vec<SignalScore>,
    pub boosts: Boosts,
    /// What the memory's relations say (`supersedes: #… (…)` …; see
    /// [`crate::relation::annotation`]).
    pub annotations: Vec<Annotation>,
    /// The images the memory shows (the service adds them to a page of results).
    pub images: Vec<Image>,
}

impl SearchHit {
    /// Whether only the fuzzy signal found this memory (by a near-spelling of a query word).
    pub fn near_spelling_only(&self) -> bool {
        self.signals.iter().all(|s| s.signal == SignalKind::Fuzzy)
    }
}

/// A page of results and the words they were matched on (query words and fuzzy alternatives).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub matched_words: Vec<String>,
    /// The mode that ran.
    pub mode: Option<SearchMode>,
    /// Things the user should know about this search (e.g. the store's vectors come from another
    /// model, so meaning was not used), for adapters to show.
    pub notices: Vec<String>,
}
