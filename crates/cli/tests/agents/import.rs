//! An agent's history from before cairn: each agent runs two sessions with no cairn installed —
//! one that runs a shell command and ends with a `*Remember*:` line, one that says hello —
//! then `cairn import --agent …` reads what the agent kept (its transcripts, session logs or
//! database; `cairn setup` counts them and offers the import) after a line of it was replaced by garbage and its last line cut short (a row
//! broken, for OpenCode's database). The dry run writes nothing; the import records both
//! sessions in the project with their prompts, the command and the remembered fact, summarises
//! the one worth it and not the hello, says what it skipped; the prompt is found by
//! `cairn search --observations`; a second import adds nothing.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::model_server::Step;
use super::{Agents, Lab, SHELL_MARKER};

const PROMPT: &str = "Check the import marker before the release";
const FACT: &str = "the import marker is heron";

/// The two sessions, the first with a call of `shell` given `args`.
fn run_sessions(lab: &Lab, shell: &str, args: Value, run: &dyn Fn(&str)) {
    lab.model.play(vec![
        Step::call(shell, args),
        Step::say(&format!("Checked.\n*Remember*: {FACT}")),
    ]);
    run(PROMPT);
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    run("Say hello");
}

/// Replaces the second line of `file` with garbage and cuts its last line in half.
fn damage(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 3, "{}: {text}", file.display());
    lines[1] = "this is not JSON {";
    let last = lines.len() - 1;
    let cut = &lines[last][..lines[last].len() / 2];
    lines[last] = cut;
    std::fs::write(file, lines.join("\n")).unwrap();
}

/// The transcript file of the session whose text holds `marker`, under `dir`.
fn transcript_with(dir: &Path, marker: &str) -> PathBuf {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for item in std::fs::read_dir(&dir).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl")
                && std::fs::read_to_string(&path).unwrap().contains(marker)
            {
                return path;
            }
        }
    }
    panic!("no transcript under {} holds {marker}", dir.display());
}

/// `cairn import --agent AGENT …` as JSON.
fn import(lab: &Lab, agent: &str, extra: &[&str]) -> Value {
    let mut args = vec!["import", "--agent", agent, "--format", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&lab.cairn(&args)).unwrap()
}

/// The import of the damaged history, checked end to end.
fn assert_imports(lab: &Lab, agent: &str, skipped: usize) {
    // Setup offers the import.
    let setup: Value =
        serde_json::from_str(&lab.cairn(&["setup", agent, "--format", "json"])).unwrap();
    assert_eq!(setup["sessions_before_cairn"], 2, "{setup:#}");
    let dry = import(lab, agent, &["--dry-run"]);
    assert_eq!(dry["imported"], 2, "{dry:#}");
    assert!(lab.sessions().is_empty(), "a dry run writes nothing");

    let report = import(lab, agent, &[]);
    assert_eq!(report["found"], 2, "{report:#}");
    assert_eq!(report["imported"], 2, "{report:#}");
    assert_eq!(report["skipped_lines"], skipped, "{report:#}");
    assert_eq!(report["remembered"], 1, "{report:#}");
    assert_eq!(
        report["summarized"], 1,
        "only the session worth it: {report:#}"
    );

    let sessions = lab.sessions();
    assert_eq!(sessions.len(), 2, "{sessions:#?}");
    let session = sessions
        .iter()
        .find(|s| {
            s["first_prompt"]
                .as_str()
                .is_some_and(|p| p.trim_matches('"') == PROMPT)
        })
        .unwrap_or_else(|| panic!("the session with the prompt: {sessions:#?}"));
    assert_eq!(session["key"]["agent"], agent);
    assert_eq!(
        session["project"],
        lab.project.canonicalize().unwrap().display().to_string()
    );
    let shown = lab.session(&session["key"]);
    assert!(!shown["session"]["ended_at"].is_null(), "{shown:#}");
    let observations = shown["observations"].as_array().unwrap();
    assert!(
        observations
            .iter()
            .any(|o| o["kind"] == "tool_use" && o.to_string().contains(SHELL_MARKER)),
        "the command is recorded: {shown:#}"
    );
    assert!(
        shown["session"]["summary"]
            .as_str()
            .is_some_and(|s| s.contains(SHELL_MARKER)),
        "{shown:#}"
    );
    let found = lab.search("heron");
    assert!(
        found.iter().any(|m| m["memory"]["content"] == FACT),
        "the *Remember*: fact: {found:#?}"
    );
    // Only the remembered fact and the one summary are memories: the hello left none.
    let listed: Value = serde_json::from_str(&lab.cairn(&["list", "--format", "json"])).unwrap();
    assert_eq!(listed["total"], 2, "{listed:#}");
    let prompts = lab.cairn(&["search", "--observations", "release", "--format", "json"]);
    assert!(prompts.contains(PROMPT), "{prompts}");

    let again = import(lab, agent, &[]);
    assert_eq!(again["imported"], 0, "{again:#}");
    assert_eq!(again["already_recorded"], 2, "{again:#}");
    let after = lab.session(&session["key"]);
    assert_eq!(
        after["observations"].as_array().unwrap().len(),
        observations.len(),
        "a second import adds nothing"
    );
    let listed: Value = serde_json::from_str(&lab.cairn(&["list", "--format", "json"])).unwrap();
    assert_eq!(listed["total"], 2, "{listed:#}");
}

/// `--instructions`: the project's `AGENTS.md` (and, for Claude Code, its auto-memory) become
/// read-only memories found by search.
fn assert_instructions(lab: &Lab, agent: &str, files: &[(PathBuf, &str)]) {
    for (path, text) in files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let report = import(lab, agent, &["--instructions"]);
    assert_eq!(report["imported"], 0, "{report:#}");
    let followed = &report["instructions"][0];
    assert_eq!(followed["indexed"], files.len(), "{report:#}");
    for (_, text) in files {
        let word = text
            .split_whitespace()
            .last()
            .unwrap()
            .trim_end_matches('.');
        let found = lab.search(word);
        assert!(
            found.iter().any(|m| m["memory"]["content"] == text.trim()
                && m["memory"]["tags"] == json!(["instructions"])),
            "{word}: {found:#?}"
        );
    }
}

pub fn claude_code(agents: &Agents) {
    let lab = Lab::new();
    run_sessions(
        &lab,
        "Bash",
        json!({"command": format!("echo {SHELL_MARKER}"), "description": "Print a marker"}),
        &|prompt| {
            super::claude::run(
                &lab,
                agents,
                &["--allowedTools", "Bash(echo:*)", "--", prompt],
            );
        },
    );
    let transcript = transcript_with(&lab.home.join(".claude/projects"), PROMPT);
    damage(&transcript);
    assert_imports(&lab, "claude-code", 2);
    // Claude Code keeps the project's auto-memory beside its transcripts.
    let auto_memory = transcript.parent().unwrap().join("memory/MEMORY.md");
    assert_instructions(
        &lab,
        "claude-code",
        &[
            (
                lab.project.join("CLAUDE.md"),
                "Releases are cut from trunk only.",
            ),
            (auto_memory, "The staging cluster is called osprey."),
        ],
    );
}

pub fn codex(agents: &Agents) {
    let lab = Lab::new();
    super::codex::configure(&lab);
    run_sessions(
        &lab,
        "exec_command",
        json!({"cmd": format!("echo {SHELL_MARKER}")}),
        &|prompt| {
            super::codex::exec(&lab, agents, prompt);
        },
    );
    damage(&transcript_with(&lab.home.join(".codex/sessions"), PROMPT));
    assert_imports(&lab, "codex", 2);
    assert_instructions(
        &lab,
        "codex",
        &[(lab.project.join("AGENTS.md"), "Use pnpm, never npm.")],
    );
}

pub fn opencode(agents: &Agents) {
    let lab = Lab::new();
    super::opencode::configure(&lab);
    run_sessions(
        &lab,
        "bash",
        json!({"command": format!("echo {SHELL_MARKER}"), "description": "Print a marker"}),
        &|prompt| {
            super::opencode::run(&lab, agents, prompt);
        },
    );
    // A row of the hello session broken, as a crash mid-write could leave it.
    let database = lab.home.join(".local/share/opencode/opencode.db");
    let connection = rusqlite::Connection::open(&database).unwrap();
    let broken = connection
        .execute(
            "UPDATE part SET data = '{\"type\":\"text\",\"te' WHERE id = (SELECT p.id FROM part p \
             WHERE p.data LIKE '%Hello from the scripted model%' LIMIT 1)",
            [],
        )
        .unwrap();
    assert_eq!(broken, 1);
    drop(connection);
    assert_imports(&lab, "opencode", 1);
}
