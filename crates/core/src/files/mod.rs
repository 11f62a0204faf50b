//! Markdown files as a source of truth: a project's memories written as managed units in
//! `<project root>/.cairn/memory/YYYY-MM-DD.md`, edited by hand, shared through git.
//!
//! - [`mod@unit`]: the unit format — an HTML-comment header line with the id and metadata as JSON,
//!   the text (marker-like lines escaped), a closing line — and [`unit::parse()`], which reads
//!   any file into units, text and malformed stretches without losing a byte;
//! - [`rewrite`]: a file changed unit by unit, every other byte copied;
//! - [`layout`]: which file a unit goes to (its creation day in the user's time zone), the
//!   directory's lock, atomic file replacement;
//! - [`model`]: [`Workspace`] (a project, its root and directory), [`UnitLocation`] (where a
//!   memory's unit was last written or read), [`SyncReport`];
//! - [`operations`]: [`Files`] — `init`, `land` (after a write), `sync` (files → store);
//! - [`store`]: what a backend provides ([`FilesStore`], [`FilesTx`]).
//!
//! Invariants: a unit changed through cairn rewrites exactly its block (byte-identical
//! elsewhere); a write never fails because its file could not be written (the next sync
//! repairs the file); a unit whose memory was written by cairn after the unit was (its header's
//! `updated` is older) is rewritten from the store, never read back over it; a unit missing
//! from a file forgets its memory only when that file was read whole; session summaries and
//! global memories and memories tagged `private` stay out of the files.

pub mod git;
pub mod layout;
pub mod model;
pub mod operations;
pub mod raw;
pub mod rewrite;
pub mod store;
pub mod unit;

pub use model::{
    DEFAULT_DIR, ExportedUnit, FileWarning, FilesExport, ForgottenUnit, SyncReport, UnitLocation,
    UnitState, Workspace,
};
pub use operations::{Files, PRIVATE_TAG, WRITE_SETTLE};
pub use store::{FilesStore, FilesTx};
