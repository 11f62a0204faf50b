//! Snippets: the part of a memory around the first matched word, with matched words marked.
//!
//! A word of the text counts as matched when it equals a matched word or one starts with the
//! other (at least four letters shared): the index stems words, so `deployment` matches a
//! search for `deploy`. Whitespace is collapsed to single spaces, so a snippet is one line.

/// A run of snippet text, matched or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    pub text: String,
    pub matched: bool,
}

fn matches(word: &str, matched_words: &[String]) -> bool {
    let word = word.to_lowercase();
    matched_words.iter().any(|m| same_word(&word, m))
}

/// Whether a lower-case word of a text is `matched` by the rule above.
fn same_word(word: &str, matched: &str) -> bool {
    matched == word
        || (matched.chars().count() >= 4 && word.starts_with(matched))
        || (word.chars().count() >= 4 && matched.starts_with(word))
}

/// The matched words that occur in `text` (by the rule above), in their order.
pub fn matched_in(text: &str, matched_words: &[String]) -> Vec<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    matched_words
        .iter()
        .filter(|m| words.iter().any(|w| same_word(w, m)))
        .cloned()
        .collect()
}

/// At most about `max_chars` characters of `text` around its first matched word.
pub fn snippet(text: &str, matched_words: &[String], max_chars: usize) -> Vec<Fragment> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<char> = flat.chars().collect();
    // Word spans over char indices.
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in chars.iter().enumerate() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, chars.len()));
    }
    let hit =
        |&(s, e): &(usize, usize)| matches(&chars[s..e].iter().collect::<String>(), matched_words);
    let first = spans.iter().find(|span| hit(span)).map_or(0, |span| span.0);
    let (mut from, mut to) = (0, chars.len());
    if chars.len() > max_chars {
        from = first.saturating_sub(max_chars / 4);
        // Start at a word boundary.
        while from > 0 && chars[from - 1] != ' ' {
            from -= 1;
        }
        to = (from + max_chars).min(chars.len());
        while to < chars.len() && to > from && chars[to - 1] != ' ' {
            to -= 1;
        }
        if to <= from {
            to = (from + max_chars).min(chars.len());
        }
    }
    let mut fragments: Vec<Fragment> = Vec::new();
    let mut push = |text: String, matched: bool| match fragments.last_mut() {
        Some(last) if last.matched == matched => last.text.push_str(&text),
        _ if text.is_empty() => {}
        _ => fragments.push(Fragment { text, matched }),
    };
    if from > 0 {
        push("…".into(), false);
    }
    let mut at = from;
    for span in spans.iter().filter(|(s, e)| *s >= from && *e <= to) {
        push(chars[at..span.0].iter().collect(), false);
        push(chars[span.0..span.1].iter().collect(), hit(span));
        at = span.1;
    }
    push(
        chars[at..to]
            .iter()
            .collect::<String>()
            .trim_end()
            .to_string(),
        false,
    );
    if to < chars.len() {
        push("…".into(), false);
    }
    fragments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str, words: &[&str], max: usize) -> String {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        snippet(text, &words, max)
            .into_iter()
            .map(|f| {
                if f.matched {
                    format!("[{}]", f.text)
                } else {
                    f.text
                }
            })
            .collect()
    }

    #[test]
    fn matched_words_are_marked_including_stemmed_forms() {
        assert_eq!(
            marked(
                "The Deployment failed;\n docker  restarted",
                &["deploy", "docker"],
                200
            ),
            "The [Deployment] failed; [docker] restarted"
        );
        assert_eq!(
            marked("go to the store", &["go"], 200),
            "[go] to the store",
            "short words match only exactly"
        );
        assert_eq!(marked("good things", &["go"], 200), "good things");
    }

    #[test]
    fn long_texts_are_cut_around_the_first_match_at_word_boundaries() {
        let text = format!(
            "{} the needle is here {}",
            "alpha ".repeat(40),
            "omega ".repeat(40)
        );
        let cut = marked(&text, &["needle"], 60);
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert!(cut.contains("[needle]"), "{cut}");
        assert!(
            cut.chars().count() <= 64,
            "{} chars: {cut}",
            cut.chars().count()
        );
        assert!(!cut.contains("alph…") && !cut.contains(" lpha"), "{cut}");
    }
}
