//! The front door: every operation of cairn, as every adapter (the CLI, MCP, HTTP, the hooks)
//! reaches it.
//!
//! An MCP tool call and a REST request carry the same JSON: `memory_store` and
//! `POST /v1/memories` both take a [`StoreInput`]. Keeping these shapes here means one schema
//! (derived with `schemars`, so the MCP `tools/list` and the OpenAPI document are generated from
//! the same types and cannot drift), one conversion into the domains' own requests, and one
//! set of defaults. The CLI reads its flags through the same conversions.
//!
//! - one file per domain with its input types and their conversions: [`mod@memory`] (store,
//!   update, search, filters, listings), [`mod@session`] (context, sessions, summaries),
//!   [`mod@slot`], [`mod@exchange`] (export) and [`mod@files`] (the `memory_add` contract);
//! - [`documents`]: the JSON answers, in full (REST, the CLI's JSON) and compact (MCP);
//! - [`mod@schema`]: input schemas as clients see them;
//! - `domains`: what `Api` runs on — the parts [`Api::open`] was given, and the handle of each
//!   domain built from them; no adapter reaches them otherwise;
//! - [`Api`]: the one front door of every adapter — the CLI, MCP, HTTP and the hooks. Each
//!   operation is declared here once, then once in its domain. It converts an input for a
//!   [`Caller`] (which project a request means when it names none, which [`Source`] and agent
//!   to record, and its [`Access`]), checks that access before anything is read or written
//!   (every operation that reaches stored data takes a `Caller`; those without one are the
//!   local process's own housekeeping — backups, pruning, embedding — which no network adapter
//!   calls), runs the operation in its domain, and sees that text written gets its embedding:
//!   a long-lived process's worker ([`worker`]) is woken after every write that changed
//!   something, and a one-shot process
//!   reads the images and embeds the text it wrote before it exits
//!   ([`Api::read_written_images`], [`Api::embed_written`]). Beside the JSON inputs it takes the
//!   domains' own requests for the command line, whose flags allow more than the network
//!   inputs (pages of up to 1,000, say). The network adapters only move JSON in and out and
//!   run these calls off their async runtime (they block on SQLite).

pub mod documents;
pub(crate) mod domains;
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
use std::time::Duration;

use jiff::Zoned;

use crate::access::{Access, AccessToken, Grant, IssuedToken, NewToken};
use crate::config::Config;
use crate::context::{Context, ContextRequest};
use crate::embedding::{EmbedProgress, EmbedReport, EmbeddingStatus, VectorIndexReport};
use crate::error::{Error, Result};
use crate::exchange::import::Importer;
use crate::exchange::{Counts, ExportOptions, ImportReport, MigrateProgress, MigrationReport};
use crate::files::{FilesExport, FollowReport, FollowedFile, SyncReport, Workspace};
use crate::health::HealthReport;
use crate::id::{IdRef, MemoryId, RelationRef};
use crate::image::screenshots::screenshot_memories;
use crate::image::{
    ImageDir, ImageId, ImageSource, ImageSpace, ImageTotals, QueryImage, QueryPicture,
    ReadProgress, ReadReport, VisionQuery, VisionResults, VisionSearch,
};
use crate::memory::{
    ListQuery, Memory, MemoryFilter, MemoryHistory, MemoryPatch, NewMemory, PruneReport, PruneRule,
    Source, StoreStats, TagCount, WriteOutcome,
};
use crate::relation::{Compared, Detection, RelationStats, RelationView, ScanReport};
use crate::scope::{ProjectName, Scope};
use crate::search::{SearchRequest, SearchResults};
use crate::session::{AgentEvent, Observation, ObservationHit, Session, SessionFilter, SessionKey};
use crate::slot::{DEFAULT_SLOTS, SlotAddress};
use crate::slot::{Recorded, Reflection, Slot, SlotLabel};
use domains::Domains;
use worker::Worker;

pub use documents::{
    CompactMemory, ImageDocument, MemoryDocument, SlotDocument, attach_images,
    compact_observations, compact_search, compact_write, documents_with_images, hit_document,
    relation_document, slot_answer, slots_answer, write_document,
};
pub use domains::ApiParts;
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
    pub(crate) domains: Arc<Domains>,
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
    pub fn open(parts: ApiParts, config: &Config) -> Self {
        Api {
            domains: Arc::new(Domains::new(parts, config)),
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
        self.worker = Worker::spawn(Arc::clone(&self.domains)).map(Arc::new);
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

    fn wrote(&self, outcome: WriteOutcome) -> WriteOutcome {
        if outcome.image.is_some() {
            self.wrote_image.store(true, Ordering::Relaxed);
        }
        self.written(outcome.status.stored_text() || outcome.image.is_some());
        outcome
    }

    pub fn store(&self, caller: &Caller, mut input: StoreInput) -> Result<WriteOutcome> {
        let image = input.take_image();
        let new = input.into_new_memory(&self.domains, caller)?;
        self.write(caller, new, image.as_ref())
    }

    /// Stores a memory as its domain takes it (with the image it shows, if any): `created`,
    /// `duplicate` or `updated`; then records the memories it may contradict as pending
    /// judgments and writes it into its project's files. The other stores (`store`, and
    /// `store_with_image_file`) convert their input into this.
    pub fn write(
        &self,
        caller: &Caller,
        new: NewMemory,
        image: Option<&ImageSource>,
    ) -> Result<WriteOutcome> {
        caller.access.write(&new.scope, "project")?;
        let outcome = match image {
            Some(image) => {
                let outcome = self.domains.images().store(new, image)?;
                self.domains.relations().detect(outcome, Detection::Full)
            }
            None => self
                .domains
                .relations()
                .store_memory(new, Detection::Full)?,
        };
        self.domains.land_written([&outcome]);
        Ok(self.wrote(outcome))
    }

    /// How many images the store holds, and where their files are (when on this machine).
    pub fn image_totals(&self) -> Result<(ImageTotals, Option<PathBuf>)> {
        let dir = self
            .domains
            .image_dir
            .as_ref()
            .map(|d| d.root().to_path_buf());
        Ok((self.domains.image_totals()?, dir))
    }

    /// The images these memories show, each with its memory and file.
    pub fn images_of(&self, caller: &Caller, memories: &[Memory]) -> Result<Vec<ImageDocument>> {
        for memory in memories {
            caller.access.read(&memory.scope, "id")?;
        }
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        let dir = self.domains.image_dir.as_ref();
        Ok(self
            .domains
            .store
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
        let Some(dir) = self.domains.image_dir.as_ref() else {
            return Err(Error::invalid("image", "this store keeps no images"));
        };
        let Some(image) = self.domains.store.image(&id)? else {
            return Err(Error::Missing {
                field: "image".into(),
                message: format!("no stored image has the id {id}"),
            });
        };
        let path = dir.thumbnail(&image, &self.domains.config.images)?;
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
        let new = input.into_new_memory(&self.domains, caller)?;
        self.write(caller, new, Some(&ImageSource::File(file.to_path_buf())))
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
        let unit = AddedUnit::of(
            &outcome.memory,
            self.domains.files().unit_path(&outcome.memory)?,
        );
        Ok(match outcome.status {
            crate::memory::WriteStatus::Duplicate => AddOutcome::Duplicate { existing: unit },
            _ => AddOutcome::Created(unit),
        })
    }

    /// Changes memory `id` (a full id or a handle).
    pub fn update(&self, caller: &Caller, id: &str, patch: PatchInput) -> Result<WriteOutcome> {
        let patch = patch.into_patch(&self.domains)?;
        self.patch(caller, &IdRef::parse(id)?, patch)
    }

    /// Applies a patch as its domain takes it to visible memory `target`, keeping its previous
    /// state in the history; then records its conflict candidates and rewrites its unit.
    pub fn patch(
        &self,
        caller: &Caller,
        target: &IdRef,
        patch: MemoryPatch,
    ) -> Result<WriteOutcome> {
        self.writable(caller, target, false)?;
        self.domains.check_writable(target)?;
        let outcome = self.domains.relations().update(target, patch)?;
        self.domains.land_written([&outcome]);
        Ok(self.wrote(outcome))
    }

    pub fn get(&self, caller: &Caller, input: &GetInput) -> Result<Vec<Memory>> {
        self.memories(caller, &input.id_refs()?)
    }

    /// Hides memory `id`, or with `purge` deletes it for good.
    pub fn forget(&self, caller: &Caller, id: &str, purge: bool) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, purge)?;
        self.domains.check_writable(&target)?;
        let memory = match purge {
            true => {
                let memory = self.domains.memories().purge(&target)?;
                self.domains.release_images();
                memory
            }
            false => self.domains.memories().forget(&target)?,
        };
        self.domains.land(&[memory.id]);
        Ok(memory)
    }

    /// Brings back a forgotten memory (`cairn forget --undo`), as it was.
    pub fn restore_memory(&self, caller: &Caller, id: &str) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, true)?;
        self.domains.check_writable(&target)?;
        let memory = self.domains.memories().restore(&target)?;
        self.domains.land(&[memory.id]);
        self.written(true);
        Ok(memory)
    }

    pub fn search(&self, caller: &Caller, input: SearchInput) -> Result<Found> {
        if input.observations {
            return Ok(Found::Observations(
                input.search_observations(&self.domains, caller)?,
            ));
        }
        let request = input.into_request(&self.domains, caller)?;
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
        let query = input.into_query(self, caller, file)?;
        let results = self.vision_query(caller, &query)?;
        Ok(VisionFound::of(results, &self.domains))
    }

    /// The query picture of a vision search: a stored image the caller may see (its file read
    /// from the image directory), or bytes a caller sent or named; with a look model, how it
    /// looks as a vector (a stored image's own, when it has one).
    pub fn query_image(&self, caller: &Caller, picture: &QueryPicture) -> Result<QueryImage> {
        let domains = &self.domains;
        let bytes = match picture {
            QueryPicture::Stored(id) => {
                self.readable_image(caller, id)?;
                let missing =
                    || Error::invalid("image_ref", format!("no stored image has id {id}"));
                let dir = domains.image_dir.as_ref().ok_or_else(missing)?;
                let image = domains.store.image(id)?.ok_or_else(missing)?;
                dir.read(&image)?
            }
            QueryPicture::Source(source) => source.read(&domains.config.images)?.bytes,
        };
        let query = QueryImage::of(&bytes, &domains.config.images)?;
        let Some(model) = domains.look_model.as_deref() else {
            return Ok(query);
        };
        let stored = domains
            .store
            .image_vectors_of(
                ImageSpace::Look,
                std::slice::from_ref(&query.id),
                model.name(),
            )?
            .pop()
            .map(|(_, vector)| vector);
        query.with_vector(&bytes, &domains.config.images, model, stored)
    }

    /// Images ranked by what they say and how they look, the query as its domain takes it
    /// (its picture read by [`Api::query_image`]), in the scopes the caller may read.
    pub fn vision_query(&self, caller: &Caller, query: &VisionQuery) -> Result<VisionResults> {
        let mut query = query.clone();
        caller.access.narrow(&mut query.filter.scope)?;
        let domains = &self.domains;
        VisionSearch::new(
            domains.store.as_ref(),
            domains.searcher(),
            domains.clock.timestamp(),
        )
        .reading_text(domains.reader.is_some())
        .looking_alike(domains.look_model.is_some())
        .with_clip_model(domains.clip_model.as_deref())
        .search(&query)
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
        let relation = self.domains.relations().show(&judgment)?.relation;
        caller.access.write(&relation.scope, "judgment_id")?;
        self.domains
            .relations()
            .judge(&judgment, verdict.into_verdict(caller))
    }

    /// Records a verdict on two memories directly.
    pub fn compare(&self, caller: &Caller, input: CompareInput) -> Result<Compared> {
        let a = IdRef::parse(&input.a).map_err(|e| renamed(e, "a"))?;
        let b = IdRef::parse(&input.b).map_err(|e| renamed(e, "b"))?;
        self.writable(caller, &a, false)
            .map_err(|e| renamed(e, "a"))?;
        self.writable(caller, &b, false)
            .map_err(|e| renamed(e, "b"))?;
        self.domains
            .relations()
            .compare(&a, &b, input.verdict.into_verdict(caller))
    }

    /// Relations under a filter, the most recently changed first.
    pub fn conflicts(&self, caller: &Caller, input: ConflictsInput) -> Result<Vec<RelationView>> {
        let mut filter = input.into_filter(&self.domains, caller)?;
        filter.scope = self.relation_scope(caller, filter.scope)?;
        self.domains.relations().list(&filter)
    }

    /// One judgment by id or handle.
    pub fn conflict(&self, caller: &Caller, judgment_id: &str) -> Result<RelationView> {
        let view = self
            .domains
            .relations()
            .show(&RelationRef::parse(judgment_id)?)?;
        caller.access.read(&view.relation.scope, "judgment_id")?;
        Ok(view)
    }

    /// Counts of relations by status and relation, in the scope the input names.
    pub fn conflict_stats(&self, caller: &Caller, input: &ConflictsInput) -> Result<RelationStats> {
        let scope = self.relation_scope(caller, input.scope(caller)?)?;
        self.domains.relations().stats(scope.as_ref())
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
        self.domains.relations().scan(
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
            .domains
            .relations()
            .relations_of(&ids)?
            .into_iter()
            .filter(|view| caller.access.can_read(&view.relation.scope))
            .collect())
    }

    /// What a session should know now, packed into the budget.
    pub fn context(&self, caller: &Caller, input: ContextInput) -> Result<Context> {
        self.context_request(caller, &input.into_request(&self.domains, caller)?)
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
        Ok(self.wrote(self.domains.sessions().store_agent_summary(summary)?))
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
        Ok((session, self.domains.sessions().observations(&key)?))
    }

    /// What the agents of session `key` did, oldest first (those past retention left out).
    pub fn observations(&self, caller: &Caller, key: &SessionKey) -> Result<Vec<Observation>> {
        self.session_by_key(caller, key)?;
        self.domains.sessions().observations(key)
    }

    pub fn list(&self, caller: &Caller, input: ListInput) -> Result<Listing> {
        self.listing(caller, &input.into_query(&self.domains, caller)?)
    }

    pub fn tags(&self, caller: &Caller, input: FilterInput) -> Result<Vec<TagCount>> {
        self.tag_counts(caller, &input.into_filter(&self.domains, caller)?)
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
        let report = self.domains.files().init(project, root, dir)?;
        self.written(report.changed_text());
        Ok(report)
    }

    /// Reads the caller's project's files back into the store, or every workspace's with
    /// `all`; with `dry_run`, only says what that would do (what it would forget, above all).
    pub fn sync_files(&self, caller: &Caller, all: bool, dry_run: bool) -> Result<Vec<SyncReport>> {
        let workspaces = match all {
            true => {
                caller.access.whole_store("syncing every workspace")?;
                self.domains.files().workspaces()?
            }
            false => vec![self.workspace_of(caller)?],
        };
        let mut reports = Vec::new();
        for workspace in &workspaces {
            let report = self.domains.files().sync(workspace, dry_run)?;
            self.written(!dry_run && report.changed_text());
            reports.push(report);
        }
        Ok(reports)
    }

    /// Writes the caller's project's shareable memories that are not in its files yet; with
    /// `dry_run`, lists them.
    pub fn export_files(&self, caller: &Caller, dry_run: bool) -> Result<FilesExport> {
        self.domains
            .files()
            .export(&self.workspace_of(caller)?, dry_run)
    }

    /// `files.enabled` (a project's `.cairn.toml`): starts the caller's project's workspace at
    /// `root` with the configured directory, the first time any entry point runs in it (one
    /// read when the setting is off or the workspace exists).
    pub fn start_files_if_enabled(&self, caller: &Caller, root: &Path) -> Result<()> {
        let Some(project) = &caller.default_project else {
            return Ok(());
        };
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let files = self.domains.files();
        if !self.domains.config.files.enabled || files.workspace(project)?.is_some() {
            return Ok(());
        }
        let report = files.init(project.clone(), root, &self.domains.config.files.dir)?;
        tracing::info!(directory = %report.directory, "started the project's memory files");
        self.written(report.changed_text());
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
        let report = self.domains.files().follow(project, files, dry_run)?;
        self.written(!dry_run && report.changed());
        Ok(report)
    }

    /// Whether `project` follows any file (an import of instructions started it).
    pub fn follows_instructions(&self, caller: &Caller, project: &ProjectName) -> Result<bool> {
        caller
            .access
            .read(&Scope::Project(project.clone()), "project")?;
        self.domains.files().follows_files(project)
    }

    /// Rebuilds the caller's project's memories from its markdown files alone.
    pub fn rebuild_from_files(&self, caller: &Caller) -> Result<SyncReport> {
        let workspace = self.workspace_of(caller)?;
        let report = self.domains.files().rebuild(&workspace)?;
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
        self.domains.files().workspace(&project)?.ok_or_else(|| {
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
        for workspace in self.domains.files().workspaces()? {
            if let Some(report) = self
                .domains
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
        self.domains.files().workspaces()
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
        let importer = Importer {
            store: self.domains.store.as_ref(),
            limits: &self.domains.config.limits,
            default_scope: scope,
            now: self.domains.now(),
        };
        let imported = crate::exchange::import(&importer, input, progress)?;
        self.domains.sync_all_files();
        let mut report = imported.report;
        for outcome in self.domains.detect_by_words(imported.stored) {
            report.conflict_candidates += outcome.candidates.len() as u64;
        }
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
        self.domains.slots().slots(project.as_ref())
    }

    pub fn slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        let address = target.address(label, caller)?;
        if let Some(project) = &address.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.domains.slots().slot(&address)
    }

    pub fn create_slot(&self, caller: &Caller, input: SlotCreateInput) -> Result<Slot> {
        let new = input.into_new_slot(caller)?;
        caller.access.write(&new.scope, "scope")?;
        self.domains.slots().create_slot(new)
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
        self.domains.slots().append_slot(&address, &input.content)
    }

    pub fn replace_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotTextInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target())?;
        self.domains.slots().replace_slot(&address, &input.content)
    }

    pub fn configure_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotSettingsInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target)?;
        self.domains
            .slots()
            .configure_slot(&address, &input.settings())
    }

    pub fn delete_slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        self.domains
            .slots()
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
        self.domains
            .slots()
            .reset_slots(project.as_ref(), label.as_ref())
    }

    /// Writes what a recorded session says into its project's slots.
    pub fn reflect(&self, caller: &Caller, agent: &str, id: &str) -> Result<Reflection> {
        let key = SessionKey::new(agent, id)?;
        let session = self.domains.sessions().session(&key)?;
        caller
            .access
            .write(&Scope::Project(session.project), "session")?;
        self.domains.slots().reflect_session(&key)
    }

    /// Records agent events (a hook's, or the spool's), then summarises and reflects the
    /// sessions that ended, and keeps the screenshots their tools returned as memories.
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<Recorded> {
        let domains = &self.domains;
        let mut report = domains.sessions().record_events(events)?;
        domains.land_written(&report.extracted);
        report.extracted = domains.detect_by_words(std::mem::take(&mut report.extracted));
        let recorded = domains.slots().reflect_ended(report)?;
        // The screenshots the tools of these events returned, kept as memories of their
        // sessions; a picture the store refuses is logged and never fails the events.
        for (memory, picture) in events.iter().flat_map(screenshot_memories) {
            if let Err(error) = self.write(&Caller::local(Source::Hook), memory, Some(&picture)) {
                tracing::warn!(%error, "a screenshot a tool returned was not kept");
            }
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
        let outcomes = self
            .domains
            .memories()
            .extract(text, scope, entered_by, session_id)?;
        self.domains.land_written(&outcomes);
        let outcomes = self.domains.detect_by_words(outcomes);
        self.written(outcomes.iter().any(|o| o.status.stored_text()));
        Ok(outcomes)
    }

    /// Reflects the most recently active session of `project` into its slots.
    pub fn reflect_latest(&self, project: &ProjectName) -> Result<Reflection> {
        self.domains.slots().reflect_latest_session(project)
    }

    // Access tokens (see `crate::access`): managed by the operator alone.

    /// Issues a token; its text is in the answer and nowhere else.
    pub fn issue_token(&self, caller: &Caller, new: NewToken) -> Result<IssuedToken> {
        caller.access.whole_store("issuing a token")?;
        self.domains.tokens().issue(new)
    }

    /// Every token, revoked ones included, oldest first.
    pub fn tokens(&self, caller: &Caller) -> Result<Vec<AccessToken>> {
        caller.access.whole_store("listing tokens")?;
        self.domains.tokens().list()
    }

    /// Revokes token `id` (its 12-digit id); revoking it again changes nothing.
    pub fn revoke_token(&self, caller: &Caller, id: &str) -> Result<AccessToken> {
        caller.access.whole_store("revoking a token")?;
        self.domains.tokens().revoke(id)
    }

    /// The grant of a token's text as a client presented it; `None` when no live token has
    /// it. This is how a server decides a request's [`Access`].
    pub fn authenticate(&self, presented: &str) -> Result<Option<Grant>> {
        self.domains.tokens().authenticate(presented)
    }

    /// True once the store holds a live token: a server then needs one on every request.
    pub fn tokens_required(&self) -> Result<bool> {
        self.domains.tokens().required()
    }

    // The domains' own requests, for adapters that build them (the command line).

    /// The store itself, for the behavioural suite's checks below the front door.
    #[cfg(feature = "testing")]
    pub fn backend(&self) -> &dyn crate::store::Store {
        self.domains.store.as_ref()
    }

    /// Now in the user's time zone: relative dates are read against it.
    pub fn now(&self) -> Zoned {
        self.domains.now()
    }

    /// True when a text model is installed (search by meaning, embeddings).
    pub fn has_model(&self) -> bool {
        self.domains.embedder.is_some()
    }

    /// The context budget in tokens when a request names none.
    pub fn context_budget(&self) -> usize {
        self.domains.config.context.budget_tokens
    }

    /// Where the data lives, for people.
    pub fn store_location(&self) -> String {
        self.domains.store.location()
    }

    /// The filter a [`FilterInput`] means for this caller.
    pub fn filter(&self, caller: &Caller, input: FilterInput) -> Result<MemoryFilter> {
        input.into_filter(&self.domains, caller)
    }

    /// A memory by id or handle; hidden ones only with `include_hidden`.
    pub fn resolve(&self, caller: &Caller, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        let memory = self.domains.memories().resolve(target, include_hidden)?;
        caller.access.read(&memory.scope, "id")?;
        Ok(memory)
    }

    /// Visible memories, in the order asked for, as many as asked.
    pub fn memories(&self, caller: &Caller, targets: &[IdRef]) -> Result<Vec<Memory>> {
        let memories = self.domains.memories().get(targets)?;
        for memory in &memories {
            caller.access.read(&memory.scope, "id")?;
        }
        Ok(memories)
    }

    /// A visible memory and its previous states.
    pub fn history(&self, caller: &Caller, target: &IdRef) -> Result<MemoryHistory> {
        let history = self.domains.memories().history(target)?;
        caller.access.read(&history.memory.scope, "id")?;
        Ok(history)
    }

    /// Checks that the caller may change memory `target` (hidden ones too with `hidden`).
    fn writable(&self, caller: &Caller, target: &IdRef, hidden: bool) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let memory = self.domains.memories().resolve(target, hidden)?;
        caller.access.write(&memory.scope, "id")
    }

    /// Checks that the caller may see image `id`: a memory it may read shows it.
    fn readable_image(&self, caller: &Caller, id: &ImageId) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let referencing = self.domains.store.image_references(id)?;
        let scopes: Vec<Scope> = self
            .domains
            .store
            .get(&referencing)?
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
            memories: self.domains.memories().list(query)?,
            total: self.domains.memories().count(&query.filter)?,
        })
    }

    /// Visible memories per tag under a filter, most used first.
    pub fn tag_counts(&self, caller: &Caller, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        let mut filter = filter.clone();
        caller.access.narrow(&mut filter.scope)?;
        self.domains.memories().tags(&filter)
    }

    /// A search as its domain takes it.
    pub fn search_request(
        &self,
        caller: &Caller,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let mut request = request.clone();
        caller.access.narrow(&mut request.filter.scope)?;
        let results = self.search_with_images(&request);
        // A damaged index found by this search is rebuilt by the worker, when there is one.
        if let Some(worker) = &self.worker
            && self.domains.embeddings().vector_index_damage().is_some()
        {
            worker.nudge();
        }
        results
    }

    /// Searches, then adds to each hit the images its memory shows.
    fn search_with_images(&self, request: &SearchRequest) -> Result<SearchResults> {
        let mut results = self.domains.searcher().search(request)?;
        let ids: Vec<MemoryId> = results.hits.iter().map(|hit| hit.memory.id).collect();
        for shown in self.domains.store.memory_images(&ids)? {
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

    /// Context as its domain takes the request.
    pub fn context_request(&self, caller: &Caller, request: &ContextRequest) -> Result<Context> {
        if let Some(project) = &request.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        // Hand edits to the project's files reach what a new session is told.
        if let Some(project) = &request.project {
            self.domains.refresh_files(project, Duration::ZERO);
        }
        self.domains.context().context(request)
    }

    /// The session `text` names: `AGENT/ID`, or a bare id that one agent's session has.
    pub fn session_key(&self, text: &str) -> Result<SessionKey> {
        self.domains.sessions().resolve(text)
    }

    /// A session without its observations.
    pub fn session_by_key(&self, caller: &Caller, key: &SessionKey) -> Result<Session> {
        let session = self.domains.sessions().session(key)?;
        caller
            .access
            .read(&Scope::Project(session.project.clone()), "session")?;
        Ok(session)
    }

    /// Sessions under a filter, the latest active first.
    pub fn session_list(&self, caller: &Caller, filter: &SessionFilter) -> Result<Vec<Session>> {
        let mut filter = filter.clone();
        caller.access.narrow_project(&mut filter.project)?;
        self.domains.sessions().sessions(&filter)
    }

    pub fn stats(&self, caller: &Caller) -> Result<StoreStats> {
        caller.access.whole_store("the store's statistics")?;
        self.domains.memories().stats()
    }

    /// The memories `rule` selects, and observations past retention; deleted unless `dry_run`.
    pub fn prune(&self, rule: PruneRule, dry_run: bool) -> Result<PruneReport> {
        let domains = &self.domains;
        let mut report = domains.memories().prune(rule, dry_run)?;
        if !dry_run {
            report.observations_deleted = domains.sessions().prune_observations()?;
            let ids: Vec<MemoryId> = report.memories.iter().map(|m| m.id).collect();
            domains.release_images();
            domains.land(&ids);
        }
        Ok(report)
    }

    /// Streams the export, one line per call to `sink`; returns the counts of its header.
    pub fn export(
        &self,
        caller: &Caller,
        options: ExportOptions,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<Counts> {
        caller.access.whole_store("an export")?;
        crate::exchange::export(self.domains.store.as_ref(), options, sink)
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
        let domains = &self.domains;
        crate::exchange::migrate(
            domains.store.as_ref(),
            target,
            &domains.config.limits,
            progress,
        )
    }

    /// Writes a consistent copy of the database to `file` (which must not exist).
    pub fn backup(&self, file: &Path) -> Result<()> {
        self.domains.store.backup(file)?;
        if let Some(images) = &self.domains.image_dir {
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
    /// held beside it; returns where (`None` for a store without a file). Memories restored
    /// need no embedding run of their own: their vectors come with them.
    pub fn restore(&self, file: &Path) -> Result<Option<PathBuf>> {
        // The backup's images join the image directory first, so every image the restored
        // records name has its file; the current images stay.
        if let Some(images) = &self.domains.image_dir {
            ImageDir::beside(file).copy_into(images)?;
        }
        self.domains.store.restore(file)
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

    /// `cairn doctor`: every check of the whole store (the cheap ones alone with `quick`).
    pub fn examine(&self, caller: &Caller, quick: bool) -> Result<HealthReport> {
        caller.access.whole_store("a health check")?;
        self.domains.doctor().examine(quick)
    }

    /// `cairn doctor --repair`: repairs what `report` found that is derived; the report comes
    /// back with what was done, and the store examined again.
    pub fn repair(&self, caller: &Caller, report: &HealthReport) -> Result<HealthReport> {
        caller.access.whole_store("a repair")?;
        let repaired = self.domains.doctor().repair(report);
        let mut after = self.domains.doctor().examine(report.quick)?;
        after.repaired = repaired;
        Ok(after)
    }

    /// The quick checks for a server's health endpoint, for anyone who may reach it: the
    /// store's location is left out unless the caller (if it could be told) may see the whole
    /// store.
    pub fn quick_health(&self, caller: Option<&Caller>) -> Result<HealthReport> {
        let mut report = self.domains.doctor().examine(true)?;
        if caller.is_none_or(|caller| caller.access != Access::Full) {
            report.location = String::new();
        }
        Ok(report)
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

/// The project a files command acts in: the caller's.
fn files_project(caller: &Caller) -> Result<ProjectName> {
    caller.default_project.clone().ok_or_else(|| {
        crate::Error::invalid(
            "project",
            "markdown files belong to one project, and none was given",
        )
    })
}
