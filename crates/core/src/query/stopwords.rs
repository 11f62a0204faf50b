//! English stop words, dropped from implicit (natural-language) queries so that "how do we
//! deploy the api" searches for `deploy api`. They are kept inside quoted phrases, in explicit
//! boolean expressions, and when a query holds nothing else.

/// Words with no topical meaning: articles, pronouns, auxiliaries, conjunctions, question words,
/// the commonest prepositions (`of`, `about`, …), intensifiers (`just`, `very`), and the fragments contractions and possessives split into
/// (`don't` → `don t`, `Caroline's` → `caroline s`). Negations, quantifiers and spatial or temporal prepositions
/// (`not`, `more`, `over`, `between`, `before`) carry meaning in technical text and are kept.
/// Sorted, so membership is a binary search.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "also",
    "am",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "been",
    "being",
    "but",
    "by",
    "can",
    "could",
    "d",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "ll",
    "m",
    "me",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "our",
    "ours",
    "ourselves",
    "re",
    "really",
    "s",
    "she",
    "should",
    "so",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "ve",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_lowercase() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| *w == w.to_lowercase()));
        assert!(is_stop_word("the") && !is_stop_word("docker"));
    }
}
