//! [`Files`]: starting a workspace (`init`), writing memories into their project's files after
//! a write (`land`), and reading the files back into the store (`sync`).
//!
//! `land` runs after the store committed and never fails the write that called it (the service
//! logs what it could not do; the next sync repairs it). `sync` applies every change it finds
//! in one store transaction, then rewrites the units that need it (new ids, redacted text) —
//! all under the directory's lock, so writers of one directory never interleave.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Component, Path};
use std::time::Duration;

use jiff::Timestamp;

use crate::config::FilesConfig;
use crate::error::{Error, Result};
use crate::files::git;
use crate::files::layout::{self, FileText};
use crate::files::model::{
    ExportedUnit, FileWarning, FilesExport, ForgottenUnit, SyncReport, UnitLocation, UnitState,
    Workspace,
};
use crate::files::raw::{self, RawPiece};
use crate::files::rewrite::{self, Edit};
use crate::files::unit::{self, ParsedUnit, Piece};
use crate::id::MemoryId;
use crate::memory::write::{apply_patch, revise, same_state, store_in};
use crate::memory::{
    ListQuery, Memories, Memory, MemoryFilter, MemoryPatch, NewMemory, Source, WriteStatus,
};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::session::SUMMARY_TAG;
use crate::store::{Store, StoreTx, in_transaction};

/// The files operations over one store.
pub struct Files<'a> {
    pub(super) memories: Memories<'a>,
    settings: &'a FilesConfig,
}

impl<'a> Files<'a> {
    pub fn new(memories: Memories<'a>, settings: &'a FilesConfig) -> Self {
        Files { memories, settings }
    }

    /// True when `memory` is written to the files of `project`: visible, in that project, not
    /// tagged private, and not a session summary unless `files.include_summaries`.
    fn belongs(&self, memory: &Memory, project: &ProjectName, now: Timestamp) -> bool {
        memory.scope.project() == Some(project)
            && crate::memory::Visibility::VISIBLE.shows(memory, now)
            && !memory.tags.iter().any(|t| {
                t.as_str() == PRIVATE_TAG
                    || (t.as_str() == SUMMARY_TAG && !self.settings.include_summaries)
            })
    }

    pub(super) fn store(&self) -> &'a dyn Store {
        self.memories.backend()
    }

    /// The workspace of `project`, if it has one.
    pub fn workspace(&self, project: &ProjectName) -> Result<Option<Workspace>> {
        self.store().workspace(project)
    }

    /// Every workspace.
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.store().workspaces()
    }

    /// Every visible memory of `project` (not the global ones), oldest first.
    fn project_memories(&self, project: &ProjectName, now: Timestamp) -> Result<Vec<Memory>> {
        let query = ListQuery {
            filter: MemoryFilter {
                scope: ScopeFilter::Project(project.clone()),
                ..MemoryFilter::default()
            },
            sort: crate::memory::SortKey::Created,
            order: crate::memory::SortOrder::Asc,
            limit: i64::MAX as usize,
            offset: 0,
        };
        self.store().list(&query, now)
    }

    /// Refuses a change to a RAW memory (text of a file outside any unit): it changes only
    /// with its file.
    pub fn check_writable(&self, id: &MemoryId) -> Result<()> {
        match self.store().locations_of(&[*id])?.into_iter().next() {
            Some(location) if location.is_followed() => Err(Error::ReadOnly {
                field: "id".into(),
                message: format!(
                    "memory {} is text of {}, a file agents follow, read-only here: edit the \
                     file, and the next import of instructions (or session start) takes the change",
                    id.handle(),
                    location.file
                ),
            }),
            Some(location) if location.is_raw() => Err(Error::ReadOnly {
                field: "id".into(),
                message: format!(
                    "memory {} is text of the markdown file {} of project {}, read-only here: \
                     edit the file, and the next sync of the project's files takes the change",
                    id.handle(),
                    location.file,
                    location.project
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Where `memory`'s unit is, relative to its project's root (`.cairn/memory/2026-03-11.md`);
    /// `None` when its project keeps no files or the unit is not written.
    pub fn unit_path(&self, memory: &Memory) -> Result<Option<String>> {
        Ok(self.unit_place(memory)?.map(|(path, _)| path))
    }

    /// [`Files::unit_path`], and whether the memory is RAW text of that file (not a unit).
    pub fn unit_place(&self, memory: &Memory) -> Result<Option<(String, bool)>> {
        let Some(project) = memory.scope.project() else {
            return Ok(None);
        };
        let location = self.store().locations_of(&[memory.id])?.into_iter().next();
        if let Some(location) = location.as_ref().filter(|l| l.is_followed()) {
            return Ok(Some((location.file.clone(), location.is_raw())));
        }
        let Some(workspace) = self.store().workspace(project)? else {
            return Ok(None);
        };
        Ok(location.map(|location| {
            let path = format!("{}/{}", workspace.dir, location.file);
            (path, location.is_raw())
        }))
    }

    /// Makes `root`/`dir` the workspace of `project` (again, if it had one), writes the git
    /// settings of a new directory, and syncs: the project's memories are written into the
    /// files, and units already there are read.
    pub fn init(&self, project: ProjectName, root: &Path, dir: &str) -> Result<SyncReport> {
        let dir = checked_dir(dir)?;
        if !root.is_absolute() {
            return Err(Error::invalid(
                "root",
                format!("'{}' is not an absolute path", root.display()),
            ));
        }
        let created_at = self
            .store()
            .workspace(&project)?
            .map_or_else(|| self.memories.timestamp(), |w| w.created_at);
        let workspace = Workspace {
            project,
            root: root.to_path_buf(),
            dir,
            created_at,
            synced_stamp: None,
            synced_head: None,
        };
        layout::prepare(&workspace.directory())?;
        in_transaction(self.store(), |tx| tx.put_workspace(&workspace))?;
        self.sync(&workspace, false)
    }

    /// Brings the units of these memories in line with the store, in the files of their
    /// projects' workspaces: written or rewritten when the memory belongs in the files, removed
    /// when it was forgotten, expired or purged. Memories of projects without a workspace are
    /// left alone; what cannot be written is returned as warnings.
    pub fn land(&self, ids: &[MemoryId]) -> Result<Vec<FileWarning>> {
        let store = self.store();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let workspaces = store.workspaces()?;
        if workspaces.is_empty() {
            return Ok(Vec::new());
        }
        let memories: HashMap<MemoryId, Memory> =
            store.get(ids)?.into_iter().map(|m| (m.id, m)).collect();
        let locations: HashMap<MemoryId, UnitLocation> = store
            .locations_of(ids)?
            .into_iter()
            .map(|l| (l.id, l))
            .collect();
        let now = self.memories.now();
        let mut warnings = Vec::new();
        for workspace in &workspaces {
            let project = &workspace.project;
            let mine: Vec<&MemoryId> = ids
                .iter()
                .filter(|id| {
                    memories.get(id).and_then(|m| m.scope.project()) == Some(project)
                        || locations.get(id).is_some_and(|l| &l.project == project)
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            let dir = workspace.directory();
            let _lock = layout::lock(&dir)?;
            // Read again under the lock: another writer may have changed them since.
            let ids: Vec<MemoryId> = mine.iter().map(|id| **id).collect();
            let current: HashMap<MemoryId, Memory> =
                store.get(&ids)?.into_iter().map(|m| (m.id, m)).collect();
            let mut plans = Plans::default();
            let (mut put, mut removed) = (Vec::new(), Vec::new());
            for id in mine {
                let memory = current
                    .get(id)
                    .filter(|m| self.belongs(m, project, now.timestamp()));
                let location = locations.get(id);
                if location.is_some_and(UnitLocation::is_raw) {
                    continue; // a file's own text: sync keeps it in line
                }
                match (memory, location) {
                    (Some(memory), Some(location)) => {
                        // Rewritten where it is, or appended to its file when this checkout's
                        // file lacks it: cairn's own write of the memory's new state.
                        plans
                            .file(&location.file)
                            .by_id
                            .insert(*id, Some(unit::render_memory(memory)));
                        if location.state != UnitState::Present {
                            put.push(UnitLocation {
                                state: UnitState::Present,
                                ..location.clone()
                            });
                        }
                    }
                    (Some(memory), None) => {
                        let file = layout::day_file(memory.created_at, now.time_zone());
                        plans.file(&file).appended.push(unit::render_memory(memory));
                        put.push(UnitLocation {
                            id: *id,
                            project: project.clone(),
                            file,
                            raw_hash: None,
                            state: UnitState::Present,
                        });
                    }
                    (None, Some(location)) if location.state == UnitState::Present => {
                        plans.file(&location.file).by_id.insert(*id, None);
                        match current.contains_key(id) {
                            true => removed.push(*id),
                            // Purged: the location stays behind, so the unit another branch's
                            // file still holds is never stored again.
                            false => put.push(UnitLocation {
                                state: UnitState::Absent,
                                ..location.clone()
                            }),
                        }
                    }
                    // Not in this checkout's files: nothing to remove.
                    (None, Some(_)) | (None, None) => {}
                }
            }
            let written = plans.write(&dir)?;
            warnings.extend(written.warnings);
            // A unit whose file could not be written has no location: export writes it later.
            put.retain(|l| !written.failed.contains(&l.file));
            // The stamp follows this write, so the next refresh does not read every file
            // again for it (a file changed by someone else still differs).
            if put.is_empty() && removed.is_empty() && written.stamp_change == 0 {
                continue;
            }
            in_transaction(store, |tx| {
                store_locations(tx, &put, &removed)?;
                tx.change_stamp(project, written.stamp_change)
            })?;
        }
        Ok(warnings)
    }

    /// Writes the project's memories that belong in the files but are not there yet (written
    /// before the workspace, or while a file could not be written); with `dry_run`, only says
    /// which and where. What never belongs in the files is never listed: session summaries,
    /// private memories, global ones, observations.
    pub fn export(&self, workspace: &Workspace, dry_run: bool) -> Result<FilesExport> {
        let project = &workspace.project;
        let now = self.memories.now();
        let located: HashSet<MemoryId> = self
            .store()
            .unit_locations(project)?
            .into_iter()
            .map(|l| l.id)
            .collect();
        let listed = self.project_memories(project, now.timestamp())?;
        let units: Vec<ExportedUnit> = listed
            .iter()
            .filter(|m| self.belongs(m, project, now.timestamp()) && !located.contains(&m.id))
            .map(|m| ExportedUnit {
                id: m.id,
                file: layout::day_file(m.created_at, now.time_zone()),
                headline: m.headline().to_string(),
            })
            .collect();
        if !dry_run {
            let ids: Vec<MemoryId> = units.iter().map(|u| u.id).collect();
            if let Some(warning) = self.land(&ids)?.into_iter().next() {
                return Err(Error::Storage {
                    message: format!("{}: {}", warning.file, warning.reason),
                    source: None,
                });
            }
        }
        Ok(FilesExport {
            project: project.to_string(),
            directory: workspace.directory().display().to_string(),
            dry_run,
            units,
        })
    }

    /// Rebuilds the project's index from its files alone: every memory the files hold (units
    /// and RAW text) is deleted, with its history and relations, and read again from the files
    /// (units keep their ids). Memories the files do not hold on this checkout (session
    /// summaries, private ones, units absent after a branch switch or cut by hand) are left as
    /// they are.
    pub fn rebuild(&self, workspace: &Workspace) -> Result<SyncReport> {
        let ids: Vec<MemoryId> = self
            .store()
            .unit_locations(&workspace.project)?
            .into_iter()
            .filter(|l| l.state == UnitState::Present && !l.is_followed())
            .map(|l| l.id)
            .collect();
        {
            let _lock = layout::lock(&workspace.directory())?;
            in_transaction(self.store(), |tx| {
                tx.purge(&ids)?;
                store_locations(tx, &[], &ids)
            })?;
        }
        self.sync(workspace, false)
    }

    /// Reads every markdown file of the workspace and brings the store in line with them: a
    /// unit edited by hand revises its memory, a unit cut by hand forgets it (and brings it
    /// back if it returns), a unit missing because git put another version of its file in
    /// place leaves its memory alone, a new unit is stored and its id written back, a unit with
    /// an id the store does not know (a teammate's) is stored with that id; then writes the
    /// project's memories that are not in the files yet. Nothing in a file that cannot be read
    /// as a unit is changed or lost: it is reported. With `dry_run`, nothing changes: the
    /// report says what the sync would do.
    ///
    /// While git is in the middle of a merge, rebase, cherry-pick or revert, the files are half
    /// of one state and half of another: the sync reads nothing and says so, and the next one
    /// runs once the operation ended.
    pub fn sync(&self, workspace: &Workspace, dry_run: bool) -> Result<SyncReport> {
        let store = self.store();
        let project = &workspace.project;
        let dir = workspace.directory();
        let _lock = layout::lock(&dir)?;
        let now = self.memories.now();
        let timestamp = now.timestamp();
        let mut report = SyncReport {
            project: project.to_string(),
            directory: dir.display().to_string(),
            dry_run,
            ..SyncReport::default()
        };
        if let Some(operation) = git::operation_under_way(&dir) {
            report.warnings.push(warning(
                ".",
                &format!(
                    "git is in the middle of a {operation}: the files are read once it ends; \
                     nothing was changed"
                ),
            ));
            return Ok(report);
        }

        // The files' stamp as read, before reading them: a hand edit made while this sync runs
        // then leaves the stamp stale, and the next refresh syncs again. (Stamped after the
        // writes, the edit would count as synced without ever having been read.)
        let stamp_read = layout::stamp(&dir)?;
        let files = layout::read_files(&dir)?;
        report.files = files.len() as u64;
        let found = Found::read(&files, &mut report.warnings);
        report.units = (found.with_id.len() + found.without_id.len()) as u64;

        let (mut locations, mut raw_locations) = (HashMap::new(), HashMap::new());
        // Followed files (`files::followed`) are not the workspace's: their text is neither
        // read nor written here.
        let mut followed = HashSet::new();
        for location in store.unit_locations(project)? {
            if location.is_followed() {
                followed.insert(location.id);
                continue;
            }
            match location.raw_hash {
                None => {
                    locations.insert(location.id, (location.file, location.state));
                }
                Some(hash) => {
                    raw_locations.insert(location.id, (location.file, hash));
                }
            }
        }
        let mut wanted: Vec<MemoryId> = found.with_id.iter().map(|u| u.id).collect();
        wanted.extend(locations.keys().copied());
        wanted.extend(raw_locations.keys().copied());
        let known: HashMap<MemoryId, Memory> =
            store.get(&wanted)?.into_iter().map(|m| (m.id, m)).collect();
        let listed = self.project_memories(project, timestamp)?;

        // What each unit means, decided before the transaction so that one bad unit is a
        // warning, not a failed sync.
        let limits = self.memories.limits();
        let mut changes = Vec::new();
        let mut plans = Plans::default();
        let mut merged = Vec::new();
        for unit in &found.with_id {
            let file = &found.names[unit.file];
            if !unit.older.is_empty() {
                // Both sides of a merge: each version in turn, so the history holds both.
                let versions = unit.older.iter().chain([&unit.unit]);
                let mut base = known.get(&unit.id).cloned();
                for version in versions {
                    let next = match &base {
                        None => imported(
                            &IdentifiedUnit {
                                unit: version.clone(),
                                ..unit.clone()
                            },
                            project,
                            limits,
                            timestamp,
                        )
                        .map(|m| (Some(Change::Import(m.clone(), unit.file)), m)),
                        Some(current) => {
                            edited(current, version, limits, timestamp).map(|mut m| {
                                if same_state(current, &m) && current.deleted_at.is_none() {
                                    return (None, current.clone());
                                }
                                m.updated_at = version.header.updated.unwrap_or(timestamp);
                                m.deleted_at = None;
                                (Some(Change::Revise(unit.clone(), m.clone())), m)
                            })
                        }
                    };
                    match next {
                        Ok((change, memory)) => {
                            changes.extend(change);
                            base = Some(memory);
                        }
                        Err(e) => report.warnings.push(warning(file, &e.to_string())),
                    }
                }
                report.warnings.push(warning(
                    file,
                    &format!(
                        "memory {} was edited on both sides of a merge; both versions are in its \
                         history, the later one is current",
                        unit.id.handle()
                    ),
                ));
                merged.push(unit);
                continue;
            }
            let state = locations.get(&unit.id).map(|(_, state)| *state);
            match known.get(&unit.id) {
                // Known to this workspace once, gone from the store: purged here. The unit
                // stays as git has it, and is not stored again.
                None if state.is_some() => {}
                None => match imported(unit, project, limits, timestamp) {
                    Ok(memory) => changes.push(Change::Import(memory, unit.file)),
                    Err(e) => report.warnings.push(warning(file, &e.to_string())),
                },
                Some(current) => {
                    let file_is_newer = unit
                        .unit
                        .header
                        .updated
                        .is_some_and(|at| at > current.updated_at);
                    let file_is_current = unit
                        .unit
                        .header
                        .updated
                        .is_none_or(|at| at == current.updated_at);
                    if file_is_newer {
                        match edited(current, &unit.unit, limits, timestamp) {
                            Ok(mut revised) => {
                                revised.updated_at = unit.unit.header.updated.unwrap_or(timestamp);
                                revised.deleted_at = None;
                                changes.push(Change::Revise(unit.clone(), revised));
                            }
                            Err(e) => report.warnings.push(warning(file, &e.to_string())),
                        }
                    } else if current.deleted_at.is_some() && state == Some(UnitState::Cut) {
                        // Cut from the files, and back (an undo, a checkout of the old file).
                        changes.push(Change::Revive(unit.id, unit.file));
                    } else if current.deleted_at.is_some()
                        || !self.belongs(current, project, timestamp)
                    {
                        // Forgotten, expired or private in cairn: the unit stays as git has
                        // it (cairn removes units only when it writes the change itself).
                        changes.push(Change::Locate(unit.id, unit.file));
                    } else if file_is_current {
                        match edited(current, &unit.unit, limits, timestamp) {
                            Ok(revised) if !same_state(current, &revised) => {
                                changes.push(Change::Revise(unit.clone(), revised));
                            }
                            Ok(_) => changes.push(Change::Locate(unit.id, unit.file)),
                            Err(e) => report.warnings.push(warning(file, &e.to_string())),
                        }
                    } else {
                        // The store changed the memory after this unit was written (a
                        // write whose file could not be written): the store's state wins.
                        plans.file(file).edits.push(Edit {
                            span: unit.span.clone(),
                            replacement: Some(unit::render_memory(current)),
                        });
                        changes.push(Change::Locate(unit.id, unit.file));
                    }
                }
            }
        }
        for unit in &found.without_id {
            let file = &found.names[unit.file];
            match self
                .memories
                .candidate(new_memory(&unit.unit, project), timestamp)
            {
                Ok(candidate) => changes.push(Change::Create(unit.clone(), candidate)),
                Err(e) => report.warnings.push(warning(file, &e.to_string())),
            }
        }
        let in_files: HashSet<MemoryId> = found.with_id.iter().map(|u| u.id).collect();
        let mut witness = Witness::new(&dir, workspace.synced_head.as_deref());
        for (id, (file, state)) in &locations {
            if in_files.contains(id) || *state != UnitState::Present {
                continue;
            }
            if !found.sound(file) {
                report.warnings.push(warning(
                    file,
                    &format!(
                        "memory {} is kept: its unit is not found and the file could not be \
                         read whole",
                        id.handle()
                    ),
                ));
                continue;
            }
            match witness.removal(file, id) {
                Removal::View => changes.push(Change::Absent(*id, file.clone())),
                Removal::Cut(by) => changes.push(Change::Forget(*id, file.clone(), by)),
            }
        }
        let missing: Vec<&Memory> = listed
            .iter()
            .filter(|m| self.belongs(m, project, timestamp))
            .filter(|m| {
                !in_files.contains(&m.id)
                    && !locations.contains_key(&m.id)
                    && !raw_locations.contains_key(&m.id)
                    && !followed.contains(&m.id)
            })
            .collect();

        // RAW text: a piece still in its file keeps its memory; a new piece is indexed; a piece
        // gone from a file that was read (or that is gone) drops its memory.
        let mut kept: HashMap<(String, i64), Vec<MemoryId>> = HashMap::new();
        for (id, (file, hash)) in &raw_locations {
            match known.contains_key(id) {
                true => kept.entry((file.clone(), *hash)).or_default().push(*id),
                // Its memory was deleted (by prune): index the text again.
                false => changes.push(Change::Unlocate(*id)),
            }
        }
        for raw in &found.raw {
            let file = &found.names[raw.file];
            let key = (file.clone(), raw.piece.hash);
            if kept.get_mut(&key).and_then(Vec::pop).is_some() {
                continue;
            }
            let new = NewMemory {
                title: Some(file.clone()),
                ..NewMemory::new(
                    raw.piece.text.clone(),
                    Scope::Project(project.clone()),
                    Source::Markdown,
                )
            };
            match self.memories.candidate(new, timestamp) {
                Ok(candidate) => changes.push(Change::Raw(raw.file, raw.piece.hash, candidate)),
                Err(e) => report.warnings.push(warning(file, &e.to_string())),
            }
        }
        for ((file, _), ids) in kept {
            if !found.unreadable.contains(&file) {
                changes.extend(ids.into_iter().map(Change::DropRaw));
            }
        }
        if dry_run {
            preview(&mut report, &changes, &known);
            report.written = missing.len() as u64;
            return Ok(report);
        }

        // One transaction for every change the files asked for.
        let mut applied = in_transaction(store, |tx| {
            let mut applied = Applied::default();
            for change in &changes {
                apply(tx, change, &in_files, timestamp, &mut applied)?;
            }
            Ok(applied)
        })?;
        report.imported = applied.imported;
        report.updated = applied.updated;
        report.forgotten = applied.forgets.len() as u64;
        report.forgets = std::mem::take(&mut applied.forgets);
        report.absent = applied.absent;
        report.restored = applied.restored;
        report.created = applied.created;
        report.raw_indexed = applied.raw_indexed;
        report.raw_dropped = applied.raw_dropped;
        let merged_spans: HashSet<(usize, usize)> =
            merged.iter().map(|u| (u.file, u.span.start)).collect();
        for (rewrite, memory) in &applied.rewrite {
            if merged_spans.contains(&(rewrite.file, rewrite.span.start)) {
                continue;
            }
            plans.file(&found.names[rewrite.file]).edits.push(Edit {
                span: rewrite.span.clone(),
                replacement: memory.as_ref().map(unit::render_memory),
            });
        }
        // A merged pair becomes one unit again: the memory as it now stands.
        let ids: Vec<MemoryId> = merged.iter().map(|u| u.id).collect();
        let now_stored: HashMap<MemoryId, Memory> =
            store.get(&ids)?.into_iter().map(|m| (m.id, m)).collect();
        for unit in &merged {
            if let Some(memory) = now_stored.get(&unit.id) {
                plans.file(&found.names[unit.file]).edits.push(Edit {
                    span: unit.span.clone(),
                    replacement: Some(unit::render_memory(memory)),
                });
            }
        }
        for (file, reason) in &applied.notes {
            report.warnings.push(warning(&found.names[*file], reason));
        }
        let mut put: Vec<UnitLocation> = applied
            .located
            .iter()
            .map(|(id, file, raw_hash)| UnitLocation {
                id: *id,
                project: project.clone(),
                file: found.names[*file].clone(),
                raw_hash: *raw_hash,
                state: UnitState::Present,
            })
            .chain(applied.marked.iter().map(|(id, file, state)| UnitLocation {
                id: *id,
                project: project.clone(),
                file: file.clone(),
                raw_hash: None,
                state: *state,
            }))
            .collect();
        for memory in missing {
            let file = layout::day_file(memory.created_at, now.time_zone());
            plans.file(&file).appended.push(unit::render_memory(memory));
            put.push(UnitLocation {
                id: memory.id,
                project: project.clone(),
                file,
                raw_hash: None,
                state: UnitState::Present,
            });
            report.written += 1;
        }
        let written = plans.write(&dir)?;
        report.warnings.extend(written.warnings);
        put.retain(|l| {
            l.raw_hash.is_some() || !written.failed.contains(&l.file) || in_files.contains(&l.id)
        });
        // As read, plus this sync's own writes; and the commit the files were read at.
        let stamp = stamp_read ^ written.stamp_change;
        let head = witness.head();
        in_transaction(store, |tx| {
            store_locations(tx, &put, &applied.unlocated)?;
            tx.set_stamp(project, stamp)?;
            tx.set_head(project, head.as_deref())
        })?;
        Ok(report)
    }

    /// Syncs the workspace of `project` if its files changed since the last sync (one
    /// directory walk when they did not); `None` when nothing was synced. With a `settle`
    /// time, files modified more recently than that are left for a later refresh: an editor
    /// that truncates a file and then writes it would otherwise be read in between, and every
    /// memory of the empty file forgotten (a watcher that polls uses [`WRITE_SETTLE`]).
    pub fn refresh(&self, project: &ProjectName, settle: Duration) -> Result<Option<SyncReport>> {
        let Some(workspace) = self.store().workspace(project)? else {
            return Ok(None);
        };
        let listing = layout::listing(&workspace.directory())?;
        if workspace.synced_stamp == Some(listing.stamp) || listing.modified_within(settle) {
            return Ok(None);
        }
        self.sync(&workspace, false).map(Some)
    }
}

/// How long a watcher leaves a file alone after it was modified, so that it is read whole.
pub const WRITE_SETTLE: Duration = Duration::from_secs(1);

/// The tag that keeps a memory out of the files (and so out of git).
pub const PRIVATE_TAG: &str = "private";

/// A workspace directory as given: relative, inside the root, not empty.
fn checked_dir(dir: &str) -> Result<String> {
    let path = Path::new(dir.trim());
    let inside = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if dir.trim().is_empty() || !inside || path.components().count() == 0 {
        return Err(Error::invalid(
            "dir",
            format!(
                "'{dir}' must be a relative path inside the project (like .cairn/memory), \
                 without '..'"
            ),
        ));
    }
    Ok(dir.trim().trim_end_matches('/').to_string())
}

/// A unit found in a file.
#[derive(Debug, Clone)]
struct FoundUnit {
    /// Index into [`Found::names`].
    file: usize,
    span: Range<usize>,
    unit: ParsedUnit,
}

/// A unit with an id.
#[derive(Debug, Clone)]
struct IdentifiedUnit {
    id: MemoryId,
    file: usize,
    span: Range<usize>,
    unit: ParsedUnit,
    /// Earlier versions a merge left run together with this one, oldest first.
    older: Vec<ParsedUnit>,
}

/// A piece of RAW text found in a file.
struct FoundRaw {
    file: usize,
    piece: RawPiece,
}

/// Every unit and RAW piece of a directory's files, and which files were read whole.
struct Found {
    names: Vec<String>,
    with_id: Vec<IdentifiedUnit>,
    /// The file each id was first found in.
    seen: HashMap<MemoryId, usize>,
    without_id: Vec<FoundUnit>,
    raw: Vec<FoundRaw>,
    /// Files that could not be read, or hold something that is not a unit.
    unsound: HashSet<String>,
    /// Files that could not be read as text at all.
    unreadable: HashSet<String>,
}

impl Found {
    fn read(files: &[FileText], warnings: &mut Vec<FileWarning>) -> Found {
        let mut found = Found {
            names: Vec::new(),
            with_id: Vec::new(),
            seen: HashMap::new(),
            without_id: Vec::new(),
            raw: Vec::new(),
            unsound: HashSet::new(),
            unreadable: HashSet::new(),
        };
        for (index, file) in files.iter().enumerate() {
            found.names.push(file.name.clone());
            let text = match &file.text {
                Ok(text) => text,
                Err(reason) => {
                    let indexed = match &file.prefix {
                        Some(prefix) => {
                            found.raw_text(index, &unit::without_markers(prefix));
                            "; its beginning is indexed as RAW text, and the file is never \
                             written"
                        }
                        None => "",
                    };
                    warnings.push(warning(
                        &file.name,
                        &format!("not read as units: {reason}{indexed}"),
                    ));
                    found.unsound.insert(file.name.clone());
                    found.unreadable.insert(file.name.clone());
                    continue;
                }
            };
            for piece in unit::parse(text) {
                match piece {
                    Piece::Text { span } => found.raw_text(index, &text[span]),
                    Piece::Malformed { reason, span } => {
                        warnings.push(warning(
                            &file.name,
                            &format!("{reason}; its text is indexed as RAW text"),
                        ));
                        found.unsound.insert(file.name.clone());
                        found.raw_text(index, &unit::without_markers(&text[span]));
                    }
                    Piece::Merged { versions, span } => {
                        let [mut first, mut second] = versions;
                        if first.header.updated > second.header.updated {
                            std::mem::swap(&mut first, &mut second);
                        }
                        found.identified(index, span, second, vec![first], warnings);
                    }
                    Piece::Unit { unit, span } => match unit.header.id {
                        None => found.without_id.push(FoundUnit {
                            file: index,
                            span,
                            unit,
                        }),
                        Some(_) => found.identified(index, span, unit, Vec::new(), warnings),
                    },
                }
            }
        }
        found
    }

    /// Keeps a unit with an id (and the earlier versions a merge left beside it), unless an
    /// earlier unit had that id: then it is reported and left as it is.
    fn identified(
        &mut self,
        file: usize,
        span: Range<usize>,
        unit: ParsedUnit,
        older: Vec<ParsedUnit>,
        warnings: &mut Vec<FileWarning>,
    ) {
        let Some(id) = unit.header.id else {
            return;
        };
        if let Some(first) = self.seen.get(&id) {
            warnings.push(warning(
                &self.names[file],
                &format!(
                    "a second unit of memory {} (the one in {} is read; this one is left as it is)",
                    id.handle(),
                    self.names[*first]
                ),
            ));
            self.unsound.insert(self.names[file].clone());
            return;
        }
        self.seen.insert(id, file);
        self.with_id.push(IdentifiedUnit {
            id,
            file,
            span,
            unit,
            older,
        });
    }

    fn raw_text(&mut self, file: usize, text: &str) {
        for piece in raw::pieces(text) {
            self.raw.push(FoundRaw { file, piece });
        }
    }

    /// True when `file` was read whole (or is gone): a unit missing from it was deleted.
    fn sound(&self, file: &str) -> bool {
        !self.unsound.contains(file)
    }
}

/// What the files ask of the store, decided before the transaction.
enum Change {
    /// A unit whose id the store does not know, and its file.
    Import(Memory, usize),
    /// A unit whose text or header differs from its memory: the memory as the unit has it.
    Revise(IdentifiedUnit, Memory),
    /// A hand-written unit without an id: the memory it would store.
    Create(FoundUnit, Memory),
    /// A unit that matches its memory: record where it is.
    Locate(MemoryId, usize),
    /// A RAW memory whose memory is gone: its location goes (the text is indexed again).
    Unlocate(MemoryId),
    /// A memory whose unit was cut from its file (by an edit, or a commit pulled in).
    Forget(MemoryId, String, &'static str),
    /// A memory whose unit is not in this checkout's files (git put another version there).
    Absent(MemoryId, String),
    /// A memory forgotten because its unit was cut, whose unit is back in this file.
    Revive(MemoryId, usize),
    /// A new piece of RAW text in a file (index), with its hash: the memory that indexes it.
    Raw(usize, i64, Memory),
    /// A RAW memory whose text is gone from its file.
    DropRaw(MemoryId),
}

/// What the transaction did, for the report and the files.
#[derive(Default)]
struct Applied {
    imported: u64,
    updated: u64,
    created: u64,
    forgets: Vec<ForgottenUnit>,
    absent: u64,
    restored: u64,
    /// Locations whose unit is not in its file: absent, or cut.
    marked: Vec<(MemoryId, String, UnitState)>,
    /// Units to rewrite after the commit (`None`: remove).
    rewrite: Vec<(Rewrite, Option<Memory>)>,
    /// Things to tell about a file (by index).
    notes: Vec<(usize, String)>,
    raw_indexed: u64,
    raw_dropped: u64,
    /// Memories, the file (index) holding their unit or text, and a RAW text's hash.
    located: Vec<(MemoryId, usize, Option<i64>)>,
    unlocated: Vec<MemoryId>,
    /// Memories a new unit took over (a unit now, whatever they were).
    adopted: HashSet<MemoryId>,
}

/// A unit's stretch of a file, to be rewritten.
struct Rewrite {
    file: usize,
    span: Range<usize>,
}

fn apply(
    tx: &mut dyn StoreTx,
    change: &Change,
    in_files: &HashSet<MemoryId>,
    now: Timestamp,
    applied: &mut Applied,
) -> Result<()> {
    match change {
        Change::Import(memory, file) => {
            tx.insert(memory)?;
            applied.imported += 1;
            applied.located.push((memory.id, *file, None));
        }
        Change::Revise(unit, revised) => {
            let Some(current) = tx.get(&unit.id)? else {
                return Ok(());
            };
            revise(tx, &current, revised.clone())?;
            applied.updated += 1;
            applied.located.push((unit.id, unit.file, None));
            if unit::render_memory(revised) != unit::render(&unit.unit.header, &unit.unit.text) {
                applied.rewrite.push((
                    Rewrite {
                        file: unit.file,
                        span: unit.span.clone(),
                    },
                    Some(revised.clone()),
                ));
            }
        }
        Change::Create(unit, candidate) => {
            let outcome = store_in(tx, candidate, now)?;
            let rewrite = Rewrite {
                file: unit.file,
                span: unit.span.clone(),
            };
            match outcome.status {
                WriteStatus::Duplicate if in_files.contains(&outcome.memory.id) => {
                    applied.notes.push((
                        unit.file,
                        format!(
                            "a new unit repeats memory {}, which already has its unit; removed",
                            outcome.memory.id.handle()
                        ),
                    ));
                    applied.rewrite.push((rewrite, None));
                }
                status => {
                    if status != WriteStatus::Duplicate {
                        applied.created += 1;
                    }
                    applied.located.push((outcome.memory.id, unit.file, None));
                    applied.adopted.insert(outcome.memory.id);
                    applied.rewrite.push((rewrite, Some(outcome.memory)));
                }
            }
        }
        Change::Locate(id, file) => applied.located.push((*id, *file, None)),
        Change::Unlocate(id) => applied.unlocated.push(*id),
        Change::Forget(id, file, cut_by) => {
            match tx.get(id)? {
                Some(mut memory) if crate::memory::Visibility::VISIBLE.shows(&memory, now) => {
                    memory.deleted_at = Some(now);
                    tx.replace(&memory)?;
                    applied.forgets.push(ForgottenUnit {
                        id: *id,
                        file: file.clone(),
                        headline: memory.headline().to_string(),
                        cut_by,
                    });
                    applied.marked.push((*id, file.clone(), UnitState::Cut));
                }
                // Hidden already (forgotten in cairn, expired): nothing to bring back later.
                _ => applied.unlocated.push(*id),
            }
        }
        Change::Absent(id, file) => {
            applied.absent += 1;
            applied.marked.push((*id, file.clone(), UnitState::Absent));
        }
        Change::Revive(id, file) => {
            if let Some(mut memory) = tx.get(id)?
                && memory.deleted_at.is_some()
            {
                memory.deleted_at = None;
                tx.replace(&memory)?;
                applied.restored += 1;
            }
            applied.located.push((*id, *file, None));
        }
        Change::Raw(file, hash, candidate) => {
            let outcome = store_in(tx, candidate, now)?;
            // A duplicate is text some memory already holds: nothing more to index.
            if outcome.status == WriteStatus::Created {
                applied.raw_indexed += 1;
                applied
                    .located
                    .push((outcome.memory.id, *file, Some(*hash)));
            }
        }
        Change::DropRaw(id) => {
            if !applied.adopted.contains(id) {
                tx.purge(&[*id])?;
                applied.raw_dropped += 1;
                applied.unlocated.push(*id);
            }
        }
    }
    Ok(())
}

/// The memory `current` becomes when its unit reads as `unit`.
fn edited(
    current: &Memory,
    unit: &ParsedUnit,
    limits: &crate::config::Limits,
    now: Timestamp,
) -> Result<Memory> {
    let header = &unit.header;
    let patch = MemoryPatch {
        content: Some(unit.text.clone()),
        title: Some(header.title.clone()),
        category: Some(header.category),
        tags: Some(header.tags.clone()),
        importance: Some(header.importance.map_or_else(
            || i64::from(crate::memory::Importance::default().get()),
            i64::from,
        )),
        expires_at: (header.expires != current.expires_at).then_some(header.expires),
        topic_key: None,
    };
    apply_patch(current, &patch, limits, now)
}

/// What a store write of a hand-written unit asks for.
fn new_memory(unit: &ParsedUnit, project: &ProjectName) -> NewMemory {
    let header = &unit.header;
    NewMemory {
        title: header.title.clone(),
        category: header.category,
        tags: header.tags.clone(),
        importance: header.importance.map(i64::from),
        expires_at: header.expires,
        ..NewMemory::new(
            unit.text.clone(),
            Scope::Project(project.clone()),
            Source::Markdown,
        )
    }
}

/// The memory a unit with an unknown id stands for, validated like any write.
fn imported(
    unit: &IdentifiedUnit,
    project: &ProjectName,
    limits: &crate::config::Limits,
    now: Timestamp,
) -> Result<Memory> {
    let mut memory = crate::memory::write::candidate(new_memory(&unit.unit, project), limits, now)?;
    memory.id = unit.id;
    memory.created_at = unit.unit.header.created.unwrap_or(now);
    memory.updated_at = unit
        .unit
        .header
        .updated
        .unwrap_or(now)
        .max(memory.created_at);
    Ok(memory)
}

/// What a dry run reports: the changes a sync would make, counted, and the memories it would
/// forget named.
fn preview(report: &mut SyncReport, changes: &[Change], known: &HashMap<MemoryId, Memory>) {
    for change in changes {
        match change {
            Change::Import(..) => report.imported += 1,
            Change::Revise(..) => report.updated += 1,
            Change::Create(..) => report.created += 1,
            Change::Forget(id, file, cut_by) => {
                if let Some(memory) = known.get(id).filter(|m| m.deleted_at.is_none()) {
                    report.forgets.push(ForgottenUnit {
                        id: *id,
                        file: file.clone(),
                        headline: memory.headline().to_string(),
                        cut_by,
                    });
                }
            }
            Change::Absent(..) => report.absent += 1,
            Change::Revive(..) => report.restored += 1,
            Change::Raw(..) => report.raw_indexed += 1,
            Change::DropRaw(..) => report.raw_dropped += 1,
            Change::Locate(..) | Change::Unlocate(..) => {}
        }
    }
    report.forgotten = report.forgets.len() as u64;
}

/// Why a unit is missing from a file that was read whole.
enum Removal {
    /// Cut: by an edit in the work tree (`"edit"`), or by a commit pulled in (`"commit"`).
    Cut(&'static str),
    /// Git put another version of the file in place: this checkout's view.
    View,
}

/// Asks git (once per file, and only when a unit is missing) why a unit is missing; see
/// [`super::git`].
///
/// - Outside a repository every change is an edit: the unit was cut.
/// - A file that differs from its committed version (modified, deleted, untracked, ignored)
///   was edited: cut.
/// - A file exactly as committed at `HEAD` was put there by git. If `HEAD` moved on from the
///   commit of the last sync (a pull, a merge, a commit) and the unit was in the file at that
///   commit, a commit removed it: cut (the deletion a teammate committed reaches this store).
///   Otherwise (a branch switch, a reset, a rebase, a stash, a restored file, or a unit that
///   was never committed): this branch's view, and the memory is left alone.
struct Witness<'a> {
    dir: &'a Path,
    synced_head: Option<&'a str>,
    checkout: Option<Option<git::Checkout>>,
    committed: HashMap<String, bool>,
    before: HashMap<String, Option<String>>,
}

impl<'a> Witness<'a> {
    fn new(dir: &'a Path, synced_head: Option<&'a str>) -> Self {
        Witness {
            dir,
            synced_head,
            checkout: None,
            committed: HashMap::new(),
            before: HashMap::new(),
        }
    }

    fn checkout(&mut self) -> Option<&git::Checkout> {
        let dir = self.dir;
        self.checkout
            .get_or_insert_with(|| git::Checkout::of(dir))
            .as_ref()
    }

    fn removal(&mut self, file: &str, id: &MemoryId) -> Removal {
        let synced_head = self.synced_head;
        let Some(checkout) = self.checkout().cloned() else {
            return Removal::Cut("edit");
        };
        let committed = *self
            .committed
            .entry(file.to_string())
            .or_insert_with(|| checkout.is_committed(file));
        if !committed {
            return Removal::Cut("edit");
        }
        let Some(before) = synced_head.filter(|before| {
            checkout.head.as_deref().is_some_and(|now| now != *before)
                && checkout.descends_from(before)
        }) else {
            return Removal::View;
        };
        let text = self
            .before
            .entry(file.to_string())
            .or_insert_with(|| checkout.file_at(before, file));
        match text {
            Some(text) if text.contains(&id.to_string()) => Removal::Cut("commit"),
            _ => Removal::View,
        }
    }

    /// The commit checked out now, to record with the sync.
    fn head(&mut self) -> Option<String> {
        match &self.checkout {
            Some(checkout) => checkout.as_ref().and_then(|c| c.head.clone()),
            None => git::head_of(self.dir),
        }
    }
}

fn warning(file: &str, reason: &str) -> FileWarning {
    FileWarning {
        file: file.to_string(),
        reason: reason.to_string(),
    }
}

fn store_locations(tx: &mut dyn StoreTx, put: &[UnitLocation], removed: &[MemoryId]) -> Result<()> {
    for id in removed {
        tx.remove_location(id)?;
    }
    for location in put {
        tx.put_location(location)?;
    }
    Ok(())
}

/// What to change in each file of a directory.
#[derive(Default)]
struct Plans {
    files: BTreeMap<String, FilePlan>,
}

#[derive(Default)]
struct FilePlan {
    /// Units to rewrite (`Some`) or remove (`None`) by id; a unit not found is appended.
    by_id: HashMap<MemoryId, Option<String>>,
    edits: Vec<Edit>,
    appended: Vec<String>,
}

impl Plans {
    fn file(&mut self, name: &str) -> &mut FilePlan {
        self.files.entry(name.to_string()).or_default()
    }

    /// Applies every plan to its file (under the caller's lock); a file that cannot be read
    /// as text is left alone and reported.
    fn write(self, dir: &Path) -> Result<Written> {
        let mut warnings = Vec::new();
        let mut failed = HashSet::new();
        let mut stamp_change = 0;
        for (name, mut plan) in self.files {
            let path = dir.join(&name);
            let source = match layout::read_text(&path) {
                Ok(source) => source,
                Err(reason) => {
                    warnings.push(warning(&name, &format!("not written: {reason}")));
                    failed.insert(name);
                    continue;
                }
            };
            if !plan.by_id.is_empty() {
                for piece in unit::parse(&source) {
                    if let Piece::Unit { unit, span } = piece
                        && let Some(id) = unit.header.id
                        && let Some(replacement) = plan.by_id.remove(&id)
                    {
                        plan.edits.push(Edit { span, replacement });
                    }
                }
                plan.appended.extend(plan.by_id.into_values().flatten());
            }
            let text = rewrite::apply(&source, plan.edits, &plan.appended);
            if text != source {
                let before = layout::file_stamp(dir, &name);
                layout::write_atomically(&path, &text)?;
                stamp_change ^= before ^ layout::file_stamp(dir, &name);
            }
        }
        Ok(Written {
            warnings,
            failed,
            stamp_change,
        })
    }
}

/// What writing the plans did.
struct Written {
    warnings: Vec<FileWarning>,
    /// Files left alone because they could not be read as text.
    failed: HashSet<String>,
    /// The XOR of the written files' stamps before and after.
    stamp_change: i64,
}
