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
}

/// The text of a memory that is embedded: its title (when it has one) and content. Backends
/// build a pending memory's text with this, so every store embeds the same text.
pub fn embedding_text(title: Option<&str>, content: &str) -> String {
    match title {
        Some(title) => format!("{title}\n{content}"),
        None => content.to_string(),
    }
}

/// Dot product; for unit vectors, the cosine similarity.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What to tell a user who has no model and wants meaning.
pub const HOW_TO_ENABLE: &str =
    "no embedding model is installed; install one (about 90 MB, once) to search by meaning";
