//! Markdown files as a source of truth: a project's memories written as managed units in
//! `<project root>/.cairn/memory/YYYY-MM-DD.md`, edited by hand, shared through git.
//!
//! - [`mod@unit`]: the unit format — an HTML-comment header line with the id and metadata as JSON,
//!   the text (marker-like lines escaped), a closing line — and [`unit::parse()`], which reads
//!   any file into units, text and malformed stretches without losing a byte;
//! - [`rewrite`]: a file changed unit by unit, every other byte copied;
//! - [`layout`]: which file a unit goes to (its creation day in the user's time zone), the
//!   directory's lock, atomic file replacement;
//! - [`model`]: [`Workspace`] (a project, its root and directory, the commit last read),
//!   [`UnitLocation`] (where a memory's unit was last written or read, and its [`UnitState`]),
//!   [`SyncReport`];
//! - [`git`]: what git says about a file — the witness that tells a cut from a branch's view;
//! - [`operations`]: [`Files`] — `init`, `land` (after a write), `sync` (files → store, or a dry
//!   run that only reports);
//! - [`followed`]: files agents already follow (`CLAUDE.md`, `AGENTS.md`, `MEMORY.md`), kept as
//!   read-only memories in line with the files, outside any workspace;
//! - [`store`]: what a backend provides ([`FilesStore`], [`FilesTx`]).
//!
//! Invariants: a unit changed through cairn rewrites exactly its block (byte-identical
//! elsewhere); a write never fails because its file could not be written (the next sync
//! repairs the file); a unit whose memory was written by cairn after the unit was (its header's
//! `updated` is older) is rewritten from the store, never read back over it; absence is not
//! deletion: a unit missing from a file forgets its memory only when that file was read whole
//! and cut by an edit (or by a commit pulled in), never because git put another version of the
//! file in place, and a cut unit that comes back brings its memory back; a sync never removes a
//! unit from a file (only cairn's own write of a forget, purge or prune does); session
//! summaries and global memories and memories tagged `private` stay out of the files.

pub mod followed;
pub mod git;
pub mod layout;
pub mod model;
pub mod operations;
pub mod raw;
pub mod rewrite;
pub mod store;
pub mod unit;

pub use followed::{FollowReport, FollowedFile, INSTRUCTIONS_TAG};
pub use model::{
    DEFAULT_DIR, ExportedUnit, FileWarning, FilesExport, ForgottenUnit, SyncReport, UnitLocation,
    UnitState, Workspace,
};
pub use operations::{Files, PRIVATE_TAG, WRITE_SETTLE};
pub use store::{FilesStore, FilesTx};
