//! Embeddings: memories as vectors, so search can find them by meaning.
//!
//! - [`model`]: the [`Embedder`] contract (cairn-embed implements it), [`ModelIdentity`], and
//!   the text a memory is embedded as;
//! - [`space`]: [`VectorSpace`], what kind of vector a vector is (each space its own model,
//!   queue and index);
//! - [`nearest`]: [`Nearest`], the best few of an exact scan;
//! - [`sentences`]: which sentences of a memory get a vector of their own, and
//!   [`SentenceVectors`], how they are stored and scored;
//! - [`queue`]: [`Embeddings`], pending memories embedded in batches outside any transaction;
//! - [`store`]: what a backend provides ([`VectorStore`], [`VectorTx`]).
//!
//! Invariants: every vector of a space comes from the one model the store records for it; a vector is
//! stored only if its memory did not change since its text was read; hooks and imports never
//! wait for the model (their memories are pending, found by the lexical signals until
//! embedded), while a person's or agent's write embeds itself once the store's vectors are the
//! model's (`relation::operations`).

pub mod model;
pub mod nearest;
pub mod queue;
pub mod sentences;
pub mod space;
pub mod store;

pub use model::{
    Embedder, HOW_TO_ENABLE, ModelIdentity, Passage, dot, embedding_text,
    embedding_text_with_images,
};
pub use nearest::Nearest;
pub use queue::{EmbedProgress, EmbedReport, EmbedStage, EmbeddingStatus, Embeddings};
pub use sentences::{MAX_SENTENCES, SentenceVectors, sentence_spans};
pub use space::VectorSpace;
pub use store::{
    EmbeddingCounts, MemoryVector, PendingEmbedding, VectorIndexReport, VectorStore, VectorTx,
};
