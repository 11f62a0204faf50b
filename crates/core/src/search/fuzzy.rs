//! Typo tolerance: `dokcer` finds docker, `kuberntes` finds kubernetes.
//!
//! For each word typed bare (three characters or more; quoted phrases and prefixes ask for
//! exactness and are left alone), the store's trigram index proposes
//! vocabulary words sharing letter triples with it; each is re-scored by normalised Indel
//! similarity (`1 − (insertions + deletions) / (len a + len b)`, rapidfuzz's `ratio`), and those at
//! or above the threshold become the alternatives searched for. The search itself is an ordinary
//! full-text query over the alternatives, under the same filter as every signal, so a forgotten
//! or expired memory can never come back this way.

use jiff::Timestamp;
use rapidfuzz::distance::indel;

use crate::error::Result;
use crate::memory::MemoryFilter;
use crate::query::{Match, SearchQuery};
use crate::search::{Signal, SignalKind, SignalRanking};
use crate::store::Store;

/// Vocabulary candidates fetched per query word before re-scoring.
const CANDIDATES_PER_WORD: usize = 40;
/// Alternatives kept per query word, the most alike first.
const ALTERNATIVES_PER_WORD: usize = 5;

/// The fuzzy signal: its similarity threshold (0–1) and which query words it looks for
/// near-spellings of.
pub struct FuzzySignal {
    pub threshold: f64,
    pub words: FuzzyWords,
}

/// Which query words the fuzzy signal expands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuzzyWords {
    /// Every word typed bare.
    AllBare,
    /// Only these (the words found in no memory: a word the store holds is no typo).
    Only(Vec<String>),
}

/// Normalised Indel similarity of two words, 0 (nothing shared) to 1 (equal).
pub fn similarity(a: &str, b: &str) -> f64 {
    indel::normalized_similarity(a.chars(), b.chars())
}

impl FuzzySignal {
    /// The vocabulary words close enough to each query word (the words themselves excluded).
    pub fn alternatives(&self, store: &dyn Store, query: &SearchQuery) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        let terms = match &self.words {
            FuzzyWords::AllBare => query.parsed.bare_terms(),
            FuzzyWords::Only(words) => words.clone(),
        };
        for term in terms {
            if term.chars().count() < 3 || !term.chars().any(char::is_alphabetic) {
                continue;
            }
            let mut scored: Vec<(f64, String)> = store
                .similar_words(&term, CANDIDATES_PER_WORD)?
                .into_iter()
                .filter(|word| *word != term)
                .map(|word| (similarity(&term, &word), word))
                .filter(|(score, _)| *score >= self.threshold)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            for (_, word) in scored.into_iter().take(ALTERNATIVES_PER_WORD) {
                if !out.contains(&word) {
                    out.push(word);
                }
            }
        }
        Ok(out)
    }
}

impl Signal for FuzzySignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Fuzzy
    }

    fn rank(
        &self,
        store: &dyn Store,
        query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<SignalRanking> {
        let words = self.alternatives(store, query)?;
        if words.is_empty() {
            return Ok(SignalRanking::default());
        }
        let expression = Match::Any(words.iter().cloned().map(Match::Term).collect());
        let hits = store.lexical(
            &expression,
            filter,
            now,
            depth,
            crate::search::window_for(&expression),
        )?;
        Ok(SignalRanking {
            hits,
            matched_words: words,
            unknown_words: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_rapidfuzz_ratio() {
        assert!((similarity("state", "taste") - 0.8).abs() < 1e-12);
        assert!(similarity("dokcer", "docker") >= 0.8);
        assert!(similarity("kuberntes", "kubernetes") >= 0.8);
        assert!(similarity("postgrse", "postgres") >= 0.8);
        assert!(similarity("banana", "docker") < 0.5);
    }
}
