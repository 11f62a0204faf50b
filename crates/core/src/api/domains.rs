//! What the front door runs on: the store, the models, summariser and image directory there
//! are, the clock and the configuration ([`ApiParts`], given to [`Api::open`](super::Api::open)),
//! and the domain handles built from them.
//!
//! Each domain's operations live in its own folder ([`Memories`], [`Relations`], [`Searcher`],
//! [`Embeddings`], [`Sessions`], [`Slots`], [`Images`], [`ImageReading`], [`Files`],
//! [`Tokens`], [`ContextBuilder`], [`Doctor`]); [`Domains`] hands each exactly the parts it
//! needs, so an operation of [`Api`](super::Api) is one call into its domain after the access
//! check. The few steps that follow a write in several domains (its conflict candidates, its
//! unit in the project's files, images no memory uses any more) are here, once, for every
//! operation that writes.

use std::sync::Arc;
use std::time::Duration;

use jiff::Zoned;

use crate::access::Tokens;
use crate::clock::Clock;
use crate::config::Config;
use crate::context::ContextBuilder;
use crate::embedding::{Embedder, Embeddings, VectorSpace};
use crate::error::Result;
use crate::files::{Files, SyncReport};
use crate::health::Doctor;
use crate::id::{IdRef, MemoryId};
use crate::image::{
    ClipModel, ImageDir, ImageReading, ImageTotals, Images, LookModel, PendingWork, TextReader,
};
use crate::memory::{Memories, WriteOutcome};
use crate::relation::{Detection, Relations};
use crate::scope::ProjectName;
use crate::search::Searcher;
use crate::session::{Sessions, Summarizer};
use crate::slot::Slots;
use crate::store::Store;

/// What the front door runs on besides its configuration.
pub struct ApiParts {
    pub store: Box<dyn Store>,
    /// Semantic search's model, when one is installed.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Writes session summaries, when one is configured.
    pub summarizer: Option<Arc<dyn Summarizer>>,
    /// Where images are kept; a store without one refuses writes that carry an image.
    pub images: Option<ImageDir>,
    /// Reads the text in images (OCR), when a model is installed.
    pub reader: Option<Arc<dyn TextReader>>,
    /// Says how images look as vectors (images that look alike), when a model is installed.
    pub look_model: Option<Arc<dyn LookModel>>,
    /// Puts images and words into one space (images found by meaning), when a CLIP model is
    /// installed.
    pub clip_model: Option<Arc<dyn ClipModel>>,
    pub clock: Clock,
}

impl ApiParts {
    /// A store alone: no model, no summariser, the system clock.
    pub fn new(store: Box<dyn Store>) -> Self {
        ApiParts {
            store,
            embedder: None,
            summarizer: None,
            images: None,
            reader: None,
            look_model: None,
            clip_model: None,
            clock: Clock::system(),
        }
    }
}

/// The parts and configuration of one [`Api`](super::Api), shared with its worker.
pub(crate) struct Domains {
    pub(crate) store: Box<dyn Store>,
    pub(crate) embedder: Option<Arc<dyn Embedder>>,
    pub(crate) summarizer: Option<Arc<dyn Summarizer>>,
    pub(crate) image_dir: Option<ImageDir>,
    pub(crate) reader: Option<Arc<dyn TextReader>>,
    pub(crate) look_model: Option<Arc<dyn LookModel>>,
    pub(crate) clip_model: Option<Arc<dyn ClipModel>>,
    pub(crate) clock: Clock,
    pub(crate) config: Config,
}

impl Domains {
    pub(crate) fn new(parts: ApiParts, config: &Config) -> Self {
        Domains {
            store: parts.store,
            embedder: parts.embedder,
            summarizer: parts.summarizer,
            image_dir: parts.images,
            reader: parts.reader,
            look_model: parts.look_model,
            clip_model: parts.clip_model,
            clock: parts.clock,
            config: config.clone(),
        }
    }

    /// Now in the user's time zone: relative dates are read against it.
    pub(crate) fn now(&self) -> Zoned {
        self.clock.now()
    }

    pub(crate) fn memories(&self) -> Memories<'_> {
        Memories::new(self.store.as_ref(), &self.config.limits, &self.clock)
    }

    pub(crate) fn relations(&self) -> Relations<'_> {
        Relations::new(
            self.memories(),
            &self.config.conflicts,
            self.embedder.as_deref(),
        )
    }

    pub(crate) fn images(&self) -> Images<'_> {
        Images::new(
            self.store.as_ref(),
            self.image_dir.as_ref(),
            &self.config.images,
            &self.config.limits,
            &self.clock,
        )
    }

    pub(crate) fn reading(&self) -> ImageReading<'_> {
        ImageReading::new(
            self.store.as_ref(),
            self.image_dir.as_ref(),
            &self.config.images,
            self.reader.as_deref(),
        )
        .with_look_model(self.look_model.as_deref())
        .with_clip_model(self.clip_model.as_deref())
    }

    pub(crate) fn files(&self) -> Files<'_> {
        Files::new(self.memories(), &self.config.files)
    }

    pub(crate) fn doctor(&self) -> Doctor<'_> {
        Doctor::new(
            self.store.as_ref(),
            self.image_dir.as_ref(),
            self.files(),
            self.embedder.is_some(),
        )
    }

    pub(crate) fn searcher(&self) -> Searcher<'_> {
        Searcher::new(
            self.store.as_ref(),
            &self.config.search,
            self.embedder.as_deref(),
            &self.clock,
        )
        .annotating_pending_for(self.config.conflicts.annotate_pending_days)
    }

    pub(crate) fn embeddings(&self) -> Embeddings<'_> {
        Embeddings::new(
            self.store.as_ref(),
            VectorSpace::Text,
            self.embedder.as_deref(),
            self.config.embedding.batch_size,
        )
    }

    pub(crate) fn sessions(&self) -> Sessions<'_> {
        Sessions::new(
            self.memories(),
            &self.config.sessions,
            self.summarizer.as_deref(),
        )
    }

    pub(crate) fn tokens(&self) -> Tokens<'_> {
        Tokens::new(self.store.as_ref(), &self.clock)
    }

    pub(crate) fn slots(&self) -> Slots<'_> {
        Slots::new(
            self.store.as_ref(),
            &self.config.slots,
            &self.clock,
            self.sessions(),
        )
    }

    pub(crate) fn context(&self) -> ContextBuilder<'_> {
        ContextBuilder::new(
            self.searcher(),
            self.memories(),
            self.sessions(),
            self.slots(),
        )
    }

    /// How many images the store holds, and their bytes; those without a vector are counted
    /// against these models (the ones the after-write pass would give them).
    pub(crate) fn image_totals(&self) -> Result<ImageTotals> {
        self.store.image_totals(&PendingWork {
            read_text: self.reader.is_some(),
            look_model: self.look_model.as_deref().map(|m| m.name()),
            clip_model: self.clip_model.as_deref().map(|m| m.name()),
        })
    }

    // The steps that follow a write, in every domain it touches.

    /// Deletes the images no memory references any more (after a purge or a prune). The
    /// deletes that made them unreferenced have committed: a failure is logged, and the next
    /// release or an image write lets them go.
    pub(crate) fn release_images(&self) {
        // A store without images (most of them) pays one cheap read, not a write transaction.
        let released = match self.store.image_totals(&PendingWork::default()) {
            Ok(totals) if totals.images == 0 => Ok(Vec::new()),
            _ => self.images().release_unreferenced(),
        };
        if let Err(error) = released {
            tracing::warn!(%error, "images no memory uses could not be deleted yet");
        }
    }

    /// Records the conflict candidates of writes a hook or an import made (by words: they
    /// never load a model).
    pub(crate) fn detect_by_words(&self, outcomes: Vec<WriteOutcome>) -> Vec<WriteOutcome> {
        let relations = self.relations();
        outcomes
            .into_iter()
            .map(|outcome| relations.detect(outcome, Detection::Words))
            .collect()
    }

    /// Refuses to change a RAW memory (a markdown file's own text), whatever the entry point.
    pub(crate) fn check_writable(&self, target: &IdRef) -> Result<()> {
        let memory = self.memories().resolve(target, true)?;
        self.files().check_writable(&memory.id)
    }

    /// Writes what these writes stored into their projects' files.
    pub(crate) fn land_written<'o>(&self, outcomes: impl IntoIterator<Item = &'o WriteOutcome>) {
        let ids: Vec<MemoryId> = outcomes
            .into_iter()
            .filter(|o| o.status.stored_text())
            .map(|o| o.memory.id)
            .collect();
        self.land(&ids);
    }

    /// Brings these memories' units in line with the store. The write that called it has
    /// committed: what cannot be written is logged, and the next sync repairs it.
    pub(crate) fn land(&self, ids: &[MemoryId]) {
        match self.files().land(ids) {
            Ok(warnings) => {
                for w in warnings {
                    tracing::warn!(file = %w.file, "memory file: {}", w.reason);
                }
            }
            Err(e) => tracing::warn!(
                error = %e,
                "memory files not updated (cairn files sync repairs them)"
            ),
        }
    }

    /// Syncs `project`'s files if they changed since their last sync and none in the last
    /// `settle` (see `Files::refresh`), logging what fails.
    pub(crate) fn refresh_files(
        &self,
        project: &ProjectName,
        settle: Duration,
    ) -> Option<SyncReport> {
        self.files().refresh(project, settle).unwrap_or_else(|e| {
            tracing::warn!(project = %project, error = %e, "memory files not synced");
            None
        })
    }

    /// Syncs every workspace (after an import), logging what fails.
    pub(crate) fn sync_all_files(&self) {
        let workspaces = match self.files().workspaces() {
            Ok(workspaces) => workspaces,
            Err(e) => return tracing::warn!(error = %e, "memory files not synced"),
        };
        for workspace in workspaces {
            if let Err(e) = self.files().sync(&workspace, false) {
                tracing::warn!(project = %workspace.project, error = %e, "memory files not synced");
            }
        }
    }
}
