//! Codex's session logs: `<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
//! record a line (`{timestamp, type, payload}`). What cairn reads of them:
//! - `session_meta`: the session's id and directory;
//! - the user's prompts: `event_msg` records of type `user_message`, or (newer versions)
//!   `item_completed` with a `UserMessage` item — not the `response_item` user messages, which
//!   also carry what Codex itself adds (environment, instructions);
//! - `response_item` calls (`function_call`, `custom_tool_call`, `local_shell_call`) and their
//!   outputs, matched by `call_id`: a shell command that exited non-zero, or an output marked
//!   unsuccessful, is a failure;
//! - `task_complete` (`last_agent_message`): a turn's end; `compacted` and `context_compacted`:
//!   a compaction.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use cairn_core::session::EventKind;
use jiff::Timestamp;
use serde_json::Value;

use super::claude::subdirectories;
use super::{Call, Entry, Transcript, Turn, read_lines, timestamp};
use crate::hook::payload::json::text_of;

/// The session logs under `location` (a file, or a directory searched to any depth), by
/// name: oldest first.
pub fn transcripts(location: &Path) -> Result<Vec<PathBuf>> {
    if location.is_file() {
        return Ok(vec![location.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut pending = vec![location.to_path_buf()];
    while let Some(dir) = pending.pop() {
        pending.extend(subdirectories(&dir)?);
        for item in std::fs::read_dir(&dir)? {
            let path = item?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with("rollout-") && name.ends_with(".jsonl") && !path.is_dir() {
                files.push(path);
            }
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

/// One session log, read.
pub fn read(path: &Path) -> Result<Transcript> {
    let mut reader = Reader::default();
    let skipped = read_lines(path, &mut |line, record| reader.record(line, record))?;
    Ok(reader.finish(skipped))
}

#[derive(Default)]
struct Reader {
    transcript: Transcript,
    calls: HashMap<String, Call>,
    turn: Turn,
    at: Option<Timestamp>,
    /// The last prompt recorded, so a version that logs a prompt in both forms counts it once.
    last_prompt: Option<String>,
    unplaced: usize,
}

impl Reader {
    fn record(&mut self, line: usize, record: &Value) {
        if let Some(at) = timestamp(record.get("timestamp")) {
            self.at = Some(at);
        }
        let payload = record.get("payload").unwrap_or(&Value::Null);
        let text =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(String::from);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "session_meta" {
            if let Some(id) = text(payload, "id").or_else(|| text(payload, "session_id")) {
                self.transcript.session_id = id;
            }
            if let Some(cwd) = text(payload, "cwd") {
                self.transcript.cwd = Some(PathBuf::from(cwd));
            }
            return;
        }
        let Some(at) = self.at else {
            self.unplaced += 1;
            return;
        };
        let id = format!("line:{line}");
        let event = text(payload, "type").unwrap_or_default();
        match (kind, event.as_str()) {
            ("event_msg", "user_message") => {
                if let Some(prompt) = text(payload, "message") {
                    self.prompt(id, at, prompt);
                }
            }
            ("event_msg", "item_completed") => {
                let item = payload.get("item").unwrap_or(&Value::Null);
                match item.get("type").and_then(Value::as_str) {
                    Some("UserMessage") => {
                        let prompt = content_text(item.get("content"));
                        self.prompt(id, at, prompt);
                    }
                    Some("AgentMessage") => {
                        self.turn.said(&id, at, &content_text(item.get("content")));
                    }
                    _ => {}
                }
            }
            ("event_msg", "agent_message") => {
                if let Some(message) = text(payload, "message") {
                    self.turn.said(&id, at, &message);
                }
            }
            ("event_msg", "task_complete") => {
                if let Some(message) = text(payload, "last_agent_message") {
                    self.turn.said(&id, at, &message);
                }
                self.turn.end(&mut self.transcript.entries);
                self.last_prompt = None;
            }
            ("compacted", _) | ("event_msg", "context_compacted") => {
                self.transcript.entries.push(Entry {
                    id,
                    at,
                    kind: EventKind::Compaction { trigger: None },
                })
            }
            ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
                let call_id = text(payload, "call_id").unwrap_or_else(|| id.clone());
                let input = match payload.get("arguments").or_else(|| payload.get("input")) {
                    // Arguments come as JSON text.
                    Some(Value::String(raw)) => {
                        serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
                    }
                    Some(other) => other.clone(),
                    None => payload.get("action").cloned().unwrap_or(Value::Null),
                };
                let tool = text(payload, "name").unwrap_or_else(|| "shell".into());
                self.calls.insert(call_id, Call { tool, input });
            }
            ("response_item", "function_call_output" | "custom_tool_call_output") => {
                let Some(call_id) = text(payload, "call_id") else {
                    return;
                };
                self.output(&call_id, payload.get("output").unwrap_or(&Value::Null), at);
            }
            _ => {}
        }
    }

    fn prompt(&mut self, id: String, at: Timestamp, prompt: String) {
        if prompt.trim().is_empty() || self.last_prompt.as_deref() == Some(prompt.as_str()) {
            return;
        }
        self.turn.end(&mut self.transcript.entries);
        self.last_prompt = Some(prompt.clone());
        self.transcript.entries.push(super::prompt(id, at, prompt));
    }

    fn output(&mut self, call_id: &str, output: &Value, at: Timestamp) {
        let call = self.calls.remove(call_id).unwrap_or_else(Call::unknown);
        // An output is text, or `{content, success}`.
        let (text, success) = match output {
            Value::Object(map) => (
                text_of(map.get("content").unwrap_or(output)),
                map.get("success").and_then(Value::as_bool),
            ),
            other => (text_of(other), None),
        };
        let failed = success == Some(false) || exit_code(&text).is_some_and(|code| code != 0);
        self.last_prompt = None;
        self.transcript.entries.push(Entry {
            id: format!("call:{call_id}"),
            at,
            kind: call.finished(if failed { Err(text) } else { Ok(text) }),
        });
    }

    fn finish(mut self, skipped: usize) -> Transcript {
        self.turn.end(&mut self.transcript.entries);
        self.transcript.skipped = skipped + self.unplaced;
        self.transcript
    }
}

/// The text of a message's content: a string, or its parts' `text`.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The exit code a shell tool's output reports (`Process exited with code 1`, or
/// `Exit code: 1`).
fn exit_code(output: &str) -> Option<i64> {
    output.lines().find_map(|line| {
        let line = line.trim();
        line.strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
            .and_then(|code| code.trim().parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_calls_failures_and_turn_ends_are_read_once_and_bad_lines_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rollout-2026-01-02T10-00-00-abc.jsonl");
        let lines = [
            r#"{"timestamp":"2026-01-02T10:00:00Z","type":"session_meta","payload":{"id":"abc","cwd":"/work/app"}}"#,
            r#"{"timestamp":"2026-01-02T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}"#,
            r#"{"timestamp":"2026-01-02T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Run the tests"}}"#,
            r#"{"timestamp":"2026-01-02T10:00:01Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"Run the tests"}]}}}"#,
            r#"{"timestamp":"2026-01-02T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}","call_id":"c1"}}"#,
            "{\"truncated",
            r#"{"timestamp":"2026-01-02T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 101\nOutput:\ntest failed"}}"#,
            r#"{"timestamp":"2026-01-02T10:00:04Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/lib.rs\n*** End Patch","call_id":"c2"}}"#,
            r#"{"timestamp":"2026-01-02T10:00:05Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Success"}}"#,
            r#"{"timestamp":"2026-01-02T10:00:06Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Done.\n*Remember*: tests need --release"}}"#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let t = read(&path).unwrap();
        assert_eq!(t.session_id, "abc");
        assert_eq!(t.skipped, 1);
        let kinds: Vec<&str> = t.entries.iter().map(|e| e.kind.name()).collect();
        assert_eq!(
            kinds,
            ["prompt", "tool_failure", "tool_use", "stop"],
            "{:#?}",
            t.entries
        );
        match &t.entries[2].kind {
            EventKind::ToolUse { files, .. } => assert_eq!(files, &["src/lib.rs"]),
            other => panic!("{other:?}"),
        }
        assert_eq!(transcripts(dir.path()).unwrap(), [path]);
    }

    #[test]
    fn a_symbolic_link_back_up_the_tree_does_not_make_the_walk_endless() {
        let dir = tempfile::tempdir().unwrap();
        let day = dir.path().join("2026/01/02");
        std::fs::create_dir_all(&day).unwrap();
        let log = day.join("rollout-2026-01-02T10-00-00-abc.jsonl");
        std::fs::write(&log, "").unwrap();
        std::os::unix::fs::symlink(dir.path(), day.join("loop")).unwrap();
        assert_eq!(transcripts(dir.path()).unwrap(), [log]);
    }
}
