//! Files a project's agents already follow — `CLAUDE.md`, `AGENTS.md`, Claude Code's
//! auto-memory `MEMORY.md` — kept as read-only memories that follow their files, so search
//! finds the rules agents were given.
//!
//! A followed file is cut into RAW pieces ([`crate::files::raw`]) like a workspace's text
//! outside units, and each piece is a memory of the project (tag [`INSTRUCTIONS_TAG`], titled
//! with the file's name) whose location is the file's absolute path with the piece's hash. A
//! workspace's own locations are names inside its directory, never absolute, so the two never
//! meet: a workspace's sync leaves followed files alone, and following leaves the workspace
//! alone. Following again brings the memories in line: a piece still there keeps its memory,
//! a new piece is stored, a piece gone (edited, or its file deleted) is dropped. A file that
//! cannot be read as text (too large, not UTF-8, not a regular file) changes nothing and is
//! reported. Like all RAW text, these memories are changed only through their files
//! (`Files::check_writable`) and never take part in conflict detection.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::Result;
use crate::files::model::{FileWarning, UnitLocation, UnitState};
use crate::files::operations::Files;
use crate::files::raw;
use crate::id::MemoryId;
use crate::input::{Bounded, open_regular};
use crate::memory::MemoryFilter;
use crate::memory::write::store_in;
use crate::memory::{NewMemory, Source, WriteStatus};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::store::in_transaction;
use crate::tag::Tag;

/// The tag of every memory read from a followed file.
pub const INSTRUCTIONS_TAG: &str = "instructions";

/// The largest followed file read, in bytes (instruction files are a few kilobytes).
pub const MAX_FOLLOWED_BYTES: u64 = 1 << 20;

/// A file to follow, and the title its pieces carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowedFile {
    /// Absolute.
    pub path: PathBuf,
    /// What its memories are titled (`CLAUDE.md`, `Claude Code auto-memory (MEMORY.md)`).
    pub title: String,
}

/// What following a project's files did (or, in a dry run, would do).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FollowReport {
    pub project: String,
    /// Files read.
    pub files: Vec<String>,
    /// Pieces stored as new memories.
    pub indexed: usize,
    /// Pieces whose memories were dropped (their text is gone from the file).
    pub dropped: usize,
    /// Pieces whose memories stay as they are.
    pub unchanged: usize,
    /// Files that could not be read (nothing of theirs was changed).
    pub warnings: Vec<FileWarning>,
}

impl FollowReport {
    /// Whether any memory was stored or dropped.
    pub fn changed(&self) -> bool {
        self.indexed + self.dropped > 0
    }
}

impl Files<'_> {
    /// Whether `project` follows any file: it holds a memory tagged [`INSTRUCTIONS_TAG`]. A
    /// count by tag, since every session start asks (the project's unit locations can be
    /// thousands).
    pub fn follows_files(&self, project: &ProjectName) -> Result<bool> {
        let filter = MemoryFilter {
            tags_all: vec![Tag::new(INSTRUCTIONS_TAG)?],
            ..MemoryFilter::in_scope(ScopeFilter::Project(project.clone()))
        };
        Ok(self.memories.count(&filter)? > 0)
    }

    /// Brings `project`'s memories of `files` in line with the files (see the module).
    pub fn follow(
        &self,
        project: &ProjectName,
        files: &[FollowedFile],
        dry_run: bool,
    ) -> Result<FollowReport> {
        let mut report = FollowReport {
            project: project.to_string(),
            ..FollowReport::default()
        };
        let mut kept: HashMap<(String, i64), Vec<MemoryId>> = HashMap::new();
        for location in self.store().unit_locations(project)? {
            if let Some(hash) = location.raw_hash.filter(|_| location.is_followed()) {
                kept.entry((location.file, hash))
                    .or_default()
                    .push(location.id);
            }
        }
        let now = self.memories.timestamp();
        let mut new = Vec::new();
        for file in files {
            let name = file.path.display().to_string();
            let text = match read_followed(&file.path) {
                Ok(Some(text)) => text,
                Ok(None) => continue, // gone, or never there: its pieces drop below
                Err(reason) => {
                    report.warnings.push(FileWarning {
                        file: name.clone(),
                        reason,
                    });
                    // Nothing of an unreadable file is dropped.
                    kept.retain(|(path, _), _| *path != name);
                    continue;
                }
            };
            report.files.push(name.clone());
            for piece in raw::pieces(&text) {
                if kept
                    .get_mut(&(name.clone(), piece.hash))
                    .and_then(Vec::pop)
                    .is_some()
                {
                    report.unchanged += 1;
                    continue;
                }
                let memory = NewMemory {
                    title: Some(file.title.clone()),
                    tags: vec![INSTRUCTIONS_TAG.into()],
                    ..NewMemory::new(
                        piece.text,
                        Scope::Project(project.clone()),
                        Source::Markdown,
                    )
                };
                match self.memories.candidate(memory, now) {
                    Ok(candidate) => new.push((name.clone(), piece.hash, candidate)),
                    Err(error) => report.warnings.push(FileWarning {
                        file: name.clone(),
                        reason: error.to_string(),
                    }),
                }
            }
        }
        // Every location still kept was not found again: its text is gone. Only the files
        // asked about are touched.
        let dropped: Vec<MemoryId> = kept
            .into_iter()
            .filter(|((path, _), _)| files.iter().any(|f| f.path.display().to_string() == *path))
            .flat_map(|(_, ids)| ids)
            .collect();
        report.dropped = dropped.len();
        report.indexed = new.len();
        if dry_run || (new.is_empty() && dropped.is_empty()) {
            return Ok(report);
        }
        let indexed = in_transaction(self.store(), |tx| {
            tx.purge(&dropped)?;
            for id in &dropped {
                tx.remove_location(id)?;
            }
            let mut indexed = 0;
            for (file, hash, candidate) in &new {
                let outcome = store_in(tx, candidate, now)?;
                // Text some memory already holds is not indexed again.
                if outcome.status == WriteStatus::Created {
                    indexed += 1;
                    tx.put_location(&UnitLocation {
                        id: outcome.memory.id,
                        project: project.clone(),
                        file: file.clone(),
                        raw_hash: Some(*hash),
                        state: UnitState::Present,
                    })?;
                }
            }
            Ok(indexed)
        })?;
        report.indexed = indexed;
        Ok(report)
    }
}

/// The text of a followed file; `None` when there is no file; the reason when it cannot be
/// read as text.
fn read_followed(path: &Path) -> std::result::Result<Option<String>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let mut file = open_regular(path).map_err(|e| e.to_string())?;
    Bounded {
        field: "file",
        limit: MAX_FOLLOWED_BYTES,
        setting: "the largest instructions file followed",
    }
    .read_text(&mut file, &path.display().to_string())
    .map(Some)
    .map_err(|e| e.to_string())
}
