//! What the files domain keeps in the store: which projects write their memories to files
//! ([`Workspace`]), where each memory's unit was last written or read ([`UnitLocation`]), and
//! what a sync did ([`SyncReport`]).

use std::path::PathBuf;

use jiff::Timestamp;
use serde::Serialize;

use crate::id::MemoryId;
use crate::scope::ProjectName;

/// The directory of a project's memory files, under its root, unless configured.
pub const DEFAULT_DIR: &str = ".cairn/memory";

/// A project whose memories are also written to markdown files in its repository.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workspace {
    pub project: ProjectName,
    /// The project's root directory, absolute.
    pub root: PathBuf,
    /// The files' directory, relative to the root.
    pub dir: String,
    pub created_at: Timestamp,
    /// The files' stamp (names, sizes, modification times) when they were last synced: a
    /// different stamp now means someone changed them since.
    pub synced_stamp: Option<i64>,
}

impl Workspace {
    /// The directory holding the files.
    pub fn directory(&self) -> PathBuf {
        self.root.join(&self.dir)
    }
}

/// The file (a path inside the workspace's directory) that holds a memory's unit, as cairn
/// last wrote or read it. A memory with a location whose unit is gone from that file was
/// deleted by hand; a visible memory without one has not been written yet.
///
/// A RAW memory — text of a file outside any unit, indexed so search and duplicate detection
/// see it, but read-only — has a location too, with the hash of its text: sync keeps it while
/// the file holds that text and deletes it when the text is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitLocation {
    pub id: MemoryId,
    pub project: ProjectName,
    pub file: String,
    /// `Some(hash of the text)` for a RAW memory; `None` for a unit.
    pub raw_hash: Option<i64>,
}

impl UnitLocation {
    pub fn is_raw(&self) -> bool {
        self.raw_hash.is_some()
    }
}

/// Something in a file that sync could not read as a unit, left as it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileWarning {
    pub file: String,
    pub reason: String,
}

/// What a sync (or `files init`) did for one workspace.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SyncReport {
    pub project: String,
    pub directory: String,
    pub files: u64,
    pub units: u64,
    /// Hand-written units without an id: stored, and their id written back.
    pub created: u64,
    /// Units whose id the store did not know (a teammate's, through git): stored with that id.
    pub imported: u64,
    /// Units edited by hand: their memory revised (the previous state kept in its history).
    pub updated: u64,
    /// Units deleted by hand: their memory forgotten.
    pub forgotten: u64,
    /// Memories of the project written into the files (not there yet, or forgotten there).
    pub written: u64,
    /// Units removed from the files because their memory was forgotten or purged in cairn.
    pub removed: u64,
    /// RAW memories: stretches of text outside units, indexed read-only (new this sync).
    pub raw_indexed: u64,
    /// RAW memories whose text is gone from the files (deleted).
    pub raw_dropped: u64,
    pub warnings: Vec<FileWarning>,
}

impl SyncReport {
    /// True when the sync stored or changed text (which then needs its embedding).
    pub fn changed_text(&self) -> bool {
        self.created + self.imported + self.updated + self.raw_indexed > 0
    }
}

/// A memory `cairn files export` writes (or, on a dry run, would write) into the files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedUnit {
    pub id: MemoryId,
    /// The file, relative to the workspace's directory.
    pub file: String,
    pub headline: String,
}

/// What `cairn files export` did, or would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilesExport {
    pub project: String,
    pub directory: String,
    pub dry_run: bool,
    pub units: Vec<ExportedUnit>,
}
