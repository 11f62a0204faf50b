//! What markdown files cost: the extra time of a write whose project keeps files (the unit
//! written into its day's file, under the directory's lock, fsynced and renamed), the time
//! `files init` takes to write a project's memories out, and the time of a `files sync` over the
//! whole workspace — unchanged, and with one unit edited by hand.
//!
//! The corpus is the scale benchmark's generator with every memory in one project, created over
//! a year (so a few dozen units per day file). Conflict detection is off in both services: the
//! difference measured is the files' alone.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use cairn_core::api::Caller;
use cairn_core::config::Config;
use cairn_core::files::{SyncReport, Workspace};
use cairn_core::testing::local;
use cairn_core::{Api, ApiParts, NewMemory, ProjectName, Scope, Source};
use cairn_store_sqlite::SqliteStore;
use serde::Serialize;

use crate::corpus::Corpus;
use crate::measure::Percentiles;

pub struct FilesOptions {
    /// Memories in the project (all of them become units).
    pub units: u64,
    /// Writes timed each way.
    pub writes: usize,
    /// Syncs timed each way.
    pub syncs: usize,
    pub seed: u64,
}

#[derive(Debug, Serialize)]
pub struct FilesReport {
    pub units: u64,
    pub files: usize,
    pub bytes: u64,
    /// `files init`: every memory written out.
    pub init_seconds: f64,
    pub write_with_files: Percentiles,
    pub write_without_files: Percentiles,
    pub extra_p50_ms: f64,
    /// A sync that finds nothing changed.
    pub sync_unchanged: Percentiles,
    /// A sync after one unit was edited by hand.
    pub sync_one_edit: Percentiles,
}

pub fn run(
    dir: &Path,
    options: &FilesOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FilesReport> {
    let FilesOptions {
        units,
        writes,
        syncs,
        seed,
    } = *options;
    let project = ProjectName::new("bench-files")?;
    let scope = Scope::Project(project.clone());
    let corpus = Corpus::new(seed);
    let now = jiff::Timestamp::now();
    let mut jsonl = Vec::new();
    for index in 0..units {
        let mut record = corpus.memory(seed, index, now);
        record.memory.scope = scope.clone();
        serde_json::to_writer(&mut jsonl, &record)?;
        jsonl.push(b'\n');
    }
    let mut config = Config::default();
    config.conflicts.detect = false;
    // The local user working in the project, as `cairn` run in its repository is.
    let user = Caller {
        default_project: Some(project.clone()),
        ..local()
    };
    let open = |name: &str| -> Result<Api> {
        let store = SqliteStore::open(&dir.join(name))?;
        let api = Api::open(ApiParts::new(Box::new(store)), &config);
        api.import(&user, &mut std::io::Cursor::new(&jsonl), &mut |_| {})?;
        Ok(api)
    };
    progress(&format!("{units}: importing the project twice"));
    let with = open("with-files.db")?;
    let without = open("without-files.db")?;
    let root = dir.join("repository");
    std::fs::create_dir_all(&root)?;

    progress(&format!("{units}: files init"));
    let started = Instant::now();
    let report = with.init_files(&user, &root, ".cairn/memory")?;
    let init_seconds = started.elapsed().as_secs_f64();
    let workspace = with
        .workspaces()?
        .into_iter()
        .find(|w| w.project == project)
        .context("the workspace")?;

    progress(&format!("{units}: {writes} writes each way"));
    let (mut with_files, mut without_files) = (Vec::<Duration>::new(), Vec::<Duration>::new());
    let fresh = |index: u64| corpus.memory(seed ^ 0xf11e5, index, now).memory.content;
    let mut written = 0u64;
    // Alternating blocks, so both see the same machine.
    while with_files.len() < writes {
        for (api, samples) in [(&with, &mut with_files), (&without, &mut without_files)] {
            for _ in 0..25.min(writes - samples.len()) {
                let new = NewMemory::new(fresh(written), scope.clone(), Source::Cli);
                let started = Instant::now();
                api.write(&user, new, None)?;
                samples.push(started.elapsed());
                written += 1;
            }
        }
    }

    progress(&format!("{units}: {syncs} syncs each way"));
    let (unchanged, edited) = timed_syncs(&with, &user, &workspace, syncs)?;
    let (files, bytes) = directory_size(&workspace.directory())?;
    let (w, wo) = (
        Percentiles::of(&with_files),
        Percentiles::of(&without_files),
    );
    Ok(FilesReport {
        units: report.written,
        files,
        bytes,
        init_seconds,
        extra_p50_ms: w.p50_ms - wo.p50_ms,
        write_with_files: w,
        write_without_files: wo,
        sync_unchanged: Percentiles::of(&unchanged),
        sync_one_edit: Percentiles::of(&edited),
    })
}

/// The report of a sync of the caller's one workspace.
fn one(mut reports: Vec<SyncReport>) -> Result<SyncReport> {
    anyhow::ensure!(
        reports.len() == 1,
        "one workspace synced, not {}",
        reports.len()
    );
    Ok(reports.remove(0))
}

/// Syncs with nothing changed, and syncs each after one unit's text was edited by hand.
fn timed_syncs(
    api: &Api,
    user: &Caller,
    workspace: &Workspace,
    syncs: usize,
) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let (mut unchanged, mut edited) = (Vec::new(), Vec::new());
    let file = first_file(&workspace.directory())?;
    for round in 0..syncs {
        let started = Instant::now();
        let report = one(api.sync_files(user, false, false)?)?;
        unchanged.push(started.elapsed());
        anyhow::ensure!(
            report.updated == 0,
            "an unchanged sync updated {}",
            report.updated
        );

        let text = std::fs::read_to_string(&file)?;
        let end = text
            .find("\n<!-- cairn:end -->")
            .context("a unit in the file")?;
        std::fs::write(
            &file,
            format!("{} (edit {round}){}", &text[..end], &text[end..]),
        )?;
        let started = Instant::now();
        let report = one(api.sync_files(user, false, false)?)?;
        edited.push(started.elapsed());
        anyhow::ensure!(
            report.updated == 1,
            "a sync after one edit updated {}",
            report.updated
        );
    }
    Ok((unchanged, edited))
}

fn first_file(dir: &Path) -> Result<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.into_iter().next().context("no memory file written")
}

fn directory_size(dir: &Path) -> Result<(usize, u64)> {
    let mut files = 0;
    let mut bytes = 0;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            files += 1;
            bytes += std::fs::metadata(&path)?.len();
        }
    }
    Ok((files, bytes))
}
