//! Token budgets for agents: how much output fits in a context window.
//!
//! Tokens are counted with a real byte-pair tokenizer, OpenAI's `cl100k_base` (through the
//! `bpe-openai` crate, which ships its tables). No agent's own tokenizer is public for every
//! model, and the counts of modern tokenizers for English text and code are within a few percent
//! of each other, so a budget counted here holds in practice. The tables load once per process,
//! on first use: about 40 ms on a 2-core machine, most of what a SessionStart hook costs, so
//! the context starts loading them on another thread ([`load_in_background`]) before it reads
//! the store.

use std::sync::LazyLock;

static TOKENIZER: LazyLock<&'static bpe_openai::Tokenizer> = LazyLock::new(bpe_openai::cl100k_base);

/// Tokens in `text`.
pub fn count(text: &str) -> usize {
    TOKENIZER.count(text)
}

/// Starts loading the tables on another thread, unless they are loaded or loading: a caller
/// with other work to do first (reading the store) counts without waiting for them.
pub fn load_in_background() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| {
            LazyLock::force(&TOKENIZER);
        });
    });
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

    #[test]
    fn fit_stops_before_the_item_that_overflows() {
        assert_eq!(
            fit(&["hello".into(), "hello world".into(), "x".into()], 3),
            2
        );
        assert_eq!(fit(&["a long line that does not fit".into()], 2), 0);
    }
}
