//! A source file read as code: comments gone, string and character literals emptied, and every
//! item under `#[cfg(test)]` (a unit-test module, a test-only `use` or function) left out —
//! wherever it sits in the file, so what follows it (a `lib.rs`'s re-exports, say) still counts.

/// The code of `text` that builds into the product, with comments and literal contents blanked.
pub fn product_code(text: &str) -> String {
    without_test_items(&blank(text))
}

/// `text` without comments, with the contents of string and character literals removed (the
/// quotes stay), so braces, `//` and `crate::` inside them mean nothing.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while at < chars.len() && chars[at] != '\n' {
                    at += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while at < chars.len() {
                    if chars[at] == '/' && chars.get(at + 1) == Some(&'*') {
                        depth += 1;
                        at += 2;
                    } else if chars[at] == '*' && chars.get(at + 1) == Some(&'/') {
                        depth -= 1;
                        at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        at += 1;
                    }
                }
                out.push(' ');
            }
            'r' | 'b' if raw_string_start(&chars, at).is_some() => {
                let (hashes, open) = raw_string_start(&chars, at).expect("checked");
                at = open + 1;
                let mut closed = false;
                while at < chars.len() && !closed {
                    if chars[at] == '"' && (1..=hashes).all(|n| chars.get(at + n) == Some(&'#')) {
                        closed = true;
                        at += hashes;
                    }
                    at += 1;
                }
                out.push_str("\"\"");
                continue;
            }
            '"' => {
                at += 1;
                while at < chars.len() && chars[at] != '"' {
                    at += if chars[at] == '\\' { 2 } else { 1 };
                }
                at += 1;
                out.push_str("\"\"");
                continue;
            }
            '\'' if next == Some('\\') => {
                // The quote, the backslash and the escaped character (itself a quote in '\''),
                // then whatever else the escape holds (`\u{…}`, `\x41`) up to the closing quote.
                at += 3;
                while at < chars.len() && chars[at] != '\'' {
                    at += 1;
                }
                at += 1;
                out.push_str("' '");
                continue;
            }
            '\'' if chars.get(at + 2) == Some(&'\'') => {
                at += 3;
                out.push_str("' '");
                continue;
            }
            _ => {
                // An identifier ending in r or b (`for"`, never valid Rust) is not a literal's
                // prefix: only a prefix at the start of a token is.
                out.push(c);
                at += 1;
                continue;
            }
        }
        if at < chars.len() && chars[at] == '\n' {
            out.push('\n');
            at += 1;
        }
    }
    out
}

/// Where a raw (or byte) string starts at `at`: its number of `#`s and the position of its
/// opening quote; `None` when `at` is no raw string's prefix (an identifier like `br` or `r`).
fn raw_string_start(chars: &[char], at: usize) -> Option<(usize, usize)> {
    if at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_') {
        return None;
    }
    let mut pos = at;
    if chars[pos] == 'b' {
        // `b"…"` is an ordinary string with a prefix; only `br"…"` is raw.
        pos += 1;
    }
    if chars.get(pos) != Some(&'r') {
        return None;
    }
    pos += 1;
    let mut hashes = 0;
    while chars.get(pos) == Some(&'#') {
        hashes += 1;
        pos += 1;
    }
    (chars.get(pos) == Some(&'"')).then_some((hashes, pos))
}

/// `code` without each item `#[cfg(test)]` marks: the attribute, any attributes after it, and
/// the item up to its `;` or through its braces.
fn without_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut rest = 0;
    while let Some(found) = code[rest..].find(MARK) {
        let start = rest + found;
        out.push_str(&code[rest..start]);
        let mut at = start + MARK.len();
        let mut depth = 0usize;
        while at < bytes.len() {
            match bytes[at] {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        at += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    at += 1;
                    break;
                }
                _ => {}
            }
            at += 1;
        }
        rest = at.min(bytes.len());
    }
    out.push_str(&code[rest..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_literals_are_blanked() {
        let code = blank("let a = \"crate::x // }\"; // crate::y\n/* crate::z */ let b = '{';");
        assert!(!code.contains("crate::"), "{code}");
        assert!(!code.contains('}') && !code.contains('{'), "{code}");
        let raw = blank("let s = r#\"crate::q \"{\"#; let t = crate::kept;");
        assert_eq!(raw.matches("crate::").count(), 1, "{raw}");
        assert!(raw.contains("crate::kept"));
    }

    #[test]
    fn an_escaped_quote_ends_its_character_literal() {
        let code = blank("let q = '\\''; let b = '{'; crate::after(q, b);");
        assert!(code.contains("crate::after"), "{code}");
        assert!(!code.contains('{'), "{code}");
        assert_eq!(
            code.matches('\'').count(),
            4,
            "two literals, blanked: {code}"
        );
    }

    #[test]
    fn a_lifetime_is_not_a_character() {
        let code = blank("fn f<'a>(x: &'a str) -> &'a str { crate::g(x) }");
        assert!(code.contains("crate::g"), "{code}");
    }

    #[test]
    fn a_test_item_goes_and_what_follows_it_stays() {
        let code = product_code(
            "pub mod a;\n#[cfg(test)]\nmod tests { fn f() { if x { crate::t(); } } }\npub use a::Thing;\n\
             #[cfg(test)]\nuse crate::only_for_tests;\npub use crate::b::Other;",
        );
        assert!(
            !code.contains("crate::t") && !code.contains("only_for_tests"),
            "{code}"
        );
        assert!(
            code.contains("pub use a::Thing;") && code.contains("crate::b::Other"),
            "{code}"
        );
    }
}
