//! The embedding queue: memories waiting for a vector, embedded in batches.
//!
//! The store keeps a memory without a vector (*pending*) until [`Embeddings::embed_pending`]
//! runs — at the end of a CLI command that wrote, by `cairn reindex`, or continuously in the
//! server — unless the write embedded it itself (a person's or agent's store or update, once
//! the store's vectors are the model's: conflict detection needs the vector; see
//! `relation::operations`). Hooks and imports never wait for the model. Each batch is read, embedded outside any
//! transaction, and written in one short transaction that keeps a vector only if its memory was
//! not changed meanwhile (so a concurrent update is never overwritten with a stale vector; the
//! memory is simply pending again). Each memory's sentence vectors come from the same pass and
//! are stored with its vector (`embedding::sentences`). Before the first batch the model's
//! identity is recorded in the store; a different model there means every old vector is dropped
//! and re-embedded. After the last batch the store's vector index (if it keeps one) takes in the
//! new vectors.

use std::time::Instant;

use serde::Serialize;

use crate::embedding::model::{Embedder, HOW_TO_ENABLE, ModelIdentity};
use crate::embedding::sentences::SentenceVectors;
use crate::embedding::space::VectorSpace;
use crate::embedding::store::{EmbeddingCounts, MemoryVector, VectorIndexReport};
use crate::error::{Error, Result};
use crate::store::Store;

/// How far an embedding run has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedProgress {
    pub stage: EmbedStage,
    pub done: u64,
    /// Pending when the stage started (memories written meanwhile are embedded too).
    pub total: u64,
}

/// The two stages of an embedding run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedStage {
    /// Computing vectors for pending memories.
    Embedding,
    /// Adding the new vectors to the store's vector index (large stores only).
    Indexing,
}

impl EmbedStage {
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedStage::Embedding => "embedding",
            EmbedStage::Indexing => "indexing",
        }
    }
}

/// What an embedding run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbedReport {
    pub model: ModelIdentity,
    pub embedded: u64,
    /// The store held vectors of another model; they were dropped and everything re-embedded.
    pub model_changed: bool,
    /// The store's vector index after the run, when it keeps one.
    pub index: Option<VectorIndexReport>,
    pub seconds: f64,
}

/// The model in use, the one the store's vectors come from, and the counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddingStatus {
    pub model_in_use: Option<ModelIdentity>,
    pub model_in_store: Option<ModelIdentity>,
    #[serde(flatten)]
    pub counts: EmbeddingCounts,
}

/// The embedding operations of one vector space over one store, with the space's model when
/// one is installed.
#[derive(Clone, Copy)]
pub struct Embeddings<'a> {
    store: &'a dyn Store,
    space: VectorSpace,
    embedder: Option<&'a dyn Embedder>,
    batch: usize,
}

impl<'a> Embeddings<'a> {
    /// Embeds `batch` memories at a time (at least one) into `space` with `embedder`.
    pub fn new(
        store: &'a dyn Store,
        space: VectorSpace,
        embedder: Option<&'a dyn Embedder>,
        batch: usize,
    ) -> Self {
        Embeddings {
            store,
            space,
            embedder,
            batch: batch.max(1),
        }
    }

    pub fn embedder(&self) -> Option<&'a dyn Embedder> {
        self.embedder
    }

    fn require_embedder(&self) -> Result<&dyn Embedder> {
        self.embedder().ok_or_else(|| Error::Unavailable {
            what: "embedding".into(),
            hint: HOW_TO_ENABLE.into(),
        })
    }

    /// Embeds every pending memory, a batch at a time, then lets the store's vector index take
    /// in the new vectors. With nothing pending and the model already recorded it writes nothing
    /// and loads no model, so calling it after every write costs a few small reads (the index is
    /// only touched once enough new vectors have piled up).
    pub fn embed_pending(&self, progress: &mut dyn FnMut(EmbedProgress)) -> Result<EmbedReport> {
        let embedder = self.require_embedder()?;
        let started = Instant::now();
        let mut model_changed = false;
        if self.store.embedding_model(self.space)?.as_ref() != Some(embedder.identity()) {
            self.store.write(&mut |tx| {
                model_changed = tx.set_embedding_model(self.space, embedder.identity())?;
                Ok(())
            })?;
        }
        let mut batch = self.store.pending_embeddings(self.space, self.batch)?;
        // Less than a batch is all there is; only more is worth counting.
        let total = match batch.len() < self.batch {
            true => batch.len() as u64,
            false => self.store.embedding_counts(self.space)?.pending,
        };
        let mut done = 0u64;
        let mut stalled = 0;
        let stage = EmbedStage::Embedding;
        progress(EmbedProgress { stage, done, total });
        while !batch.is_empty() {
            let texts: Vec<&str> = batch.iter().map(|p| p.text.as_str()).collect();
            let passages = embedder.embed_passages(&texts)?;
            let rows: Vec<_> = batch
                .iter()
                .zip(passages)
                .map(|(pending, passage)| MemoryVector {
                    id: pending.id,
                    updated_at: pending.updated_at,
                    vector: passage.vector,
                    sentences: SentenceVectors::encode(&passage.sentences),
                })
                .collect();
            let mut stored = 0;
            self.store.write(&mut |tx| {
                stored = tx.put_embeddings(self.space, &rows)?;
                Ok(())
            })?;
            if stored == 0 {
                // Every memory of the batch changed under us: read it again, but not forever.
                stalled += 1;
                if stalled > 3 {
                    return Err(Error::Model {
                        message: "embedding makes no progress: no vector of the last batches \
                                  could be stored"
                            .into(),
                    });
                }
            } else {
                stalled = 0;
                done += stored as u64;
                progress(EmbedProgress {
                    stage,
                    done,
                    total: total.max(done),
                });
            }
            batch = self.store.pending_embeddings(self.space, self.batch)?;
        }
        // The vectors are stored: an index that cannot be written (a full disk, a read-only
        // directory) only makes searches exact until it can; it never fails the embedding.
        let index = self
            .update_vector_index(false, progress)
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "the vector index was not updated; searches scan exactly");
                None
            });
        Ok(EmbedReport {
            model: embedder.identity().clone(),
            embedded: done,
            model_changed,
            index,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Brings the store's vector index up to date with its vectors, or builds it anew when
    /// `rebuild` (no model needed: the index is made from the stored vectors). `None` when the
    /// store keeps no index. Embedding runs call this themselves.
    pub fn update_vector_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Option<VectorIndexReport>> {
        self.store
            .update_vector_index(self.space, rebuild, &mut |done, total| {
                progress(EmbedProgress {
                    stage: EmbedStage::Indexing,
                    done,
                    total,
                })
            })
    }

    /// Why the store's index of this space is not used, when a search found it damaged (see
    /// [`crate::embedding::VectorStore::vector_index_damage`]).
    pub fn vector_index_damage(&self) -> Option<String> {
        self.store.vector_index_damage(self.space)
    }

    /// Drops every vector and embeds every memory again with the current model.
    pub fn reindex_embeddings(
        &self,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<EmbedReport> {
        let embedder = self.require_embedder()?;
        self.store.write(&mut |tx| {
            tx.clear_embeddings(self.space)?;
            tx.set_embedding_model(self.space, embedder.identity())?;
            Ok(())
        })?;
        self.embed_pending(progress)
    }

    pub fn embedding_status(&self) -> Result<EmbeddingStatus> {
        Ok(EmbeddingStatus {
            model_in_use: self.embedder().map(|e| e.identity().clone()),
            model_in_store: self.store.embedding_model(self.space)?,
            counts: self.store.embedding_counts(self.space)?,
        })
    }
}
