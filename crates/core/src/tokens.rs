//! Token budgets for agents: how much output fits in a context window.
//!
//! [`estimate`] approximates the tokens a model's tokenizer would count — about four characters
//! per token for English text and code, never fewer than the number of words and punctuation
//! marks. It errs on the high side, so a budget is not overrun. (A real tokenizer replaces this
//! when context packing needs exact counts.)

/// Estimated tokens in `text`.
pub fn estimate(text: &str) -> usize {
    let chars = text.chars().count();
    let pieces = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count()
        + text.chars().filter(|c| c.is_ascii_punctuation()).count();
    chars.div_ceil(4).max(pieces)
}

/// How many of `items`, taken in order, fit in `budget` tokens together.
pub fn fit(items: &[String], budget: usize) -> usize {
    let mut used = 0;
    items
        .iter()
        .take_while(|item| {
            used += estimate(item);
            used <= budget
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_grow_with_text_and_count_punctuation() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abcd"), 1);
        assert_eq!(
            estimate("a b c d e"),
            5,
            "five words are at least five tokens"
        );
        assert!(estimate(&"word ".repeat(100)) >= 100);
        assert_eq!(fit(&["aaaa".into(), "bbbbbbbb".into(), "c".into()], 3), 2);
        assert_eq!(fit(&["a long line that does not fit".into()], 2), 0);
    }
}
