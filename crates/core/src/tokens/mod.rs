//! Token budgets for agents: how much output fits in a context window.
//!
//! Tokens are counted as OpenAI's `cl100k_base` byte-pair tokenizer counts them. No agent's own
//! tokenizer is public for every model, and the counts of modern tokenizers for English text
//! and code are within a few percent of each other, so a budget counted here holds in practice.
//!
//! Counting is two steps, each in its own file: the pre-tokenizer cuts text into pieces
//! (`split.rs`), and byte pairs merge inside each piece by rank (`merge.rs`). The vocabulary is
//! a table the build script lays out in the binary, read in place: a hook process counts its
//! first token as fast as its last (loading the `bpe-openai` crate's tables took about 40 ms, most
//! of what a SessionStart hook cost). The unit tests hold every count equal to that crate's.

mod merge;
mod slot_hash;
mod split;

/// Tokens in `text`.
pub fn count(text: &str) -> usize {
    split::pieces(text)
        .map(|piece| merge::count(piece.as_bytes()))
        .sum()
}

/// How many of `items`, taken in order, fit in `budget` tokens together.
pub fn fit(items: &[String], budget: usize) -> usize {
    let mut used = 0;
    items
        .iter()
        .take_while(|item| {
            used += count(item);
            used <= budget
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_those_of_the_cl100k_tokenizer() {
        assert_eq!(count(""), 0);
        // Common words are one token each, with their leading space.
        assert_eq!(count("hello world"), 2);
        assert_eq!(count("The quick brown fox"), 4);
        // Rare strings split into several tokens: more tokens than words.
        assert!(count("kuberntes dokcer") > 2);
        assert!(count(&"word ".repeat(100)) >= 100);
    }

    /// Texts of every kind the pre-tokenizer and the merges treat differently.
    fn varied_texts() -> Vec<String> {
        let mut texts: Vec<String> = [
            "Hello world",
            "it's we'll THEY'RE i'M 'ſ 'Ll '",
            "  leading\tand trailing  ",
            "line\r\nbreaks\n\n\n  indented\n",
            "numbers 1 12 123 1234 12345 ٣٤٥ ½",
            "fn main() { println!(\"{x:?}\"); } // ok",
            "über straße café naïve 中文 日本語 한국어",
            "emoji 😀👍🏽 and marks é (e + ́) ᾯ",
            "\u{a0}nbsp\u{2003}em space\u{3000}ideographic",
            "a  b   c    d",
            " \n \r \t",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "ZmxhZyBpcyBub3QgYSB0b2tlbgo9PT09IGJhc2U2NCBibG9iIHdpdGhvdXQgc3BhY2Vz",
            "URL https://example.com/a/b?c=d&e=f#frag, path /usr/local/bin/cairn",
        ]
        .map(String::from)
        .to_vec();
        texts.push(include_str!("../context.rs").to_string());
        texts.push(include_str!("../../../../README.md").to_string());
        texts
    }

    #[test]
    fn counts_equal_the_reference_tokenizer_on_varied_texts() {
        let reference = bpe_openai::cl100k_base();
        for text in varied_texts() {
            assert_eq!(count(&text), reference.count(text.as_str()), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn counts_equal_the_reference_tokenizer(
            text in "([a-zA-Z]{1,12}|[0-9]{1,5}|[ \t\r\n]{1,4}|['!?.,;:(){}<>=_/-]{1,3}|\\p{L}{1,4}|\\p{N}|\\p{M}|\\p{S}|\\p{Z}|\\p{C}|'[sStTdDmMrRvVlLeEſ]{1,2}){0,40}"
        ) {
            proptest::prop_assert_eq!(count(&text), bpe_openai::cl100k_base().count(text.as_str()));
        }
    }

    #[test]
    fn fit_stops_before_the_item_that_overflows() {
        assert_eq!(
            fit(&["hello".into(), "hello world".into(), "x".into()], 3),
            2
        );
        assert_eq!(fit(&["a long line that does not fit".into()], 2), 0);
    }
}
