//! The storage contract every backend fulfils.
//!
//! The service owns every rule; a backend only persists and queries. Writes happen inside
//! [`Store::write`], which runs the service's closure in one transaction that already holds the
//! write lock (so the closure runs exactly once and a check-then-write — dedupe, topic upsert — is
//! atomic across processes). Reads are plain methods on [`Store`] that take a [`MemoryFilter`]
//! and the service's `now`: a backend must never return a forgotten or expired memory unless the
//! filter asks for it. The shared behavioural suite (module `testing`, feature `testing`) pins this for
//! every backend.

use jiff::Timestamp;
use serde::Serialize;

use crate::embedding::ModelIdentity;
use crate::error::Result;
use crate::id::MemoryId;
use crate::memory::{Category, Memory, Revision, TopicKey};
use crate::scope::{Scope, ScopeFilter};
use crate::search::{Match, SignalHit};
use crate::session::{
    Observation, ObservationFilter, ObservationHit, Session, SessionFilter, SessionKey,
};
use crate::slot::{Slot, SlotLabel};
use crate::tag::Tag;

/// A storage backend.
pub trait Store: Send + Sync {
    /// Runs `work` in one write transaction: committed if it returns `Ok`, rolled back
    /// otherwise. Waiting for other writers is the backend's job; `work` runs once.
    fn write(&self, work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>) -> Result<()>;

    /// The memories with these ids, in any state, in no particular order.
    fn get(&self, ids: &[MemoryId]) -> Result<Vec<Memory>>;

    /// Up to `limit` ids whose hyphenated form starts with `prefix`, in any state.
    fn ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<MemoryId>>;

    /// A page of memories matching the filter, in the requested order.
    fn list(&self, query: &ListQuery, now: Timestamp) -> Result<Vec<Memory>>;

    /// How many memories match the filter.
    fn count(&self, filter: &MemoryFilter, now: Timestamp) -> Result<u64>;

    /// The best `depth` full-text matches of `expression`, best first, with their BM25 scores
    /// (higher is better). When more than `window` indexed memories match, only the `window`
    /// most recently written of them are ranked (the filter applies after the window);
    /// `usize::MAX` means no window.
    fn lexical(
        &self,
        expression: &Match,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
        window: usize,
    ) -> Result<Vec<SignalHit>>;

    /// How many indexed memories (in any state) match `expression`, counting no further than
    /// `cap`: a cheap measure of how much work ranking it would be.
    fn match_count(&self, expression: &Match, cap: u64) -> Result<u64>;

    /// Up to `limit` words from the store's vocabulary that share letter triples with `word`,
    /// the most alike first: the candidates of typo-tolerant search, re-scored by the caller.
    fn similar_words(&self, word: &str, limit: usize) -> Result<Vec<String>>;

    /// The model whose vectors the store holds, if one was ever recorded.
    fn embedding_model(&self) -> Result<Option<ModelIdentity>>;

    /// Up to `limit` memories without a vector, oldest first; forgotten ones are not embedded.
    fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingEmbedding>>;

    /// How many memories have a vector, and how many (not forgotten) wait for one.
    fn embedding_counts(&self) -> Result<EmbeddingCounts>;

    /// The `depth` memories under the filter whose vectors are nearest `query` (highest dot
    /// product first, the similarity as the raw score).
    fn nearest(
        &self,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>>;

    /// Brings the backend's own vector index (an approximate one kept apart from the vectors,
    /// like the SQLite store's HNSW file) up to date with the stored vectors, or builds it anew
    /// when `rebuild`; `progress(done, total)` follows long work. `None` when the backend keeps
    /// no such index or the store is small enough to need none. The index only ever speeds
    /// [`Store::nearest`] up: it never changes what counts as nearest or visible.
    fn update_vector_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        let _ = (rebuild, progress);
        Ok(None)
    }

    /// A memory's previous states, oldest first.
    fn revisions(&self, id: &MemoryId) -> Result<Vec<Revision>>;

    /// Memories whose expiry is at or before `before`, forgotten ones included, soonest first.
    fn expired(&self, before: Timestamp) -> Result<Vec<Memory>>;

    /// Counts for `stats`.
    fn stats(&self, now: Timestamp) -> Result<StoreStats>;

    /// Visible memories per tag, most used first.
    fn tag_counts(&self, filter: &MemoryFilter, now: Timestamp) -> Result<Vec<TagCount>>;

    /// Streams every memory in every state with its revisions, oldest first.
    fn export(&self, sink: &mut dyn FnMut(Memory, Vec<Revision>) -> Result<()>) -> Result<()>;

    /// A session by key.
    fn session(&self, key: &SessionKey) -> Result<Option<Session>>;

    /// Sessions under the filter, the latest active first.
    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>>;

    /// A session's observations at or after `since`, oldest first.
    fn observations(&self, key: &SessionKey, since: Timestamp) -> Result<Vec<Observation>>;

    /// The best `limit` observations under the filter whose text matches `expression`, best
    /// first, with BM25 scores (higher is better).
    fn search_observations(
        &self,
        expression: &Match,
        filter: &ObservationFilter,
        limit: usize,
    ) -> Result<Vec<ObservationHit>>;

    /// The slots of these scopes, in no particular order.
    fn slots(&self, scopes: &[Scope]) -> Result<Vec<Slot>>;

    /// Which default slots were ever seeded in `scope` (see [`crate::slot`]).
    fn seeded_slots(&self, scope: &Scope) -> Result<Vec<SlotLabel>>;

    /// Where the data lives, for people (a path or a URL without credentials).
    fn location(&self) -> String;
}

/// A memory waiting for its vector: the text to embed, and when the memory was last written (a
/// vector is only stored if the memory has not changed since).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingEmbedding {
    pub id: MemoryId,
    pub updated_at: Timestamp,
    pub text: String,
}

/// Vectors stored and memories waiting for one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EmbeddingCounts {
    pub embedded: u64,
    pub pending: u64,
}

/// What an update of a vector index did and what the index now holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorIndexReport {
    /// Vectors the index holds.
    pub indexed: u64,
    /// Vectors added by this update (all of them when it was built anew).
    pub added: u64,
    /// Stored vectors not yet in the index, found by an exact scan until they are.
    pub unindexed: u64,
    pub rebuilt: bool,
    /// Where the index lives, if in a file.
    pub location: Option<String>,
    pub seconds: f64,
}

/// What the service may do inside one write transaction.
pub trait StoreTx {
    /// A memory by id, in any state.
    fn get(&mut self, id: &MemoryId) -> Result<Option<Memory>>;

    /// The live (not forgotten, not expired at `now`) memory with this topic key in this scope.
    fn find_by_topic(
        &mut self,
        scope: &Scope,
        topic: &TopicKey,
        now: Timestamp,
    ) -> Result<Option<Memory>>;

    /// Live memories in this scope whose content hash (see [`crate::normalise::content_hash`])
    /// is `hash`; the caller confirms the match.
    fn find_by_content_hash(
        &mut self,
        scope: &Scope,
        hash: i64,
        now: Timestamp,
    ) -> Result<Vec<Memory>>;

    /// Adds a new memory (its id must be new).
    fn insert(&mut self, memory: &Memory) -> Result<()>;

    /// Overwrites the stored state of `memory.id` (tags and full-text index included).
    fn replace(&mut self, memory: &Memory) -> Result<()>;

    /// A memory's revisions, oldest first.
    fn revisions(&mut self, id: &MemoryId) -> Result<Vec<Revision>>;

    /// Appends a revision (its number must be new for this memory).
    fn add_revision(&mut self, id: &MemoryId, revision: &Revision) -> Result<()>;

    /// Memories whose expiry is at or before `before`, forgotten ones included, soonest first.
    fn expired(&mut self, before: Timestamp) -> Result<Vec<Memory>>;

    /// Removes memories for good, with their tags links, revisions and index entries.
    fn purge(&mut self, ids: &[MemoryId]) -> Result<()>;

    /// Records `model` as the store's embedding model. When another model was recorded, every
    /// vector is deleted first (they are not comparable) and `true` is returned.
    fn set_embedding_model(&mut self, model: &ModelIdentity) -> Result<bool>;

    /// Deletes every vector: every memory becomes pending.
    fn clear_embeddings(&mut self) -> Result<()>;

    /// Stores each vector for its memory if the memory still has that `updated_at` (it was not
    /// changed since its text was read); returns how many were stored.
    fn put_embeddings(&mut self, vectors: &[(MemoryId, Timestamp, Vec<f32>)]) -> Result<usize>;

    /// A session by key.
    fn session(&mut self, key: &SessionKey) -> Result<Option<Session>>;

    /// Adds a session, or overwrites the stored one with the same key.
    fn put_session(&mut self, session: &Session) -> Result<()>;

    /// Adds an observation to a stored session (full-text index included); `false`, and
    /// nothing written, when an observation with its event id is already stored.
    fn add_observation(&mut self, key: &SessionKey, observation: &Observation) -> Result<bool>;

    /// A session's observations, oldest first.
    fn observations(&mut self, key: &SessionKey) -> Result<Vec<Observation>>;

    /// Deletes every observation made before `before`; returns how many.
    fn prune_observations(&mut self, before: Timestamp) -> Result<u64>;

    /// The slot with this label in this scope.
    fn slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>>;

    /// Adds a slot, or overwrites the stored one with the same scope and label.
    fn put_slot(&mut self, slot: &Slot) -> Result<()>;

    /// Deletes a slot; `false` when there was none.
    fn delete_slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<bool>;

    /// Which default slots were ever seeded in `scope`.
    fn seeded_slots(&mut self, scope: &Scope) -> Result<Vec<SlotLabel>>;

    /// Records that the default `label` was seeded in `scope`.
    fn mark_slot_seeded(&mut self, scope: &Scope, label: &SlotLabel) -> Result<()>;
}

/// Which memories a read considers. Built by adapters; `Default` is "every scope, visible only".
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFilter {
    pub scope: ScopeFilter,
    /// Memories must carry every one of these tags.
    pub tags_all: Vec<Tag>,
    /// Memories must carry at least one of these tags (ignored when empty).
    pub tags_any: Vec<Tag>,
    pub category: Option<Category>,
    pub entered_by: Option<String>,
    /// Only the memory with this topic key (one per scope).
    pub topic_key: Option<TopicKey>,
    /// Created at or after.
    pub created_after: Option<Timestamp>,
    /// Created strictly before.
    pub created_before: Option<Timestamp>,
    pub include_expired: bool,
    pub include_forgotten: bool,
}

impl Default for MemoryFilter {
    fn default() -> Self {
        MemoryFilter {
            scope: ScopeFilter::All,
            tags_all: Vec::new(),
            tags_any: Vec::new(),
            category: None,
            entered_by: None,
            topic_key: None,
            created_after: None,
            created_before: None,
            include_expired: false,
            include_forgotten: false,
        }
    }
}

impl MemoryFilter {
    /// Every visible memory in `scope`.
    pub fn in_scope(scope: ScopeFilter) -> Self {
        MemoryFilter {
            scope,
            ..Default::default()
        }
    }
}

/// The order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortKey {
    #[default]
    Created,
    Updated,
    /// Memories without an expiry come last.
    Expires,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    Asc,
    #[default]
    Desc,
}

/// A page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub filter: MemoryFilter,
    pub sort: SortKey,
    pub order: SortOrder,
    pub limit: usize,
    pub offset: usize,
}

/// How many memories carry a tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TagCount {
    pub tag: Tag,
    pub count: u64,
}

/// A name and how many memories it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedCount {
    pub name: String,
    pub count: u64,
}

/// Counts over the whole store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreStats {
    /// Visible memories.
    pub memories: u64,
    pub forgotten: u64,
    /// Expired and not yet pruned.
    pub expired: u64,
    pub revisions: u64,
    pub tags: u64,
    pub by_category: Vec<NamedCount>,
    /// `global` or the project name.
    pub by_project: Vec<NamedCount>,
    /// Visible memories per `entered_by` (`unknown` when unset).
    pub by_agent: Vec<NamedCount>,
    pub oldest: Option<Timestamp>,
    pub newest: Option<Timestamp>,
    /// Bytes on disk, where the backend can tell.
    pub size_bytes: Option<u64>,
}
