//! `cairn import --agent` on histories a user's machine can hold: sessions of two projects,
//! old and new, one kept twice, one transcript that is not a file one can read (a FIFO would block a reader
//! forever), one with nothing in it; and the flags that choose among them. A session older
//! than the observations' retention keeps its summary; its observations are hidden.

use std::path::Path;

use serde_json::{Value, json};

use super::Sandbox;

/// A Claude Code transcript of one session in `cwd` at `day`: a prompt, a shell command and
/// a closing line.
fn transcript(id: &str, cwd: &Path, day: &str, prompt: &str) -> String {
    let at = |time: &str| format!("{day}T{time}Z");
    [
        json!({"type": "user", "uuid": format!("{id}-1"), "sessionId": id, "cwd": cwd,
               "timestamp": at("10:00:00"), "message": {"role": "user", "content": prompt}}),
        json!({"type": "assistant", "uuid": format!("{id}-2"), "timestamp": at("10:00:05"),
               "message": {"role": "assistant", "content": [
                   {"type": "tool_use", "id": format!("{id}-call"), "name": "Bash",
                    "input": {"command": "make check"}}]}}),
        json!({"type": "user", "uuid": format!("{id}-3"), "timestamp": at("10:00:09"),
               "message": {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": format!("{id}-call"),
                    "content": "all checks passed"}]}}),
        json!({"type": "assistant", "uuid": format!("{id}-4"), "timestamp": at("10:00:10"),
               "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n")
}

#[test]
fn an_agent_history_imports_by_project_and_date_and_a_bad_transcript_costs_only_itself() {
    let s = Sandbox::new();
    let history = s.home.join("claude-projects");
    let other = s.home.join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    let write = |dir: &str, id: &str, text: &str| {
        let dir = history.join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    };
    write(
        "acme",
        "old",
        &transcript("old", &s.project, "2026-01-05", "Tune the old cache"),
    );
    write(
        "acme",
        "new",
        &transcript("new", &s.project, "2026-11-20", "Tune the new cache"),
    );
    write(
        "other",
        "elsewhere",
        &transcript("elsewhere", &other, "2026-11-21", "Other work"),
    );
    write("acme", "empty", "");
    // The same session kept twice (a copy under another directory): recorded once.
    write(
        "copy",
        "new",
        &transcript("new", &s.project, "2026-11-20", "Tune the new cache"),
    );
    let fifo = history.join("acme/blocked.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let path = history.display().to_string();
    let import = |extra: &[&str]| {
        let mut args = vec!["import", "--agent", "claude-code", "--path", &path];
        args.extend_from_slice(extra);
        s.ok_json(&args)
    };

    // Only this project's sessions active since November.
    let chosen = import(&["--project", "acme", "--since", "2026-11-01", "--dry-run"]);
    assert_eq!(chosen["found"], 6, "{chosen:#}");
    assert_eq!(chosen["imported"], 1, "{chosen:#}");
    assert_eq!(chosen["already_recorded"], 1, "the copy: {chosen:#}");
    assert_eq!(chosen["not_selected"], 2, "{chosen:#}");
    assert_eq!(chosen["empty"], 1, "{chosen:#}");
    let unreadable = chosen["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{chosen:#}");
    assert!(
        unreadable[0].as_str().unwrap().contains("blocked.jsonl"),
        "{chosen:#}"
    );
    let none = s.run(&["sessions", "--all-projects", "--format", "json"]);
    assert_eq!(
        (none.code, none.json()),
        (1, json!([])),
        "a dry run writes nothing"
    );

    let all = import(&[]);
    assert_eq!(all["imported"], 3, "{all:#}");
    assert_eq!(all["already_recorded"], 1, "{all:#}");
    let sessions = s.ok_json(&["sessions", "--all-projects"]);
    assert_eq!(sessions.as_array().unwrap().len(), 3, "{sessions:#}");
    let elsewhere = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"]["id"] == "elsewhere")
        .unwrap();
    assert_eq!(
        elsewhere["project"],
        other.canonicalize().unwrap().display().to_string(),
        "each session in the project of its own directory"
    );
    // January's session is older than the observations' retention: its prompt is hidden, as
    // the hooks' would be by now, and the report says so; its summary stays.
    assert_eq!(all["beyond_retention"], 1, "{all:#}");
    let found = s.ok_json(&["search", "--observations", "cache"]);
    let prompts: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|hit| hit["observation"]["input"].as_str())
        .collect();
    assert_eq!(prompts, ["Tune the new cache"], "{found:#}");
    let old = s.ok_json(&["sessions", "claude-code/old"]);
    assert!(
        old["session"]["summary"]
            .as_str()
            .is_some_and(|summary| summary.contains("make check")),
        "{old:#}"
    );
    assert_eq!(import(&[])["already_recorded"], 4);

    // Asking for nothing, or for two things at once, is refused with what to do.
    let neither = s.run(&["import"]);
    assert_eq!(neither.code, 2);
    assert!(neither.stderr.contains("--agent"), "{}", neither.stderr);
    let both = s.run(&["import", "x.jsonl", "--agent", "codex"]);
    assert_eq!(both.code, 2);
    let global = s.run(&["import", "--agent", "codex", "--global"]);
    assert_eq!(global.code, 2, "{}", global.stderr);
}
