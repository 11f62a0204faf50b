//! What a backend must provide for memories: [`MemoryStore`] (reads) and [`MemoryTx`] (writes,
//! inside one transaction).
//!
//! A backend only persists and queries; the rules are the service's. Reads take the service's
//! `now` and a [`MemoryFilter`], and never return a hidden memory unless the filter's
//! [`Visibility`](crate::memory::Visibility) lets it through. The behavioural suite
//! (`testing::memory`) pins this for every backend.

use jiff::Timestamp;
use serde::Serialize;

use crate::error::Result;
use crate::id::MemoryId;
use crate::memory::{ListQuery, Memory, MemoryFilter, MemoryRecord, PruneRule, Revision, TopicKey};
use crate::query::Match;
use crate::scope::Scope;
use crate::tag::Tag;

/// One candidate of a ranking (a search signal, a nearest-neighbour scan), with the ranker's own
/// score: higher is better.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalHit {
    pub id: MemoryId,
    pub raw: f64,
}

/// The read side of memory storage.
pub trait MemoryStore: Send + Sync {
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

    /// A memory's previous states, oldest first.
    fn revisions(&self, id: &MemoryId) -> Result<Vec<Revision>>;

    /// The memories `rule` selects, in any state, in the rule's order.
    fn prunable(&self, rule: PruneRule) -> Result<Vec<Memory>>;

    /// Counts for `stats`.
    fn stats(&self, now: Timestamp) -> Result<StoreStats>;

    /// Visible memories per tag, most used first.
    fn tag_counts(&self, filter: &MemoryFilter, now: Timestamp) -> Result<Vec<TagCount>>;
}

/// The write side of memory storage, inside one transaction.
pub trait MemoryTx {
    /// A memory by id, in any state.
    fn get(&mut self, id: &MemoryId) -> Result<Option<Memory>>;

    /// The live (not forgotten, not expired at `now`) memory with this topic key in this scope.
    fn find_by_topic(
        &mut self,
        scope: &Scope,
        topic: &TopicKey,
        now: Timestamp,
    ) -> Result<Option<Memory>>;

    /// Live memories in this scope whose content hash (see
    /// [`content_hash`](crate::memory::normalise::content_hash)) is `hash`; the caller confirms
    /// the match.
    fn find_by_content_hash(
        &mut self,
        scope: &Scope,
        hash: i64,
        now: Timestamp,
    ) -> Result<Vec<Memory>>;

    /// Adds a new memory (its id must be new).
    fn insert(&mut self, memory: &Memory) -> Result<()>;

    /// Those of `ids` that are stored, in any state, in any order.
    fn stored_ids(&mut self, ids: &[MemoryId]) -> Result<Vec<MemoryId>>;

    /// Adds new memories with their revisions, as [`insert`](Self::insert) and
    /// [`add_revision`](Self::add_revision) add each (every id new, none twice). A backend that
    /// pays a round trip per statement writes them in a few statements for all.
    fn insert_many(&mut self, records: &[MemoryRecord]) -> Result<()> {
        for record in records {
            self.insert(&record.memory)?;
            for revision in &record.revisions {
                self.add_revision(&record.memory.id, revision)?;
            }
        }
        Ok(())
    }

    /// Overwrites the stored state of `memory.id` (tags and full-text index included).
    fn replace(&mut self, memory: &Memory) -> Result<()>;

    /// A memory's revisions, oldest first.
    fn revisions(&mut self, id: &MemoryId) -> Result<Vec<Revision>>;

    /// Deletes every revision of a memory (an import then writes the merged history).
    fn clear_revisions(&mut self, id: &MemoryId) -> Result<()>;

    /// Appends a revision (its number must be new for this memory).
    fn add_revision(&mut self, id: &MemoryId, revision: &Revision) -> Result<()>;

    /// The memories `rule` selects, in any state, in the rule's order.
    fn prunable(&mut self, rule: PruneRule) -> Result<Vec<Memory>>;

    /// Removes memories for good, with their tags links, revisions, vectors and index entries.
    fn purge(&mut self, ids: &[MemoryId]) -> Result<()>;
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

/// How many days [`StoreStats::by_day`] covers at most.
pub const STATS_DAYS: usize = 30;

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
    /// Visible memories per day they were written (UTC, `YYYY-MM-DD`): the latest
    /// [`STATS_DAYS`] days that have any, oldest first.
    pub by_day: Vec<NamedCount>,
    pub oldest: Option<Timestamp>,
    pub newest: Option<Timestamp>,
    /// Bytes on disk, where the backend can tell.
    pub size_bytes: Option<u64>,
}
