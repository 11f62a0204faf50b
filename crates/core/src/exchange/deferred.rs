//! The import's side of deferred relations (the model is `relation::deferred`): a relation
//! record whose memory is not in the store is kept instead of failing the import, and it is
//! tried again when its memories may have arrived: at the end of every import, those naming a
//! memory the import created ([`replay_naming`]: the rest of the queue is not read, so a long
//! queue costs an import nothing), and the whole queue when a caller asks ([`replay`]).
//!
//! Trying again applies a record exactly as an import would ([`merge::place`]): it leaves the
//! queue once written; it stays, one attempt more, while a memory is missing; it is marked dead
//! when both memories are here but the pair is refused (different projects), which no later
//! import can change.

use jiff::Timestamp;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::exchange::merge::{self, Placement};
use crate::id::MemoryId;
use crate::memory::WriteStatus;
use crate::relation::{DeferredFilter, DeferredRelation, DeferredStatus, Relation};
use crate::store::StoreTx;

/// What trying the queue again did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ReplayReport {
    /// Deferred relations tried (dead ones are not).
    pub retried: u64,
    /// Written now that both memories are here; they left the queue.
    pub applied: u64,
    /// Still missing a memory.
    pub waiting: u64,
    /// Refused now that both memories are here; kept, marked dead.
    pub dead: u64,
}

/// Imports one relation record by judgment id, its verdicts checked as every verdict is
/// ([`merge::checked_relation`], [`merge::place`]): `None` when a memory of it is not in the
/// store (neither stored before nor earlier in the file), and the record waits in the queue.
/// Both memories, when here, must be in the relation's scope.
pub fn import_relation(
    tx: &mut dyn StoreTx,
    relation: &Relation,
    now: Timestamp,
) -> Result<Option<WriteStatus>> {
    let relation = merge::checked_relation(relation.clone())?;
    match merge::place(tx, &relation)? {
        Placement::Applied(status) => Ok(Some(status)),
        Placement::Missing(why) => {
            defer(tx, relation, why, now)?;
            Ok(None)
        }
        Placement::Refused { field, why } => Err(Error::invalid(field, why)),
    }
}

/// Keeps `relation`, which misses a memory (`why`), in the queue. A record kept before under
/// the same judgment id keeps its first sighting and attempts, and the newer of the two states.
fn defer(tx: &mut dyn StoreTx, relation: Relation, why: String, now: Timestamp) -> Result<()> {
    let deferred = match tx.deferred(&relation.id)? {
        Some(mut kept) => {
            if relation.updated_at > kept.relation.updated_at {
                kept.relation = relation;
            }
            kept.status = DeferredStatus::Deferred;
            kept.last_error = why;
            kept
        }
        None => DeferredRelation {
            relation,
            status: DeferredStatus::Deferred,
            attempts: 0,
            last_error: why,
            first_seen_at: now,
            last_tried_at: now,
        },
    };
    tx.put_deferred(&deferred)
}

/// Tries every deferred (not dead) relation again, the first kept first.
pub fn replay(tx: &mut dyn StoreTx, now: Timestamp) -> Result<ReplayReport> {
    let waiting = tx.deferred_list(&DeferredFilter {
        status: Some(DeferredStatus::Deferred),
        limit: i64::MAX as usize,
    })?;
    retry(tx, waiting, now)
}

/// Tries again the deferred relations that name one of `arrived` (memories an import just
/// created), the first kept first; the rest of the queue is not read.
pub fn replay_naming(
    tx: &mut dyn StoreTx,
    arrived: &[MemoryId],
    now: Timestamp,
) -> Result<ReplayReport> {
    let mut waiting = Vec::new();
    for ids in arrived.chunks(NAMED_AT_ONCE) {
        waiting.extend(tx.deferred_naming(ids)?);
    }
    waiting.sort_by_key(|d| (d.first_seen_at, d.relation.id));
    waiting.dedup_by_key(|d| d.relation.id);
    retry(tx, waiting, now)
}

/// Memory ids one query for the deferred relations naming them takes.
const NAMED_AT_ONCE: usize = 500;

fn retry(
    tx: &mut dyn StoreTx,
    waiting: Vec<DeferredRelation>,
    now: Timestamp,
) -> Result<ReplayReport> {
    let mut report = ReplayReport::default();
    for mut deferred in waiting {
        report.retried += 1;
        match merge::place(tx, &deferred.relation)? {
            Placement::Applied(_) => {
                tx.delete_deferred(&deferred.relation.id)?;
                report.applied += 1;
                continue;
            }
            Placement::Missing(why) => {
                deferred.last_error = why;
                report.waiting += 1;
            }
            Placement::Refused { field, why } => {
                deferred.status = DeferredStatus::Dead;
                deferred.last_error = format!("{field}: {why}");
                report.dead += 1;
            }
        }
        deferred.attempts += 1;
        deferred.last_tried_at = now;
        tx.put_deferred(&deferred)?;
    }
    Ok(report)
}
