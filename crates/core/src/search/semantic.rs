//! The semantic signal: memories nearest the query in meaning.
//!
//! The service embeds the query text with its [`Embedder`](crate::embedding::Embedder) (on its
//! own thread, while the lexical signals run) and the store returns the memories whose vectors
//! have the highest dot product with it (cosine similarity: vectors are unit length), under the
//! same filter as every other signal. When meaning is searched alone, the [`RESCORED`] nearest
//! (or the page, if deeper) are then scored by the best of their whole vector and their sentence
//! vectors ([`crate::embedding::sentences`]: a memory is as near as its nearest sentence) and
//! ranked again.
//!
//! Hybrid search fuses the whole vector's similarity instead. A sentence that matches a question
//! usually shares its words, so the memories sentences lift are mostly those the lexical signal
//! already ranks high; what hybrid search needs from the model is the memory's meaning as a
//! whole. Measured (`cairn-bench locomo`, `cairn-bench cranfield`): by sentence, semantic search
//! gains on both collections (LoCoMo recall_any@5 0.508 → 0.546, MRR 0.352 → 0.398; Cranfield
//! MAP 0.4219 → 0.4276), while hybrid search fused with it loses a little on both (LoCoMo
//! recall_any@5 0.674 → 0.663; Cranfield MAP 0.4694 → 0.4669).
//!
//! Every memory is nearest to something, so those below `search.semantic_min_similarity`
//! are dropped: a query about nothing stored finds nothing. Pending memories — written but not
//! yet embedded — are not seen here; the lexical signals still find them.

use std::collections::HashMap;
use std::sync::mpsc::Receiver;

use crate::embedding::VectorSpace;
use crate::error::{Error, Result};
use crate::memory::SignalHit;
use crate::search::{Signal, SignalInput, SignalKind, SignalRanking};
use crate::store::Store;

/// How many of the memories nearest by whole vector are re-scored by their sentences (as deep
/// as hybrid search ranks each signal, `Fusion::candidates`). A memory outside them is not
/// found by a sentence alone: the index holds one vector per memory.
pub const RESCORED: usize = 30;

/// Nearest neighbours of the embedded query, as similar as `min_similarity` at least. The
/// query's embedding arrives from the thread that computes it while the signals before this one
/// run.
pub struct SemanticSignal {
    pub query_vector: Receiver<Result<Vec<f32>>>,
    pub min_similarity: f64,
    /// Score memories by their best sentence too (meaning searched alone), or by their whole
    /// vector only (fused with the lexical signals).
    pub by_sentence: bool,
}

impl Signal for SemanticSignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Semantic
    }

    fn rank(&self, input: &SignalInput<'_>) -> Result<Option<SignalRanking>> {
        let vector = self.query_vector.recv().map_err(|_| Error::Model {
            message: "the model failed while embedding the query".into(),
        })??;
        let mut hits = match self.by_sentence {
            true => {
                let nearest = input.store.nearest(
                    VectorSpace::Text,
                    &vector,
                    input.filter,
                    input.now,
                    input.depth.max(RESCORED),
                )?;
                let mut hits = by_best_sentence(input.store, &vector, nearest)?;
                hits.truncate(input.depth);
                hits
            }
            false => input.store.nearest(
                VectorSpace::Text,
                &vector,
                input.filter,
                input.now,
                input.depth,
            )?,
        };
        hits.retain(|hit| hit.raw >= self.min_similarity);
        Ok(Some(SignalRanking::of(SignalKind::Semantic, hits)))
    }
}

/// `hits` (scored by whole vector) scored by the best of that and their sentence vectors' dot
/// products with `query`, best first (a stable sort: ties keep the index's order).
fn by_best_sentence(
    store: &dyn Store,
    query: &[f32],
    mut hits: Vec<SignalHit>,
) -> Result<Vec<SignalHit>> {
    let ids: Vec<_> = hits.iter().map(|hit| hit.id).collect();
    let best: HashMap<_, _> = store
        .sentence_vectors(VectorSpace::Text, &ids)?
        .into_iter()
        .filter_map(|(id, sentences)| Some((id, sentences.best_similarity(query)?)))
        .collect();
    for hit in &mut hits {
        if let Some(&sentence) = best.get(&hit.id) {
            hit.raw = hit.raw.max(f64::from(sentence));
        }
    }
    hits.sort_by(|a, b| b.raw.total_cmp(&a.raw));
    Ok(hits)
}
