//! Text for the files views (markdown shows the same text).

use std::fmt::Write as _;

use cairn_core::files::SyncReport;

use super::View;

pub fn render(view: &View<'_>) -> String {
    let mut out = String::new();
    match view {
        View::FilesSynced(reports) => {
            for report in reports.iter() {
                synced(&mut out, report);
            }
            if reports.is_empty() {
                out.push_str("no project keeps its memories in files (cairn files init)\n");
            }
        }
        View::Workspaces(workspaces) => {
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
        _ => unreachable!("not a files view"),
    }
    out
}

fn synced(out: &mut String, report: &SyncReport) {
    let _ = writeln!(
        out,
        "{}: {} units in {} files under {}",
        report.project, report.units, report.files, report.directory
    );
    let counts = [
        ("created from new units", report.created),
        ("imported with their ids", report.imported),
        ("updated from edits", report.updated),
        ("forgotten (unit deleted)", report.forgotten),
        ("written into the files", report.written),
        ("removed from the files", report.removed),
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
    for warning in &report.warnings {
        let _ = writeln!(out, "  warning: {}: {}", warning.file, warning.reason);
    }
}
