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
    /// The git commit checked out at the last sync, when the files are in a repository: a unit
    /// gone since is cut by a commit only if `HEAD` moved on from this one (see
    /// [`super::git`]).
    pub synced_head: Option<String>,
}

impl Workspace {
    /// The directory holding the files.
    pub fn directory(&self) -> PathBuf {
        self.root.join(&self.dir)
    }
}

/// The file (a path inside the workspace's directory) that holds a memory's unit, as cairn
/// last wrote or read it, and whether the unit is there now ([`UnitState`]). A visible memory
/// without a location has not been written yet.
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
    pub state: UnitState,
}

impl UnitLocation {
    pub fn is_raw(&self) -> bool {
        self.raw_hash.is_some()
    }

    /// Whether this is a followed file's location (an absolute path, see `files::followed`),
    /// not a workspace's (a name inside its directory).
    pub fn is_followed(&self) -> bool {
        std::path::Path::new(&self.file).is_absolute()
    }
}

/// Whether a memory's unit is in its file, as the last sync found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitState {
    /// In the file when cairn last wrote or read it.
    #[default]
    Present,
    /// Not in this checkout's files, because git put another version of its file in place (a
    /// branch switch, a stash, a reset): the memory is kept as it is, and its unit is found
    /// again when the file holds it once more. Nothing is written back for it.
    Absent,
    /// Cut from its file by an edit (or by a commit pulled in), so its memory was forgotten;
    /// if the unit comes back (an undo, a checkout of the old file), the memory does too.
    Cut,
}

impl UnitState {
    pub fn as_str(self) -> &'static str {
        match self {
            UnitState::Present => "present",
            UnitState::Absent => "absent",
            UnitState::Cut => "cut",
        }
    }

    /// The state stored as [`UnitState::as_str`]; anything else reads as present.
    pub fn parse(text: &str) -> UnitState {
        match text {
            "absent" => UnitState::Absent,
            "cut" => UnitState::Cut,
            _ => UnitState::Present,
        }
    }
}

/// A memory a sync forgot (or, in a dry run, would forget) because its unit was cut.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForgottenUnit {
    pub id: MemoryId,
    /// The file the unit was cut from.
    pub file: String,
    pub headline: String,
    /// `edit`: the file was changed in the work tree; `commit`: a commit pulled in removed it.
    pub cut_by: &'static str,
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
    /// Units cut by hand (or by a commit pulled in): their memory forgotten. `forgets` names
    /// them.
    pub forgotten: u64,
    /// Units missing because git put another version of their file in place (a branch switch,
    /// a stash, a reset): their memories are kept, untouched.
    pub absent: u64,
    /// Units back in the files after they were cut: their memories are visible again.
    pub restored: u64,
    /// Memories of the project written into the files (not there yet, or forgotten there).
    pub written: u64,
    /// RAW memories: stretches of text outside units, indexed read-only (new this sync).
    pub raw_indexed: u64,
    /// RAW memories whose text is gone from the files (deleted).
    pub raw_dropped: u64,
    /// The memories forgotten because their unit was cut (each can be brought back with
    /// `cairn forget --undo`).
    pub forgets: Vec<ForgottenUnit>,
    /// True when nothing was changed: the report says what a sync would do.
    pub dry_run: bool,
    pub warnings: Vec<FileWarning>,
}

impl SyncReport {
    /// True when the sync stored or changed text (which then needs its embedding).
    pub fn changed_text(&self) -> bool {
        self.created + self.imported + self.updated + self.raw_indexed > 0
    }

    /// True when the sync created, revised, forgot or restored a memory of a unit.
    pub fn changed_memories(&self) -> bool {
        self.created + self.imported + self.updated + self.forgotten + self.restored > 0
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
