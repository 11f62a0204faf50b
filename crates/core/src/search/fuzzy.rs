//! Typo tolerance: `dokcer` finds docker, `kuberntes` finds kubernetes.
//!
//! For each word typed bare (three characters or more; quoted phrases and prefixes ask for
//! exactness and are left alone), the store's trigram index proposes
//! vocabulary words sharing letter triples with it; each is re-scored by normalised Indel
//! similarity (`1 − (insertions + deletions) / (len a + len b)`, rapidfuzz's `ratio`), and those at
//! or above the threshold become the alternatives searched for. The search itself is an ordinary
//! full-text query over the alternatives, under the same filter as every signal, so a forgotten
//! or expired memory can never come back this way.

use rapidfuzz::distance::indel;

use crate::error::Result;
use crate::query::{Match, SearchQuery};
use crate::search::{Signal, SignalInput, SignalKind, SignalRanking};
use crate::store::Store;

/// Vocabulary candidates fetched per query word before re-scoring.
const CANDIDATES_PER_WORD: usize = 40;
/// Alternatives kept per query word, the most alike first.
const ALTERNATIVES_PER_WORD: usize = 5;

/// The fuzzy signal: its similarity threshold (0–1) and when it runs.
pub struct FuzzySignal {
    pub threshold: f64,
    pub when: FuzzyWhen,
}

/// When the fuzzy signal runs, and on which words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuzzyWhen {
    /// On every word typed bare (`--fuzzy`, or fuzzy mode).
    Always,
    /// On every word typed bare when exact search found fewer than `min_results` memories;
    /// else only on the words found in no memory at all (a word the store holds is no typo);
    /// else not at all.
    Auto { min_results: usize },
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

/// The vocabulary words within `threshold` of each query word (the words themselves excluded).
pub fn alternatives(
    store: &dyn Store,
    query: &SearchQuery,
    words: &FuzzyWords,
    threshold: f64,
) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let terms = match words {
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
            .filter(|(score, _)| *score >= threshold)
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

impl FuzzySignal {
    /// The words to look for near-spellings of, given what exact search found; `None` when the
    /// signal does not run.
    fn words(&self, earlier: &[SignalRanking]) -> Option<FuzzyWords> {
        let FuzzyWhen::Auto { min_results } = self.when else {
            return Some(FuzzyWords::AllBare);
        };
        let exact = earlier.iter().find(|r| r.kind == SignalKind::Lexical);
        match exact {
            Some(exact) if exact.found >= min_results => (!exact.unknown_words.is_empty())
                .then(|| FuzzyWords::Only(exact.unknown_words.clone())),
            _ => Some(FuzzyWords::AllBare),
        }
    }
}

impl Signal for FuzzySignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Fuzzy
    }

    fn rank(&self, input: &SignalInput<'_>) -> Result<Option<SignalRanking>> {
        let Some(words) = self.words(input.earlier) else {
            return Ok(None);
        };
        let words = alternatives(input.store, input.query, &words, self.threshold)?;
        if words.is_empty() {
            return Ok(Some(SignalRanking::of(SignalKind::Fuzzy, Vec::new())));
        }
        let expression = Match::Any(words.iter().cloned().map(Match::Term).collect());
        let hits = input.store.lexical(
            &expression,
            input.filter,
            input.now,
            input.depth,
            crate::search::window_for(&expression),
        )?;
        Ok(Some(SignalRanking {
            matched_words: words,
            ..SignalRanking::of(SignalKind::Fuzzy, hits)
        }))
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
