//! `cairn prune`: delete expired memories (or, with `--before`, every memory created before a
//! date) for good, after confirmation.

use anyhow::Result;

use cairn_core::memory::{PruneReport, PruneRule};

use crate::app::App;
use crate::args::PruneArgs;
use crate::outcome::Outcome;
use crate::output::View;

pub fn run(app: &App, args: &PruneArgs) -> Result<Outcome> {
    let rule = match args.before.as_deref() {
        Some(text) => PruneRule::CreatedBefore(app.time("before", text)?),
        None => PruneRule::Expired(app.api.now().timestamp()),
    };
    if args.dry_run || args.force {
        let report = app.api.prune(rule, args.dry_run)?;
        app.out.print(&View::Prune(&report))?;
        observations_notice(app, &report);
        return Ok(Outcome::Done);
    }
    let preview = app.api.prune(rule, true)?;
    if preview.memories.is_empty() {
        app.out.print(&View::Prune(&preview))?;
        return Ok(Outcome::Done);
    }
    if super::interactive() {
        app.out.print(&View::Prune(&preview))?;
    }
    let question = format!("Delete these {} memories for good?", preview.memories.len());
    if !super::confirmed(
        app,
        false,
        &question,
        "prune deletes for good",
        "nothing deleted",
    )? {
        return Ok(Outcome::Done);
    }
    let report = app.api.prune(rule, false)?;
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
