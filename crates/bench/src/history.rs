//! The history-import workload: an agent's history from before cairn, brought in by
//! `cairn import --agent claude-code`.
//!
//! A Claude Code history is generated in Claude Code's transcript shape (one JSON Lines file
//! per session under `projects/<dir>/`, spread over ten projects): each session has `turns`
//! turns of a prompt, three tool calls (a read, an edit, a shell command; one in eight fails)
//! with outputs of a few hundred bytes to 2 KB, and a closing message; one session in ten
//! ends with a `*Remember*:` line. The real binary imports it into a fresh store (embedding off,
//! so the figure is the import's own), timed from spawn to exit with its peak resident set,
//! `runs` times; then the same history is imported again into the last store, which must add
//! nothing (every session already recorded), and is timed too; a dry run (read, nothing
//! written) shows what reading costs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::json;

use crate::corpus::Rng;
use crate::measure::{median, run_child};

pub struct HistoryOptions {
    pub sessions: usize,
    pub turns: usize,
    pub runs: usize,
    pub cairn: PathBuf,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct HistoryResult {
    pub sessions: usize,
    /// Transcript lines written.
    pub lines: usize,
    pub bytes: u64,
    /// Observations the history holds (prompts, tool uses and failures).
    pub observations: usize,
    /// A dry run's wall time (the history read and checked against the store, nothing
    /// written), seconds.
    pub dry_run_seconds: f64,
    /// Median wall time of a first import, seconds.
    pub import_seconds: f64,
    pub sessions_per_second: f64,
    pub observations_per_second: f64,
    /// Largest peak resident set of the import processes, MiB.
    pub peak_rss_mib: f64,
    /// The same history imported again (nothing new), seconds.
    pub again_seconds: f64,
    /// What the second import reported as already recorded.
    pub again_already_recorded: usize,
}

pub fn run(options: &HistoryOptions, progress: &mut dyn FnMut(&str)) -> Result<HistoryResult> {
    let scratch = match &options.workdir {
        Some(dir) => tempfile::tempdir_in(dir)?,
        None => tempfile::tempdir()?,
    };
    let history = scratch.path().join("projects");
    progress(&format!(
        "writing {} sessions of {} turns",
        options.sessions, options.turns
    ));
    let written = write_history(&history, options)?;
    progress("reading it all (dry run)");
    let mut dry = import(&options.cairn, &scratch.path().join("store-dry"), &history);
    dry.arg("--dry-run");
    let dry_seconds = run_child(&mut dry)?.wall.as_secs_f64();
    let mut seconds = Vec::new();
    let mut peak = 0u64;
    let mut last_home = PathBuf::new();
    for run in 0..options.runs.max(1) {
        let home = scratch.path().join(format!("store-{run}"));
        progress(&format!("import {} of {}", run + 1, options.runs.max(1)));
        let measured = run_child(&mut import(&options.cairn, &home, &history))?;
        seconds.push(measured.wall.as_secs_f64());
        peak = peak.max(measured.peak_rss_bytes);
        last_home = home;
    }
    progress("importing again into the last store");
    let started = std::time::Instant::now();
    let output = import(&options.cairn, &last_home, &history)
        .output()
        .context("cannot run cairn import")?;
    let again = started.elapsed();
    if !output.status.success() {
        bail!(
            "the second import failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    // Every generated session was imported the first time, or the figures mean nothing.
    if report["already_recorded"].as_u64() != Some(options.sessions as u64) {
        bail!("the first import did not record every session: {report}");
    }
    let import_seconds = median(&mut seconds);
    Ok(HistoryResult {
        sessions: options.sessions,
        lines: written.lines,
        bytes: written.bytes,
        observations: written.observations,
        dry_run_seconds: dry_seconds,
        import_seconds,
        sessions_per_second: options.sessions as f64 / import_seconds,
        observations_per_second: written.observations as f64 / import_seconds,
        peak_rss_mib: peak as f64 / (1024.0 * 1024.0),
        again_seconds: Duration::as_secs_f64(&again),
        again_already_recorded: report["already_recorded"].as_u64().unwrap_or(0) as usize,
    })
}

fn import(cairn: &Path, home: &Path, history: &Path) -> Command {
    let mut command = Command::new(cairn);
    command
        .args(["import", "--agent", "claude-code", "--path"])
        .arg(history)
        .args(["--format", "json"])
        .env("CAIRN_HOME", home)
        .env("CAIRN_CONFIG", home.join("no-config.toml"))
        .env("CAIRN_EMBEDDING", "off")
        .env("CAIRN_OCR", "off")
        .env("CAIRN_LOOK", "off")
        .env("CAIRN_CLIP", "off")
        .env_remove("CAIRN_PROJECT")
        .env_remove("CAIRN_DB")
        .env_remove("CAIRN_STORE");
    command
}

struct Written {
    lines: usize,
    bytes: u64,
    observations: usize,
}

const WORDS: &[&str] = &[
    "parser",
    "cache",
    "migration",
    "endpoint",
    "retry",
    "token",
    "schema",
    "index",
    "worker",
    "queue",
    "config",
    "deploy",
    "build",
    "test",
    "login",
    "session",
    "timeout",
    "buffer",
];

/// Writes the history: `sessions` transcripts over ten projects.
fn write_history(dir: &Path, options: &HistoryOptions) -> Result<Written> {
    let mut rng = Rng::new(options.seed);
    let mut written = Written {
        lines: 0,
        bytes: 0,
        observations: 0,
    };
    let start = jiff::Timestamp::from_second(1_780_000_000)?;
    for session in 0..options.sessions {
        let project = session % 10;
        let cwd = format!("/work/project-{project}");
        let project_dir = dir.join(format!("-work-project-{project}"));
        std::fs::create_dir_all(&project_dir)?;
        let id = format!(
            "{:08x}-0000-4000-8000-{:012x}",
            session,
            rng.next_u64() >> 16
        );
        let path = project_dir.join(format!("{id}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        let mut at = start + jiff::SignedDuration::from_secs(session as i64 * 3_600);
        let mut line = |value: serde_json::Value, out: &mut dyn Write| -> Result<()> {
            let text = value.to_string();
            writeln!(out, "{text}")?;
            written.lines += 1;
            written.bytes += text.len() as u64 + 1;
            Ok(())
        };
        let word = |rng: &mut Rng| WORDS[rng.below(WORDS.len())];
        for turn in 0..options.turns {
            at += jiff::SignedDuration::from_secs(20);
            let prompt = format!(
                "Fix the {} {} so the {} {} passes (turn {turn})",
                word(&mut rng),
                word(&mut rng),
                word(&mut rng),
                word(&mut rng)
            );
            line(
                json!({"type": "user", "uuid": format!("{id}-u{turn}"), "sessionId": id,
                       "cwd": cwd, "timestamp": at.to_string(),
                       "message": {"role": "user", "content": prompt}}),
                &mut out,
            )?;
            written.observations += 1;
            let file = format!("{cwd}/src/{}.rs", word(&mut rng));
            let calls = [
                ("Read", json!({"file_path": file})),
                (
                    "Edit",
                    json!({"file_path": file, "old_string": "a", "new_string": "b"}),
                ),
                ("Bash", json!({"command": "cargo test --workspace"})),
            ];
            for (n, (tool, input)) in calls.into_iter().enumerate() {
                at += jiff::SignedDuration::from_secs(5);
                let call = format!("toolu_{session}_{turn}_{n}");
                line(
                    json!({"type": "assistant", "uuid": format!("{id}-a{turn}-{n}"),
                           "timestamp": at.to_string(),
                           "message": {"role": "assistant", "content": [
                               {"type": "tool_use", "id": call, "name": tool, "input": input}]}}),
                    &mut out,
                )?;
                let size = 300 + rng.below(1_700);
                let output: String = (0..size / 8)
                    .map(|_| word(&mut rng))
                    .collect::<Vec<_>>()
                    .join(" ");
                let failed = rng.below(8) == 0;
                line(
                    json!({"type": "user", "uuid": format!("{id}-r{turn}-{n}"),
                           "timestamp": at.to_string(),
                           "message": {"role": "user", "content": [
                               {"type": "tool_result", "tool_use_id": call,
                                "is_error": failed, "content": output}]}}),
                    &mut out,
                )?;
                written.observations += 1;
            }
            let remember = if turn + 1 == options.turns && session % 10 == 0 {
                format!(
                    "\n*Remember*: project {project} builds need the {} flag",
                    word(&mut rng)
                )
            } else {
                String::new()
            };
            line(
                json!({"type": "assistant", "uuid": format!("{id}-f{turn}"),
                       "timestamp": at.to_string(),
                       "message": {"role": "assistant", "content": [
                           {"type": "text", "text": format!("Done with turn {turn}.{remember}")}]}}),
                &mut out,
            )?;
        }
        out.flush()?;
    }
    Ok(written)
}

pub fn table(r: &HistoryResult) -> String {
    format!(
        "history: {} sessions, {} lines, {:.1} MiB, {} observations\n\
         read only (dry run)     {:>8.2} s\n\
         first import (median)   {:>8.2} s   {:>8.0} sessions/s   {:>8.0} observations/s   peak RSS {:.0} MiB\n\
         same history again      {:>8.2} s   ({} sessions already recorded)\n",
        r.sessions,
        r.lines,
        r.bytes as f64 / (1024.0 * 1024.0),
        r.observations,
        r.dry_run_seconds,
        r.import_seconds,
        r.sessions_per_second,
        r.observations_per_second,
        r.peak_rss_mib,
        r.again_seconds,
        r.again_already_recorded
    )
}
