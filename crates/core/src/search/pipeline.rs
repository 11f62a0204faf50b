//! The search pipeline: one query through the signals of its mode, fused into one ranking.
//!
//! [`Searcher::search`] parses the query and runs the signals of the mode as a list, in order,
//! each seeing what the ones before it found: lexical; fuzzy, when asked for or when a word
//! typed is in no memory at all (a typo); semantic, when a model is
//! installed and the store's vectors are that model's (the query is embedded on its own thread
//! while the signals before it run). The memories they found are loaded once; [`Fusion`]
//! merges the rankings (weighing each keyword vote by the share of the query its memory
//! holds), the recency, importance and project boosts are added, and the requested page is
//! cut. A new signal implements
//! [`Signal`] and joins the list; the loop and fusion stay as they are.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;

use crate::clock::Clock;
use crate::config::SearchConfig;
use crate::embedding::model::{Embedder, HOW_TO_ENABLE};
use crate::embedding::space::VectorSpace;
use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::memory::model::Memory;
use crate::memory::validate;
use crate::query::{ParsedQuery, SearchQuery};
use crate::relation::{annotations, successors};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::search::fusion::Fusion;
use crate::search::fuzzy::{FuzzySignal, FuzzyWhen};
use crate::search::lexical::{LexicalSignal, share_held};
use crate::search::semantic::SemanticSignal;
use crate::search::{
    Boosts, FuzzyMode, SearchHit, SearchMode, SearchRequest, SearchResults, Signal, SignalInput,
    SignalKind, SignalRanking,
};
use crate::session::{SUMMARY_TAG, is_summary};
use crate::store::Store;

/// Search over one store, with the settings and the model (when one is installed) it runs with.
pub struct Searcher<'a> {
    store: &'a dyn Store,
    config: &'a SearchConfig,
    embedder: Option<&'a dyn Embedder>,
    clock: &'a Clock,
    fusion: Fusion,
    /// How long a pending judgment annotates its memories (`conflicts.annotate_pending_days`).
    pending_annotates: jiff::SignedDuration,
}

impl<'a> Searcher<'a> {
    pub fn new(
        store: &'a dyn Store,
        config: &'a SearchConfig,
        embedder: Option<&'a dyn Embedder>,
        clock: &'a Clock,
    ) -> Self {
        Searcher {
            store,
            config,
            embedder,
            clock,
            fusion: Fusion::default(),
            pending_annotates: jiff::SignedDuration::from_hours(24 * 14),
        }
    }

    /// Pending judgments annotate their memories for `days` after they were found (0: never).
    pub fn annotating_pending_for(mut self, days: u32) -> Self {
        self.pending_annotates = jiff::SignedDuration::from_hours(24 * i64::from(days));
        self
    }

    /// The mode a search runs in: the one asked for, else hybrid when a model is present and
    /// lexical otherwise. Asking for meaning without a model is an error that says how to get one.
    pub fn search_mode(&self, asked: Option<SearchMode>) -> Result<SearchMode> {
        match (asked, &self.embedder) {
            (Some(mode), None) if mode.is_semantic() => Err(Error::Unavailable {
                what: format!("{mode} search"),
                hint: HOW_TO_ENABLE.into(),
            }),
            (Some(mode), _) => Ok(mode),
            (None, Some(_)) => Ok(SearchMode::Hybrid),
            (None, None) => Ok(SearchMode::Lexical),
        }
    }

    /// Runs the signals of the mode under the filter — lexical; fuzzy when asked for or for the
    /// words no memory holds; semantic when a model is present — fuses their rankings, adds the
    /// recency and importance boosts, ranks memories found only by a near-spelling last, and
    /// returns the requested page.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResults> {
        validate::page(request.limit, request.offset)?;
        let threshold = request.threshold.unwrap_or(self.config.fuzzy_threshold);
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(
                "threshold",
                format!("{threshold} is outside 0..=1"),
            ));
        }
        let mode = self.search_mode(request.mode)?;
        let mut notices = Vec::new();
        // A malformed operator query is an error, except where meaning is searched: its words'
        // meaning still is (a hybrid search says why the words themselves were not).
        let (query, malformed) = match SearchQuery::parse(&request.query, request.strict) {
            Ok(query) => (query, None),
            Err(error) if mode.is_semantic() && self.embedder.is_some() => {
                match SearchQuery::words_only(&request.query) {
                    Ok(query) => (query, Some(error)),
                    Err(_) => return Err(error),
                }
            }
            Err(error) => return Err(error),
        };
        let now = self.clock.timestamp();
        // Fused signals rank deeper than the page (see `fusion`); a lone signal ranks the page.
        let depth = match mode {
            SearchMode::Hybrid => (request.offset + request.limit).max(self.fusion.candidates),
            _ => request.offset + request.limit,
        };
        let store = self.store;
        // The model runs only if its vectors are the store's; otherwise say why meaning is off.
        let embedder = match (mode.is_semantic(), &self.embedder) {
            (true, Some(embedder)) => match self.store.embedding_model(VectorSpace::Text)? {
                Some(stored) if &stored != embedder.identity() => {
                    notices.push(format!(
                        "meaning was not used: this store's vectors come from {stored}, not the \
                         installed {}; reindex its embeddings to use it",
                        embedder.identity()
                    ));
                    None
                }
                _ => Some(embedder),
            },
            _ => None,
        };
        let words_searched = malformed.is_none();
        if let Some(error) = malformed {
            if embedder.is_none() {
                return Err(error);
            }
            if mode == SearchMode::Hybrid {
                notices.push(format!("{error}; only meaning was searched"));
            }
        }
        let found = std::thread::scope(|scope| -> Result<Vec<SignalRanking>> {
            // The signals of the mode, in order; each sees what the ones before it found.
            let mut signals: Vec<Box<dyn Signal>> = Vec::new();
            if words_searched && matches!(mode, SearchMode::Lexical | SearchMode::Hybrid) {
                signals.push(Box::new(LexicalSignal));
            }
            let fuzzy = match (mode, request.fuzzy) {
                _ if !words_searched => None,
                (SearchMode::Semantic, _) => None,
                (SearchMode::Fuzzy, _) | (_, FuzzyMode::Always) => Some(FuzzyWhen::Always),
                (_, FuzzyMode::Never) => None,
                (_, FuzzyMode::Auto) => Some(FuzzyWhen::Typos),
            };
            if let Some(when) = fuzzy {
                signals.push(Box::new(FuzzySignal { threshold, when }));
            }
            if let Some(embedder) = embedder {
                // Embedding the query is the slowest step: it runs beside the signals before.
                let (sender, query_vector) = std::sync::mpsc::channel();
                let text = query.text.as_str();
                scope.spawn(move || {
                    // A model that panics fails this search with an error, not the process.
                    let embedded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        embedder.embed(&[text])
                    }))
                    .unwrap_or_else(|_| {
                        Err(Error::Model {
                            message: "the model failed while embedding the query".into(),
                        })
                    });
                    let _ = sender.send(embedded.map(|mut v| v.pop().unwrap_or_default()));
                });
                signals.push(Box::new(SemanticSignal {
                    query_vector,
                    min_similarity: self.config.semantic_min_similarity,
                    by_sentence: mode == SearchMode::Semantic,
                }));
            }
            let mut found: Vec<SignalRanking> = Vec::new();
            for signal in &signals {
                let input = SignalInput {
                    store,
                    query: &query,
                    filter: &request.filter,
                    now,
                    depth,
                    earlier: &found,
                };
                if let Some(ranking) = signal.rank(&input)? {
                    found.push(ranking);
                }
            }
            Ok(found)
        })?;
        let mut matched_words: Vec<String> = found
            .iter()
            .flat_map(|ranking| ranking.matched_words.iter().cloned())
            .collect();
        // Every candidate is loaded once: lexical's votes are weighed by how much of the query
        // each memory holds, and the page is built from them.
        let mut candidates: Vec<MemoryId> = Vec::new();
        let mut seen_ids = HashSet::new();
        for ranking in &found {
            for hit in &ranking.hits {
                if seen_ids.insert(hit.id) {
                    candidates.push(hit.id);
                }
            }
        }
        let mut loaded: HashMap<MemoryId, Memory> = self
            .store
            .get(&candidates)?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        // A natural-language query's words are weighed by how many a memory holds; a strict
        // query's every hit holds what it asks for.
        let held: HashMap<MemoryId, f64> = match (&query.parsed, found.len() > 1) {
            (ParsedQuery::Soft { .. }, true) => {
                let terms = query.parsed.positive_terms();
                loaded
                    .values()
                    .map(|memory| (memory.id, share_held(memory, &terms)))
                    .collect()
            }
            _ => HashMap::new(),
        };
        let fused = self.fusion.fuse(
            found
                .into_iter()
                .map(|ranking| (ranking.kind, self.weight(ranking.kind), ranking.hits))
                .collect(),
            &held,
        );
        let home = request
            .from_project
            .as_ref()
            .or(match &request.filter.scope {
                ScopeFilter::ProjectAndGlobal(project) => Some(project),
                _ => None,
            });
        let summaries_asked = request
            .filter
            .tags_all
            .iter()
            .chain(&request.filter.tags_any)
            .any(|tag| tag.as_str() == SUMMARY_TAG);
        let mut hits: Vec<SearchHit> = fused
            .into_iter()
            .filter_map(|fused| {
                let memory = loaded.remove(&fused.id)?;
                let boosts = self.boosts(&memory, now, home);
                let score = fused.score + boosts.total() * self.fusion.first_place();
                Some(SearchHit {
                    memory,
                    score,
                    signals: fused.signals,
                    boosts,
                    annotations: Vec::new(),
                    images: Vec::new(),
                })
            })
            .collect();
        // A memory found only by a near-spelling ranks below any found by a word or by meaning.
        // Hits found only by near spelling come last, and session summaries after what agents
        // and people wrote, unless the search asks for summaries.
        let summary_last = |hit: &SearchHit| !summaries_asked && is_summary(&hit.memory);
        hits.sort_by(|a, b| {
            a.near_spelling_only()
                .cmp(&b.near_spelling_only())
                .then_with(|| summary_last(a).cmp(&summary_last(b)))
                .then_with(|| b.score.total_cmp(&a.score))
        });
        let pending_since = now - self.pending_annotates;
        let hits = annotate(self.store, hits, now, pending_since)?;
        let hits = hits
            .into_iter()
            .skip(request.offset)
            .take(request.limit)
            .collect();
        let mut seen = std::collections::HashSet::new();
        matched_words.retain(|word| seen.insert(word.clone()));
        Ok(SearchResults {
            hits,
            matched_words,
            mode: Some(mode),
            notices,
        })
    }

    /// How much a signal's vote counts in fusion.
    fn weight(&self, kind: SignalKind) -> f64 {
        match kind {
            SignalKind::Lexical => self.config.lexical_weight,
            SignalKind::Fuzzy => self.config.fuzzy_weight,
            SignalKind::Semantic => self.config.semantic_weight,
        }
    }

    /// The recency, importance and project boosts of a memory, in first places (see `fusion`);
    /// `home` is the project the search is made from.
    fn boosts(&self, memory: &Memory, now: Timestamp, home: Option<&ProjectName>) -> Boosts {
        let age_days = (now.as_millisecond() - memory.updated_at.as_millisecond()).max(0) as f64
            / 86_400_000.0;
        let half_life = self.config.recency_half_life_days.max(f64::MIN_POSITIVE);
        Boosts {
            recency: self.config.recency_weight * 0.5f64.powf(age_days / half_life),
            importance: self.config.importance_weight * (f64::from(memory.importance.get()) - 3.0)
                / 2.0,
            project: match (&memory.scope, home) {
                (Scope::Project(project), Some(home)) if project == home => {
                    self.config.project_weight
                }
                _ => 0.0,
            },
        }
    }
}

/// Gives every hit its annotations (one read for all of them) and moves each superseded hit
/// to just below its successor when both were found: a superseded memory never ranks above the
/// memory that replaced it, and it is never dropped.
/// A pending judgment found before `pending_since` no longer annotates.
fn annotate(
    store: &dyn Store,
    hits: Vec<SearchHit>,
    now: Timestamp,
    pending_since: Timestamp,
) -> Result<Vec<SearchHit>> {
    let ids: Vec<MemoryId> = hits.iter().map(|h| h.memory.id).collect();
    let mut relations = store.relations_of(&ids, now)?;
    relations.retain(|v| v.relation.verdict.is_some() || v.relation.created_at > pending_since);
    if relations.is_empty() {
        return Ok(hits);
    }
    let mut lines = annotations(&ids, &relations);
    let found: HashSet<MemoryId> = ids.iter().copied().collect();
    // Each superseded hit waits for the first of its successors that was found.
    let mut waiting: HashMap<MemoryId, Vec<SearchHit>> = HashMap::new();
    let mut ordered: Vec<SearchHit> = Vec::with_capacity(hits.len());
    let mut placed: HashSet<MemoryId> = HashSet::new();
    for mut hit in hits {
        hit.annotations = lines.remove(&hit.memory.id).unwrap_or_default();
        let successor = successors(&hit.memory.id, &relations)
            .into_iter()
            .find(|s| found.contains(s) && !placed.contains(s));
        match successor {
            Some(successor) => waiting.entry(successor).or_default().push(hit),
            None => place(hit, &mut ordered, &mut placed, &mut waiting),
        }
    }
    // A cycle of supersession (a data error) must not lose hits.
    let mut left: Vec<SearchHit> = waiting.into_values().flatten().collect();
    left.sort_by(|a, b| b.score.total_cmp(&a.score));
    ordered.extend(left);
    Ok(ordered)
}

/// Places `hit`, then whatever waited for it, recursively.
fn place(
    hit: SearchHit,
    ordered: &mut Vec<SearchHit>,
    placed: &mut HashSet<MemoryId>,
    waiting: &mut HashMap<MemoryId, Vec<SearchHit>>,
) {
    let id = hit.memory.id;
    ordered.push(hit);
    placed.insert(id);
    for follower in waiting.remove(&id).unwrap_or_default() {
        place(follower, ordered, placed, waiting);
    }
}
