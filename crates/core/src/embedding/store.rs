//! What a backend must provide for vectors: [`VectorStore`] (reads, the nearest-neighbour
//! scan and the backend's own index) and [`VectorTx`] (writes, inside one transaction).
//!
//! A vector belongs to a memory and to a [`VectorSpace`]; the store records each space's model
//! identity, and a different model drops every vector of that space (they are not comparable).
//! Every new memory, and every change of its title or content, waits in the text space's queue
//! for a vector until the embedding queue (`embedding::queue`) stores one. Each space has its
//! own queue and its own index. A memory's [`SentenceVectors`] are stored, replaced and deleted
//! with its vector; the index holds only the vector.

use jiff::Timestamp;
use serde::Serialize;

use crate::embedding::{ModelIdentity, SentenceVectors, VectorSpace};
use crate::error::Result;
use crate::id::MemoryId;
use crate::memory::{MemoryFilter, SignalHit};

/// The read side of vector storage.
pub trait VectorStore: Send + Sync {
    /// The model whose vectors the space holds, if one was ever recorded.
    fn embedding_model(&self, space: VectorSpace) -> Result<Option<ModelIdentity>>;

    /// Up to `limit` memories waiting for a vector of the space, oldest first; forgotten ones
    /// are not embedded.
    fn pending_embeddings(&self, space: VectorSpace, limit: usize)
    -> Result<Vec<PendingEmbedding>>;

    /// How many memories have a vector of the space, and how many (not forgotten) wait for one.
    fn embedding_counts(&self, space: VectorSpace) -> Result<EmbeddingCounts>;

    /// The stored vectors of the space for those of `ids` that have one, in no particular order.
    fn vectors(&self, space: VectorSpace, ids: &[MemoryId]) -> Result<Vec<(MemoryId, Vec<f32>)>>;

    /// The stored sentence vectors of the space for those of `ids` that have some, in no
    /// particular order.
    fn sentence_vectors(
        &self,
        space: VectorSpace,
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, SentenceVectors)>>;

    /// The `depth` memories under the filter whose vectors of the space are nearest `query`
    /// (highest dot product first, the similarity as the raw score).
    fn nearest(
        &self,
        space: VectorSpace,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>>;

    /// The `depth` nearest memories by the exact scan alone, whatever index the backend keeps:
    /// the reference an index's recall is measured against (the behavioural suite, the
    /// benchmarks). A backend that keeps no index answers as [`VectorStore::nearest`] does.
    fn nearest_exact(
        &self,
        space: VectorSpace,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>> {
        self.nearest(space, query, filter, now, depth)
    }

    /// Brings the backend's own index of the space (an approximate one: the SQLite store's
    /// HNSW file, PostgreSQL's pgvector HNSW index) up to date with the stored vectors, or
    /// builds it anew when `rebuild`; `progress(done, total)` follows long work. `None` when the
    /// backend keeps no such index, the space is small enough to need none, or another process
    /// is building it right now. The index only ever speeds [`VectorStore::nearest`] up: it
    /// never changes what counts as nearest or visible.
    fn update_vector_index(
        &self,
        space: VectorSpace,
        rebuild: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        let _ = (space, rebuild, progress);
        Ok(None)
    }

    /// Why the backend's own index of the space cannot be used, when a search found it so (a
    /// damaged file, another store's, one ahead of the database): searches are exact meanwhile,
    /// and [`VectorStore::update_vector_index`] builds it anew. `None` when it is sound, or the
    /// backend keeps none.
    fn vector_index_damage(&self, space: VectorSpace) -> Option<String> {
        let _ = space;
        None
    }
}

/// The write side of vector storage, inside one transaction.
pub trait VectorTx {
    /// Records `model` as the space's model. When another model was recorded, every vector of
    /// the space is deleted first (they are not comparable) and `true` is returned.
    fn set_embedding_model(&mut self, space: VectorSpace, model: &ModelIdentity) -> Result<bool>;

    /// Deletes every vector of the space: every memory becomes pending in it.
    fn clear_embeddings(&mut self, space: VectorSpace) -> Result<()>;

    /// Stores each vector and its sentence vectors in the space for its memory if the memory
    /// still has that `updated_at` (it was not changed since its text was read), replacing what
    /// the memory had (sentence vectors too: none replaces some); returns how many were stored.
    fn put_embeddings(&mut self, space: VectorSpace, vectors: &[MemoryVector]) -> Result<usize>;
}

/// A memory's vectors, to be stored if the memory is still as it was when its text was read.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryVector {
    pub id: MemoryId,
    pub updated_at: Timestamp,
    pub vector: Vec<f32>,
    pub sentences: SentenceVectors,
}

impl MemoryVector {
    /// A vector without sentence vectors.
    pub fn whole(id: MemoryId, updated_at: Timestamp, vector: Vec<f32>) -> Self {
        MemoryVector {
            id,
            updated_at,
            vector,
            sentences: SentenceVectors::default(),
        }
    }
}

/// A memory waiting for its vector: the text to embed, and when the memory was last written (a
/// vector is only stored if the memory has not changed since).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingEmbedding {
    pub id: MemoryId,
    pub updated_at: Timestamp,
    pub text: String,
}

/// Vectors stored and memories waiting for one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EmbeddingCounts {
    pub embedded: u64,
    pub pending: u64,
}

/// What an update of a vector index did and what the index now holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorIndexReport {
    /// Vectors the index holds.
    pub indexed: u64,
    /// Vectors added by this update (all of them when it was built anew).
    pub added: u64,
    /// Stored vectors not yet in the index, found by an exact scan until they are.
    pub unindexed: u64,
    pub rebuilt: bool,
    /// Where the index lives, if in a file.
    pub location: Option<String>,
    pub seconds: f64,
}
