//! The service: cairn's behaviour behind the front door.
//!
//! [`MemoryService`] is built once from its [`ServiceParts`] (the store, the model, summariser
//! and image directory when there are any, the clock) and the [`Config`], by
//! [`Api::open`](crate::api::Api::open) — or, with the `testing` feature, by a test or a
//! benchmark that works below the front door. Most public methods delegate in a line to the
//! domain that owns the behaviour — [`Memories`], [`Searcher`], [`Embeddings`], [`Relations`],
//! [`Sessions`], [`Slots`], [`Images`], [`Tokens`], [`ContextBuilder`], [`exchange`] — each
//! handed exactly the parts it needs; the rest hold the orchestration across domains (a write,
//! then its conflict candidates and its unit in the files; recorded events, then summaries and
//! reflection; a query picture's look). Adapters do not call it directly: they go through
//! [`crate::api::Api`], the one front door of the CLI, MCP and HTTP.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use jiff::{Timestamp, Zoned};

use crate::access::{AccessToken, Grant, IssuedToken, NewToken, Tokens};
use crate::clock::Clock;
use crate::config::{Config, ImagesConfig, SearchConfig};
use crate::context::{Context, ContextBuilder, ContextRequest};
use crate::embedding::{
    EmbedProgress, EmbedReport, Embedder, EmbeddingStatus, Embeddings, VectorIndexReport,
    VectorSpace,
};
use crate::error::{Error, Result};
use crate::exchange::{
    self, Counts, ExportOptions, ImportReport, MigrateProgress, MigrationReport, import::Importer,
};
use crate::files::{Files, FilesExport, FollowReport, FollowedFile, SyncReport, Workspace};
use crate::health::{Doctor, HealthReport};
use crate::id::{IdRef, MemoryId, RelationRef};
use crate::image::screenshots::screenshot_memories;
use crate::image::{
    ClipModel, Image, ImageDir, ImageId, ImageReading, ImageSource, ImageSpace, ImageTotals,
    Images, LookModel, MemoryImage, PendingWork, QueryImage, QueryPicture, ReadProgress,
    ReadReport, TextReader, VisionQuery, VisionResults, VisionSearch,
};
use crate::memory::{
    ListQuery, Memories, Memory, MemoryFilter, MemoryHistory, MemoryPatch, NewMemory, PruneReport,
    PruneRule, StoreStats, TagCount, WriteOutcome,
};
use crate::relation::{
    Compared, Detection, NewVerdict, RelationFilter, RelationStats, RelationView, Relations,
    ScanReport,
};
use crate::scope::{ProjectName, Scope};
use crate::search::{SearchMode, SearchRequest, SearchResults, Searcher};
use crate::session::{
    AgentEvent, AgentSummary, Observation, ObservationHit, Session, SessionFilter, SessionKey,
    Sessions, Summarizer,
};
use crate::slot::{
    NewSlot, Recorded, Reflection, Slot, SlotAddress, SlotLabel, SlotSettings, Slots,
};
use crate::store::Store;

/// What a service runs on besides its configuration.
pub struct ServiceParts {
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

impl ServiceParts {
    /// A store alone: no model, no summariser, the system clock.
    pub fn new(store: Box<dyn Store>) -> Self {
        ServiceParts {
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

/// The one place where cairn's behaviour is reached.
pub struct MemoryService {
    store: Box<dyn Store>,
    embedder: Option<Arc<dyn Embedder>>,
    summarizer: Option<Arc<dyn Summarizer>>,
    images: Option<ImageDir>,
    reader: Option<Arc<dyn TextReader>>,
    look_model: Option<Arc<dyn LookModel>>,
    clip_model: Option<Arc<dyn ClipModel>>,
    clock: Clock,
    config: Config,
}

impl MemoryService {
    /// A service for a test or a benchmark that works below the front door (feature
    /// `testing`); every adapter opens an [`Api`](crate::api::Api) instead.
    #[cfg(feature = "testing")]
    pub fn new(parts: ServiceParts, config: &Config) -> Self {
        Self::assemble(parts, config)
    }

    pub(crate) fn assemble(parts: ServiceParts, config: &Config) -> Self {
        MemoryService {
            store: parts.store,
            embedder: parts.embedder,
            summarizer: parts.summarizer,
            images: parts.images,
            reader: parts.reader,
            look_model: parts.look_model,
            clip_model: parts.clip_model,
            clock: parts.clock,
            config: config.clone(),
        }
    }

    fn memory_ops(&self) -> Memories<'_> {
        Memories::new(self.store.as_ref(), &self.config.limits, &self.clock)
    }

    fn relation_ops(&self) -> Relations<'_> {
        Relations::new(
            self.memory_ops(),
            &self.config.conflicts,
            self.embedder.as_deref(),
        )
    }

    fn image_ops(&self) -> Images<'_> {
        Images::new(
            self.store.as_ref(),
            self.images.as_ref(),
            &self.config.images,
            &self.config.limits,
            &self.clock,
        )
    }

    fn reading_ops(&self) -> ImageReading<'_> {
        ImageReading::new(
            self.store.as_ref(),
            self.images.as_ref(),
            &self.config.images,
            self.reader.as_deref(),
        )
        .with_look_model(self.look_model.as_deref())
        .with_clip_model(self.clip_model.as_deref())
    }

    fn files_ops(&self) -> Files<'_> {
        Files::new(self.memory_ops(), &self.config.files)
    }

    fn doctor(&self) -> Doctor<'_> {
        Doctor::new(
            self.store.as_ref(),
            self.images.as_ref(),
            self.files_ops(),
            self.embedder.is_some(),
        )
    }

    fn search_ops(&self) -> Searcher<'_> {
        Searcher::new(
            self.store.as_ref(),
            &self.config.search,
            self.embedder.as_deref(),
            &self.clock,
        )
        .annotating_pending_for(self.config.conflicts.annotate_pending_days)
    }

    fn embedding_ops(&self) -> Embeddings<'_> {
        Embeddings::new(
            self.store.as_ref(),
            VectorSpace::Text,
            self.embedder.as_deref(),
            self.config.embedding.batch_size,
        )
    }

    fn session_ops(&self) -> Sessions<'_> {
        Sessions::new(
            self.memory_ops(),
            &self.config.sessions,
            self.summarizer.as_deref(),
        )
    }

    fn token_ops(&self) -> Tokens<'_> {
        Tokens::new(self.store.as_ref(), &self.clock)
    }

    fn slot_ops(&self) -> Slots<'_> {
        Slots::new(
            self.store.as_ref(),
            &self.config.slots,
            &self.clock,
            self.session_ops(),
        )
    }

    fn context_ops(&self) -> ContextBuilder<'_> {
        ContextBuilder::new(
            self.search_ops(),
            self.memory_ops(),
            self.session_ops(),
            self.slot_ops(),
        )
    }

    // The service itself.

    /// Now in the user's time zone: adapters resolve relative dates against this.
    pub fn now(&self) -> Zoned {
        self.clock.now()
    }

    /// The search settings (weights, default page size, thresholds) in use.
    pub fn search_config(&self) -> &SearchConfig {
        &self.config.search
    }

    /// The context budget in tokens when a request names none.
    pub fn context_budget(&self) -> usize {
        self.config.context.budget_tokens
    }

    /// The store itself, for the behavioural suite's checks below the service.
    #[cfg(feature = "testing")]
    pub fn backend(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Where the data lives, for people.
    pub fn store_location(&self) -> String {
        self.store.location()
    }

    // Memories (`memory::operations`).

    /// Stores a memory: `created`, `duplicate` or `updated`; then records the memories it
    /// may contradict as pending judgments (`relation::operations`).
    pub fn store(&self, new: NewMemory) -> Result<WriteOutcome> {
        let outcome = self.relation_ops().store_memory(new, Detection::Full)?;
        self.land_written([&outcome]);
        Ok(outcome)
    }

    /// Stores a memory with an image (`image::operations`); then records its candidates.
    pub fn store_with_image(&self, new: NewMemory, image: &ImageSource) -> Result<WriteOutcome> {
        let outcome = self.image_ops().store(new, image)?;
        let outcome = self.relation_ops().detect(outcome, Detection::Full);
        self.land_written([&outcome]);
        Ok(outcome)
    }

    /// The images these memories show, each with its memory.
    pub fn memory_images(&self, ids: &[MemoryId]) -> Result<Vec<MemoryImage>> {
        self.store.memory_images(ids)
    }

    /// A stored image's record.
    /// The memories, in any state, that show image `id`.
    pub fn image_references(&self, id: &ImageId) -> Result<Vec<Memory>> {
        let ids = self.store.image_references(id)?;
        self.store.get(&ids)
    }

    pub fn image(&self, id: &ImageId) -> Result<Option<Image>> {
        self.store.image(id)
    }

    /// How many images the store holds, and their bytes; those without a vector are counted
    /// against this service's models (the ones the after-write pass would give them).
    pub fn image_totals(&self) -> Result<ImageTotals> {
        self.store.image_totals(&PendingWork {
            read_text: self.reader.is_some(),
            look_model: self.look_model.as_deref().map(|m| m.name()),
            clip_model: self.clip_model.as_deref().map(|m| m.name()),
        })
    }

    /// The image settings (caps, quota, OCR).
    pub fn images_config(&self) -> &ImagesConfig {
        &self.config.images
    }

    /// Where the image directory is, when the store has one.
    pub fn image_dir(&self) -> Option<&ImageDir> {
        self.images.as_ref()
    }

    // Looking at images after their write (`image::reading`).

    pub fn text_reader(&self) -> Option<&dyn TextReader> {
        self.reader.as_deref()
    }

    /// Hashes the look of every pending image and, with an OCR model, reads its text and makes
    /// it searchable.
    pub fn read_images(&self, progress: &mut dyn FnMut(ReadProgress)) -> Result<ReadReport> {
        self.reading_ops().read_pending(progress)
    }

    /// Images ranked by what they say and how they look (`image::search`).
    pub fn vision_search(&self, query: &VisionQuery) -> Result<VisionResults> {
        VisionSearch::new(
            self.store.as_ref(),
            self.search_ops(),
            self.clock.timestamp(),
        )
        .reading_text(self.reader.is_some())
        .looking_alike(self.look_model.is_some())
        .with_clip_model(self.clip_model.as_deref())
        .search(query)
    }

    /// The query picture of a vision search: a stored image (its file read from the image
    /// directory) or bytes a caller sent or named.
    pub fn query_image(&self, picture: &QueryPicture) -> Result<QueryImage> {
        let bytes = match picture {
            QueryPicture::Stored(id) => {
                let missing =
                    || Error::invalid("image_ref", format!("no stored image has id {id}"));
                let dir = self.images.as_ref().ok_or_else(missing)?;
                let image = self.store.image(id)?.ok_or_else(missing)?;
                dir.read(&image)?
            }
            QueryPicture::Source(source) => source.read(&self.config.images)?.bytes,
        };
        let query = QueryImage::of(&bytes, &self.config.images)?;
        let Some(model) = self.look_model.as_deref() else {
            return Ok(query);
        };
        let stored = self
            .store
            .image_vectors_of(
                ImageSpace::Look,
                std::slice::from_ref(&query.id),
                model.name(),
            )?
            .pop()
            .map(|(_, vector)| vector);
        query.with_vector(&bytes, &self.config.images, model, stored)
    }

    /// Deletes the images no memory references any more (after a purge or a prune). The
    /// deletes that made them unreferenced have committed: a failure is logged, and the next
    /// release or an image write lets them go.
    fn release_images(&self) {
        // A store without images (most of them) pays one cheap read, not a write transaction.
        let released = match self.store.image_totals(&PendingWork::default()) {
            Ok(totals) if totals.images == 0 => Ok(Vec::new()),
            _ => self.image_ops().release_unreferenced(),
        };
        if let Err(error) = released {
            tracing::warn!(%error, "images no memory uses could not be deleted yet");
        }
    }

    /// Applies a patch to a visible memory, keeping its previous state in the history; then
    /// records its conflict candidates.
    pub fn update(&self, target: &IdRef, patch: MemoryPatch) -> Result<WriteOutcome> {
        self.check_writable(target)?;
        let outcome = self.relation_ops().update(target, patch)?;
        self.land_written([&outcome]);
        Ok(outcome)
    }

    /// Finds a memory by id or handle; hidden ones only with `include_hidden`.
    pub fn resolve(&self, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        self.memory_ops().resolve(target, include_hidden)
    }

    /// Visible memories, in the order asked for.
    pub fn get(&self, targets: &[IdRef]) -> Result<Vec<Memory>> {
        self.memory_ops().get(targets)
    }

    /// A visible memory and its previous states.
    pub fn history(&self, target: &IdRef) -> Result<MemoryHistory> {
        self.memory_ops().history(target)
    }

    /// Soft-deletes a visible memory.
    pub fn forget(&self, target: &IdRef) -> Result<Memory> {
        self.check_writable(target)?;
        let memory = self.memory_ops().forget(target)?;
        self.land(&[memory.id]);
        Ok(memory)
    }

    /// Brings back a forgotten memory; in a project that keeps files, its unit is written
    /// again.
    pub fn restore_memory(&self, target: &IdRef) -> Result<Memory> {
        self.check_writable(target)?;
        let memory = self.memory_ops().restore(target)?;
        self.land(&[memory.id]);
        Ok(memory)
    }

    /// Removes a memory for good, in whatever state, with its history.
    pub fn purge(&self, target: &IdRef) -> Result<Memory> {
        self.check_writable(target)?;
        let memory = self.memory_ops().purge(target)?;
        self.release_images();
        self.land(&[memory.id]);
        Ok(memory)
    }

    pub fn list(&self, query: &ListQuery) -> Result<Vec<Memory>> {
        self.memory_ops().list(query)
    }

    pub fn count(&self, filter: &MemoryFilter) -> Result<u64> {
        self.memory_ops().count(filter)
    }

    /// Finds the memories `rule` selects and, unless `dry_run`, deletes them for good, and with
    /// them the observations past the sessions' retention.
    pub fn prune(&self, rule: PruneRule, dry_run: bool) -> Result<PruneReport> {
        let mut report = self.memory_ops().prune(rule, dry_run)?;
        if !dry_run {
            report.observations_deleted = self.session_ops().prune_observations()?;
            let ids: Vec<MemoryId> = report.memories.iter().map(|m| m.id).collect();
            self.release_images();
            self.land(&ids);
        }
        Ok(report)
    }

    /// Deletes observations older than the retention; returns how many.
    pub fn prune_observations(&self) -> Result<u64> {
        self.session_ops().prune_observations()
    }

    pub fn stats(&self) -> Result<StoreStats> {
        self.memory_ops().stats()
    }

    pub fn tags(&self, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        self.memory_ops().tags(filter)
    }

    /// Streams the export (header, then records) to `sink`, one line per call.
    pub fn export(
        &self,
        options: ExportOptions,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<Counts> {
        exchange::export(self.store.as_ref(), options, sink)
    }

    /// Imports an export, plain records or both in one transaction (all or nothing); plain
    /// records without a project go to `default_scope`.
    pub fn import(
        &self,
        input: &mut dyn BufRead,
        default_scope: Scope,
        progress: &mut dyn FnMut(&ImportReport),
    ) -> Result<ImportReport> {
        let importer = Importer {
            store: self.store.as_ref(),
            limits: &self.config.limits,
            default_scope,
            now: self.clock.now(),
        };
        let imported = exchange::import(&importer, input, progress)?;
        self.sync_all_files();
        let mut report = imported.report;
        for outcome in self.detect_by_words(imported.stored) {
            report.conflict_candidates += outcome.candidates.len() as u64;
        }
        Ok(report)
    }

    /// Writes a consistent copy of the database to `file` (which must not exist).
    /// With it, the store's image files go to `<file>-images` (hard links where possible).
    pub fn backup(&self, file: &Path) -> Result<()> {
        self.store.backup(file)?;
        if let Some(images) = &self.images {
            let target = ImageDir::beside(file);
            images.copy_into(&target).map_err(|error| Error::Storage {
                message: format!(
                    "the database was backed up to {}, but its images could not be copied to {}: {error}",
                    file.display(),
                    target.root().display()
                ),
                source: None,
            })?;
        }
        Ok(())
    }

    /// Replaces everything the store holds with the backup in `file`, having saved what it
    /// held; returns where. The backup's images (`<file>-images`) join the image directory
    /// first, so every image the restored records name has its file; the current images stay.
    pub fn restore(&self, file: &Path) -> Result<Option<PathBuf>> {
        if let Some(images) = &self.images {
            ImageDir::beside(file).copy_into(images)?;
        }
        self.store.restore(file)
    }

    /// Stores the `*Remember*:` facts of an agent's output as memories.
    pub fn extract(
        &self,
        text: &str,
        scope: Scope,
        entered_by: Option<String>,
        session_id: Option<String>,
    ) -> Result<Vec<WriteOutcome>> {
        let outcomes = self
            .memory_ops()
            .extract(text, scope, entered_by, session_id)?;
        self.land_written(&outcomes);
        Ok(self.detect_by_words(outcomes))
    }

    /// Records the conflict candidates of writes a hook or an import made (by words: they
    /// never load a model).
    fn detect_by_words(&self, outcomes: Vec<WriteOutcome>) -> Vec<WriteOutcome> {
        let relations = self.relation_ops();
        outcomes
            .into_iter()
            .map(|outcome| relations.detect(outcome, Detection::Words))
            .collect()
    }

    // Markdown files (`files::operations`).

    /// Makes `root`/`dir` the markdown workspace of `project` and syncs it.
    pub fn init_files(&self, project: ProjectName, root: &Path, dir: &str) -> Result<SyncReport> {
        self.files_ops().init(project, root, dir)
    }

    /// `files.enabled` (a project's `.cairn.toml`): starts `project`'s workspace at `root` with
    /// the configured directory, the first time any entry point runs in it; `None` when the
    /// setting is off or the workspace exists (one read).
    pub fn start_files_if_enabled(
        &self,
        project: &ProjectName,
        root: &Path,
    ) -> Result<Option<SyncReport>> {
        if !self.config.files.enabled || self.files_ops().workspace(project)?.is_some() {
            return Ok(None);
        }
        self.init_files(project.clone(), root, &self.config.files.dir)
            .map(Some)
    }

    /// The markdown workspace of `project`, if it has one.
    pub fn workspace(&self, project: &ProjectName) -> Result<Option<Workspace>> {
        self.files_ops().workspace(project)
    }

    /// Every markdown workspace.
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.files_ops().workspaces()
    }

    /// Writes a project's shareable memories not in its files yet; a dry run only lists them.
    pub fn export_files(&self, workspace: &Workspace, dry_run: bool) -> Result<FilesExport> {
        self.files_ops().export(workspace, dry_run)
    }

    /// Rebuilds a project's memories from its files alone (see `Files::rebuild`).
    pub fn rebuild_from_files(&self, workspace: &Workspace) -> Result<SyncReport> {
        self.files_ops().rebuild(workspace)
    }

    /// Where a memory's unit is, relative to its project's root (a followed file's absolute
    /// path), if it has one.
    pub fn unit_path(&self, memory: &Memory) -> Result<Option<String>> {
        self.files_ops().unit_path(memory)
    }

    /// Brings a project's memories of the files its agents follow in line with the files (see
    /// `files::followed`); a dry run only counts.
    pub fn follow_files(
        &self,
        project: &ProjectName,
        files: &[FollowedFile],
        dry_run: bool,
    ) -> Result<FollowReport> {
        self.files_ops().follow(project, files, dry_run)
    }

    /// Whether a project follows any file.
    pub fn follows_files(&self, project: &ProjectName) -> Result<bool> {
        self.files_ops().follows_files(project)
    }

    /// Reads a workspace's files back into the store (edits, deletions, new units); a dry run
    /// only says what it would do.
    pub fn sync_files(&self, workspace: &Workspace, dry_run: bool) -> Result<SyncReport> {
        self.files_ops().sync(workspace, dry_run)
    }

    /// Refuses to change a RAW memory (a markdown file's own text), whatever the entry point.
    fn check_writable(&self, target: &IdRef) -> Result<()> {
        let memory = self.memory_ops().resolve(target, true)?;
        self.files_ops().check_writable(&memory.id)
    }

    /// Writes what these writes stored into their projects' files.
    fn land_written<'o>(&self, outcomes: impl IntoIterator<Item = &'o WriteOutcome>) {
        let ids: Vec<MemoryId> = outcomes
            .into_iter()
            .filter(|o| o.status.stored_text())
            .map(|o| o.memory.id)
            .collect();
        self.land(&ids);
    }

    /// Brings these memories' units in line with the store. The write that called it has
    /// committed: what cannot be written is logged, and the next sync repairs it.
    fn land(&self, ids: &[MemoryId]) {
        match self.files_ops().land(ids) {
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
    pub fn refresh_files(&self, project: &ProjectName, settle: Duration) -> Option<SyncReport> {
        self.files_ops()
            .refresh(project, settle)
            .unwrap_or_else(|e| {
                tracing::warn!(project = %project, error = %e, "memory files not synced");
                None
            })
    }

    /// Syncs every workspace (after an import), logging what fails.
    fn sync_all_files(&self) {
        let workspaces = match self.files_ops().workspaces() {
            Ok(workspaces) => workspaces,
            Err(e) => return tracing::warn!(error = %e, "memory files not synced"),
        };
        for workspace in workspaces {
            if let Err(e) = self.files_ops().sync(&workspace, false) {
                tracing::warn!(project = %workspace.project, error = %e, "memory files not synced");
            }
        }
    }

    // Relations (`relation::operations`).

    /// Settles a pending judgment (or re-judges a settled one, keeping the earlier verdict).
    pub fn judge(&self, judgment: &RelationRef, verdict: NewVerdict) -> Result<RelationView> {
        self.relation_ops().judge(judgment, verdict)
    }

    /// Records a verdict on two memories directly.
    pub fn compare(&self, a: &IdRef, b: &IdRef, verdict: NewVerdict) -> Result<Compared> {
        self.relation_ops().compare(a, b, verdict)
    }

    pub fn relation(&self, judgment: &RelationRef) -> Result<RelationView> {
        self.relation_ops().show(judgment)
    }

    pub fn relations(&self, filter: &RelationFilter) -> Result<Vec<RelationView>> {
        self.relation_ops().list(filter)
    }

    /// The relations of these memories, both directions.
    pub fn relations_of(&self, ids: &[MemoryId]) -> Result<Vec<RelationView>> {
        self.relation_ops().relations_of(ids)
    }

    pub fn relation_stats(&self, scope: Option<&Scope>) -> Result<RelationStats> {
        self.relation_ops().stats(scope)
    }

    /// Walks a scope for pairs never related; records the best `max_insert` with `apply`.
    pub fn scan_conflicts(
        &self,
        scope: &Scope,
        apply: bool,
        max_insert: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<ScanReport> {
        self.relation_ops().scan(scope, apply, max_insert, progress)
    }

    // Search (`search::pipeline`).

    /// The mode a search runs in: the one asked for, else hybrid with a model, else lexical.
    pub fn search_mode(&self, asked: Option<SearchMode>) -> Result<SearchMode> {
        self.search_ops().search_mode(asked)
    }

    /// Searches, then adds to each hit the images its memory shows.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResults> {
        let mut results = self.search_ops().search(request)?;
        let ids: Vec<MemoryId> = results.hits.iter().map(|hit| hit.memory.id).collect();
        for shown in self.store.memory_images(&ids)? {
            if let Some(hit) = results
                .hits
                .iter_mut()
                .find(|h| h.memory.id == shown.memory)
            {
                hit.images.push(shown.image);
            }
        }
        Ok(results)
    }

    // Embeddings (`embedding::queue`).

    pub fn embedder(&self) -> Option<&dyn Embedder> {
        self.embedder.as_deref()
    }

    /// Embeds every pending memory, then updates the store's vector index.
    pub fn embed_pending(&self, progress: &mut dyn FnMut(EmbedProgress)) -> Result<EmbedReport> {
        self.embedding_ops().embed_pending(progress)
    }

    /// Why the text space's index is not used, when a search found it damaged.
    pub fn vector_index_damage(&self) -> Option<String> {
        self.embedding_ops().vector_index_damage()
    }

    /// Brings the store's vector index up to date, or builds it anew when `rebuild`.
    pub fn update_vector_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Option<VectorIndexReport>> {
        self.embedding_ops().update_vector_index(rebuild, progress)
    }

    // Health (`health::operations`).

    /// Every check of the store (the cheap ones alone with `quick`), explained.
    pub fn examine(&self, quick: bool) -> Result<HealthReport> {
        self.doctor().examine(quick)
    }

    /// Repairs what the report's findings say `--repair` repairs; what was done, line by line.
    pub fn repair(&self, report: &HealthReport) -> Vec<String> {
        self.doctor().repair(report)
    }

    /// Drops every vector and embeds every memory again with the current model.
    pub fn reindex_embeddings(
        &self,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<EmbedReport> {
        self.embedding_ops().reindex_embeddings(progress)
    }

    pub fn embedding_status(&self) -> Result<EmbeddingStatus> {
        self.embedding_ops().embedding_status()
    }

    // Sessions (`session::recording`).

    /// Records agent events in one transaction, summarises the sessions that ended or
    /// compacted, then reflects those that ended into their project's slots.
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<Recorded> {
        let mut report = self.session_ops().record_events(events)?;
        self.land_written(&report.extracted);
        report.extracted = self.detect_by_words(std::mem::take(&mut report.extracted));
        self.slot_ops().reflect_ended(report)
    }

    /// Keeps the screenshots the tools of these events returned as memories of their sessions
    /// (`image::screenshots`), after the events are recorded. A picture the store refuses is
    /// logged and left out: it never fails the events.
    pub fn keep_screenshots(&self, events: &[AgentEvent]) -> Vec<WriteOutcome> {
        let mut kept = Vec::new();
        for (memory, picture) in events.iter().flat_map(screenshot_memories) {
            match self.store_with_image(memory, &picture) {
                Ok(outcome) => kept.push(outcome),
                Err(error) => tracing::warn!(%error, "a screenshot a tool returned was not kept"),
            }
        }
        kept
    }

    /// The oldest time an observation may have and still be visible.
    pub fn observation_cutoff(&self) -> Timestamp {
        self.session_ops().observation_cutoff()
    }

    pub fn session(&self, key: &SessionKey) -> Result<Session> {
        self.session_ops().session(key)
    }

    /// The session `text` names: `AGENT/ID`, or a bare id that one agent's session has.
    pub fn resolve_session(&self, text: &str) -> Result<SessionKey> {
        self.session_ops().resolve(text)
    }

    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        self.session_ops().sessions(filter)
    }

    pub fn observations(&self, key: &SessionKey) -> Result<Vec<Observation>> {
        self.session_ops().observations(key)
    }

    pub fn search_observations(
        &self,
        query: &str,
        project: Option<ProjectName>,
        session: Option<SessionKey>,
        limit: usize,
    ) -> Result<Vec<ObservationHit>> {
        self.session_ops()
            .search_observations(query, project, session, limit)
    }

    pub fn summarize_session(&self, key: &SessionKey) -> Result<Option<WriteOutcome>> {
        self.session_ops().summarize_session(key)
    }

    pub fn store_agent_summary(&self, summary: AgentSummary) -> Result<WriteOutcome> {
        self.session_ops().store_agent_summary(summary)
    }

    pub fn recent_summaries(
        &self,
        project: Option<&ProjectName>,
        count: usize,
    ) -> Result<Vec<Memory>> {
        self.session_ops().recent_summaries(project, count)
    }

    pub fn derived_summary(&self, session: &Session) -> Result<String> {
        self.session_ops().derived_summary(session)
    }

    /// Moves everything this store holds into `target` (`exchange::migrate`).
    pub fn migrate_to(
        &self,
        target: &dyn Store,
        progress: &mut dyn FnMut(MigrateProgress),
    ) -> Result<MigrationReport> {
        exchange::migrate(self.store.as_ref(), target, &self.config.limits, progress)
    }

    // Access tokens (`access::operations`).

    pub fn issue_token(&self, new: NewToken) -> Result<IssuedToken> {
        self.token_ops().issue(new)
    }

    pub fn tokens(&self) -> Result<Vec<AccessToken>> {
        self.token_ops().list()
    }

    pub fn revoke_token(&self, id: &str) -> Result<AccessToken> {
        self.token_ops().revoke(id)
    }

    pub fn authenticate(&self, presented: &str) -> Result<Option<Grant>> {
        self.token_ops().authenticate(presented)
    }

    pub fn tokens_required(&self) -> Result<bool> {
        self.token_ops().required()
    }

    // Slots (`slot::operations`).

    pub fn slots(&self, project: Option<&ProjectName>) -> Result<Vec<Slot>> {
        self.slot_ops().slots(project)
    }

    pub fn slot(&self, address: &SlotAddress) -> Result<Slot> {
        self.slot_ops().slot(address)
    }

    pub fn pinned_slots(&self, project: Option<&ProjectName>) -> Result<Vec<Slot>> {
        self.slot_ops().pinned_slots(project)
    }

    pub fn create_slot(&self, new: NewSlot) -> Result<Slot> {
        self.slot_ops().create_slot(new)
    }

    pub fn append_slot(&self, address: &SlotAddress, text: &str) -> Result<Slot> {
        self.slot_ops().append_slot(address, text)
    }

    pub fn replace_slot(&self, address: &SlotAddress, text: &str) -> Result<Slot> {
        self.slot_ops().replace_slot(address, text)
    }

    pub fn configure_slot(&self, address: &SlotAddress, settings: &SlotSettings) -> Result<Slot> {
        self.slot_ops().configure_slot(address, settings)
    }

    pub fn delete_slot(&self, address: &SlotAddress) -> Result<Slot> {
        self.slot_ops().delete_slot(address)
    }

    pub fn reset_slots(
        &self,
        project: Option<&ProjectName>,
        label: Option<&SlotLabel>,
    ) -> Result<Vec<Slot>> {
        self.slot_ops().reset_slots(project, label)
    }

    pub fn reflect_session(&self, key: &SessionKey) -> Result<Reflection> {
        self.slot_ops().reflect_session(key)
    }

    pub fn reflect_latest_session(&self, project: &ProjectName) -> Result<Reflection> {
        self.slot_ops().reflect_latest_session(project)
    }

    // Context (`context`).

    /// What a new or compacted session should know, packed into the token budget.
    pub fn context(&self, request: &ContextRequest) -> Result<Context> {
        // Hand edits to the project's files reach what a new session is told.
        if let Some(project) = &request.project {
            self.refresh_files(project, Duration::ZERO);
        }
        self.context_ops().context(request)
    }
}
