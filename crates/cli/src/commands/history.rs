//! `cairn import --agent …`: an agent's own history from before cairn, recorded session by
//! session through the same front door as its hooks (`Api::record_events`).
//!
//! Each session of the history ([`crate::history`]) is read, placed in the project its
//! directory belongs to (as the hook would have placed it: the directory's `.cairn.toml`, else
//! git or the directory), and recorded with its end — up to [`BATCH_SESSIONS`] sessions in one
//! transaction — so summaries and `*Remember*:` extraction run as they do when a session
//! ends. A session cairn already has — recorded by the hooks, by an earlier import, or met
//! earlier in this one — is left as it is: importing twice changes nothing, and an import cut
//! short goes on where it stopped when run again. A session that cannot be read is named in
//! the report and the rest go on. With `--instructions`, each selected project's instruction
//! files (and the current project's) are followed too (`history::instructions`,
//! `files::followed`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use cairn_core::ProjectName;
use cairn_core::config::{Config, ConfigSources};
use cairn_core::project::{detect_project, project_root};
use cairn_core::session::AgentEvent;
use indicatif::{ProgressBar, ProgressStyle};
use jiff::SignedDuration;

use crate::app::App;
use crate::args::ImportArgs;
use crate::history::instructions::instruction_files;
use crate::history::{Histories, HistoryReport};
use crate::outcome::Outcome;
use crate::output::{SessionView, View};

/// Most files named in the report for skipped lines.
const MAX_NAMED: usize = 20;
/// Most sessions, and events, recorded in one transaction.
const BATCH_SESSIONS: usize = 50;
const BATCH_EVENTS: usize = 10_000;

pub fn import(app: &App, args: &ImportArgs) -> Result<Outcome> {
    let Some(agent) = args.agent else {
        bail!("import --agent names the agent whose history to read");
    };
    let started = Instant::now();
    let only_project = match &args.project.project {
        Some(name) => Some(ProjectName::new(name)?),
        None => None,
    };
    let since = match &args.since {
        Some(text) => Some(app.time("since", text)?),
        None => None,
    };
    let histories = Histories::find(agent, args.path.as_deref())?;
    let mut report = HistoryReport {
        agent: agent.name().to_string(),
        location: histories.location.display().to_string(),
        dry_run: args.dry_run,
        found: histories.len(),
        ..HistoryReport::default()
    };
    let retention = app.config.sessions.retention_days;
    let hidden_before = (retention > 0)
        .then(|| app.api.now().timestamp() - SignedDuration::from_hours(24 * i64::from(retention)));
    let bar = progress(histories.len());
    let mut projects = Projects::default();
    let mut batch = Batch::default();
    // Each selected project's root, for --instructions.
    let mut roots: BTreeMap<ProjectName, PathBuf> = BTreeMap::new();
    let operator = app.operator();
    // Session ids met in this import: a session kept in two files is recorded once.
    let mut seen: HashSet<String> = HashSet::new();
    for index in 0..histories.len() {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        let transcript = match histories.read(index) {
            Ok(transcript) => transcript,
            Err(error) => {
                report
                    .unreadable
                    .push(format!("{}: {error:#}", histories.name(index)));
                continue;
            }
        };
        if transcript.skipped > 0 {
            report.skipped_lines += transcript.skipped;
            if report.skipped_in.len() < MAX_NAMED {
                report
                    .skipped_in
                    .push((histories.name(index), transcript.skipped));
            }
        }
        let Some((_, last)) = transcript.span() else {
            report.empty += 1;
            continue;
        };
        let project = projects.of(transcript.cwd.as_deref(), app)?;
        if only_project.as_ref().is_some_and(|p| *p != project)
            || since.is_some_and(|since| last < since)
        {
            report.not_selected += 1;
            continue;
        }
        if let Some(cwd) = &transcript.cwd {
            roots
                .entry(project.clone())
                .or_insert_with(|| project_root(cwd));
        }
        if transcript.session_id.trim().is_empty() {
            report
                .unreadable
                .push(format!("{}: no session id", histories.name(index)));
            continue;
        }
        if !seen.insert(transcript.session_id.clone()) {
            report.already_recorded += 1;
            continue;
        }
        match app
            .api
            .session(&operator, agent.name(), &transcript.session_id)
        {
            Ok(_) => {
                report.already_recorded += 1;
                continue;
            }
            Err(cairn_core::Error::Missing { .. }) => {}
            Err(error) => return Err(error.into()),
        }
        let events = transcript.events(agent, &project)?;
        report.imported += 1;
        report.events += events.len();
        if hidden_before.is_some_and(|cutoff| last < cutoff) {
            report.beyond_retention += 1;
        }
        if args.dry_run {
            continue;
        }
        batch.sessions += 1;
        batch.events.extend(events);
        if batch.sessions >= BATCH_SESSIONS || batch.events.len() >= BATCH_EVENTS {
            batch.record(app, &mut report)?;
        }
    }
    batch.record(app, &mut report)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if args.instructions {
        let here = app.project(&Default::default())?;
        if only_project.as_ref().is_none_or(|p| *p == here) {
            roots.entry(here).or_insert_with(|| app.project_root());
        }
        let home = dirs::home_dir().unwrap_or_default();
        for (project, root) in &roots {
            let files = instruction_files(root, &home);
            report.instructions.push(app.api.follow_instructions(
                &operator,
                project,
                &files,
                args.dry_run,
            )?);
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    app.out
        .print(&View::Session(SessionView::HistoryImported(&report)))?;
    Ok(Outcome::Done)
}

/// Sessions whose events are recorded together, in one transaction: a commit per session
/// would make the disk's flushes the import's pace.
#[derive(Default)]
struct Batch {
    sessions: usize,
    events: Vec<AgentEvent>,
}

impl Batch {
    fn record(&mut self, app: &App, report: &mut HistoryReport) -> Result<()> {
        if self.events.is_empty() {
            return Ok(());
        }
        let recorded = app.api.record_events(&self.events).with_context(|| {
            format!(
                "recording the history stopped after {} sessions were imported; run the import \
                 again to go on where it stopped",
                report.imported - self.sessions
            )
        })?;
        report.observations += recorded.report.observations;
        report.remembered += recorded
            .report
            .extracted
            .iter()
            .filter(|o| o.status.stored_text())
            .count();
        report.summarized += recorded.report.summarized.len();
        self.events.clear();
        self.sessions = 0;
        Ok(())
    }
}

/// A bar on a terminal: sessions read of all.
fn progress(total: usize) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || total == 0 {
        return None;
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} sessions ({elapsed}, {eta} left)")
            .expect("valid template"),
    );
    Some(bar)
}

/// The project of each directory sessions ran in, found once per directory.
#[derive(Default)]
struct Projects {
    known: HashMap<PathBuf, ProjectName>,
}

impl Projects {
    /// The project a hook running in `cwd` would have named: the directory's configuration
    /// (`.cairn.toml`, `CAIRN_PROJECT`), else git or the directory. A session that did not say
    /// where it ran belongs to the current project.
    fn of(&mut self, cwd: Option<&Path>, app: &App) -> Result<ProjectName> {
        let Some(cwd) = cwd else {
            return app.project(&Default::default());
        };
        if let Some(project) = self.known.get(cwd) {
            return Ok(project.clone());
        }
        let configured = Config::load(&ConfigSources::discover(cwd))
            .ok()
            .and_then(|config| config.project)
            .and_then(|name| ProjectName::new(&name).ok());
        let project = configured.unwrap_or_else(|| detect_project(cwd).0);
        self.known.insert(cwd.to_path_buf(), project.clone());
        Ok(project)
    }
}
