//! The memory operations: store, update, read, forget, purge, prune and extraction, over one store with the limits and clock they need.
//!
//! [`Memories`] is what the front door (`Api`) calls for memories and what other domains use to
//! write one (a session summary is a memory). Every change runs in one store transaction and
//! applies the write path's rules (`memory::write`); every read shows visible memories only
//! unless asked ([`Visibility`]).

use jiff::{Timestamp, Zoned};

use crate::clock::Clock;
use crate::config::Limits;
use crate::error::{Error, Result};
use crate::id::{IdRef, MemoryId};
use crate::memory::extract;
use crate::memory::filter::{ListQuery, MemoryFilter, PruneRule, Visibility};
use crate::memory::model::{Memory, Revision, WriteOutcome, WriteStatus};
use crate::memory::new::{MemoryPatch, NewMemory};
use crate::memory::store::{StoreStats, TagCount};
use crate::memory::validate;
use crate::memory::write::{
    apply_patch, candidate, revise, same_state, store_in, unforget, visible_in,
};
use crate::scope::Scope;
use crate::store::{Store, in_transaction};

/// What `prune` found and whether it deleted it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PruneReport {
    /// The memories the rule selected, in its order.
    pub memories: Vec<Memory>,
    /// False for a dry run.
    pub deleted: bool,
    pub rule: PruneRule,
    /// Observations deleted with them for being older than the sessions' retention (none on a
    /// dry run).
    pub observations_deleted: u64,
}

/// A memory with its previous states.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MemoryHistory {
    pub memory: Memory,
    pub revisions: Vec<Revision>,
}

/// The memory operations over one store.
#[derive(Clone, Copy)]
pub struct Memories<'a> {
    store: &'a dyn Store,
    limits: &'a Limits,
    clock: &'a Clock,
}

impl<'a> Memories<'a> {
    pub fn new(store: &'a dyn Store, limits: &'a Limits, clock: &'a Clock) -> Self {
        Memories {
            store,
            limits,
            clock,
        }
    }

    /// The store these operations run on.
    pub fn backend(&self) -> &'a dyn Store {
        self.store
    }

    /// The size limits every write is checked against.
    pub(crate) fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// Now in the user's time zone.
    pub fn now(&self) -> Zoned {
        self.clock.now()
    }

    /// Now as an instant (the time zone is not looked up).
    pub fn timestamp(&self) -> Timestamp {
        self.clock.timestamp()
    }

    /// A new memory as it would be stored at `now`: validated, normalised and redacted.
    pub fn candidate(&self, new: NewMemory, now: Timestamp) -> Result<Memory> {
        candidate(new, self.limits, now)
    }

    /// Stores a memory: `created`, `duplicate` (same content in the scope; nothing written) or
    /// `updated` (same topic key in the scope; revised in place, previous state kept).
    pub fn store(&self, new: NewMemory) -> Result<WriteOutcome> {
        let now = self.clock.timestamp();
        let candidate = candidate(new, self.limits, now)?;
        in_transaction(self.store, |tx| store_in(tx, &candidate, now))
    }

    /// Applies a patch to a visible memory, keeping its previous state in the history.
    pub fn update(&self, target: &IdRef, patch: MemoryPatch) -> Result<WriteOutcome> {
        let now = self.clock.timestamp();
        let id = self.resolve(target, false)?.id;
        in_transaction(self.store, |tx| {
            let current = visible_in(tx, &id, now)?;
            let revised = apply_patch(&current, &patch, self.limits, now)?;
            if let Some(key) = revised
                .topic_key
                .as_ref()
                .filter(|k| Some(*k) != current.topic_key.as_ref())
                && let Some(other) = tx.find_by_topic(&revised.scope, key, now)?
            {
                return Err(Error::invalid(
                    "topic_key",
                    format!(
                        "'{key}' already names memory {} in this scope",
                        other.id.handle()
                    ),
                ));
            }
            if same_state(&current, &revised) {
                return Ok(WriteOutcome::new(WriteStatus::Unchanged, current));
            }
            revise(tx, &current, revised.clone())?;
            Ok(WriteOutcome::new(WriteStatus::Updated, revised))
        })
    }

    /// Finds a memory by id or handle. Hidden (forgotten or expired) memories are found only
    /// when `include_hidden` is set.
    pub fn resolve(&self, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        let now = self.clock.timestamp();
        let visibility = if include_hidden {
            Visibility::ALL
        } else {
            Visibility::VISIBLE
        };
        let shown = |m: &Memory| visibility.shows(m, now);
        match target {
            IdRef::Full(id) => self
                .store
                .get(&[*id])?
                .into_iter()
                .find(|m| shown(m))
                .ok_or_else(|| Error::NotFound { id: id.to_string() }),
            IdRef::Prefix(prefix) => {
                let ids = self.store.ids_with_prefix(prefix, 20)?;
                let mut found: Vec<Memory> = self
                    .store
                    .get(&ids)?
                    .into_iter()
                    .filter(|m| shown(m))
                    .collect();
                match found.len() {
                    0 => Err(Error::NotFound { id: prefix.clone() }),
                    1 => Ok(found.remove(0)),
                    _ => {
                        let mut candidates: Vec<String> =
                            found.iter().map(|m| m.id.to_string()).collect();
                        candidates.sort();
                        Err(Error::AmbiguousHandle {
                            prefix: prefix.clone(),
                            candidates,
                        })
                    }
                }
            }
        }
    }

    /// Visible memories, in the order asked for.
    pub fn get(&self, targets: &[IdRef]) -> Result<Vec<Memory>> {
        targets.iter().map(|t| self.resolve(t, false)).collect()
    }

    /// A visible memory and its previous states.
    pub fn history(&self, target: &IdRef) -> Result<MemoryHistory> {
        let memory = self.resolve(target, false)?;
        let revisions = self.store.revisions(&memory.id)?;
        Ok(MemoryHistory { memory, revisions })
    }

    /// Soft-deletes a visible memory; it disappears from every read but can still be exported
    /// and purged.
    pub fn forget(&self, target: &IdRef) -> Result<Memory> {
        let now = self.clock.timestamp();
        let id = self.resolve(target, false)?.id;
        in_transaction(self.store, |tx| {
            // Re-read under the write lock, so a change made since `resolve` is kept.
            let mut memory = visible_in(tx, &id, now)?;
            memory.deleted_at = Some(now);
            tx.replace(&memory)?;
            Ok(memory)
        })
    }

    /// Brings back a forgotten memory as it was (`cairn forget --undo`); see
    /// `write::unforget` for when it is refused.
    pub fn restore(&self, target: &IdRef) -> Result<Memory> {
        let now = self.clock.timestamp();
        let id = self.resolve(target, true)?.id;
        in_transaction(self.store, |tx| unforget(tx, &id, now))
    }

    /// Removes a memory for good, in whatever state, with its history.
    pub fn purge(&self, target: &IdRef) -> Result<Memory> {
        let memory = self.resolve(target, true)?;
        self.store.write(&mut |tx| tx.purge(&[memory.id]))?;
        Ok(memory)
    }

    pub fn list(&self, query: &ListQuery) -> Result<Vec<Memory>> {
        validate::page(query.limit, query.offset)?;
        self.store.list(query, self.clock.timestamp())
    }

    pub fn count(&self, filter: &MemoryFilter) -> Result<u64> {
        self.store.count(filter, self.clock.timestamp())
    }

    /// Finds the memories `rule` selects and, unless `dry_run`, deletes them for good (with
    /// their history and vectors). An expiry time may not lie in the future.
    pub fn prune(&self, rule: PruneRule, dry_run: bool) -> Result<PruneReport> {
        if let PruneRule::Expired(at) = rule
            && at > self.clock.timestamp()
        {
            return Err(Error::invalid(
                "before",
                format!(
                    "{at} is in the future; only memories that have expired can be pruned as expired"
                ),
            ));
        }
        let memories = if dry_run {
            self.store.prunable(rule)?
        } else {
            in_transaction(self.store, |tx| {
                let memories = tx.prunable(rule)?;
                let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
                tx.purge(&ids)?;
                Ok(memories)
            })?
        };
        Ok(PruneReport {
            memories,
            deleted: !dry_run,
            rule,
            observations_deleted: 0,
        })
    }

    pub fn stats(&self) -> Result<StoreStats> {
        self.store.stats(self.clock.timestamp())
    }

    pub fn tags(&self, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        self.store.tag_counts(filter, self.clock.timestamp())
    }

    /// Stores the `*Remember*:` facts of an agent's output as memories (`cairn extract`).
    pub fn extract(
        &self,
        text: &str,
        scope: Scope,
        entered_by: Option<String>,
        session_id: Option<String>,
    ) -> Result<Vec<WriteOutcome>> {
        let now = self.clock.timestamp();
        let candidates = extract::facts(text, &self.clock.now())
            .into_iter()
            .map(|fact| {
                let new =
                    fact.into_new_memory(scope.clone(), entered_by.clone(), session_id.clone());
                candidate(new, self.limits, now)
            })
            .collect::<Result<Vec<_>>>()?;
        in_transaction(self.store, |tx| {
            candidates
                .iter()
                .map(|candidate| store_in(tx, candidate, now))
                .collect()
        })
    }
}
