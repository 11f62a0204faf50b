//! cairn's network interfaces, MCP and HTTP, as one layer over the service.
//!
//! An MCP tool call and a REST request carry the same JSON: `memory_store` and
//! `POST /v1/memories` both take a [`StoreInput`]. Keeping these shapes here means one schema
//! (derived with `schemars`, so the MCP `tools/list` and the OpenAPI document are generated from
//! the same types and cannot drift), one conversion into the service's own requests, and one
//! set of defaults. The CLI reads its flags through the same conversions.
//!
//! - one file per domain with its input types and their conversions: [`mod@memory`] (store,
//!   update, search, filters, listings), [`mod@session`] (context, sessions, summaries) and
//!   [`mod@slot`];
//! - [`documents`]: the JSON answers, in full (REST, the CLI's JSON) and compact (MCP);
//! - [`mod@schema`]: input schemas as clients see them;
//! - [`Api`]: the operations the adapters call. It converts an input for a [`Caller`] (which
//!   project a request means when it names none, which [`Source`] and agent to record), runs the
//!   service, and wakes the embedding worker after every write that changed something. The
//!   adapters only move JSON in and out and run these calls off their async runtime (they
//!   block on SQLite).

pub mod documents;
pub mod memory;
pub mod schema;
pub mod session;
pub mod slot;

use std::io::BufRead;
use std::sync::Arc;

use crate::context::Context;
use crate::embedding::EmbeddingWorker;
use crate::error::Result;
use crate::id::IdRef;
use crate::memory::ImportReport;
use crate::memory::TagCount;
use crate::memory::{Memory, Source, WriteOutcome, WriteStatus};
use crate::scope::ProjectName;
use crate::search::SearchResults;
use crate::service::MemoryService;
use crate::session::{Observation, ObservationHit, Session, SessionKey};
use crate::slot::Reflection;
use crate::slot::{Slot, SlotLabel};

pub use documents::{
    CompactMemory, MemoryDocument, SlotDocument, compact_observations, compact_search,
    compact_write, hit_document, slot_answer, slots_answer,
};
pub use memory::{
    FilterInput, ForgetInput, GetInput, ListInput, MAX_GET_IDS, MAX_PAGE, OrderInput, PatchInput,
    SearchInput, SortInput, StoreInput, UpdateInput,
};
pub use schema::schema;
pub use session::{ContextInput, SessionSummaryInput, SessionsInput};
pub use slot::{
    SlotCreateInput, SlotEditInput, SlotInput, SlotProjectInput, SlotSettingsInput, SlotTarget,
    SlotTextInput,
};

/// Who is asking, as far as defaults go.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The project a request means when it names none; `None` means global for writes and every
    /// project for reads.
    pub default_project: Option<ProjectName>,
    /// Recorded on memories this caller stores.
    pub source: Source,
    /// The agent behind the request (an MCP client's name), recorded as `entered_by` when a
    /// write does not say.
    pub agent: Option<String>,
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

/// The operations of the network interfaces, shared by every connection of a server.
#[derive(Clone)]
pub struct Api {
    pub service: Arc<MemoryService>,
    /// Woken after each write so new memories get their embeddings; `None` without a model.
    pub embedding: Option<Arc<EmbeddingWorker>>,
}

impl Api {
    pub fn new(service: Arc<MemoryService>, embedding: Option<Arc<EmbeddingWorker>>) -> Self {
        Api { service, embedding }
    }

    /// After a write: new or changed text needs an embedding.
    fn written(&self, changed: bool) {
        if changed && let Some(worker) = &self.embedding {
            worker.nudge();
        }
    }

    fn wrote(&self, outcome: WriteOutcome) -> WriteOutcome {
        self.written(matches!(
            outcome.status,
            WriteStatus::Created | WriteStatus::Updated
        ));
        outcome
    }

    pub fn store(&self, caller: &Caller, input: StoreInput) -> Result<WriteOutcome> {
        let new = input.into_new_memory(&self.service, caller)?;
        Ok(self.wrote(self.service.store(new)?))
    }

    /// Changes memory `id` (a full id or a handle).
    pub fn update(&self, id: &str, patch: PatchInput) -> Result<WriteOutcome> {
        let target = IdRef::parse(id)?;
        let patch = patch.into_patch(&self.service)?;
        Ok(self.wrote(self.service.update(&target, patch)?))
    }

    pub fn get(&self, input: &GetInput) -> Result<Vec<Memory>> {
        self.service.get(&input.id_refs()?)
    }

    /// Hides memory `id`, or with `purge` deletes it for good.
    pub fn forget(&self, id: &str, purge: bool) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        if purge {
            self.service.purge(&target)
        } else {
            self.service.forget(&target)
        }
    }

    pub fn search(&self, caller: &Caller, input: SearchInput) -> Result<Found> {
        if input.observations {
            return Ok(Found::Observations(
                input.search_observations(&self.service, caller)?,
            ));
        }
        Ok(Found::Memories(
            self.service
                .search(&input.into_request(&self.service, caller)?)?,
        ))
    }

    /// What a session should know now, packed into the budget.
    pub fn context(&self, caller: &Caller, input: ContextInput) -> Result<Context> {
        self.service
            .context(&input.into_request(&self.service, caller)?)
    }

    /// Stores the agent's own summary of its session.
    pub fn session_summary(
        &self,
        caller: &Caller,
        input: SessionSummaryInput,
    ) -> Result<WriteOutcome> {
        let summary = input.into_summary(caller)?;
        Ok(self.wrote(self.service.store_agent_summary(summary)?))
    }

    pub fn sessions(&self, caller: &Caller, input: SessionsInput) -> Result<Vec<Session>> {
        self.service.sessions(&input.into_filter(caller)?)
    }

    /// A session with its visible observations.
    pub fn session(&self, agent: &str, id: &str) -> Result<(Session, Vec<Observation>)> {
        let key = SessionKey::new(agent, id)?;
        Ok((
            self.service.session(&key)?,
            self.service.observations(&key)?,
        ))
    }

    pub fn list(&self, caller: &Caller, input: ListInput) -> Result<Listing> {
        let query = input.into_query(&self.service, caller)?;
        Ok(Listing {
            memories: self.service.list(&query)?,
            total: self.service.count(&query.filter)?,
        })
    }

    pub fn tags(&self, caller: &Caller, input: FilterInput) -> Result<Vec<TagCount>> {
        self.service
            .tags(&input.into_filter(&self.service, caller)?)
    }

    /// Reads JSON Lines written by export; all or nothing.
    pub fn import(&self, input: &mut dyn BufRead) -> Result<ImportReport> {
        let report = self.service.import(input, &mut |_| {})?;
        self.written(report.created + report.updated > 0);
        Ok(report)
    }

    /// The slots a caller sees: the project's and the global ones it does not shadow.
    pub fn slots(&self, caller: &Caller, input: &SlotProjectInput) -> Result<Vec<Slot>> {
        self.service.slots(input.project(caller)?.as_ref())
    }

    pub fn slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        self.service.slot(&target.address(label, caller)?)
    }

    pub fn create_slot(&self, caller: &Caller, input: SlotCreateInput) -> Result<Slot> {
        self.service.create_slot(input.into_new_slot(caller)?)
    }

    pub fn append_slot(&self, caller: &Caller, label: &str, input: &SlotTextInput) -> Result<Slot> {
        let address = input.target().address(label, caller)?;
        self.service.append_slot(&address, &input.content)
    }

    pub fn replace_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotTextInput,
    ) -> Result<Slot> {
        let address = input.target().address(label, caller)?;
        self.service.replace_slot(&address, &input.content)
    }

    pub fn configure_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotSettingsInput,
    ) -> Result<Slot> {
        let address = input.target.address(label, caller)?;
        self.service.configure_slot(&address, &input.settings())
    }

    pub fn delete_slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        self.service.delete_slot(&target.address(label, caller)?)
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
        self.service
            .reset_slots(input.project(caller)?.as_ref(), label.as_ref())
    }

    /// Writes what a recorded session says into its project's slots.
    pub fn reflect(&self, agent: &str, id: &str) -> Result<Reflection> {
        self.service.reflect_session(&SessionKey::new(agent, id)?)
    }
}
