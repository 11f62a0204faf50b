//! The front door: every operation of cairn, as every adapter (the CLI, MCP, HTTP, the hooks)
//! reaches it.
//!
//! An MCP tool call and a REST request carry the same JSON: `memory_store` and
//! `POST /v1/memories` both take a [`StoreInput`]. Keeping these shapes here means one schema
//! (derived with `schemars`, so the MCP `tools/list` and the OpenAPI document are generated from
//! the same types and cannot drift), one conversion into the domains' own requests, and one
//! set of defaults. The CLI reads its flags through the same conversions.
//!
//! - one file per domain with its input types, their conversions and its `Api` operations:
//!   [`mod@memory`] (store, update, search, filters, listings), [`mod@relation`], [`mod@session`]
//!   (context, recorded events, sessions, summaries), [`mod@slot`], [`mod@image`],
//!   [`mod@files`] (markdown files, the `memory_add` contract), [`mod@exchange`] (export,
//!   import, backups), [`mod@deferred`] (relations an import keeps until their memories come), [`mod@embedding`], [`mod@access`] (tokens), [`mod@health`],
//!   [`mod@capture`] (a prompt and the facts of an output, handed over by a tool call) and
//!   [`mod@audit`] (each change's entry in the log, and reading it back);
//! - `lenient`: what other systems' clients send in their own spelling (`"true"` for `true`);
//!   field names in their spelling are `serde` aliases on the inputs (`queryText`, `topK`,
//!   `readOnly`), which the schemas do not show;
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

pub mod access;
pub mod audit;
pub mod capture;
pub mod deferred;
pub mod documents;
pub(crate) mod domains;
pub mod embedding;
pub mod exchange;
pub mod files;
pub mod health;
pub mod image;
pub(crate) mod lenient;
pub mod memory;
pub mod relation;
pub mod schema;
pub mod session;
pub mod slot;
pub mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::Zoned;

use crate::access::Access;
use crate::config::Config;
use crate::memory::{Memory, Source, WriteOutcome};
use crate::scope::ProjectName;
use crate::search::SearchResults;
use crate::session::ObservationHit;
use domains::Domains;
use worker::Worker;

pub use audit::AuditInput;
pub use capture::{CaptureInput, Captured, PromptInput, SavedPrompt};
pub use deferred::DeferredInput;
pub use documents::{
    CompactMemory, ImageDocument, MemoryDocument, SlotDocument, attach_images,
    compact_observations, compact_search, compact_write, documents_with_images, hit_document,
    relation_document, slot_answer, slots_answer, write_document,
};
pub use domains::ApiParts;
pub use exchange::ExportInput;
pub use files::{AddError, AddInput, AddOutcome, AddedUnit};
pub use image::{ImageLooked, VisionEmbedInput, VisionFound, VisionHitDocument, VisionSearchInput};
pub use memory::{
    FilterInput, ForgetInput, GetInput, ListInput, MAX_GET_IDS, MAX_PAGE, OrderInput, PatchInput,
    SearchInput, SortInput, StoreInput, UpdateInput,
};
pub use relation::{
    CompareInput, ConflictsInput, DEFAULT_SCAN_INSERTS, JudgeInput, ScanInput, VerdictInput,
};
pub use schema::schema;
pub use session::{ContextInput, SessionSummaryInput, SessionsInput};
pub use slot::{
    ReflectInput, SlotCreateInput, SlotEditInput, SlotInput, SlotProjectInput, SlotSettingsInput,
    SlotTarget, SlotTextInput,
};

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

    /// After a write: its outcome, noted for the text and the image it stored.
    fn wrote(&self, outcome: WriteOutcome) -> WriteOutcome {
        if outcome.image.is_some() {
            self.wrote_image.store(true, Ordering::Relaxed);
        }
        self.written(outcome.status.stored_text() || outcome.image.is_some());
        outcome
    }

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

    /// How long a session may go without a save before its prompts are reminded
    /// (`context.save_reminder_minutes`; 0: never).
    pub fn save_reminder_minutes(&self) -> u32 {
        self.domains.config.context.save_reminder_minutes
    }

    /// Whether a compaction opens with the instruction to save the session summary first
    /// (`context.compaction_instruction`).
    pub fn compaction_instruction(&self) -> bool {
        self.domains.config.context.compaction_instruction
    }

    /// Where the data lives, for people.
    pub fn store_location(&self) -> String {
        self.domains.store.location()
    }
}
