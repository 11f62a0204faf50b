//! The vocabulary: every word ever written to a store, the candidates of typo-tolerant search.
//! Both stores keep the same words ([`vocabulary_word`]) and collect a transaction's new ones in
//! a [`WordSink`], which each writes before its commit.

use super::word_spans;

/// Whether `span` (one of [`word_spans`]) belongs in a store's vocabulary, the candidates of
/// typo-tolerant search: 3 to 40 characters, at least one a letter. When it does, `word` is
/// set to its lowercased form (reusing the buffer: every word of every write passes here).
pub fn vocabulary_word(span: &str, word: &mut String) -> bool {
    if !(3..=160).contains(&span.len()) {
        return false;
    }
    word.clear();
    if span.is_ascii() {
        // One byte per character: the length is the character count.
        if span.len() > 40 || !span.bytes().any(|b| b.is_ascii_alphabetic()) {
            return false;
        }
        word.push_str(span);
        word.make_ascii_lowercase();
    } else {
        if !(3..=40).contains(&span.chars().count()) || !span.chars().any(char::is_alphabetic) {
            return false;
        }
        word.extend(span.chars().flat_map(char::to_lowercase));
    }
    true
}

/// A set of vocabulary words. Every word of every write is looked up in it, so it hashes with
/// foldhash (seeded per process) rather than std's slower SipHash.
pub type WordSet = std::collections::HashSet<String, foldhash::fast::RandomState>;

/// Collects the words of text written in a transaction for the vocabulary, skipping words this
/// process already knows are stored (`known`); the store inserts `added` just before the
/// transaction commits, and only once that commit succeeds adds them to what it knows, so a
/// rollback cannot leave the cache claiming a word that is not stored.
pub struct WordSink<'a> {
    pub known: &'a WordSet,
    pub added: WordSet,
}

impl<'a> WordSink<'a> {
    pub fn new(known: &'a WordSet) -> Self {
        WordSink {
            known,
            added: WordSet::default(),
        }
    }

    /// Collects the new vocabulary words of `texts`.
    pub fn remember<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) {
        let mut word = String::new();
        for text in texts {
            for span in word_spans(text) {
                if vocabulary_word(span, &mut word)
                    && !self.known.contains(word.as_str())
                    && !self.added.contains(word.as_str())
                {
                    self.added.insert(word.clone());
                }
            }
        }
    }

    /// The collected words, sorted (sorted inserts keep a B-tree's writes local, which matters
    /// for bulk import).
    pub fn sorted(&self) -> Vec<&str> {
        let mut words: Vec<&str> = self.added.iter().map(String::as_str).collect();
        words.sort_unstable();
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_keeps_lowercased_words_of_three_to_forty_characters_with_a_letter() {
        let known: WordSet = ["known".to_string()].into_iter().collect();
        let mut sink = WordSink::new(&known);
        let long_ascii = "a".repeat(41);
        let longest_ascii = "b".repeat(40);
        let long_unicode = "é".repeat(41);
        sink.remember([
            "Deploy ab KNOWN 12345 x1y",
            long_ascii.as_str(),
            longest_ascii.as_str(),
            long_unicode.as_str(),
            "Ünïcode ÉÉ",
        ]);
        let longest = "b".repeat(40);
        assert_eq!(
            sink.sorted(),
            [longest.as_str(), "deploy", "x1y", "ünïcode"]
        );
    }
}
