//! The agent-integration workload: what hooks and context cost an agent.
//!
//! For each corpus size a store is bulk-imported through the real `cairn` binary, then:
//! - **hook events**: `events` PostToolUse events, each a whole `cairn hook claude-code
//!   PostToolUse` process fed a realistic payload on stdin, timed from spawn to exit (what the
//!   agent waits for), in one session, one after another, with no other connection to the
//!   store open (no server keeps its write-ahead log index alive: each process rebuilds it);
//!   each alternating with the same event as Claude Code's cairn plugin runs it (`sh
//!   plugins/cairn/hooks/run-cairn.sh PostToolUse`, which finds `cairn` on PATH and execs it),
//!   into a session of its own: what the plugin's wrapper adds to every hook;
//! - **SessionStart**: the same for SessionStart, which also packs and prints the context;
//! - **`cairn context`** processes (2,000-token budget, a query drawn from the corpus), and the
//!   same context packed in process through the service, warm; three pinned slots (persona,
//!   project context, pending items: about 2,300 characters) are filled first, so the context
//!   carries them as it would for a real user; the in-process contexts run again with those
//!   slots emptied, same queries, to show what the slots cost;
//! - **slots**: `cairn slot append` processes, the same append in process, and reflecting the
//!   benchmark's session (its PostToolUse observations) into the project's slots in process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use cairn_core::Api;
use cairn_core::ApiParts;
use cairn_core::ProjectName;
use cairn_core::api::{Caller, SlotProjectInput, SlotTextInput};
use cairn_core::config::Config;
use cairn_core::context::ContextRequest;
use cairn_core::testing::local;
use cairn_store_sqlite::SqliteStore;
use serde::Serialize;
use serde_json::json;

use crate::corpus::{Corpus, Rng};
use crate::measure::{Percentiles, run_child};
use crate::scale::write_corpus;

pub struct AgentsOptions {
    pub sizes: Vec<u64>,
    pub events: usize,
    pub contexts: usize,
    pub cairn: PathBuf,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct AgentsResult {
    pub memories: u64,
    pub post_tool_use: Percentiles,
    /// The same events through the plugin's hook script.
    pub post_tool_use_plugin: Percentiles,
    pub session_start: Percentiles,
    pub context_cli: Percentiles,
    pub context_in_process: Percentiles,
    /// The same contexts with the pinned slots emptied.
    pub context_in_process_without_slots: Percentiles,
    /// Median tokens of the packed context (budget 2,000).
    pub context_tokens_median: usize,
    pub observations_recorded: usize,
    pub slot_append_cli: Percentiles,
    pub slot_append_in_process: Percentiles,
    pub reflect_in_process: Percentiles,
}

/// Runs `command` with `input` on stdin; the wall time from spawn to exit.
fn run_with_input(command: &mut Command, input: &str) -> Result<Duration> {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start cairn")?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())?;
    let status = child.wait()?;
    let wall = start.elapsed();
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(wall)
}

fn hook(options: &AgentsOptions, db: &Path, project: &str, event: &str) -> Command {
    let mut command = Command::new(&options.cairn);
    command
        .arg("--db")
        .arg(db)
        .args(["hook", "claude-code", event])
        .env("CAIRN_PROJECT", project)
        .env("CAIRN_EMBEDDING", "off");
    command
}

/// The hook as Claude Code's cairn plugin runs it: its script, finding `cairn` in `bin` (a
/// directory holding only a link to the measured binary) first on PATH, the store by `CAIRN_DB`,
/// in a `home` without setup's hooks (beside them the plugin's hooks do nothing).
fn plugin_hook(bin: &Path, home: &Path, db: &Path, project: &str, event: &str) -> Command {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/cairn/hooks/run-cairn.sh");
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let mut command = Command::new("sh");
    command
        .arg(script)
        .arg(event)
        .env(
            "PATH",
            std::env::join_paths(dirs).expect("PATH entries join"),
        )
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("CAIRN_DB", db)
        .env("CAIRN_PROJECT", project)
        .env("CAIRN_EMBEDDING", "off");
    command
}

pub fn run(options: &AgentsOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<AgentsResult>> {
    let workdir = options.workdir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&workdir)?;
    let scratch = tempfile::Builder::new()
        .prefix("cairn-bench-agents-")
        .tempdir_in(workdir)?;
    let corpus = Corpus::new(options.seed);
    let project = corpus.a_project().to_string();
    let plugin_bin = scratch.path().join("bin");
    let plugin_home = scratch.path().join("home");
    std::fs::create_dir_all(&plugin_bin)?;
    std::fs::create_dir_all(&plugin_home)?;
    std::os::unix::fs::symlink(
        std::path::absolute(&options.cairn)?,
        plugin_bin.join("cairn"),
    )?;
    let mut results = Vec::new();
    for &size in &options.sizes {
        let corpus_path = scratch.path().join(format!("corpus-{size}.jsonl"));
        let db = scratch.path().join(format!("store-{size}.db"));
        progress(&format!("{size}: generating and importing the corpus"));
        write_corpus(&corpus_path, size, options.seed)?;
        run_child(
            Command::new(&options.cairn)
                .arg("--db")
                .arg(&db)
                .args(["--quiet", "import"])
                .arg(&corpus_path)
                // Hooks run without a model: embedding the corpus would measure nothing here.
                .env("CAIRN_EMBEDDING", "off"),
        )?;

        let mut rng = Rng::new(options.seed ^ size);
        let open_service = || -> Result<Api> {
            Ok(Api::open(
                ApiParts::new(Box::new(SqliteStore::open(&db)?)),
                &Config::default(),
            ))
        };
        // Closed again before the processes run: each runs alone, as for an agent whose store
        // no server keeps open (the first connection reads the write-ahead log in full).
        fill_pinned_slots(&open_service()?, &project, &corpus, &mut rng)?;

        progress(&format!(
            "{size}: {} PostToolUse hook processes",
            options.events
        ));
        let session = format!("bench-{size}");
        let mut post_tool_use = Vec::with_capacity(options.events);
        let mut post_tool_use_plugin = Vec::with_capacity(options.events);
        for n in 0..options.events {
            let payload = |session: &str, rng: &mut Rng| {
                json!({
                    "session_id": session,
                    "transcript_path": "/dev/null",
                    "cwd": "/work/project",
                    "hook_event_name": "PostToolUse",
                    "tool_name": if n % 3 == 0 { "Edit" } else { "Bash" },
                    "tool_input": { "command": format!("cargo test {}", corpus.query_word(rng)),
                                    "file_path": format!("src/{}.rs", corpus.query_word(rng)) },
                    "tool_response": { "stdout": corpus.query(rng).repeat(20), "stderr": "" },
                })
                .to_string()
            };
            post_tool_use.push(run_with_input(
                &mut hook(options, &db, &project, "PostToolUse"),
                &payload(&session, &mut rng),
            )?);
            post_tool_use_plugin.push(run_with_input(
                &mut plugin_hook(&plugin_bin, &plugin_home, &db, &project, "PostToolUse"),
                &payload(&format!("{session}-plugin"), &mut rng),
            )?);
        }

        progress(&format!(
            "{size}: {} SessionStart hooks and context runs",
            options.contexts
        ));
        let mut session_start = Vec::new();
        let mut context_cli = Vec::new();
        for n in 0..options.contexts {
            let payload = json!({"session_id": format!("start-{n}"), "cwd": "/work/project",
                                 "hook_event_name": "SessionStart", "source": "startup"})
            .to_string();
            session_start.push(run_with_input(
                &mut hook(options, &db, &project, "SessionStart"),
                &payload,
            )?);
            let query = corpus.query(&mut rng);
            let run = run_child(
                Command::new(&options.cairn)
                    .arg("--db")
                    .arg(&db)
                    .args(["context", "--project", &project, "--query", &query])
                    .env("CAIRN_EMBEDDING", "off"),
            )?;
            context_cli.push(run.wall);
        }

        let api = open_service()?;
        let request = |query: String| ContextRequest {
            project: ProjectName::new(&project).ok(),
            query: Some(query),
            budget: 2_000,
            ..Default::default()
        };
        // The same queries with the pinned slots filled, then with them emptied, back to back.
        let queries: Vec<String> = (0..options.contexts)
            .map(|_| corpus.query(&mut rng))
            .collect();
        let contexts = |tokens: &mut Vec<usize>| -> Result<Vec<Duration>> {
            api.context_request(&local(), &request(queries[0].clone()))?; // warm
            let mut wall = Vec::with_capacity(queries.len());
            for query in &queries {
                let start = Instant::now();
                let context = api.context_request(&local(), &request(query.clone()))?;
                wall.push(start.elapsed());
                tokens.push(context.tokens);
            }
            Ok(wall)
        };
        let mut tokens = Vec::new();
        let in_process = contexts(&mut tokens)?;
        let user = in_project(&project)?;
        let pinned: Vec<String> = api
            .slots(&user, &SlotProjectInput::default())?
            .iter()
            .filter(|slot| slot.pinned)
            .map(|slot| slot.label.to_string())
            .collect();
        for label in &pinned {
            api.replace_slot(&user, label, &slot_text(""))?;
        }
        let in_process_without_slots = contexts(&mut Vec::new())?;
        fill_pinned_slots(&api, &project, &corpus, &mut rng)?;
        tokens.sort_unstable();
        let recorded = api
            .observations(
                &local(),
                &cairn_core::session::SessionKey::new("claude-code", &session)?,
            )?
            .len();
        let recorded_by_plugin = api
            .observations(
                &local(),
                &cairn_core::session::SessionKey::new("claude-code", &format!("{session}-plugin"))?,
            )?
            .len();
        if recorded_by_plugin != recorded {
            bail!(
                "the plugin's hooks recorded {recorded_by_plugin} observations and cairn's own \
                 {recorded}: the plugin's figures would measure something else"
            );
        }
        progress(&format!("{size}: slot appends and reflection"));
        let mut slot_append_cli = Vec::new();
        for n in 0..options.contexts {
            let line = format!("- note {n}: {}", corpus.query(&mut rng));
            let run = run_child(
                Command::new(&options.cairn)
                    .arg("--db")
                    .arg(&db)
                    .args(["--quiet", "slot", "append", "self_notes", &line])
                    .env("CAIRN_PROJECT", &project)
                    .env("CAIRN_EMBEDDING", "off"),
            )?;
            slot_append_cli.push(run.wall);
            if n % 20 == 19 {
                api.replace_slot(&user, "self_notes", &slot_text(""))?;
            }
        }
        let mut slot_append = Vec::new();
        let mut reflect = Vec::new();
        let key = cairn_core::session::SessionKey::new("claude-code", &session)?;
        for n in 0..options.contexts.max(50) {
            let line = format!("- note {n}: {}", corpus.query(&mut rng));
            let start = Instant::now();
            api.append_slot(&user, "self_notes", &slot_text(&line))?;
            slot_append.push(start.elapsed());
            if n % 20 == 19 {
                api.replace_slot(&user, "self_notes", &slot_text(""))?;
            }
            let start = Instant::now();
            api.reflect(&user, &key.agent, &key.id)?;
            reflect.push(start.elapsed());
        }
        results.push(AgentsResult {
            slot_append_cli: Percentiles::of(&slot_append_cli),
            slot_append_in_process: Percentiles::of(&slot_append),
            reflect_in_process: Percentiles::of(&reflect),
            memories: size,
            post_tool_use: Percentiles::of(&post_tool_use),
            post_tool_use_plugin: Percentiles::of(&post_tool_use_plugin),
            session_start: Percentiles::of(&session_start),
            context_cli: Percentiles::of(&context_cli),
            context_in_process: Percentiles::of(&in_process),
            context_in_process_without_slots: Percentiles::of(&in_process_without_slots),
            context_tokens_median: tokens.get(tokens.len() / 2).copied().unwrap_or(0),
            observations_recorded: recorded,
        });
    }
    Ok(results)
}

pub fn table(results: &[AgentsResult]) -> String {
    let mut out = String::from(
        "memories  what                        runs    p50 ms   p95 ms   p99 ms   max ms\n",
    );
    for r in results {
        for (what, p) in [
            ("hook PostToolUse (process)", &r.post_tool_use),
            ("  … through the plugin (sh)", &r.post_tool_use_plugin),
            ("hook SessionStart (process)", &r.session_start),
            ("cairn context (process)", &r.context_cli),
            ("context (in process)", &r.context_in_process),
            (
                "  … with slots emptied",
                &r.context_in_process_without_slots,
            ),
            ("cairn slot append (process)", &r.slot_append_cli),
            ("slot append (in process)", &r.slot_append_in_process),
            ("reflect session (in process)", &r.reflect_in_process),
        ] {
            out.push_str(&format!(
                "{:>8}  {what:<29} {:>5} {:>8.2} {:>8.2} {:>8} {:>8.2}\n",
                r.memories,
                p.samples,
                p.p50_ms,
                p.p95_ms,
                p.p99(2),
                p.max_ms
            ));
        }
        out.push_str(&format!(
            "{:>8}  observations recorded: {}; context tokens (median, budget 2000): {}\n",
            r.memories, r.observations_recorded, r.context_tokens_median
        ));
    }
    out
}

/// Fills the pinned slots a user would have filled: a persona, a project description and a few
/// pending items, about 2,300 characters in all, drawn from the corpus.
fn fill_pinned_slots(api: &Api, project: &str, corpus: &Corpus, rng: &mut Rng) -> Result<()> {
    let mut text = |chars: usize, prefix: &str| {
        let mut out = String::new();
        while out.chars().count() + 80 < chars {
            out.push_str(prefix);
            out.push_str(&corpus.query(rng));
            out.push('\n');
        }
        out
    };
    for (label, chars, prefix) in [
        ("persona", 400, ""),
        ("project_context", 1_400, "- "),
        ("pending_items", 500, "- TODO: "),
    ] {
        api.replace_slot(
            &in_project(project)?,
            label,
            &slot_text(&text(chars, prefix)),
        )?;
    }
    Ok(())
}

/// The local user working in `project` (as `cairn` run there is).
fn in_project(project: &str) -> Result<Caller> {
    Ok(Caller {
        default_project: Some(ProjectName::new(project)?),
        ..local()
    })
}

/// `content` for the slot of the caller's project (or the global one it falls back to).
fn slot_text(content: &str) -> SlotTextInput {
    SlotTextInput {
        content: content.into(),
        scope: None,
        project: None,
    }
}
