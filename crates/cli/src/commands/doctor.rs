//! `cairn doctor`: the store's checks and repairs, through [`Api`](cairn_core::api::Api); and,
//! when the database cannot even be opened, what can be said and done without it.

use anyhow::Result;
use cairn_core::health::{Finding, HealthReport, Repair, Severity};

use crate::app::{App, load_config};
use crate::args::{Cli, DoctorArgs};
use crate::outcome::Outcome;
use crate::output::{Printer, View};

/// Examines (and with `--repair` repairs) the store; exit status 1 when something needs
/// attention.
pub fn run(app: &App, args: &DoctorArgs) -> Result<Outcome> {
    let caller = app.operator();
    let mut report = app.api.examine(&caller, args.quick)?;
    if args.repair && report.findings.iter().any(|f| f.repair.is_some()) {
        report = app.api.repair(&caller, &report)?;
    }
    app.out.print(&View::Health(&report))?;
    Ok(outcome(&report))
}

/// When the store would not open: a database that SQLite can still partly read is reported
/// (and with `--repair` recovered into a new file beside it); anything else cannot be examined
/// (exit status 2, with the reason).
pub fn unopened(cli: &Cli, args: &DoctorArgs, error: anyhow::Error) -> Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let config = load_config(cli, &cwd)?;
    if config.store.url.is_some() {
        return Err(error);
    }
    let path = config.database_path()?;
    let readable = path.is_file() && starts_like_sqlite(&path);
    if !readable {
        return Err(error.context("cairn doctor cannot examine this store"));
    }
    let mut report = HealthReport {
        location: path.display().to_string(),
        quick: args.quick,
        checked: vec!["database"],
        findings: vec![
            Finding::new(
                "database",
                Severity::Problem,
                format!("the database cannot be opened: {error:#}"),
                "nothing can be read through cairn until it is recovered; the file itself is \
                 left as it is",
            )
            .repaired_by(Repair::RecoverDatabase),
        ],
        repaired: Vec::new(),
    };
    if args.repair {
        report
            .repaired
            .push(match cairn_store_sqlite::recover(&path) {
                Ok(recovery) => recovery.to_string(),
                Err(error) => format!("could not recover the database: {error}"),
            });
    }
    let zone = jiff::tz::TimeZone::system();
    Printer::new(cli.format, cli.quiet, zone).print(&View::Health(&report))?;
    Ok(Outcome::Findings)
}

fn starts_like_sqlite(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| &start == b"SQLite format 3\0")
}

fn outcome(report: &HealthReport) -> Outcome {
    match report.healthy() {
        true => Outcome::Done,
        false => Outcome::Findings,
    }
}
