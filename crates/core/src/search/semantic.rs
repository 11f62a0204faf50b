//! The semantic signal: memories nearest the query in meaning.
//!
//! The query text is embedded by the service's [`Embedder`] and the store returns the memories
//! whose vectors have the highest dot product with it (cosine similarity: vectors are unit
//! length), under the same filter as every other signal. Every memory is nearest to something,
//! so those below `search.semantic_min_similarity` are dropped: a query about nothing stored
//! finds nothing. Pending memories — written but not yet
//! embedded — are not seen here; the lexical signals still find them.

use jiff::Timestamp;

use crate::embedding::Embedder;
use crate::error::Result;
use crate::search::{SearchQuery, Signal, SignalKind, SignalRanking};
use crate::store::{MemoryFilter, Store};

/// Nearest neighbours of the embedded query, as similar as `min_similarity` at least.
pub struct SemanticSignal<'a> {
    pub embedder: &'a dyn Embedder,
    pub min_similarity: f64,
}

impl Signal for SemanticSignal<'_> {
    fn kind(&self) -> SignalKind {
        SignalKind::Semantic
    }

    fn rank(
        &self,
        store: &dyn Store,
        query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<SignalRanking> {
        let vector = self
            .embedder
            .embed(&[query.text.as_str()])?
            .pop()
            .unwrap_or_default();
        let mut hits = store.nearest(&vector, filter, now, depth)?;
        hits.retain(|hit| hit.raw >= self.min_similarity);
        Ok(SignalRanking {
            hits,
            ..SignalRanking::default()
        })
    }
}
