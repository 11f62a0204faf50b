//! The export/import format: JSON Lines, one memory per line with its history.
//!
//! A line is a [`Memory`] as JSON (every field, timestamps in RFC 3339, `project` null for
//! global) plus a `revisions` array. Forgotten and expired memories are exported too, so an
//! export is a complete, lossless copy of a store. Import is keyed by id and therefore
//! idempotent: a known id with the same or an older `updated_at` is left alone; a newer one
//! replaces the stored state, and the histories are merged so no state is lost.

use serde::{Deserialize, Serialize};

use crate::memory::{Memory, Revision};

/// One line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRecord {
    #[serde(flatten)]
    pub memory: Memory,
    #[serde(default)]
    pub revisions: Vec<Revision>,
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ImportReport {
    /// Lines read (blank lines are skipped and not counted).
    pub records: u64,
    pub created: u64,
    /// Known ids whose record was newer than the stored state.
    pub updated: u64,
    /// Known ids whose record was the same or older: nothing written.
    pub unchanged: u64,
}
