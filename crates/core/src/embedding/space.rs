//! Vector spaces: what kind of vector a vector is, and so what it may be compared with.
//!
//! Every vector belongs to one [`VectorSpace`]. A space has its own model identity (recorded by
//! the store; a different model drops that space's vectors), its own queue of items waiting for
//! a vector, and its own approximate index. Vectors of two spaces are never compared. `text`
//! holds the sentence embeddings of memories (title and content); images add their own spaces.

use std::fmt;

use serde::Serialize;

/// A kind of vector, made by one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum VectorSpace {
    /// Sentence embeddings of a memory's title and content, by the text model.
    Text,
}

impl VectorSpace {
    /// Every space, in a fixed order.
    pub const ALL: &'static [VectorSpace] = &[VectorSpace::Text];

    /// The name backends store it under.
    pub fn as_str(self) -> &'static str {
        match self {
            VectorSpace::Text => "text",
        }
    }
}

impl fmt::Display for VectorSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
