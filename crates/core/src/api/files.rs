//! Markdown files at the front door (init, sync, export, rebuild, the files agents follow),
//! and the `memory_add` contract.
//!
//! The `memory_add` contract (MCP `memory_add`, `POST /v1/memories/add`, `cairn add`), as
//! OpenClaw states it: text in, one of three answers out — `created` (with the unit's file when
//! the project keeps files), `duplicate` (nothing written; the memory that already holds the
//! text), or `failed` (`"error": "text_required"` or another code, with the field and a
//! message; nothing written). A write refused for its input is an answer, not an error, so a
//! client switches on `action` alone. A memory is named by its kind and id: `UNIT:<id>` for a
//! unit of the project's files, `RAW:<id>` for text of those files outside units, the bare id
//! for a memory without files; every reader of an id takes all three forms. Without a category
//! the text's wording names one (`memory::category`), else `other`.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Api, Caller, StoreInput};
use crate::audit::{AuditAction, Change};
use crate::error::Error;
use crate::error::Result;
use crate::files::{FilesExport, FollowReport, FollowedFile, SyncReport, Workspace};
use crate::memory::{Category, Memory, Source};
use crate::scope::{ProjectName, Scope};

/// A memory to add: the text, and optionally what kind of knowledge it is.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddInput {
    /// The memory: one complete piece of knowledge (required, not blank).
    #[serde(default)]
    pub text: String,
    /// preference, fact, decision, entity, other (or bugfix, discovery, pattern, config);
    /// when omitted, the one the text's wording names, else `other`.
    #[serde(default)]
    pub category: Option<String>,
}

/// What `memory_add` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum AddOutcome {
    Created(AddedUnit),
    Duplicate {
        existing: AddedUnit,
    },
    Failed {
        #[serde(flatten)]
        error: AddError,
    },
}

/// A memory as `memory_add` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedUnit {
    /// `UNIT:<id>`, `RAW:<id>`, or the bare id of a memory without files.
    pub memory_id: String,
    /// `UNIT` when the memory is a unit of the project's markdown files, `RAW` when it is text
    /// of those files outside units, else `MEMORY`.
    pub kind: &'static str,
    /// The unit's file, relative to the project's root; `null` without files.
    pub path: Option<String>,
    pub category: Category,
    pub text: String,
}

impl AddedUnit {
    pub(crate) fn of(memory: &Memory, place: Option<(String, bool)>) -> Self {
        let kind = match place {
            Some((_, true)) => "RAW",
            Some((_, false)) => "UNIT",
            None => "MEMORY",
        };
        AddedUnit {
            memory_id: match place {
                Some(_) => format!("{kind}:{}", memory.id),
                None => memory.id.to_string(),
            },
            kind,
            path: place.map(|(path, _)| path),
            category: memory.category,
            text: memory.content.clone(),
        }
    }
}

/// Why an add wrote nothing: a code a client can switch on (`text_required`, `invalid`,
/// `too_large`), sent as `error`, the field, and a message for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AddError {
    #[serde(rename = "error")]
    pub code: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl AddError {
    pub(crate) fn text_required() -> Self {
        AddError {
            code: "text_required",
            field: Some("text".into()),
            message: "text is required: the memory to add, not blank".into(),
        }
    }

    /// The answer for a refused input; `None` for errors that are not about the input.
    pub(crate) fn from_error(error: &Error) -> Option<Self> {
        match error {
            Error::Invalid { field, message } => Some(AddError {
                code: "invalid",
                field: Some(field.clone()),
                message: message.clone(),
            }),
            Error::TooLarge { field, message } => Some(AddError {
                code: "too_large",
                field: Some(field.clone()),
                message: message.clone(),
            }),
            _ => None,
        }
    }
}

impl Api {
    /// The `memory_add` contract: stores `text` in the caller's project like `store`, and
    /// answers `created`, `duplicate` or `failed` (a refused input is an answer, not an error).
    pub fn add(&self, caller: &Caller, input: AddInput) -> Result<AddOutcome> {
        if input.text.trim().is_empty() {
            return Ok(AddOutcome::Failed {
                error: AddError::text_required(),
            });
        }
        let refused = |e: crate::Error| match AddError::from_error(&e) {
            Some(error) => Ok(AddOutcome::Failed { error }),
            None => Err(e),
        };
        let category = match input.category.as_deref().map(str::parse).transpose() {
            Ok(category) => category,
            Err(e) => return refused(e),
        };
        let store = StoreInput {
            content: input.text,
            image: None,
            title: None,
            category,
            tags: Vec::new(),
            project: None,
            global: false,
            topic_key: None,
            importance: None,
            expires: None,
            entered_by: None,
        };
        let outcome = match self.store(caller, store) {
            Ok(outcome) => outcome,
            Err(e) => return refused(e),
        };
        let unit = AddedUnit::of(
            &outcome.memory,
            self.domains.files().unit_place(&outcome.memory)?,
        );
        Ok(match outcome.status {
            crate::memory::WriteStatus::Duplicate => AddOutcome::Duplicate { existing: unit },
            _ => AddOutcome::Created(unit),
        })
    }

    /// Reads an export, plain records or both (JSON Lines or one JSON array); all or nothing.
    /// Plain records without a project go to the caller's project (global without one).
    /// `progress` hears every few hundred records.
    /// Makes `root`/`dir` the markdown workspace of the caller's project and syncs it: the
    /// project's memories are written into the files, units already there are read.
    pub fn init_files(&self, caller: &Caller, root: &Path, dir: &str) -> Result<SyncReport> {
        let project = files_project(caller)?;
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let report = self.domains.files().init(project, root, dir)?;
        self.audit_sync(caller, &report);
        self.written(report.changed_text());
        Ok(report)
    }

    /// Reads the caller's project's files back into the store, or every workspace's with
    /// `all`; with `dry_run`, only says what that would do (what it would forget, above all).
    pub fn sync_files(&self, caller: &Caller, all: bool, dry_run: bool) -> Result<Vec<SyncReport>> {
        let workspaces = match all {
            true => {
                caller.access.whole_store("syncing every workspace")?;
                self.domains.files().workspaces()?
            }
            false => vec![self.workspace_of(caller)?],
        };
        let mut reports = Vec::new();
        for workspace in &workspaces {
            let report = self.domains.files().sync(workspace, dry_run)?;
            if !dry_run {
                self.audit_sync(caller, &report);
            }
            self.written(!dry_run && report.changed_text());
            reports.push(report);
        }
        Ok(reports)
    }

    /// Writes the caller's project's shareable memories that are not in its files yet; with
    /// `dry_run`, lists them.
    pub fn export_files(&self, caller: &Caller, dry_run: bool) -> Result<FilesExport> {
        self.domains
            .files()
            .export(&self.workspace_of(caller)?, dry_run)
    }

    /// `files.enabled` (a project's `.cairn.toml`): starts the caller's project's workspace at
    /// `root` with the configured directory, the first time any entry point runs in it (one
    /// read when the setting is off or the workspace exists).
    pub fn start_files_if_enabled(&self, caller: &Caller, root: &Path) -> Result<()> {
        let Some(project) = &caller.default_project else {
            return Ok(());
        };
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let files = self.domains.files();
        if !self.domains.config.files.enabled || files.workspace(project)?.is_some() {
            return Ok(());
        }
        let report = files.init(project.clone(), root, &self.domains.config.files.dir)?;
        tracing::info!(directory = %report.directory, "started the project's memory files");
        self.written(report.changed_text());
        Ok(())
    }

    /// Follows the files `project`'s agents follow (`CLAUDE.md`, `AGENTS.md`, `MEMORY.md`):
    /// read-only memories kept in line with them (see `files::followed`).
    pub fn follow_instructions(
        &self,
        caller: &Caller,
        project: &ProjectName,
        files: &[FollowedFile],
        dry_run: bool,
    ) -> Result<FollowReport> {
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let report = self.domains.files().follow(project, files, dry_run)?;
        self.written(!dry_run && report.changed());
        Ok(report)
    }

    /// Whether `project` follows any file (an import of instructions started it).
    pub fn follows_instructions(&self, caller: &Caller, project: &ProjectName) -> Result<bool> {
        caller
            .access
            .read(&Scope::Project(project.clone()), "project")?;
        self.domains.files().follows_files(project)
    }

    /// Rebuilds the caller's project's memories from its markdown files alone.
    pub fn rebuild_from_files(&self, caller: &Caller) -> Result<SyncReport> {
        let workspace = self.workspace_of(caller)?;
        let report = self.domains.files().rebuild(&workspace)?;
        self.audit_sync(caller, &report);
        self.written(true);
        Ok(report)
    }

    /// The caller's project's workspace, or an error that says how to start one. Files are
    /// the project's memories in both directions: the caller must be able to write them.
    pub(super) fn workspace_of(&self, caller: &Caller) -> Result<Workspace> {
        let project = files_project(caller)?;
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        self.domains.files().workspace(&project)?.ok_or_else(|| {
            crate::Error::invalid(
                "project",
                format!("project '{project}' keeps no markdown files"),
            )
        })
    }

    /// Syncs every workspace whose files changed since its last sync (what `cairn serve`
    /// watches for), once they have not changed for `files::WRITE_SETTLE`; the reports of
    /// those it synced.
    pub fn refresh_files(&self) -> Result<Vec<SyncReport>> {
        let mut reports = Vec::new();
        for workspace in self.domains.files().workspaces()? {
            if let Some(report) = self
                .domains
                .refresh_files(&workspace.project, crate::files::WRITE_SETTLE)
            {
                self.audit_sync(&Caller::local(Source::Markdown), &report);
                self.written(report.changed_text());
                reports.push(report);
            }
        }
        Ok(reports)
    }

    /// After a sync of a project's files that changed memories, its audit entry.
    fn audit_sync(&self, caller: &Caller, report: &SyncReport) {
        if !report.changed_memories() {
            return;
        }
        let project = ProjectName::new(&report.project).ok();
        let change = Change::new(AuditAction::FilesSync, project.as_ref())
            .of(&report.directory)
            .saying(format!(
                "created {}, imported {}, updated {}, forgotten {}, restored {}",
                report.created, report.imported, report.updated, report.forgotten, report.restored
            ));
        self.audited(caller, change);
    }

    /// Every markdown workspace.
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.domains.files().workspaces()
    }
}

/// The project a files command acts in: the caller's.
fn files_project(caller: &Caller) -> Result<ProjectName> {
    caller.default_project.clone().ok_or_else(|| {
        crate::Error::invalid(
            "project",
            "markdown files belong to one project, and none was given",
        )
    })
}
