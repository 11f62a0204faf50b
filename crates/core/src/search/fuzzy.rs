//! Typo tolerance: `dokcer` finds docker, `kuberntes` finds kubernetes.
//!
//! For each word typed bare (three characters or more; quoted phrases and prefixes ask for
//! exactness and are left alone), the store's trigram index proposes
//! vocabulary words sharing letter triples with it; each is re-scored by normalised Indel
//! similarity (`1 − (insertions + deletions) / (len a + len b)`, rapidfuzz's `ratio`), and those at
//! or above the threshold become the alternatives searched for. The search itself is an ordinary
//! full-text query over the alternatives, under the same filter as every signal, so a forgotten
//! or expired memory can never come back this way.
//!
//! Unasked (a default search), fuzzy search is for typos only: it expands just the words no
//! memory holds (a word the store holds is no typo, however few memories exact search found),
//! and an alternative must also lie within a typo's [`edit_budget`] — one edit up to five
//! letters, two beyond, a swap of neighbours counting as one — so `package` never becomes `page`
//! nor `resolved` `resolver`… unless `resolved` is in no memory. Asked for (`--fuzzy`, fuzzy
//! mode), it expands every bare word, and the threshold alone decides. Either way a memory found
//! only by a near-spelling ranks below every memory found by a word or by meaning (see the
//! pipeline).

use rapidfuzz::distance::{indel, osa};

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
    /// Only on the words exact search found in no memory at all (a word the store holds is no
    /// typo), each within a typo's [`edit_budget`]; not at all when every word is known.
    Typos,
}

/// Which query words the fuzzy signal expands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuzzyWords {
    /// Every word typed bare, to any alternative at or above the threshold (fuzzy asked for).
    AllBare,
    /// Only these typos (the words found in no memory: a word the store holds is no typo), each
    /// to alternatives within its [`edit_budget`] too.
    Typos(Vec<String>),
}

/// The most edits a typo of `word` holds: one up to five letters, two beyond (an insertion, a
/// deletion, a substitution or a swap of neighbours each count as one).
pub fn edit_budget(word: &str) -> usize {
    if word.chars().count() <= 5 { 1 } else { 2 }
}

/// Whether `candidate` is within a typo's [`edit_budget`] of `word`.
pub fn within_typo(word: &str, candidate: &str) -> bool {
    osa::distance(word.chars(), candidate.chars()) <= edit_budget(word)
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
    let (terms, typos_only) = match words {
        FuzzyWords::AllBare => (query.parsed.bare_terms(), false),
        FuzzyWords::Typos(words) => (words.clone(), true),
    };
    for term in terms {
        if term.chars().count() < 3 || !term.chars().any(char::is_alphabetic) {
            continue;
        }
        let mut scored: Vec<(f64, String)> = store
            .similar_words(&term, CANDIDATES_PER_WORD)?
            .into_iter()
            .filter(|word| *word != term && (!typos_only || within_typo(&term, word)))
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
        if self.when == FuzzyWhen::Always {
            return Some(FuzzyWords::AllBare);
        }
        let exact = earlier.iter().find(|r| r.kind == SignalKind::Lexical)?;
        (!exact.unknown_words.is_empty()).then(|| FuzzyWords::Typos(exact.unknown_words.clone()))
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

    #[test]
    fn a_typo_is_one_edit_up_to_five_letters_and_two_beyond() {
        for (typed, meant) in [
            ("dokcer", "docker"), // a swap of neighbours is one edit
            ("kuberntes", "kubernetes"),
            ("pnmp", "pnpm"),
            ("carg", "cargo"),
            ("postgrse", "postgres"),
            ("resolvd", "resolved"),
        ] {
            assert!(within_typo(typed, meant), "{typed} → {meant}");
        }
        assert!(!within_typo("package", "page"));
        assert!(!within_typo("state", "taste"));
        assert!(!within_typo("list", "listen"));
        assert!(
            within_typo("shared", "shard"),
            "two edits allowed from six letters"
        );
    }
}
