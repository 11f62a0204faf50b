//! `cairn prune`: delete expired memories for good, after confirmation.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Result, bail};

use cairn_core::memory::PruneReport;

use super::Outcome;
use crate::app::App;
use crate::args::PruneArgs;
use crate::output::View;

pub fn run(app: &App, args: &PruneArgs) -> Result<Outcome> {
    let before = args
        .before
        .as_deref()
        .map(|t| app.time("before", t))
        .transpose()?;
    if args.dry_run || args.force {
        let report = app.api.prune(before, args.dry_run)?;
        app.out.print(&View::Prune(&report))?;
        observations_notice(app, &report);
        return Ok(Outcome::Done);
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "prune deletes for good and needs confirmation: pass --force to delete, or --dry-run to see what would go"
        );
    }
    let preview = app.api.prune(before, true)?;
    app.out.print(&View::Prune(&preview))?;
    if preview.memories.is_empty() {
        return Ok(Outcome::Done);
    }
    eprint!(
        "Delete these {} memories for good? [y/N] ",
        preview.memories.len()
    );
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        app.out.notice("nothing deleted");
        return Ok(Outcome::Done);
    }
    let report = app.api.prune(Some(preview.before), false)?;
    app.out.print(&View::Prune(&report))?;
    observations_notice(app, &report);
    Ok(Outcome::Done)
}

/// Observations past `sessions.retention_days` go too (they are hidden already).
fn observations_notice(app: &App, report: &PruneReport) {
    let deleted = report.observations_deleted;
    if deleted > 0 {
        app.out.notice(&format!(
            "deleted {deleted} observations older than {} days (sessions.retention_days)",
            app.config.sessions.retention_days
        ));
    }
}
