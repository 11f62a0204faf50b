//! The semantic signal: memories nearest the query in meaning.
//!
//! The service embeds the query text with its [`Embedder`](crate::embedding::Embedder) (on its
//! own thread, while the lexical signals run) and the store returns the memories whose vectors
//! have the highest dot product with it (cosine similarity: vectors are unit length), under the
//! same filter as every other signal. Every memory is nearest to something, so those below
//! `search.semantic_min_similarity` are dropped: a query about nothing stored finds nothing.
//! Pending memories — written but not yet embedded — are not seen here; the lexical signals
//! still find them.

use jiff::Timestamp;

use crate::embedding::VectorSpace;
use crate::error::Result;
use crate::memory::MemoryFilter;
use crate::query::SearchQuery;
use crate::search::{Signal, SignalKind, SignalRanking};
use crate::store::Store;

/// Nearest neighbours of the embedded query, as similar as `min_similarity` at least.
pub struct SemanticSignal<'a> {
    /// The query's embedding, by the model that made the store's vectors.
    pub query_vector: &'a [f32],
    pub min_similarity: f64,
}

impl Signal for SemanticSignal<'_> {
    fn kind(&self) -> SignalKind {
        SignalKind::Semantic
    }

    fn rank(
        &self,
        store: &dyn Store,
        _query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<SignalRanking> {
        let mut hits = store.nearest(VectorSpace::Text, self.query_vector, filter, now, depth)?;
        hits.retain(|hit| hit.raw >= self.min_similarity);
        Ok(SignalRanking {
            hits,
            ..SignalRanking::default()
        })
    }
}
