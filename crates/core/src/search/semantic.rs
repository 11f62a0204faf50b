//! The semantic signal: memories nearest the query in meaning.
//!
//! The service embeds the query text with its [`Embedder`](crate::embedding::Embedder) (on its
//! own thread, while the lexical signals run) and the store returns the memories whose vectors
//! have the highest dot product with it (cosine similarity: vectors are unit length), under the
//! same filter as every other signal. Every memory is nearest to something, so those below
//! `search.semantic_min_similarity` are dropped: a query about nothing stored finds nothing.
//! Pending memories — written but not yet embedded — are not seen here; the lexical signals
//! still find them.

use std::sync::mpsc::Receiver;

use crate::embedding::VectorSpace;
use crate::error::{Error, Result};
use crate::search::{Signal, SignalInput, SignalKind, SignalRanking};

/// Nearest neighbours of the embedded query, as similar as `min_similarity` at least. The
/// query's embedding arrives from the thread that computes it while the signals before this one
/// run.
pub struct SemanticSignal {
    pub query_vector: Receiver<Result<Vec<f32>>>,
    pub min_similarity: f64,
}

impl Signal for SemanticSignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Semantic
    }

    fn rank(&self, input: &SignalInput<'_>) -> Result<Option<SignalRanking>> {
        let vector = self.query_vector.recv().map_err(|_| Error::Model {
            message: "the model failed while embedding the query".into(),
        })??;
        let mut hits = input.store.nearest(
            VectorSpace::Text,
            &vector,
            input.filter,
            input.now,
            input.depth,
        )?;
        hits.retain(|hit| hit.raw >= self.min_similarity);
        Ok(Some(SignalRanking::of(SignalKind::Semantic, hits)))
    }
}
