//! What a backend must provide to move a store: one consistent snapshot streamed out
//! ([`ExchangeStore::export`]), and byte-level backups of the database. Import needs nothing of
//! its own: it writes through the domains' transactions.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::exchange::Counts;
use crate::memory::{Memory, Revision};
use crate::relation::Relation;
use crate::scope::Scope;
use crate::session::{Observation, Session, SessionKey};
use crate::slot::{Slot, SlotLabel};

/// One thing an export streams, in export order.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportItem {
    /// First, once: how many items of each kind follow.
    Counts(Counts),
    /// A memory in any state with its revisions; memories come first, oldest first (creation
    /// time, then the order they were stored).
    Memory(Memory, Vec<Revision>),
    /// Then every relation between memories, oldest first (creation time, then id).
    Relation(Relation),
    /// Then every slot, by project (global first) and label.
    Slot(Slot),
    /// Then, per scope, the default slots it was ever given.
    SlotSeeds(Scope, Vec<SlotLabel>),
    /// With sessions: each session by start time, then the order stored …
    Session(Session),
    /// … followed by its observations in the order they happened (and were stored).
    Observation(SessionKey, Observation),
}

/// Moving a store's contents in and out.
pub trait ExchangeStore: Send + Sync {
    /// Streams one consistent snapshot of the store to `sink`: the counts, then every item in
    /// export order. Sessions and observations only when `sessions` is set (their counts are
    /// zero otherwise).
    fn export(&self, sessions: bool, sink: &mut dyn FnMut(ExportItem) -> Result<()>) -> Result<()>;

    /// Writes a consistent copy of the whole database to `file`, which must not exist yet.
    fn backup(&self, file: &Path) -> Result<()>;

    /// Replaces everything the store holds with the copy in `file` (made by
    /// [`ExchangeStore::backup`], possibly by an older cairn), in one step other readers see
    /// whole. What the store held is first backed up beside it; returns where (`None` for a
    /// store without a file), so a restore can be undone with another. A file that is not such
    /// a copy is refused and nothing changes.
    fn restore(&self, file: &Path) -> Result<Option<PathBuf>>;
}
