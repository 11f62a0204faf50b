//! Candidate detection: which stored memories a new or changed one may contradict, refine or
//! replace.
//!
//! Two memories about the same thing look alike in one of two ways: they share their telling
//! words ("the *event store* is *PostgreSQL*" / "the *event store* moved to MySQL"), or they
//! mean nearly the same while wording it differently ("Use PostgreSQL for the event store" /
//! "Events are persisted in MySQL now"). Detection therefore gathers neighbours both ways, in
//! the memory's own scope and among visible memories only:
//!
//! - by words: the full-text index ranks the memories holding any of its telling words, best
//!   [`LEXICAL_DEPTH`] by BM25. Telling words are its significant words (stop words dropped)
//!   among the first [`LOOKED_UP_WORDS`] that are rare in the store: a word held by more than
//!   [`COMMON_WORD_MATCHES`] memories names no subject, and ranking every memory that holds it
//!   would make a write's cost grow with the store (in a store smaller than that, every word
//!   is rare);
//! - by meaning (when the write has a vector): the [`SEMANTIC_DEPTH`] nearest vectors;
//!
//! then scores every neighbour found either way on both measures: `lexical`, the Dice overlap
//! of the two memories' significant words (lightly stemmed), and `semantic`, the cosine of the
//! two vectors. The score is the larger of the two (alike by meaning or by words, whichever
//! says more; the lexical overlap alone without a model). Session summaries and the RAW text of
//! markdown files are never neighbours ([`can_conflict`]), nor are duplicates (the same
//! normalised content: the write path already answered them).
//!
//! Looking alike only finds and ranks: a neighbour is a candidate when the pair *disagrees*
//! (`relation::disagreement`) and its score reaches the floor ([`MIN_SCORE`], or
//! [`MIN_SCORE_LEXICAL`] by words alone). A memory that only says something changed may
//! replace a fact worded otherwise, so its neighbours count down to [`CHANGE_FLOOR_SHARE`] of
//! the floor, but only near ties of the best of them ([`NEAR_TIE`]): a write usually revises
//! one fact. Best first, at most the configured number.
//!
//! The floors and ratios were chosen once, on the labelled pairs in
//! `crates/bench/data/conflict-pairs.jsonl` and codemem's development rules (`cairn-bench
//! conflicts` prints precision and recall with and without a model, the curve over the floor
//! and the judgments real rules raise).

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;

use crate::embedding::{VectorSpace, dot};
use crate::error::Result;
use crate::files::UnitLocation;
use crate::id::MemoryId;
use crate::memory::normalise::same_content;
use crate::memory::{Memory, MemoryFilter};
use crate::query::stopwords::is_stop_word;
use crate::query::{Match, word_spans};
use crate::relation::disagreement::{Disagreement, Reading, disagreement, stem};
use crate::scope::ScopeFilter;
use crate::session::is_summary;
use crate::store::Store;

/// Full-text neighbours scored per write.
pub const LEXICAL_DEPTH: usize = 10;
/// Nearest vectors scored per write.
pub const SEMANTIC_DEPTH: usize = 10;
/// The most words of a memory looked up in the index (the first significant ones).
pub const LOOKED_UP_WORDS: usize = 12;
/// A word held by more memories than this is too common to tell a subject.
pub const COMMON_WORD_MATCHES: u64 = 100;
/// Ranking the full-text neighbours looks at no more than this many of the most recently
/// written matches, which bounds a write's cost in a large project.
pub const LEXICAL_WINDOW: usize = 2_000;
/// The lowest score of a candidate, with a model.
pub const MIN_SCORE: f64 = 0.32;
/// The lowest score of a candidate found by words alone (no model).
pub const MIN_SCORE_LEXICAL: f64 = 0.25;
/// A memory that only says something changed is a candidate of neighbours scoring at least
/// this share of the floor (its words may differ from what it replaces)…
pub const CHANGE_FLOOR_SHARE: f64 = 0.8;
/// …and of those scoring at least this share of the best such neighbour: a revision usually
/// revises one fact.
pub const NEAR_TIE: f64 = 0.85;

/// A stored memory that looks like the one written, and how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub memory: Memory,
    pub score: f64,
    /// The overlap of significant words, 0–1.
    pub lexical: f64,
    /// The cosine of the two vectors, when both have one.
    pub semantic: Option<f64>,
    /// How it disagrees with the memory written (set on candidates).
    pub disagreement: Option<Disagreement>,
}

/// Finds candidates over one store at one moment.
pub struct Detector<'a> {
    pub store: &'a dyn Store,
    pub now: Timestamp,
    /// The most candidates returned.
    pub max: usize,
    /// The lowest score returned; [`MIN_SCORE`] or [`MIN_SCORE_LEXICAL`] when `None` (the
    /// benchmark lowers it to see the whole precision/recall curve).
    pub floor: Option<f64>,
}

impl Detector<'_> {
    /// The candidates of `memory` (stored or about to be), best first: the [`neighbours`]
    /// that disagree with it (`relation::disagreement`) and reach the floor — or, when the
    /// memory only says something changed, [`CHANGE_FLOOR_SHARE`] of it, and then only near
    /// ties ([`NEAR_TIE`]) of the best such neighbour.
    ///
    /// [`neighbours`]: Detector::neighbours
    pub fn candidates(
        &self,
        memory: &Memory,
        vector: Option<&[f32]>,
        skip: &HashSet<MemoryId>,
    ) -> Result<Vec<Neighbour>> {
        if self.max == 0 || !can_conflict(memory) {
            return Ok(Vec::new());
        }
        let floor = self.floor.unwrap_or(match vector {
            Some(_) => MIN_SCORE,
            None => MIN_SCORE_LEXICAL,
        });
        let mine = Reading::of(memory.title.as_deref(), &memory.content);
        let mut best_change: Option<f64> = None;
        let mut candidates = Vec::new();
        for mut neighbour in self.neighbours(memory, vector, skip)? {
            if neighbour.score < CHANGE_FLOOR_SHARE * floor || candidates.len() == self.max {
                break;
            }
            let theirs = Reading::of(neighbour.memory.title.as_deref(), &neighbour.memory.content);
            let Some(found) = disagreement(&mine, &theirs, neighbour.score >= floor) else {
                continue;
            };
            if found.is_change_only() {
                let best = *best_change.get_or_insert(neighbour.score);
                if neighbour.score < NEAR_TIE * best {
                    continue;
                }
            }
            neighbour.disagreement = Some(found);
            candidates.push(neighbour);
        }
        Ok(candidates)
    }

    /// Every neighbour of `memory` found by words or by meaning, scored, best first: visible
    /// memories of its scope that can conflict with it ([`can_conflict`]) other than itself,
    /// the ids in `skip` and duplicates of it. `vector` is its embedding in the text space,
    /// when it has one.
    pub fn neighbours(
        &self,
        memory: &Memory,
        vector: Option<&[f32]>,
        skip: &HashSet<MemoryId>,
    ) -> Result<Vec<Neighbour>> {
        let filter = MemoryFilter::in_scope(ScopeFilter::only(&memory.scope));
        let words = significant_words(memory.title.as_deref(), &memory.content);
        let mut found: Vec<MemoryId> = Vec::new();
        let query: Vec<Match> = self
            .telling_words(&words)?
            .into_iter()
            .map(Match::Term)
            .collect();
        if !query.is_empty() {
            let hits = self.store.lexical(
                &Match::Any(query),
                &filter,
                self.now,
                LEXICAL_DEPTH + skip.len() + 1,
                LEXICAL_WINDOW,
            )?;
            found.extend(hits.into_iter().map(|h| h.id));
        }
        if let Some(vector) = vector {
            let hits = self.store.nearest(
                VectorSpace::Text,
                vector,
                &filter,
                self.now,
                SEMANTIC_DEPTH + skip.len() + 1,
            )?;
            found.extend(hits.into_iter().map(|h| h.id));
        }
        let mut seen = HashSet::new();
        found.retain(|id| *id != memory.id && !skip.contains(id) && seen.insert(*id));
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let raw: HashSet<MemoryId> = self
            .store
            .locations_of(&found)?
            .into_iter()
            .filter(UnitLocation::is_raw)
            .map(|location| location.id)
            .collect();
        let vectors: HashMap<MemoryId, Vec<f32>> = match vector {
            Some(_) => self
                .store
                .vectors(VectorSpace::Text, &found)?
                .into_iter()
                .collect(),
            None => HashMap::new(),
        };
        let stems = stems(&words);
        let mut neighbours: Vec<Neighbour> = self
            .store
            .get(&found)?
            .into_iter()
            .filter(|other| !raw.contains(&other.id) && can_conflict(other))
            .filter(|other| !same_content(&other.content, &memory.content))
            .map(|other| {
                let theirs = stems_of(other.title.as_deref(), &other.content);
                let lexical = dice(&stems, &theirs);
                let semantic = vector
                    .zip(vectors.get(&other.id))
                    .map(|(a, b)| f64::from(dot(a, b)).clamp(0.0, 1.0));
                // A memory still waiting for its vector has words alone to speak for it.
                let score = semantic.map_or(lexical, |s| s.max(lexical));
                Neighbour {
                    memory: other,
                    score,
                    lexical,
                    semantic,
                    disagreement: None,
                }
            })
            .collect();
        neighbours.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| b.memory.updated_at.cmp(&a.memory.updated_at))
        });
        Ok(neighbours)
    }
}

/// Whether a memory states something a later write could contradict, or could contradict
/// others: not a session's summary (a record of what happened, which a later decision does not
/// make wrong). RAW text of a markdown file is read-only and follows its file; the detector
/// leaves it out by its location (and file syncs never detect).
pub fn can_conflict(memory: &Memory) -> bool {
    !is_summary(memory)
}

impl Detector<'_> {
    /// Of the first significant words, those held by at least one and at most
    /// [`COMMON_WORD_MATCHES`] memories.
    fn telling_words(&self, words: &[String]) -> Result<Vec<String>> {
        let mut telling = Vec::new();
        for word in words.iter().take(LOOKED_UP_WORDS) {
            let term = Match::Term(word.clone());
            let held_by = self.store.match_count(&term, COMMON_WORD_MATCHES + 1)?;
            if (1..=COMMON_WORD_MATCHES).contains(&held_by) {
                telling.push(word.clone());
            }
        }
        Ok(telling)
    }
}

/// The words of a memory that say what it is about: lowercased, unique, in order (title
/// first), without stop words and single characters.
pub fn significant_words(title: Option<&str>, content: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    title
        .into_iter()
        .chain([content])
        .flat_map(word_spans)
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() > 1 && !is_stop_word(w))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

fn stems_of(title: Option<&str>, content: &str) -> HashSet<String> {
    stems(&significant_words(title, content))
}

fn stems(words: &[String]) -> HashSet<String> {
    words.iter().map(|w| stem(w)).collect()
}

/// The Dice coefficient of two sets: 2·|A∩B| / (|A|+|B|).
fn dice(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(b).count();
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_words_drop_stop_words_and_repeat_nothing() {
        assert_eq!(
            significant_words(
                Some("Event store"),
                "The event store is PostgreSQL, a database"
            ),
            vec!["event", "store", "postgresql", "database"]
        );
    }

    #[test]
    fn dice_is_one_for_equal_sets_and_zero_for_disjoint_ones() {
        let a: HashSet<String> = ["x", "y"].map(String::from).into();
        let b: HashSet<String> = ["y", "z"].map(String::from).into();
        assert_eq!(dice(&a, &a), 1.0);
        assert_eq!(dice(&a, &b), 0.5);
        assert_eq!(dice(&a, &HashSet::new()), 0.0);
    }
}
