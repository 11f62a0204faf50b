//! Changing a file's text by its units: replace or remove the stretches of given units, append
//! new ones, copy every other byte as it was.

use std::ops::Range;

/// A change to one unit's stretch of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub span: Range<usize>,
    /// The unit written in its place; `None` removes it with the blank line that follows it.
    pub replacement: Option<String>,
}

/// `source` with `edits` (disjoint spans) applied and `appended` units added at the end, each
/// after a blank line.
pub fn apply(source: &str, mut edits: Vec<Edit>, appended: &[String]) -> String {
    edits.sort_by_key(|e| e.span.start);
    let mut out =
        String::with_capacity(source.len() + appended.iter().map(String::len).sum::<usize>());
    let mut at = 0;
    for edit in edits {
        if edit.span.start < at {
            continue; // overlaps one already applied; spans of distinct units never do
        }
        out.push_str(&source[at..edit.span.start]);
        at = edit.span.end;
        match edit.replacement {
            Some(text) => out.push_str(&text),
            None => {
                let rest = &source[at..];
                if rest.starts_with("\r\n") {
                    at += 2;
                } else if rest.starts_with('\n') {
                    at += 1;
                }
            }
        }
    }
    out.push_str(&source[at..]);
    for unit in appended {
        if !out.is_empty() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.ends_with("\n\n") {
                out.push('\n');
            }
        }
        out.push_str(unit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_edited_stretches_change() {
        let source = "head\n\nAAA\n\nBBB\n\nCCC\ntail";
        let a = 6..10;
        let b = 11..15;
        assert_eq!(&source[a.clone()], "AAA\n");
        assert_eq!(&source[b.clone()], "BBB\n");
        let edits = vec![
            Edit {
                span: b,
                replacement: Some("bb\n".into()),
            },
            Edit {
                span: a,
                replacement: None,
            },
        ];
        assert_eq!(apply(source, edits, &[]), "head\n\nbb\n\nCCC\ntail");
    }

    #[test]
    fn appended_units_follow_a_blank_line() {
        assert_eq!(
            apply("", vec![], &["U1\n".into(), "U2\n".into()]),
            "U1\n\nU2\n"
        );
        assert_eq!(apply("text", vec![], &["U\n".into()]), "text\n\nU\n");
        assert_eq!(apply("text\n\n", vec![], &["U\n".into()]), "text\n\nU\n");
    }
}
