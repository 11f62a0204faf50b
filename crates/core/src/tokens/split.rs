//! The pre-tokenizer: `cl100k_base` first cuts text into pieces (a word with its leading
//! space, up to three digits, a run of punctuation, white space) and merges bytes only inside a
//! piece. Its definition is a regular expression,
//!
//! ```text
//! (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} | ␠?[^\s\p{L}\p{N}]+[\r\n]*
//!   | \s*[\r\n]+ | \s+(?!\S) | \s+
//! ```
//!
//! taken leftmost-first at each position. Here it is a hand-written scanner over the same
//! Unicode classes (laid out by the build script from regex-syntax's tables): no pattern to
//! compile, and the look-ahead the `regex` crate lacks is one comparison.

/// What the pattern distinguishes a character by.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Class {
    /// `\p{L}`.
    Letter,
    /// `\p{N}`.
    Number,
    /// `\r` or `\n` (white space the pattern names).
    LineBreak,
    /// Any other `\s`.
    Space,
    /// Everything else: punctuation, symbols, marks, controls.
    Other,
}

include!(concat!(env!("OUT_DIR"), "/unicode_classes.rs"));

fn class(c: char) -> Class {
    if c.is_ascii() {
        return ASCII[c as usize];
    }
    let c = c as u32;
    match RANGES.binary_search_by(|&(first, _, _)| first.cmp(&c)) {
        Ok(i) => RANGES[i].2,
        Err(0) => Class::Other,
        Err(i) if c <= RANGES[i - 1].1 => RANGES[i - 1].2,
        Err(_) => Class::Other,
    }
}

fn is_space(class: Class) -> bool {
    matches!(class, Class::Space | Class::LineBreak)
}

/// The pieces of `text`, in order; together they are the whole text.
pub(super) fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at == text.len() {
            return None;
        }
        let end = at + piece_len(&text[at..]);
        let piece = &text[at..end];
        at = end;
        Some(piece)
    })
}

/// The length in bytes of the piece that starts `rest` (not empty).
fn piece_len(rest: &str) -> usize {
    let mut chars = rest.chars();
    let first = chars.next().expect("a piece starts at a character");
    let second = chars.next();
    let (first_class, second_class) = (class(first), second.map(class));
    let after_first = first.len_utf8();
    // 's 't 're 've 'm 'll 'd, in any case.
    if first == '\''
        && let Some(len) = contraction(&rest[1..])
    {
        return 1 + len;
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if first_class == Class::Letter {
        return run(rest, 0, 0, |c| c == Class::Letter);
    }
    if matches!(first_class, Class::Space | Class::Other) && second_class == Some(Class::Letter) {
        return run(rest, after_first, 0, |c| c == Class::Letter);
    }
    // \p{N}{1,3}
    if first_class == Class::Number {
        return run(rest, 0, 3, |c| c == Class::Number);
    }
    // ␠?[^\s\p{L}\p{N}]+[\r\n]*
    let symbols = if first == ' ' { after_first } else { 0 };
    if rest[symbols..].chars().next().map(class) == Some(Class::Other) {
        let end = run(rest, symbols, 0, |c| c == Class::Other);
        return run(rest, end, 0, |c| c == Class::LineBreak);
    }
    // White space: up to its last line break; else all of it at the end of the text; else all
    // but its last character, which goes with the word after it; else its one character.
    let spaces = run(rest, 0, 0, is_space);
    let last_break = rest[..spaces].rfind(['\r', '\n']);
    if let Some(at) = last_break {
        return at + 1;
    }
    if spaces == rest.len() {
        return spaces;
    }
    let last = rest[..spaces]
        .chars()
        .next_back()
        .expect("at least one space");
    if spaces > last.len_utf8() {
        spaces - last.len_utf8()
    } else {
        spaces
    }
}

/// The end of the run of characters of the classes `keep` accepts from byte `from` (at most
/// `limit` of them; 0 for no limit).
fn run(rest: &str, from: usize, limit: usize, keep: impl Fn(Class) -> bool) -> usize {
    let mut end = from;
    for (taken, c) in rest[from..].chars().enumerate() {
        if (limit != 0 && taken == limit) || !keep(class(c)) {
            break;
        }
        end += c.len_utf8();
    }
    end
}

/// The length of the contraction suffix (`s`, `re`, …, any case) that starts `rest`.
fn contraction(rest: &str) -> Option<usize> {
    let mut chars = rest.chars().map(|c| c.to_ascii_lowercase());
    match (chars.next()?, chars.next()) {
        // Case folding makes `ſ` (long s) an `s`.
        ('s' | 't' | 'm' | 'd', _) => Some(1),
        ('ſ', _) => Some('ſ'.len_utf8()),
        ('r', Some('e')) | ('v', Some('e')) | ('l', Some('l')) => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        pieces(text).collect()
    }

    #[test]
    fn pieces_follow_the_pattern() {
        assert_eq!(split("Hello world"), ["Hello", " world"]);
        assert_eq!(split("it's 12345!"), ["it", "'s", " ", "123", "45", "!"]);
        assert_eq!(split("a  b"), ["a", " ", " b"]);
        assert_eq!(split("x \n\n  y  "), ["x", " \n\n", " ", " y", "  "]);
        assert_eq!(split("fn(x) {"), ["fn", "(x", ")", " {"]);
        assert_eq!(split("??ok"), ["??", "ok"]);
        assert_eq!(split("WE'LL"), ["WE", "'LL"]);
        assert_eq!(split("über 中文"), ["über", " 中文"]);
    }

    #[test]
    fn classes_come_from_the_unicode_tables() {
        assert_eq!(class('a'), Class::Letter);
        assert_eq!(class('é'), Class::Letter);
        assert_eq!(class('中'), Class::Letter);
        assert_eq!(class('٣'), Class::Number);
        assert_eq!(class('\n'), Class::LineBreak);
        assert_eq!(class('\u{a0}'), Class::Space);
        assert_eq!(class('\u{3000}'), Class::Space);
        assert_eq!(class('-'), Class::Other);
        assert_eq!(class('😀'), Class::Other);
    }
}
