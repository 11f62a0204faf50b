//! Embedding at the front door: what a process wrote gets its vectors and its images looked
//! at before the process exits (a one-shot command, a hook), or from the worker (a serving
//! process); and the operator's embedding housekeeping (status, reindex, the vector index).

use std::sync::atomic::Ordering;

use super::Api;
use crate::embedding::{EmbedProgress, EmbedReport, EmbeddingStatus, VectorIndexReport};
use crate::error::Result;
use crate::image::{ReadProgress, ReadReport};

impl Api {
    /// True when this process wrote text that [`Api::embed_written`] would embed.
    pub fn has_text_to_embed(&self) -> bool {
        self.worker.is_none()
            && self.domains.embedder.is_some()
            && self.wrote_text.load(Ordering::Relaxed)
    }

    /// Embeds what this process's writes left pending, when a model is installed and no worker
    /// does it: a one-shot process calls this once, before it exits. `None` when there was
    /// nothing to do.
    pub fn embed_written(
        &self,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Option<EmbedReport>> {
        if !self.has_text_to_embed() {
            return Ok(None);
        }
        self.wrote_text.store(false, Ordering::Relaxed);
        self.embed_pending(progress).map(Some)
    }

    /// Embeds every pending memory, whoever wrote it, then updates the store's vector index
    /// (what the worker of a long-lived process does after writes).
    pub fn embed_pending(&self, progress: &mut dyn FnMut(EmbedProgress)) -> Result<EmbedReport> {
        self.domains.embeddings().embed_pending(progress)
    }

    /// True when this process stored an image that [`Api::read_written_images`] would look at.
    pub fn has_images_to_read(&self) -> bool {
        self.worker.is_none() && self.wrote_image.load(Ordering::Relaxed)
    }

    /// Looks at the images this process stored (and any other pending one) when no worker does
    /// it: hashes how they look and, when an OCR model is installed, reads their text. A
    /// one-shot process calls this once, before it embeds what it wrote (an image's text is
    /// part of its memory's embedded text). `None` when there was nothing to do.
    pub fn read_written_images(
        &self,
        progress: &mut dyn FnMut(ReadProgress),
    ) -> Result<Option<ReadReport>> {
        if !self.has_images_to_read() {
            return Ok(None);
        }
        self.wrote_image.store(false, Ordering::Relaxed);
        let report = self.domains.reading().read_pending(progress)?;
        // The memories that show a read image changed their searchable text.
        self.written(report.with_text > 0);
        Ok(Some(report))
    }

    /// Looks at every pending image (hashes its look and, with an OCR model, reads its text),
    /// whoever stored it: `cairn reindex --images`, and the background run a hook starts after
    /// it kept a screenshot.
    pub fn read_pending_images(
        &self,
        progress: &mut dyn FnMut(ReadProgress),
    ) -> Result<ReadReport> {
        self.wrote_image.store(false, Ordering::Relaxed);
        let report = self.domains.reading().read_pending(progress)?;
        self.written(report.with_text > 0);
        Ok(report)
    }

    pub fn embedding_status(&self) -> Result<EmbeddingStatus> {
        self.domains.embeddings().embedding_status()
    }

    /// Drops every vector and embeds every memory again with the installed model.
    pub fn reindex_embeddings(
        &self,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<EmbedReport> {
        self.domains.embeddings().reindex_embeddings(progress)
    }

    /// Why the vector index is not used, when a search of this process found it damaged (a
    /// one-shot command then asks for a rebuild in the background; a serving process's worker
    /// rebuilds it itself).
    pub fn vector_index_damage(&self) -> Option<String> {
        self.domains.embeddings().vector_index_damage()
    }

    /// Brings the store's vector index up to date, or builds it anew when `rebuild`.
    pub fn update_vector_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Option<VectorIndexReport>> {
        self.domains
            .embeddings()
            .update_vector_index(rebuild, progress)
    }
}
