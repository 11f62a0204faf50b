//! What a backend must provide for relations: [`RelationStore`] (reads) and [`RelationTx`]
//! (writes, inside one transaction).
//!
//! A relation names its memories by id and outlives neither of them being purged: purging a
//! memory deletes its relations, and the deferred relations that name it. Reads that show relations to people return a
//! [`RelationView`], which carries both memories' headlines from the same query (a page of
//! search results costs one query for all its annotations, not one per hit).

use jiff::Timestamp;
use serde::Serialize;

use crate::error::Result;
use crate::id::{MemoryId, RelationId};
use crate::memory::NamedCount;
use crate::relation::deferred::{DeferredFilter, DeferredRelation};
use crate::relation::model::{Relation, RelationStatus};
use crate::scope::Scope;

/// A relation and the headlines of its two memories; a headline is `None` when that memory is
/// gone or hidden (forgotten, expired) at the time of the read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationView {
    #[serde(flatten)]
    pub relation: Relation,
    pub source_title: Option<String>,
    pub target_title: Option<String>,
    /// How the newer memory disagrees with the older (the subject both speak of and what
    /// differs), read from their current text when one judgment is shown; `None` in listings
    /// and when the texts show no disagreement (a pair related by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl RelationView {
    /// The headline of the memory across the pair from `id`.
    pub fn other_title(&self, id: &MemoryId) -> Option<&str> {
        if self.relation.source == *id {
            self.target_title.as_deref()
        } else {
            self.source_title.as_deref()
        }
    }
}

/// Which relations a listing shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RelationFilter {
    /// One scope's relations; every scope when `None`.
    pub scope: Option<Scope>,
    pub status: Option<RelationStatus>,
    /// Changed at or after.
    pub since: Option<Timestamp>,
    pub limit: usize,
}

/// Counts of relations, by status and by relation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationStats {
    pub total: u64,
    pub pending: u64,
    pub judged: u64,
    /// Judged relations per relation kind.
    pub by_relation: Vec<NamedCount>,
}

impl RelationStats {
    /// The stats from a backend's count per current relation kind (`None`: pending), most
    /// common first.
    pub fn from_counts(counts: Vec<(Option<String>, u64)>) -> Self {
        let pending = counts
            .iter()
            .filter(|(kind, _)| kind.is_none())
            .map(|(_, n)| n)
            .sum::<u64>();
        let by_relation: Vec<NamedCount> = counts
            .into_iter()
            .filter_map(|(kind, count)| kind.map(|name| NamedCount { name, count }))
            .collect();
        let judged = by_relation.iter().map(|c| c.count).sum::<u64>();
        RelationStats {
            total: pending + judged,
            pending,
            judged,
            by_relation,
        }
    }
}

/// The read side of relation storage.
pub trait RelationStore: Send + Sync {
    /// The relation with this judgment id.
    fn relation(&self, id: &RelationId, now: Timestamp) -> Result<Option<RelationView>>;

    /// Up to `limit` judgment ids whose hyphenated form starts with `prefix`.
    fn relation_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<RelationId>>;

    /// Relations under the filter, the most recently changed first.
    fn relations(&self, filter: &RelationFilter, now: Timestamp) -> Result<Vec<RelationView>>;

    /// Every relation that has one of `ids` as its source or target.
    fn relations_of(&self, ids: &[MemoryId], now: Timestamp) -> Result<Vec<RelationView>>;

    /// Counts over one scope's relations, or every scope's.
    fn relation_stats(&self, scope: Option<&Scope>) -> Result<RelationStats>;

    /// Deferred relations under the filter, the first kept first (then by id).
    fn deferred_relations(&self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>>;

    /// The deferred relation with this judgment id.
    fn deferred_relation(&self, id: &RelationId) -> Result<Option<DeferredRelation>>;

    /// How many deferred relations wait (`deferred`) and how many are dead.
    fn deferred_counts(&self) -> Result<(u64, u64)>;
}

/// The write side of relation storage, inside one transaction.
pub trait RelationTx {
    /// The relation with this judgment id.
    fn relation(&mut self, id: &RelationId) -> Result<Option<Relation>>;

    /// Every relation joining `a` and `b`, in either direction.
    fn relations_between(&mut self, a: &MemoryId, b: &MemoryId) -> Result<Vec<Relation>>;

    /// Adds the relation, or overwrites the stored one with the same id.
    fn put_relation(&mut self, relation: &Relation) -> Result<()>;

    /// The deferred relation with this judgment id.
    fn deferred(&mut self, id: &RelationId) -> Result<Option<DeferredRelation>>;

    /// Deferred relations under the filter, the first kept first (then by id).
    fn deferred_list(&mut self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>>;

    /// The waiting (not dead) deferred relations whose source or target is one of `ids`, in
    /// any order.
    fn deferred_naming(&mut self, ids: &[MemoryId]) -> Result<Vec<DeferredRelation>>;

    /// Keeps a deferred relation, or overwrites the one with the same judgment id.
    fn put_deferred(&mut self, deferred: &DeferredRelation) -> Result<()>;

    /// Removes the deferred relation with this judgment id; whether there was one.
    fn delete_deferred(&mut self, id: &RelationId) -> Result<bool>;
}
