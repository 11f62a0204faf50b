//! Semantic search's contract with a text embedder, and what a vector is.
//!
//! An [`Embedder`] turns texts into unit-length vectors whose dot product measures closeness of
//! meaning. A written memory is *pending* — found by the lexical signals, not yet by meaning —
//! until the embedding queue ([`crate::embedding::queue`]) embeds its [`embedding_text`]; the
//! query is embedded at search time. Every vector in a store comes from one model, named by its [`ModelIdentity`]:
//! the store records it, and vectors of another model are never compared with it — changing the
//! model drops the old vectors and re-embeds.
//!
//! This crate knows no ML: the embedder lives in `cairn-embed` and is handed to the service.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::memory::headline;

/// Which model made a vector: its name, its dimensions and the SHA-256 of its weights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelIdentity {
    pub name: String,
    pub dimensions: usize,
    pub weights_sha256: String,
}

impl std::fmt::Display for ModelIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = self
            .weights_sha256
            .get(..12)
            .unwrap_or(&self.weights_sha256);
        write!(
            f,
            "{} ({} dims, weights {short})",
            self.name, self.dimensions
        )
    }
}

/// A sentence embedder: texts in, L2-normalised vectors of [`ModelIdentity::dimensions`] out,
/// one per text, in order. Deterministic: the same text gives the same vector.
pub trait Embedder: Send + Sync {
    fn identity(&self) -> &ModelIdentity;

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// Each text's vector and its sentence vectors (the sentences of
    /// [`sentence_spans`](crate::embedding::sentence_spans), pooled from the same pass; see
    /// [`crate::embedding::sentences`]). Without an implementation a text has no sentence
    /// vectors, and its memory is scored by its whole vector alone.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Passage>> {
        Ok(self
            .embed(texts)?
            .into_iter()
            .map(|vector| Passage {
                vector,
                sentences: Vec::new(),
            })
            .collect())
    }
}

/// A text embedded whole and sentence by sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub vector: Vec<f32>,
    /// One vector per sentence of the text's content, in order; empty when it has fewer than
    /// two.
    pub sentences: Vec<Vec<f32>>,
}

/// The text of a memory that is embedded: a headline, then the content. The headline is the
/// memory's title, or, when it has none, the opening of its content (its first line, cut at a
/// word boundary within [`HEADLINE_CHARS`](crate::memory::HEADLINE_CHARS); see [`headline`]) — so every memory is embedded the same way, titled
/// or not.
///
/// Why the opening twice: the model averages its token vectors, so in a long text the words that
/// say what it is about weigh no more than any others; a memory's first words usually say it
/// (who, what, which component). On LoCoMo (turns as untitled memories) this lifts semantic
/// recall_any@5 from 0.478 to 0.508 and MRR from 0.319 to 0.352 (`cairn-bench locomo`). Backends build a pending
/// memory's text with this, so every store embeds the same text.
pub fn embedding_text(title: Option<&str>, content: &str) -> String {
    format!("{}\n{content}", headline(title, content))
}

/// The text a pending memory is embedded as: [`embedding_text`], then the text read from the
/// images it shows (`image::reading`), so a screenshot's words are found by meaning too.
pub fn embedding_text_with_images(title: Option<&str>, content: &str, image_text: &str) -> String {
    let mut text = embedding_text(title, content);
    if !image_text.trim().is_empty() {
        text.push('\n');
        text.push_str(image_text);
    }
    text
}

/// Dot product; for unit vectors, the cosine similarity.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What to tell a user who has no model and wants meaning.
pub const HOW_TO_ENABLE: &str =
    "no embedding model is installed; install one (about 90 MB, once) to search by meaning";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HEADLINE_CHARS;

    #[test]
    fn a_memory_is_embedded_with_its_headline_first() {
        assert_eq!(
            embedding_text(Some("Deploys"), "Blue-green, via the pipeline"),
            "Deploys\nBlue-green, via the pipeline"
        );
        // Untitled: the first line, whole when short.
        assert_eq!(
            embedding_text(None, "Priya: the climbing club helped.\nMore later."),
            "Priya: the climbing club helped.\nPriya: the climbing club helped.\nMore later."
        );
        // A long first line is cut at a word boundary within the limit.
        let long = format!("{} tail", "word ".repeat(20));
        let text = embedding_text(None, &long);
        let headline = text.lines().next().unwrap();
        assert!(headline.chars().count() <= HEADLINE_CHARS, "{headline:?}");
        assert!(headline.ends_with("word") && long.starts_with(headline));
        // One long word, and multi-byte text, are cut at a character boundary.
        let word = "é".repeat(200);
        assert_eq!(
            embedding_text(None, &word)
                .lines()
                .next()
                .unwrap()
                .chars()
                .count(),
            HEADLINE_CHARS
        );
    }
}
