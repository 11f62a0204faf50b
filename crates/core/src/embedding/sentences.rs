//! Sentence vectors: a memory is as near a query as its nearest sentence.
//!
//! A memory's vector is the mean of its tokens' vectors, so in a memory of several sentences
//! the one that answers a question weighs no more than the others, and its meaning is diluted
//! by theirs. Beside the whole memory's vector the store therefore keeps one vector per sentence
//! of its content, and semantic search scores each memory it found by the best of its whole
//! vector and its sentences' vectors (`search::semantic`, which also says why hybrid search
//! fuses the whole vector). The index still holds one vector per memory: sentences re-score the
//! candidates it finds, they do not find more.
//!
//! - **Which sentences**: those of the content, after the embedded text's first line (the
//!   headline, which repeats the content's opening; see
//!   [`embedding_text`](crate::embedding::embedding_text)). Each line is cut after `.`, `!` or `?`
//!   followed by white space; blank pieces are dropped. A content of one sentence has none (its
//!   sentence is the memory), and at most [`MAX_SENTENCES`] are kept.
//! - **How they are embedded**: by the embedder, pooled over each sentence's tokens from the
//!   same pass that embeds the whole text ("late chunking"), so every sentence is read in its
//!   memory's context and costs no extra pass of the model.
//! - **How they are stored**: [`SentenceVectors`], each vector as one scale and a byte per
//!   dimension (the look vectors' 8-bit form, a quarter of f32's size); scores agree with f32's
//!   within 2·10⁻³.
//!
//! Measured (`cairn-bench locomo`, LoCoMo dev turns as memories; `cairn-bench cranfield`):
//! semantic recall_any@5 0.508 → 0.546 and MRR 0.352 → 0.398 on LoCoMo, MAP 0.4219 → 0.4276 on
//! Cranfield.

use std::ops::Range;

use crate::embedding::dot;
use crate::image::look_vector::{self, Quantised};

/// The most sentences of one memory that get a vector of their own: the model reads at most
/// 256 tokens, which rarely hold more, and the bound keeps a memory's row small whatever its
/// shape (a list of a hundred one-word lines).
pub const MAX_SENTENCES: usize = 16;

/// The byte ranges of the sentences of an embedded text's content (everything after its first
/// line), in order: none when the content has fewer than two.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let Some(newline) = text.find('\n') else {
        return Vec::new();
    };
    let content = newline + 1;
    let (mut spans, mut start) = (Vec::new(), content);
    let mut chars = text[content..].char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        let at = content + offset;
        let ends = match c {
            '\n' => Some(at),
            '.' | '!' | '?' => match chars.peek() {
                Some(&(_, next)) if next.is_whitespace() => Some(at + c.len_utf8()),
                _ => None,
            },
            _ => None,
        };
        if let Some(end) = ends {
            push_trimmed(text, start..end, &mut spans);
            start = end;
        }
    }
    push_trimmed(text, start..text.len(), &mut spans);
    if spans.len() < 2 {
        return Vec::new();
    }
    spans.truncate(MAX_SENTENCES);
    spans
}

/// Adds `range` of `text` without its surrounding white space, unless nothing is left.
fn push_trimmed(text: &str, range: Range<usize>, spans: &mut Vec<Range<usize>>) {
    let piece = &text[range.clone()];
    let leading = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if !trimmed.is_empty() {
        let start = range.start + leading;
        spans.push(start..start + trimmed.len());
    }
}

/// A memory's sentence vectors as stored: one after another, each in the 8-bit form look vectors
/// are stored in ([`Quantised`]: its scale as a little-endian f32, then a signed byte per
/// dimension). Empty when the memory has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SentenceVectors(Vec<u8>);

impl SentenceVectors {
    /// Encodes vectors of one dimension.
    pub fn encode(vectors: &[Vec<f32>]) -> Self {
        SentenceVectors(
            vectors
                .iter()
                .flat_map(|vector| Quantised::of(vector).to_bytes())
                .collect(),
        )
    }

    /// Stored bytes, as [`SentenceVectors::as_bytes`] gave them.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        SentenceVectors(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The highest dot product of `query` (kept in f32) with a sentence vector; `None` when
    /// there is none, or when the bytes are not whole vectors of the query's dimension (a store
    /// written by another model is never compared: its vectors are dropped with the model).
    pub fn best_similarity(&self, query: &[f32]) -> Option<f32> {
        let width = 4 + query.len();
        if query.is_empty() || self.0.is_empty() || !self.0.len().is_multiple_of(width) {
            return None;
        }
        self.0
            .chunks_exact(width)
            .filter_map(|sentence| look_vector::from_bytes(sentence).ok())
            .map(|vector| dot(query, &vector))
            .reduce(f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        sentence_spans(text)
            .into_iter()
            .map(|span| &text[span])
            .collect()
    }

    #[test]
    fn the_contents_sentences_are_cut_at_their_ends_and_lines() {
        let text = "Deploys: use blue-green\nDeploys: use blue-green. The old pool drains first!  \
                    Why? Rollbacks take 2.5 s\n\n- keep v1.2 warm";
        assert_eq!(
            pieces(text),
            [
                "Deploys: use blue-green.",
                "The old pool drains first!",
                "Why?",
                "Rollbacks take 2.5 s",
                "- keep v1.2 warm"
            ]
        );
    }

    #[test]
    fn one_sentence_or_no_content_has_no_sentence_vectors() {
        assert!(pieces("Headline\nJust one sentence here.").is_empty());
        assert!(pieces("Headline only").is_empty());
        assert!(pieces("Headline\n  \n").is_empty());
    }

    #[test]
    fn a_long_list_keeps_its_first_sentences() {
        let text = format!(
            "List\n{}",
            (0..40).map(|i| format!("item {i}\n")).collect::<String>()
        );
        let kept = pieces(&text);
        assert_eq!(kept.len(), MAX_SENTENCES);
        assert_eq!(kept[0], "item 0");
        assert_eq!(kept[MAX_SENTENCES - 1], "item 15");
    }

    #[test]
    fn spans_fall_on_character_boundaries() {
        let text = "Ünïcode\nZürich é tait là. Ça va? Oui… d'accord";
        assert_eq!(
            pieces(text),
            ["Zürich é tait là.", "Ça va?", "Oui… d'accord"]
        );
    }

    fn unit(values: &[f32]) -> Vec<f32> {
        look_vector::normalised(values.to_vec())
    }

    #[test]
    fn the_best_sentence_scores_as_its_f32_vector_does() {
        let dims = 64;
        let vectors: Vec<Vec<f32>> = (0..3)
            .map(|s| {
                unit(
                    &(0..dims)
                        .map(|i| ((i * 7 + s * 13) % 17) as f32 - 8.0)
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let query = unit(
            &(0..dims)
                .map(|i| ((i * 5) % 11) as f32 - 5.0)
                .collect::<Vec<_>>(),
        );
        let exact = vectors
            .iter()
            .map(|v| v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>())
            .fold(f32::MIN, f32::max);
        let stored = SentenceVectors::encode(&vectors);
        assert_eq!(stored.as_bytes().len(), 3 * (4 + dims));
        let best = stored.best_similarity(&query).unwrap();
        assert!((best - exact).abs() < 2e-3, "{best} vs {exact}");
        let restored = SentenceVectors::from_bytes(stored.as_bytes().to_vec());
        assert_eq!(restored.best_similarity(&query), Some(best));
    }

    #[test]
    fn no_vectors_or_another_dimension_give_no_score() {
        let stored = SentenceVectors::encode(&[unit(&[1.0, 2.0, 3.0])]);
        assert_eq!(SentenceVectors::default().best_similarity(&[1.0]), None);
        assert_eq!(stored.best_similarity(&[1.0, 0.0]), None);
        assert!(stored.best_similarity(&[0.0, 0.0, 1.0]).unwrap() > 0.79);
    }
}
