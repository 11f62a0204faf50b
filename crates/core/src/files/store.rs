//! What a backend must provide for the files domain: [`FilesStore`] (reads) and [`FilesTx`]
//! (writes, inside one transaction). The store records which projects have workspaces and
//! where each unit lives; the files themselves are read and written by the domain.

use crate::error::Result;
use crate::files::model::{UnitLocation, Workspace};
use crate::id::MemoryId;
use crate::scope::ProjectName;

/// The read side of the files domain's storage.
pub trait FilesStore: Send + Sync {
    /// The workspace of `project`, if its memories are written to files.
    fn workspace(&self, project: &ProjectName) -> Result<Option<Workspace>>;

    /// Every workspace.
    fn workspaces(&self) -> Result<Vec<Workspace>>;

    /// Where the units of `project` were last written or read.
    fn unit_locations(&self, project: &ProjectName) -> Result<Vec<UnitLocation>>;

    /// The locations of those of `ids` that have one.
    fn locations_of(&self, ids: &[MemoryId]) -> Result<Vec<UnitLocation>>;
}

/// The write side of the files domain's storage, inside one transaction.
pub trait FilesTx {
    /// Adds or replaces the workspace of `workspace.project`.
    fn put_workspace(&mut self, workspace: &Workspace) -> Result<()>;

    /// Records the stamp of a project's files as of a sync.
    fn set_stamp(&mut self, project: &ProjectName, stamp: i64) -> Result<()>;

    /// Records the git commit a project's files were read at (`None` outside a repository).
    fn set_head(&mut self, project: &ProjectName, head: Option<&str>) -> Result<()>;

    /// Applies a writer's change to the stamp (XOR with `delta`), if the project has one.
    fn change_stamp(&mut self, project: &ProjectName, delta: i64) -> Result<()>;

    /// Removes a project's workspace and its units' locations (the files stay); the locations
    /// of files the project follows (absolute paths) stay too.
    fn remove_workspace(&mut self, project: &ProjectName) -> Result<()>;

    /// Adds or replaces the location of `location.id`.
    fn put_location(&mut self, location: &UnitLocation) -> Result<()>;

    /// Forgets where a memory's unit was (after its unit was removed).
    fn remove_location(&mut self, id: &MemoryId) -> Result<()>;
}
