//! A BERT sentence encoder for the CPU, with 8-bit matrix products.
//!
//! The model is the standard BERT encoder (word, position and type embeddings; layers of
//! self-attention and a GELU feed-forward block, each followed by a residual sum and layer
//! normalisation), mean-pooled over the tokens and L2-normalised, as sentence-transformers
//! defines all-MiniLM-L6-v2; parts of a sequence (its sentences) can be pooled from the same
//! pass as well. Nearly all the work is in the dense layers; they run as integer
//! products ([`linear`], [`kernel`]), everything else in `f32` ([`math`]).
//!
//! Sequences are not padded: the tokens of a whole batch are rows of one matrix for the dense
//! layers, and attention runs per sequence over its own rows. A batch costs what its tokens cost,
//! and no mask is needed.

mod bert;
pub mod kernel;
mod linear;
pub mod math;

pub use bert::{Encoder, Pooled, Sequence, Workspace};
