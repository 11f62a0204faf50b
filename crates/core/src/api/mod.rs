//! cairn's network interfaces, MCP and HTTP, as one layer over the service.
//!
//! An MCP tool call and a REST request carry the same JSON: `memory_store` and
//! `POST /v1/memories` both take a [`StoreInput`]. Keeping these shapes here means one schema
//! (derived with `schemars`, so the MCP `tools/list` and the OpenAPI document are generated from
//! the same types and cannot drift), one conversion into the service's own requests, and one
//! set of defaults. The CLI reads its flags through the same conversions.
//!
//! - one file per domain with its input types and their conversions: [`mod@memory`] (store,
//!   update, search, filters, listings), [`mod@session`] (context, sessions, summaries),
//!   [`mod@slot`], [`mod@exchange`] (export) and [`mod@files`] (the `memory_add` contract);
//! - [`documents`]: the JSON answers, in full (REST, the CLI's JSON) and compact (MCP);
//! - [`mod@schema`]: input schemas as clients see them;
//! - [`Api`]: the one front door of every adapter — the CLI, MCP, HTTP and the hooks. It owns
//!   the service (no adapter reaches it otherwise), converts an input for a [`Caller`] (which
//!   project a request means when it names none, which [`Source`] and agent to record, and its
//!   [`Access`]), checks that access before anything is read or written (every operation that
//!   reaches stored data takes a `Caller`; those without one are the local process's own
//!   housekeeping — backups, pruning, embedding — which no network adapter calls), runs
//!   the service, and sees that text written gets its embedding: a long-lived process's worker
//!   ([`worker`]) is woken after every write that changed something, and a one-shot process
//!   reads the images and embeds the text it wrote before it exits
//!   ([`Api::read_written_images`], [`Api::embed_written`]). Beside the JSON inputs it takes the
//!   service's own requests for the command line, whose flags allow more than the network
//!   inputs (pages of up to 1,000, say). The network adapters only move JSON in and out and
//!   run these calls off their async runtime (they block on SQLite).

pub mod documents;
pub mod exchange;
pub mod files;
pub mod image;
pub mod memory;
pub mod relation;
pub mod schema;
pub mod session;
pub mod slot;
pub mod worker;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::Zoned;

use crate::access::{Access, AccessToken, Grant, IssuedToken, NewToken};
use crate::config::Config;
use crate::context::{Context, ContextRequest};
use crate::embedding::{EmbedProgress, EmbedReport, EmbeddingStatus, VectorIndexReport};
use crate::error::{Error, Result};
use crate::exchange::{Counts, ExportOptions, ImportReport, MigrateProgress, MigrationReport};
use crate::files::{FilesExport, FollowReport, FollowedFile, SyncReport, Workspace};
use crate::health::HealthReport;
use crate::id::{IdRef, MemoryId, RelationRef};
use crate::image::{ImageId, ImageSource, ImageTotals, ReadProgress, ReadReport};
use crate::memory::{
    ListQuery, Memory, MemoryFilter, MemoryHistory, PruneReport, PruneRule, Source, StoreStats,
    TagCount, WriteOutcome,
};
use crate::relation::{Compared, RelationStats, RelationView, ScanReport};
use crate::scope::{ProjectName, Scope};
use crate::search::{SearchRequest, SearchResults};
use crate::service::{MemoryService, ServiceParts};
use crate::session::{AgentEvent, Observation, ObservationHit, Session, SessionFilter, SessionKey};
use crate::slot::{DEFAULT_SLOTS, SlotAddress};
use crate::slot::{Recorded, Reflection, Slot, SlotLabel};
use worker::Worker;

pub use documents::{
    CompactMemory, ImageDocument, MemoryDocument, SlotDocument, attach_images,
    compact_observations, compact_search, compact_write, documents_with_images, hit_document,
    relation_document, slot_answer, slots_answer, write_document,
};
pub use exchange::ExportInput;
pub use files::{AddError, AddInput, AddOutcome, AddedUnit};
pub use image::{VisionFound, VisionHitDocument, VisionSearchInput};
pub use memory::{
    FilterInput, ForgetInput, GetInput, ListInput, MAX_GET_IDS, MAX_PAGE, OrderInput, PatchInput,
    SearchInput, SortInput, StoreInput, UpdateInput,
};
pub use relation::{CompareInput, ConflictsInput, JudgeInput, ScanInput, VerdictInput};
pub use schema::schema;
pub use session::{ContextInput, SessionSummaryInput, SessionsInput};
pub use slot::{
    SlotCreateInput, SlotEditInput, SlotInput, SlotProjectInput, SlotSettingsInput, SlotTarget,
    SlotTextInput,
};

/// The most pending judgments one scan records unless told otherwise.
pub const DEFAULT_SCAN_INSERTS: usize = 100;

/// An id error about field `a` or `b` of a comparison rather than `id`.
fn renamed(error: crate::Error, field: &str) -> crate::Error {
    match error {
        crate::Error::Invalid { message, .. } => crate::Error::invalid(field, message),
        other => other,
    }
}

/// Who is asking: the defaults a request means and what it may do.
#[derive(Debug, Clone)]
pub struct Caller {
    /// What the caller may read and write; every operation a network client can reach checks
    /// it (see [`crate::access`]).
    pub access: Access,
    /// The project a request means when it names none; `None` means global for writes and every
    /// project for reads.
    pub default_project: Option<ProjectName>,
    /// Recorded on memories this caller stores.
    pub source: Source,
    /// The agent behind the request (an MCP client's name), recorded as `entered_by` when a
    /// write does not say.
    pub agent: Option<String>,
}

impl Caller {
    /// The local user, through `source`: full access, no default project (a request that
    /// names none means the global scope for writes and every project for reads).
    pub fn local(source: Source) -> Caller {
        Caller {
            access: Access::Full,
            default_project: None,
            source,
            agent: None,
        }
    }

    /// This caller with `access`: a token's caller works in the token's project (a request
    /// that names no project means it).
    pub fn granted(mut self, access: Access) -> Caller {
        if let Some(project) = access.project() {
            self.default_project = Some(project.clone());
        }
        self.access = access;
        self
    }
}

/// A page of a listing and how many memories the filter matches in all.
#[derive(Debug, Clone)]
pub struct Listing {
    pub memories: Vec<Memory>,
    pub total: u64,
}

/// What a search found: memories, or (with `observations: true`) what agents did.
#[derive(Debug, Clone)]
pub enum Found {
    Memories(SearchResults),
    Observations(Vec<ObservationHit>),
}

/// The operations every adapter calls, shared by every connection of a server.
#[derive(Clone)]
pub struct Api {
    service: Arc<MemoryService>,
    /// Woken after each write so new memories get their embeddings (a long-lived process with
    /// a model).
    worker: Option<Arc<Worker>>,
    /// Set by a write that changed text, for a one-shot process to embed before it exits.
    wrote_text: Arc<AtomicBool>,
    /// Set by a write that stored an image, for a one-shot process to read before it exits.
    wrote_image: Arc<AtomicBool>,
}

impl Api {
    /// The front door over a store, the models and summariser there are, and the
    /// configuration: the one way an adapter gets one. For a one-shot process (a command, a
    /// hook), what it writes is embedded when it calls [`Api::embed_written`]; a long-lived
    /// process makes it [`Api::serving`].
    pub fn open(parts: ServiceParts, config: &Config) -> Self {
        Api::over(MemoryService::assemble(parts, config))
    }

    /// An `Api` over a service a test built itself (the behavioural suite's harness, with the
    /// clock it moves).
    #[cfg(feature = "testing")]
    pub fn over_service(service: MemoryService) -> Self {
        Api::over(service)
    }

    fn over(service: MemoryService) -> Self {
        Api {
            service: Arc::new(service),
            worker: None,
            wrote_text: Arc::new(AtomicBool::new(false)),
            wrote_image: Arc::new(AtomicBool::new(false)),
        }
    }

    /// This `Api` for a long-lived process (`cairn serve`, `cairn mcp`): with a model, a
    /// background worker embeds after every write (and sweeps for other processes' writes). The
    /// worker stops when the last clone of this `Api` is dropped, letting its current batch
    /// finish.
    pub fn serving(mut self) -> Self {
        self.worker = Worker::spawn(Arc::clone(&self.service)).map(Arc::new);
        self
    }

    /// After a write: new or changed text needs an embedding.
    fn written(&self, changed: bool) {
        if !changed {
            return;
        }
        self.wrote_text.store(true, Ordering::Relaxed);
        if let Some(worker) = &self.worker {
            worker.nudge();
        }
    }

    /// True when this process wrote text that [`Api::embed_written`] would embed.
    pub fn has_text_to_embed(&self) -> bool {
        self.worker.is_none()
            && self.service.embedder().is_some()
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
        self.service.embed_pending(progress).map(Some)
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
        let report = self.service.read_images(progress)?;
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
        let report = self.service.read_images(progress)?;
        self.written(report.with_text > 0);
        Ok(report)
    }

    fn wrote(&self, outcome: WriteOutcome) -> WriteOutcome {
        if outcome.image.is_some() {
            self.wrote_image.store(true, Ordering::Relaxed);
        }
        self.written(outcome.status.stored_text() || outcome.image.is_some());
        outcome
    }

    pub fn store(&self, caller: &Caller, mut input: StoreInput) -> Result<WriteOutcome> {
        let image = input.take_image();
        let new = input.into_new_memory(&self.service, caller)?;
        caller.access.write(&new.scope, "project")?;
        let outcome = match image {
            Some(image) => self.service.store_with_image(new, &image)?,
            None => self.service.store(new)?,
        };
        Ok(self.wrote(outcome))
    }

    /// How many images the store holds, and where their files are (when on this machine).
    pub fn image_totals(&self) -> Result<(ImageTotals, Option<PathBuf>)> {
        let dir = self.service.image_dir().map(|d| d.root().to_path_buf());
        Ok((self.service.image_totals()?, dir))
    }

    /// The images these memories show, each with its memory and file.
    pub fn images_of(&self, caller: &Caller, memories: &[Memory]) -> Result<Vec<ImageDocument>> {
        for memory in memories {
            caller.access.read(&memory.scope, "id")?;
        }
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        let dir = self.service.image_dir();
        Ok(self
            .service
            .memory_images(&ids)?
            .into_iter()
            .map(|shown| ImageDocument {
                file: dir.map(|d| d.path(&shown.image.id, shown.image.format)),
                memory: shown.memory,
                image: shown.image,
            })
            .collect())
    }

    /// A stored image's thumbnail for the viewer: a PNG at most
    /// [`THUMBNAIL_SIDE`](crate::image::files::THUMBNAIL_SIDE) pixels a side, made on first ask.
    /// `id` is the image's id as results give it (64 hex digits).
    pub fn thumbnail(&self, caller: &Caller, id: &str) -> Result<Vec<u8>> {
        let id = ImageId::parse(id.trim())?;
        self.readable_image(caller, &id)?;
        let Some(dir) = self.service.image_dir() else {
            return Err(Error::invalid("image", "this store keeps no images"));
        };
        let Some(image) = self.service.image(&id)? else {
            return Err(Error::Missing {
                field: "image".into(),
                message: format!("no stored image has the id {id}"),
            });
        };
        let path = dir.thumbnail(&image, self.service.images_config())?;
        std::fs::read(&path)
            .map_err(|error| Error::storage(format!("read {}", path.display()), error))
    }

    /// `store` with an image read from a file the user named: the CLI's alone (MCP and HTTP
    /// clients send images inline and can never make cairn read a path).
    pub fn store_with_image_file(
        &self,
        caller: &Caller,
        input: StoreInput,
        file: &Path,
    ) -> Result<WriteOutcome> {
        if input.image.is_some() {
            return Err(Error::invalid(
                "image",
                "give an image file or inline data, not both",
            ));
        }
        let new = input.into_new_memory(&self.service, caller)?;
        caller.access.write(&new.scope, "project")?;
        let image = ImageSource::File(file.to_path_buf());
        Ok(self.wrote(self.service.store_with_image(new, &image)?))
    }

    /// The `memory_add` contract: stores `text` in the caller's project like `store`, and
    /// answers `created`, `duplicate` or `failed` (a refused input is an answer, not an error).
    pub fn add(&self, caller: &Caller, input: AddInput) -> Result<AddOutcome> {
        if input.text.trim().is_empty() {
            return Ok(AddOutcome::Failed {
                error: AddError::text_required(),
            });
        }
        let refused = |e: crate::Error| match AddError::from_error(&e) {
            Some(error) => Ok(AddOutcome::Failed { error }),
            None => Err(e),
        };
        let category = match input.category.as_deref().map(str::parse).transpose() {
            Ok(category) => category,
            Err(e) => return refused(e),
        };
        let store = StoreInput {
            content: input.text,
            image: None,
            title: None,
            category,
            tags: Vec::new(),
            project: None,
            global: false,
            topic_key: None,
            importance: None,
            expires: None,
            entered_by: None,
        };
        let outcome = match self.store(caller, store) {
            Ok(outcome) => outcome,
            Err(e) => return refused(e),
        };
        let unit = AddedUnit::of(&outcome.memory, self.service.unit_path(&outcome.memory)?);
        Ok(match outcome.status {
            crate::memory::WriteStatus::Duplicate => AddOutcome::Duplicate { existing: unit },
            _ => AddOutcome::Created(unit),
        })
    }

    /// Changes memory `id` (a full id or a handle).
    pub fn update(&self, caller: &Caller, id: &str, patch: PatchInput) -> Result<WriteOutcome> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, false)?;
        let patch = patch.into_patch(&self.service)?;
        Ok(self.wrote(self.service.update(&target, patch)?))
    }

    pub fn get(&self, caller: &Caller, input: &GetInput) -> Result<Vec<Memory>> {
        self.memories(caller, &input.id_refs()?)
    }

    /// Hides memory `id`, or with `purge` deletes it for good.
    pub fn forget(&self, caller: &Caller, id: &str, purge: bool) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, purge)?;
        if purge {
            self.service.purge(&target)
        } else {
            self.service.forget(&target)
        }
    }

    /// Brings back a forgotten memory (`cairn forget --undo`), as it was.
    pub fn restore_memory(&self, caller: &Caller, id: &str) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, true)?;
        let memory = self.service.restore_memory(&target)?;
        self.written(true);
        Ok(memory)
    }

    pub fn search(&self, caller: &Caller, input: SearchInput) -> Result<Found> {
        if input.observations {
            return Ok(Found::Observations(
                input.search_observations(&self.service, caller)?,
            ));
        }
        let request = input.into_request(&self.service, caller)?;
        Ok(Found::Memories(self.search_request(caller, &request)?))
    }

    /// Images found by the words they show and by how they look, as a client asks (a query
    /// picture inline or already stored, never a path outside the image store).
    pub fn vision_search(&self, caller: &Caller, input: VisionSearchInput) -> Result<VisionFound> {
        self.vision(caller, input, None)
    }

    /// `vision_search` with a query picture read from a file the user named: the CLI's alone.
    pub fn vision_search_with_file(
        &self,
        caller: &Caller,
        input: VisionSearchInput,
        file: &Path,
    ) -> Result<VisionFound> {
        self.vision(caller, input, Some(file))
    }

    fn vision(
        &self,
        caller: &Caller,
        input: VisionSearchInput,
        file: Option<&Path>,
    ) -> Result<VisionFound> {
        let by_reference = input.image_ref.is_some();
        let mut query = input.into_query(&self.service, caller, file)?;
        caller.access.narrow(&mut query.filter.scope)?;
        // A stored query picture must be one the caller may see.
        if let (true, Some(image)) = (by_reference, &query.image) {
            self.readable_image(caller, &image.id)?;
        }
        let results = self.service.vision_search(&query)?;
        Ok(VisionFound::of(results, &self.service))
    }

    /// Settles a pending judgment (a write's candidate) with a verdict.
    pub fn judge(&self, caller: &Caller, input: JudgeInput) -> Result<RelationView> {
        self.judge_id(caller, &input.judgment_id, input.verdict)
    }

    /// Settles judgment `judgment_id` (a full id or a handle) with a verdict.
    pub fn judge_id(
        &self,
        caller: &Caller,
        judgment_id: &str,
        verdict: VerdictInput,
    ) -> Result<RelationView> {
        let judgment = RelationRef::parse(judgment_id)?;
        let relation = self.service.relation(&judgment)?.relation;
        caller.access.write(&relation.scope, "judgment_id")?;
        self.service.judge(&judgment, verdict.into_verdict(caller))
    }

    /// Records a verdict on two memories directly.
    pub fn compare(&self, caller: &Caller, input: CompareInput) -> Result<Compared> {
        let a = IdRef::parse(&input.a).map_err(|e| renamed(e, "a"))?;
        let b = IdRef::parse(&input.b).map_err(|e| renamed(e, "b"))?;
        self.writable(caller, &a, false)
            .map_err(|e| renamed(e, "a"))?;
        self.writable(caller, &b, false)
            .map_err(|e| renamed(e, "b"))?;
        self.service
            .compare(&a, &b, input.verdict.into_verdict(caller))
    }

    /// Relations under a filter, the most recently changed first.
    pub fn conflicts(&self, caller: &Caller, input: ConflictsInput) -> Result<Vec<RelationView>> {
        let mut filter = input.into_filter(&self.service, caller)?;
        filter.scope = self.relation_scope(caller, filter.scope)?;
        self.service.relations(&filter)
    }

    /// One judgment by id or handle.
    pub fn conflict(&self, caller: &Caller, judgment_id: &str) -> Result<RelationView> {
        let view = self.service.relation(&RelationRef::parse(judgment_id)?)?;
        caller.access.read(&view.relation.scope, "judgment_id")?;
        Ok(view)
    }

    /// Counts of relations by status and relation, in the scope the input names.
    pub fn conflict_stats(&self, caller: &Caller, input: &ConflictsInput) -> Result<RelationStats> {
        let scope = self.relation_scope(caller, input.scope(caller)?)?;
        self.service.relation_stats(scope.as_ref())
    }

    /// The scope of a relation read (`None`: every scope), narrowed to the caller's.
    fn relation_scope(&self, caller: &Caller, scope: Option<Scope>) -> Result<Option<Scope>> {
        match (scope, caller.access.project()) {
            (None, Some(project)) => Ok(Some(Scope::Project(project.clone()))),
            (Some(scope), _) => {
                caller.access.read(&scope, "project")?;
                Ok(Some(scope))
            }
            (None, None) => Ok(None),
        }
    }

    /// Walks one scope for pairs never related; records them with `apply`.
    pub fn scan_conflicts(
        &self,
        caller: &Caller,
        input: ScanInput,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<ScanReport> {
        let scope = input.scope(caller)?;
        match input.apply {
            true => caller.access.write(&scope, "project")?,
            false => caller.access.read(&scope, "project")?,
        }
        self.service.scan_conflicts(
            &scope,
            input.apply,
            input.max_insert.unwrap_or(DEFAULT_SCAN_INSERTS),
            progress,
        )
    }

    /// The relations of these memories (both directions), with both sides' headlines.
    pub fn relations_of(&self, caller: &Caller, memories: &[Memory]) -> Result<Vec<RelationView>> {
        for memory in memories {
            caller.access.read(&memory.scope, "id")?;
        }
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        Ok(self
            .service
            .relations_of(&ids)?
            .into_iter()
            .filter(|view| caller.access.can_read(&view.relation.scope))
            .collect())
    }

    /// What a session should know now, packed into the budget.
    pub fn context(&self, caller: &Caller, input: ContextInput) -> Result<Context> {
        self.context_request(caller, &input.into_request(&self.service, caller)?)
    }

    /// Stores the agent's own summary of its session.
    pub fn session_summary(
        &self,
        caller: &Caller,
        input: SessionSummaryInput,
    ) -> Result<WriteOutcome> {
        let summary = input.into_summary(caller)?;
        let scope = summary
            .project
            .clone()
            .map_or(Scope::Global, Scope::Project);
        caller.access.write(&scope, "project")?;
        Ok(self.wrote(self.service.store_agent_summary(summary)?))
    }

    pub fn sessions(&self, caller: &Caller, input: SessionsInput) -> Result<Vec<Session>> {
        self.session_list(caller, &input.into_filter(caller)?)
    }

    /// A session with its visible observations.
    pub fn session(
        &self,
        caller: &Caller,
        agent: &str,
        id: &str,
    ) -> Result<(Session, Vec<Observation>)> {
        let key = SessionKey::new(agent, id)?;
        let session = self.session_by_key(caller, &key)?;
        Ok((session, self.service.observations(&key)?))
    }

    pub fn list(&self, caller: &Caller, input: ListInput) -> Result<Listing> {
        self.listing(caller, &input.into_query(&self.service, caller)?)
    }

    pub fn tags(&self, caller: &Caller, input: FilterInput) -> Result<Vec<TagCount>> {
        self.tag_counts(caller, &input.into_filter(&self.service, caller)?)
    }

    /// Reads an export, plain records or both (JSON Lines or one JSON array); all or nothing.
    /// Plain records without a project go to the caller's project (global without one).
    /// `progress` hears every few hundred records.
    /// Makes `root`/`dir` the markdown workspace of the caller's project and syncs it: the
    /// project's memories are written into the files, units already there are read.
    pub fn init_files(&self, caller: &Caller, root: &Path, dir: &str) -> Result<SyncReport> {
        let project = files_project(caller)?;
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let report = self.service.init_files(project, root, dir)?;
        self.written(report.changed_text());
        Ok(report)
    }

    /// Reads the caller's project's files back into the store, or every workspace's with
    /// `all`; with `dry_run`, only says what that would do (what it would forget, above all).
    pub fn sync_files(&self, caller: &Caller, all: bool, dry_run: bool) -> Result<Vec<SyncReport>> {
        let workspaces = match all {
            true => {
                caller.access.whole_store("syncing every workspace")?;
                self.service.workspaces()?
            }
            false => vec![self.workspace_of(caller)?],
        };
        let mut reports = Vec::new();
        for workspace in &workspaces {
            let report = self.service.sync_files(workspace, dry_run)?;
            self.written(!dry_run && report.changed_text());
            reports.push(report);
        }
        Ok(reports)
    }

    /// Writes the caller's project's shareable memories that are not in its files yet; with
    /// `dry_run`, lists them.
    pub fn export_files(&self, caller: &Caller, dry_run: bool) -> Result<FilesExport> {
        self.service
            .export_files(&self.workspace_of(caller)?, dry_run)
    }

    /// `files.enabled`: starts the caller's project's workspace at `root` if it has none yet
    /// (see `MemoryService::start_files_if_enabled`).
    pub fn start_files_if_enabled(&self, caller: &Caller, root: &Path) -> Result<()> {
        let Some(project) = &caller.default_project else {
            return Ok(());
        };
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        if let Some(report) = self.service.start_files_if_enabled(project, root)? {
            tracing::info!(directory = %report.directory, "started the project's memory files");
            self.written(report.changed_text());
        }
        Ok(())
    }

    /// Follows the files `project`'s agents follow (`CLAUDE.md`, `AGENTS.md`, `MEMORY.md`):
    /// read-only memories kept in line with them (see `files::followed`).
    pub fn follow_instructions(
        &self,
        caller: &Caller,
        project: &ProjectName,
        files: &[FollowedFile],
        dry_run: bool,
    ) -> Result<FollowReport> {
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let report = self.service.follow_files(project, files, dry_run)?;
        self.written(!dry_run && report.changed());
        Ok(report)
    }

    /// Whether `project` follows any file (an import of instructions started it).
    pub fn follows_instructions(&self, caller: &Caller, project: &ProjectName) -> Result<bool> {
        caller
            .access
            .read(&Scope::Project(project.clone()), "project")?;
        self.service.follows_files(project)
    }

    /// Rebuilds the caller's project's memories from its markdown files alone.
    pub fn rebuild_from_files(&self, caller: &Caller) -> Result<SyncReport> {
        let workspace = self.workspace_of(caller)?;
        let report = self.service.rebuild_from_files(&workspace)?;
        self.written(true);
        Ok(report)
    }

    /// The caller's project's workspace, or an error that says how to start one. Files are
    /// the project's memories in both directions: the caller must be able to write them.
    fn workspace_of(&self, caller: &Caller) -> Result<Workspace> {
        let project = files_project(caller)?;
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        self.service.workspace(&project)?.ok_or_else(|| {
            crate::Error::invalid(
                "project",
                format!("project '{project}' keeps no markdown files"),
            )
        })
    }

    /// Syncs every workspace whose files changed since its last sync (what `cairn serve`
    /// watches for), once they have not changed for `files::WRITE_SETTLE`; the reports of
    /// those it synced.
    pub fn refresh_files(&self) -> Result<Vec<SyncReport>> {
        let mut reports = Vec::new();
        for workspace in self.service.workspaces()? {
            if let Some(report) = self
                .service
                .refresh_files(&workspace.project, crate::files::WRITE_SETTLE)
            {
                self.written(report.changed_text());
                reports.push(report);
            }
        }
        Ok(reports)
    }

    /// Every markdown workspace.
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.service.workspaces()
    }

    pub fn import(
        &self,
        caller: &Caller,
        input: &mut dyn BufRead,
        progress: &mut dyn FnMut(&ImportReport),
    ) -> Result<ImportReport> {
        caller.access.whole_store("an import")?;
        let scope = caller
            .default_project
            .clone()
            .map_or(Scope::Global, Scope::Project);
        let report = self.service.import(input, scope, progress)?;
        self.written(report.memories.created + report.memories.updated > 0);
        Ok(report)
    }

    /// The slots a caller sees: the project's and the global ones it does not shadow.
    pub fn slots(&self, caller: &Caller, input: &SlotProjectInput) -> Result<Vec<Slot>> {
        let project = input.project(caller)?;
        if let Some(project) = &project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.service.slots(project.as_ref())
    }

    pub fn slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        let address = target.address(label, caller)?;
        if let Some(project) = &address.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.service.slot(&address)
    }

    pub fn create_slot(&self, caller: &Caller, input: SlotCreateInput) -> Result<Slot> {
        let new = input.into_new_slot(caller)?;
        caller.access.write(&new.scope, "scope")?;
        self.service.create_slot(new)
    }

    /// The slot a change means, pinned to one the caller may write.
    fn writable_slot(
        &self,
        caller: &Caller,
        label: &str,
        target: &SlotTarget,
    ) -> Result<SlotAddress> {
        let mut address = target.address(label, caller)?;
        caller.access.write_slot(&mut address)?;
        Ok(address)
    }

    pub fn append_slot(&self, caller: &Caller, label: &str, input: &SlotTextInput) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target())?;
        self.service.append_slot(&address, &input.content)
    }

    pub fn replace_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotTextInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target())?;
        self.service.replace_slot(&address, &input.content)
    }

    pub fn configure_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotSettingsInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target)?;
        self.service.configure_slot(&address, &input.settings())
    }

    pub fn delete_slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        self.service
            .delete_slot(&self.writable_slot(caller, label, target)?)
    }

    /// Puts default slot `label` back as seeded, or (without a label) re-creates every deleted
    /// default of the caller's project and the global scope.
    pub fn reset_slots(
        &self,
        caller: &Caller,
        label: Option<&str>,
        input: &SlotProjectInput,
    ) -> Result<Vec<Slot>> {
        let label = label.map(SlotLabel::new).transpose()?;
        let project = input.project(caller)?;
        // A reset writes each default's own scope: the project's, or the global one.
        let defaults = match &label {
            Some(label) => DEFAULT_SLOTS
                .iter()
                .filter(|spec| spec.label == label.as_str())
                .collect(),
            None => DEFAULT_SLOTS.iter().collect::<Vec<_>>(),
        };
        for spec in defaults {
            let scope = match (&project, spec.global) {
                (Some(project), false) => Scope::Project(project.clone()),
                _ => Scope::Global,
            };
            caller.access.write(&scope, "label")?;
        }
        self.service.reset_slots(project.as_ref(), label.as_ref())
    }

    /// Writes what a recorded session says into its project's slots.
    pub fn reflect(&self, caller: &Caller, agent: &str, id: &str) -> Result<Reflection> {
        let key = SessionKey::new(agent, id)?;
        let session = self.service.session(&key)?;
        caller
            .access
            .write(&Scope::Project(session.project), "session")?;
        self.service.reflect_session(&key)
    }

    /// Records agent events (a hook's, or the spool's), then summarises and reflects the
    /// sessions that ended; see [`MemoryService::record_events`].
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<Recorded> {
        let recorded = self.service.record_events(events)?;
        for kept in self.service.keep_screenshots(events) {
            self.wrote(kept);
        }
        // Facts extracted at a turn's end, and summaries, are memories too.
        let report = &recorded.report;
        self.written(
            report.extracted.iter().any(|o| o.status.stored_text())
                || !report.summarized.is_empty(),
        );
        Ok(recorded)
    }

    /// Stores the `*Remember*:` facts of an agent's output as memories.
    pub fn extract(
        &self,
        text: &str,
        scope: Scope,
        entered_by: Option<String>,
        session_id: Option<String>,
    ) -> Result<Vec<WriteOutcome>> {
        let outcomes = self.service.extract(text, scope, entered_by, session_id)?;
        self.written(outcomes.iter().any(|o| o.status.stored_text()));
        Ok(outcomes)
    }

    /// Reflects the most recently active session of `project` into its slots.
    pub fn reflect_latest(&self, project: &ProjectName) -> Result<Reflection> {
        self.service.reflect_latest_session(project)
    }

    // Access tokens (see `crate::access`): managed by the operator alone.

    /// Issues a token; its text is in the answer and nowhere else.
    pub fn issue_token(&self, caller: &Caller, new: NewToken) -> Result<IssuedToken> {
        caller.access.whole_store("issuing a token")?;
        self.service.issue_token(new)
    }

    /// Every token, revoked ones included, oldest first.
    pub fn tokens(&self, caller: &Caller) -> Result<Vec<AccessToken>> {
        caller.access.whole_store("listing tokens")?;
        self.service.tokens()
    }

    /// Revokes token `id` (its 12-digit id); revoking it again changes nothing.
    pub fn revoke_token(&self, caller: &Caller, id: &str) -> Result<AccessToken> {
        caller.access.whole_store("revoking a token")?;
        self.service.revoke_token(id)
    }

    /// The grant of a token's text as a client presented it; `None` when no live token has
    /// it. This is how a server decides a request's [`Access`].
    pub fn authenticate(&self, presented: &str) -> Result<Option<Grant>> {
        self.service.authenticate(presented)
    }

    /// True once the store holds a live token: a server then needs one on every request.
    pub fn tokens_required(&self) -> Result<bool> {
        self.service.tokens_required()
    }

    // The service's own requests, for adapters that build them (the command line).

    /// Now in the user's time zone: relative dates are read against it.
    pub fn now(&self) -> Zoned {
        self.service.now()
    }

    /// True when a text model is installed (search by meaning, embeddings).
    pub fn has_model(&self) -> bool {
        self.service.embedder().is_some()
    }

    /// The context budget in tokens when a request names none.
    pub fn context_budget(&self) -> usize {
        self.service.context_budget()
    }

    /// Where the data lives, for people.
    pub fn store_location(&self) -> String {
        self.service.store_location()
    }

    /// The filter a [`FilterInput`] means for this caller.
    pub fn filter(&self, caller: &Caller, input: FilterInput) -> Result<MemoryFilter> {
        input.into_filter(&self.service, caller)
    }

    /// A memory by id or handle; hidden ones only with `include_hidden`.
    pub fn resolve(&self, caller: &Caller, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        let memory = self.service.resolve(target, include_hidden)?;
        caller.access.read(&memory.scope, "id")?;
        Ok(memory)
    }

    /// Visible memories, in the order asked for, as many as asked.
    pub fn memories(&self, caller: &Caller, targets: &[IdRef]) -> Result<Vec<Memory>> {
        let memories = self.service.get(targets)?;
        for memory in &memories {
            caller.access.read(&memory.scope, "id")?;
        }
        Ok(memories)
    }

    /// A visible memory and its previous states.
    pub fn history(&self, caller: &Caller, target: &IdRef) -> Result<MemoryHistory> {
        let history = self.service.history(target)?;
        caller.access.read(&history.memory.scope, "id")?;
        Ok(history)
    }

    /// Checks that the caller may change memory `target` (hidden ones too with `hidden`).
    fn writable(&self, caller: &Caller, target: &IdRef, hidden: bool) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let memory = self.service.resolve(target, hidden)?;
        caller.access.write(&memory.scope, "id")
    }

    /// Checks that the caller may see image `id`: a memory it may read shows it.
    fn readable_image(&self, caller: &Caller, id: &ImageId) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let scopes: Vec<Scope> = self
            .service
            .image_references(id)?
            .into_iter()
            .map(|memory| memory.scope)
            .collect();
        if scopes.iter().any(|scope| caller.access.can_read(scope)) {
            return Ok(());
        }
        match scopes.first() {
            Some(scope) => caller.access.read(scope, "id"),
            None => Ok(()),
        }
    }

    /// A page of a listing and the total under its filter.
    pub fn listing(&self, caller: &Caller, query: &ListQuery) -> Result<Listing> {
        let mut narrowed;
        let query = match caller.access {
            Access::Full => query,
            Access::Token(_) => {
                narrowed = query.clone();
                caller.access.narrow(&mut narrowed.filter.scope)?;
                &narrowed
            }
        };
        Ok(Listing {
            memories: self.service.list(query)?,
            total: self.service.count(&query.filter)?,
        })
    }

    /// Visible memories per tag under a filter, most used first.
    pub fn tag_counts(&self, caller: &Caller, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        let mut filter = filter.clone();
        caller.access.narrow(&mut filter.scope)?;
        self.service.tags(&filter)
    }

    /// A search as the service takes it.
    pub fn search_request(
        &self,
        caller: &Caller,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let mut request = request.clone();
        caller.access.narrow(&mut request.filter.scope)?;
        let results = self.service.search(&request);
        // A damaged index found by this search is rebuilt by the worker, when there is one.
        if let Some(worker) = &self.worker
            && self.service.vector_index_damage().is_some()
        {
            worker.nudge();
        }
        results
    }

    /// Context as the service takes the request.
    pub fn context_request(&self, caller: &Caller, request: &ContextRequest) -> Result<Context> {
        if let Some(project) = &request.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.service.context(request)
    }

    /// The session `text` names: `AGENT/ID`, or a bare id that one agent's session has.
    pub fn session_key(&self, text: &str) -> Result<SessionKey> {
        self.service.resolve_session(text)
    }

    /// A session without its observations.
    pub fn session_by_key(&self, caller: &Caller, key: &SessionKey) -> Result<Session> {
        let session = self.service.session(key)?;
        caller
            .access
            .read(&Scope::Project(session.project.clone()), "session")?;
        Ok(session)
    }

    /// Sessions under a filter, the latest active first.
    pub fn session_list(&self, caller: &Caller, filter: &SessionFilter) -> Result<Vec<Session>> {
        let mut filter = filter.clone();
        caller.access.narrow_project(&mut filter.project)?;
        self.service.sessions(&filter)
    }

    pub fn stats(&self, caller: &Caller) -> Result<StoreStats> {
        caller.access.whole_store("the store's statistics")?;
        self.service.stats()
    }

    /// The memories `rule` selects, and observations past retention; deleted unless `dry_run`.
    pub fn prune(&self, rule: PruneRule, dry_run: bool) -> Result<PruneReport> {
        self.service.prune(rule, dry_run)
    }

    /// Streams the export, one line per call to `sink`; returns the counts of its header.
    pub fn export(
        &self,
        caller: &Caller,
        options: ExportOptions,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<Counts> {
        caller.access.whole_store("an export")?;
        self.service.export(options, sink)
    }

    /// Moves everything this store holds into `target`, in committed batches (a second run
    /// resumes), then checks both sides; see [`crate::exchange::migrate()`].
    pub fn migrate_store(
        &self,
        caller: &Caller,
        target: &dyn crate::store::Store,
        progress: &mut dyn FnMut(MigrateProgress),
    ) -> Result<MigrationReport> {
        caller.access.whole_store("moving the store")?;
        self.service.migrate_to(target, progress)
    }

    /// Writes a consistent copy of the database to `file` (which must not exist).
    pub fn backup(&self, file: &Path) -> Result<()> {
        self.service.backup(file)
    }

    /// Replaces everything the store holds with the backup in `file`, having saved what it
    /// held beside it; returns where (`None` for a store without a file). Memories restored
    /// need no embedding run of their own: their vectors come with them.
    pub fn restore(&self, file: &Path) -> Result<Option<PathBuf>> {
        self.service.restore(file)
    }

    pub fn embedding_status(&self) -> Result<EmbeddingStatus> {
        self.service.embedding_status()
    }

    /// Drops every vector and embeds every memory again with the installed model.
    pub fn reindex_embeddings(
        &self,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<EmbedReport> {
        self.service.reindex_embeddings(progress)
    }

    /// `cairn doctor`: every check of the whole store (the cheap ones alone with `quick`).
    pub fn examine(&self, caller: &Caller, quick: bool) -> Result<HealthReport> {
        caller.access.whole_store("a health check")?;
        self.service.examine(quick)
    }

    /// `cairn doctor --repair`: repairs what `report` found that is derived; the report comes
    /// back with what was done, and the store examined again.
    pub fn repair(&self, caller: &Caller, report: &HealthReport) -> Result<HealthReport> {
        caller.access.whole_store("a repair")?;
        let repaired = self.service.repair(report);
        let mut after = self.service.examine(report.quick)?;
        after.repaired = repaired;
        Ok(after)
    }

    /// The quick checks for a server's health endpoint, for anyone who may reach it: the
    /// store's location is left out unless the caller (if it could be told) may see the whole
    /// store.
    pub fn quick_health(&self, caller: Option<&Caller>) -> Result<HealthReport> {
        let mut report = self.service.examine(true)?;
        if caller.is_none_or(|caller| caller.access != Access::Full) {
            report.location = String::new();
        }
        Ok(report)
    }

    /// Why the vector index is not used, when a search of this process found it damaged (a
    /// one-shot command then asks for a rebuild in the background; a serving process's worker
    /// rebuilds it itself).
    pub fn vector_index_damage(&self) -> Option<String> {
        self.service.vector_index_damage()
    }

    /// Brings the store's vector index up to date, or builds it anew when `rebuild`.
    pub fn update_vector_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Option<VectorIndexReport>> {
        self.service.update_vector_index(rebuild, progress)
    }
}

/// The project a files command acts in: the caller's.
fn files_project(caller: &Caller) -> Result<ProjectName> {
    caller.default_project.clone().ok_or_else(|| {
        crate::Error::invalid(
            "project",
            "markdown files belong to one project, and none was given",
        )
    })
}
