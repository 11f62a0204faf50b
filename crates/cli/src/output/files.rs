//! Text for the files views (markdown shows the same text).

use std::fmt::Write as _;

use cairn_core::api::{AddOutcome, AddedUnit};
use cairn_core::files::SyncReport;
use cairn_core::files::{FilesExport, Workspace};

/// Files views: a project's markdown workspace and what syncing it did.
pub enum FilesView<'a> {
    /// What `cairn add` did.
    Added(&'a AddOutcome),
    /// What `cairn files init` or `sync` did, per workspace.
    FilesSynced(&'a [SyncReport]),
    Workspaces(&'a [Workspace]),
    FilesExported(&'a FilesExport),
}

pub fn render(view: &FilesView<'_>) -> String {
    let mut out = String::new();
    match view {
        FilesView::Added(outcome) => match outcome {
            AddOutcome::Created(unit) => {
                let _ = writeln!(out, "created {}", unit_line(unit));
            }
            AddOutcome::Duplicate { existing } => {
                let _ = writeln!(
                    out,
                    "duplicate: {} already holds this text; nothing written",
                    unit_line(existing)
                );
            }
            AddOutcome::Failed { error } => {
                let field = error.field.as_deref().unwrap_or("input");
                let _ = writeln!(
                    out,
                    "failed ({}): {field}: {}; nothing written",
                    error.code, error.message
                );
            }
        },
        FilesView::FilesSynced(reports) => {
            for report in reports.iter() {
                synced(&mut out, report);
            }
            if reports.is_empty() {
                out.push_str("no project keeps its memories in files (cairn files init)\n");
            }
        }
        FilesView::Workspaces(workspaces) => {
            for workspace in workspaces.iter() {
                let _ = writeln!(
                    out,
                    "{}  {}",
                    workspace.project,
                    workspace.directory().display()
                );
            }
            if workspaces.is_empty() {
                out.push_str("no project keeps its memories in files (cairn files init)\n");
            }
        }
        FilesView::FilesExported(export) => {
            let verb = if export.dry_run {
                "would write"
            } else {
                "wrote"
            };
            let _ = writeln!(
                out,
                "{}: {verb} {} units under {}",
                export.project,
                export.units.len(),
                export.directory
            );
            for unit in &export.units {
                let _ = writeln!(
                    out,
                    "  {}  {}  {}",
                    unit.id.handle(),
                    unit.file,
                    unit.headline
                );
            }
        }
    }
    out
}

fn unit_line(unit: &AddedUnit) -> String {
    let handle = unit.memory_id.get(..8).unwrap_or(&unit.memory_id);
    match &unit.path {
        Some(path) => format!("{handle} ({}) in {path}", unit.category),
        None => format!("{handle} ({})", unit.category),
    }
}

fn synced(out: &mut String, report: &SyncReport) {
    let _ = writeln!(
        out,
        "{}: {} units in {} files under {}{}",
        report.project,
        report.units,
        report.files,
        report.directory,
        if report.dry_run {
            " (dry run: nothing changed; a sync would do this)"
        } else {
            ""
        }
    );
    let counts = [
        ("created from new units", report.created),
        ("imported with their ids", report.imported),
        ("updated from edits", report.updated),
        ("forgotten (unit cut from its file)", report.forgotten),
        ("restored (unit back in its file)", report.restored),
        (
            "kept though missing from this checkout's files (a branch switch, stash or reset)",
            report.absent,
        ),
        ("written into the files", report.written),
        (
            "pieces of text outside units indexed (read-only)",
            report.raw_indexed,
        ),
        (
            "indexed pieces of text gone from the files",
            report.raw_dropped,
        ),
    ];
    let changed: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
    match changed.is_empty() {
        true => out.push_str("  nothing to change\n"),
        false => {
            for line in changed {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    for forgotten in &report.forgets {
        let handle = forgotten.id.handle();
        let _ = writeln!(
            out,
            "  {} {handle} \"{}\" (cut from {} by {}{})",
            if report.dry_run {
                "would forget"
            } else {
                "forgot"
            },
            forgotten.headline,
            forgotten.file,
            if forgotten.cut_by == "commit" {
                "a commit"
            } else {
                "an edit"
            },
            if report.dry_run {
                String::new()
            } else {
                format!("; `cairn forget --undo {handle}` brings it back")
            }
        );
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "  warning: {}: {}", warning.file, warning.reason);
    }
}
