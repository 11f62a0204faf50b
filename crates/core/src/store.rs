//! The storage contract: [`Store`] and [`StoreTx`] are the sum of the domains' storage traits.
//!
//! Each domain declares what it needs of a backend beside its model — [`MemoryStore`] and
//! [`MemoryTx`] in `memory/store.rs`, [`VectorStore`]/[`VectorTx`] in `embedding/store.rs`,
//! [`SessionStore`]/[`SessionTx`] in `session/store.rs`, [`SlotStore`]/[`SlotTx`] in
//! `slot/store.rs`, [`RelationStore`]/[`RelationTx`] in `relation/store.rs`, [`FilesStore`]/[`FilesTx`] in `files/store.rs`, [`ImageStore`]/[`ImageTx`] in `image/store.rs`, [`ExchangeStore`] in `exchange/store.rs`, [`AccessStore`]/[`AccessTx`] in `access/store.rs`, [`AuditStore`]/[`AuditTx`] in `audit/store.rs`, [`HealthStore`] in `health/store.rs` — and a backend implements each in a file of its own. This module adds only
//! what spans them: one write transaction ([`Store::write`]) in which an operation's closure sees
//! every domain at once (a session summary and the memory that holds it commit together), and
//! where the data lives.
//!
//! [`Store::write`] runs the closure in one transaction that already holds the write lock, so
//! the closure runs exactly once and a check-then-write (dedupe, topic upsert, a slot's limit)
//! is atomic across processes. The shared behavioural suite (module `testing`, feature
//! `testing`) pins every domain's contract for every backend.

use crate::access::{AccessStore, AccessTx};
use crate::audit::{AuditStore, AuditTx};
use crate::embedding::{VectorStore, VectorTx};
use crate::error::{Error, Result};
use crate::exchange::ExchangeStore;
use crate::files::{FilesStore, FilesTx};
use crate::health::HealthStore;
use crate::image::{ImageStore, ImageTx};
use crate::memory::{MemoryStore, MemoryTx};
use crate::relation::{RelationStore, RelationTx};
use crate::session::{SessionStore, SessionTx};
use crate::slot::{SlotStore, SlotTx};

/// A storage backend: every domain's reads, and one transaction that spans them.
pub trait Store:
    MemoryStore
    + VectorStore
    + RelationStore
    + SessionStore
    + SlotStore
    + FilesStore
    + ImageStore
    + ExchangeStore
    + AccessStore
    + AuditStore
    + HealthStore
{
    /// Runs `work` in one write transaction: committed if it returns `Ok`, rolled back
    /// otherwise. Waiting for other writers is the backend's job; `work` runs once. When the
    /// write lock cannot be had in the backend's time, the error is [`Error::Busy`].
    fn write(&self, work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>) -> Result<()>;

    /// Where the data lives, for people (a path or a URL without credentials).
    fn location(&self) -> String;
}

/// What an operation may do inside one write transaction: every domain's writes.
pub trait StoreTx:
    MemoryTx + VectorTx + RelationTx + SessionTx + SlotTx + FilesTx + ImageTx + AccessTx + AuditTx
{
}

impl<
    T: MemoryTx
        + VectorTx
        + RelationTx
        + SessionTx
        + SlotTx
        + FilesTx
        + ImageTx
        + AccessTx
        + AuditTx
        + ?Sized,
> StoreTx for T
{
}

/// Runs `work` in one transaction of `store` and returns what it produced.
pub fn in_transaction<T>(
    store: &dyn Store,
    mut work: impl FnMut(&mut dyn StoreTx) -> Result<T>,
) -> Result<T> {
    let mut produced = None;
    store.write(&mut |tx| {
        produced = Some(work(tx)?);
        Ok(())
    })?;
    produced.ok_or_else(|| Error::Storage {
        message: "the store committed without running the transaction's work".into(),
        source: None,
    })
}
