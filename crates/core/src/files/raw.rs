//! RAW text: what a markdown file holds outside managed units (notes written by hand, a
//! `MEMORY.md`, a stretch that cannot be read as a unit), cut into pieces that are indexed as
//! read-only memories so search and duplicate detection see them.
//!
//! A piece is one or more paragraphs (separated by blank lines) up to [`PIECE_CHARS`]; a
//! heading (`#` at the start of a line) always starts a new piece, so a section is not glued
//! to the one before. A paragraph longer than that is cut at line ends, and a line longer than
//! that at a character boundary. Pieces are trimmed; blank text makes none. A piece is known
//! by the hash of its normalised text, so an unchanged piece keeps its memory across syncs.

use crate::memory::normalise::content_hash;

/// The longest piece, in characters (well under the content limit).
pub const PIECE_CHARS: usize = 2_000;

/// One piece of RAW text and its identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPiece {
    pub text: String,
    pub hash: i64,
}

/// The pieces of `text`, in order.
pub fn pieces(text: &str) -> Vec<RawPiece> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for paragraph in paragraphs(text) {
        let heading = paragraph.starts_with('#');
        let fits = current.chars().count() + 2 + paragraph.chars().count() <= PIECE_CHARS;
        if !current.is_empty() && (heading || !fits) {
            pieces.push(std::mem::take(&mut current));
        }
        for part in cut(paragraph) {
            if !current.is_empty() && current.chars().count() + part.chars().count() > PIECE_CHARS {
                pieces.push(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push_str("\n\n");
            }
            current.push_str(part);
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
        .into_iter()
        .map(|text| RawPiece {
            hash: content_hash(&text),
            text,
        })
        .collect()
}

/// The paragraphs of `text`: runs of non-blank lines, trimmed.
fn paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        match (blank, start) {
            (false, None) => start = Some(at),
            (true, Some(s)) => {
                out.push(text[s..at].trim());
                start = None;
            }
            _ => {}
        }
        at += line.len();
    }
    if let Some(s) = start {
        out.push(text[s..].trim());
    }
    out.retain(|p| !p.is_empty());
    out
}

/// A paragraph in parts of at most [`PIECE_CHARS`]: at line ends, else at characters.
fn cut(paragraph: &str) -> Vec<&str> {
    if paragraph.chars().count() <= PIECE_CHARS {
        return vec![paragraph];
    }
    let mut parts = Vec::new();
    let mut rest = paragraph;
    while rest.chars().count() > PIECE_CHARS {
        let limit = rest
            .char_indices()
            .nth(PIECE_CHARS)
            .map_or(rest.len(), |(i, _)| i);
        let end = match rest[..limit].rfind('\n') {
            Some(newline) if newline > 0 => newline,
            _ => limit,
        };
        parts.push(rest[..end].trim());
        rest = rest[end..].trim_start();
    }
    if !rest.trim().is_empty() {
        parts.push(rest.trim());
    }
    parts.retain(|p| !p.is_empty());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        pieces(text).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn paragraphs_group_and_headings_start_a_piece() {
        let text = "\n\nNotes from the retro.\nMore of it.\n\nSecond paragraph.\n\n# Deploys\n\nFridays only.\n";
        assert_eq!(
            texts(text),
            [
                "Notes from the retro.\nMore of it.\n\nSecond paragraph.",
                "# Deploys\n\nFridays only."
            ]
        );
        assert!(texts(" \n\t\n").is_empty());
    }

    #[test]
    fn long_text_is_cut_under_the_limit_and_nothing_is_lost() {
        let line = "word ".repeat(90);
        let long = vec![line.trim(); 60].join("\n");
        let giant = "x".repeat(PIECE_CHARS * 2 + 5);
        let text = format!("{long}\n\n{giant}");
        let cut = texts(&text);
        assert!(
            cut.iter().all(|p| p.chars().count() <= PIECE_CHARS),
            "{:?}",
            cut.iter().map(|p| p.len()).collect::<Vec<_>>()
        );
        let words: usize = cut.iter().map(|p| p.matches("word").count()).sum();
        assert_eq!(words, 90 * 60);
        let xs: usize = cut.iter().map(|p| p.matches('x').count()).sum();
        assert_eq!(xs, PIECE_CHARS * 2 + 5);
    }

    #[test]
    fn a_piece_is_known_by_its_text() {
        assert_eq!(
            pieces("Same text.")[0].hash,
            pieces("\n  Same text.  \n")[0].hash
        );
        assert_ne!(pieces("Same text.")[0].hash, pieces("Other text.")[0].hash);
    }
}
