//! Claude Code's transcripts: `<config>/projects/<project dir>/<session id>.jsonl`, one entry a
//! line. What cairn reads of them:
//! - a `user` entry whose content is text is a prompt (a slash command's markup becomes the
//!   command, `/compact`); meta entries, compaction summaries and command output are not;
//! - an `assistant` entry's `tool_use` parts are calls, its text the turn's last message so far;
//! - a `user` entry's `tool_result` part answers a call: a use, a failure (`is_error`), or a call
//!   the permissions refused (see `hook::payload::transcript::refusal`);
//! - a `system` entry of subtype `compact_boundary` is a compaction.
//!
//! Sidechain entries (a subagent's own conversation) are left out: its result reaches the
//! session as the result of the call that started it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use cairn_core::session::EventKind;
use jiff::Timestamp;
use serde_json::Value;

use super::{Call, Entry, Transcript, Turn, read_lines, timestamp};
use crate::hook::payload::json::{text_of, without_images};
use crate::hook::payload::transcript::{parts, refusal, result_text};

/// The transcript files under `location`: the file itself, the `*.jsonl` of a project's
/// directory, or those of every project's directory under `projects/`. Anything by such a name
/// that is not a directory is listed: one that is not a regular file (a FIFO) is refused when
/// read, and the report names it.
pub fn transcripts(location: &Path) -> Result<Vec<PathBuf>> {
    if location.is_file() {
        return Ok(vec![location.to_path_buf()]);
    }
    let mut files = jsonl_in(location)?;
    for dir in subdirectories(location)? {
        files.extend(jsonl_in(&dir)?);
    }
    files.sort();
    Ok(files)
}

/// The directories in `dir`, not following symbolic links: a link back up the tree would make
/// a walk through the history endless.
pub(super) fn subdirectories(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for item in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let item = item?;
        if item.file_type()?.is_dir() {
            found.push(item.path());
        }
    }
    found.sort();
    Ok(found)
}

fn jsonl_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for item in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = item?.path();
        if path.extension().is_some_and(|e| e == "jsonl") && !path.is_dir() {
            found.push(path);
        }
    }
    Ok(found)
}

/// One transcript file, read.
pub fn read(path: &Path) -> Result<Transcript> {
    let mut reader = Reader::default();
    let skipped = read_lines(path, &mut |_, entry| reader.entry(entry))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(reader.finish(stem, skipped))
}

#[derive(Default)]
struct Reader {
    session_id: Option<String>,
    cwd: Option<PathBuf>,
    entries: Vec<Entry>,
    calls: HashMap<String, Call>,
    turn: Turn,
    at: Option<Timestamp>,
    /// Entries without a time before any with one: they cannot be placed.
    unplaced: usize,
}

impl Reader {
    fn entry(&mut self, entry: &Value) {
        let field = |key: &str| entry.get(key).and_then(Value::as_str);
        if entry.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            return;
        }
        if self.session_id.is_none() {
            self.session_id = field("sessionId").map(String::from);
        }
        if self.cwd.is_none() {
            self.cwd = field("cwd").map(PathBuf::from);
        }
        if let Some(at) = timestamp(entry.get("timestamp")) {
            self.at = Some(at);
        }
        let kind = field("type").unwrap_or_default();
        if !matches!(kind, "user" | "assistant" | "system") {
            return;
        }
        let Some(at) = self.at else {
            self.unplaced += 1;
            return;
        };
        let id = field("uuid").unwrap_or_default().to_string();
        match kind {
            "user" => self.user(entry, &id, at),
            "assistant" => {
                for part in entry
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                            self.turn.said(&id, at, text);
                        }
                        Some("tool_use") => {
                            if let Some(call) = part.get("id").and_then(Value::as_str) {
                                self.calls.insert(
                                    call.to_string(),
                                    Call {
                                        tool: part
                                            .get("name")
                                            .and_then(Value::as_str)
                                            .unwrap_or("tool")
                                            .to_string(),
                                        input: part.get("input").cloned().unwrap_or(Value::Null),
                                    },
                                );
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ if field("subtype") == Some("compact_boundary") => self.entries.push(Entry {
                id,
                at,
                kind: EventKind::Compaction {
                    trigger: entry
                        .get("compactMetadata")
                        .and_then(|m| m.get("trigger"))
                        .and_then(Value::as_str)
                        .map(String::from),
                },
            }),
            _ => {}
        }
    }

    fn user(&mut self, entry: &Value, id: &str, at: Timestamp) {
        let flag = |key: &str| entry.get(key).and_then(Value::as_bool) == Some(true);
        if flag("isMeta") || flag("isCompactSummary") {
            return;
        }
        let content = entry
            .get("message")
            .and_then(|m| m.get("content"))
            .unwrap_or(&Value::Null);
        let mut answered = false;
        for result in parts(entry, "tool_result") {
            answered = true;
            self.result(entry, result, at);
        }
        if answered {
            return;
        }
        let text = match content {
            Value::String(text) => text.clone(),
            Value::Array(_) => result_text(content),
            _ => return,
        };
        if let Some(prompt) = prompt_text(&text) {
            self.turn.end(&mut self.entries);
            self.entries.push(super::prompt(id.to_string(), at, prompt));
        }
    }

    fn result(&mut self, entry: &Value, result: &Value, at: Timestamp) {
        let Some(call_id) = result.get("tool_use_id").and_then(Value::as_str) else {
            return;
        };
        let call = self.calls.remove(call_id).unwrap_or_else(Call::unknown);
        let outcome = if let Some(reason) = refusal(entry, result) {
            Err(format!("permission denied: {reason}"))
        } else if result.get("is_error").and_then(Value::as_bool) == Some(true) {
            Err(result_text(result.get("content").unwrap_or(&Value::Null)))
        } else {
            // What the hook is sent as the tool's response, when the entry kept it.
            let response = entry
                .get("toolUseResult")
                .filter(|r| !r.is_null())
                .or_else(|| result.get("content"))
                .unwrap_or(&Value::Null);
            Ok(text_of(&without_images(response)))
        };
        let kind = call.finished(outcome);
        self.entries.push(Entry {
            id: format!("call:{call_id}"),
            at,
            kind,
        });
    }

    fn finish(mut self, stem: String, skipped: usize) -> Transcript {
        self.turn.end(&mut self.entries);
        Transcript {
            session_id: if stem.is_empty() {
                self.session_id.unwrap_or_default()
            } else {
                stem
            },
            cwd: self.cwd,
            entries: self.entries,
            skipped: skipped + self.unplaced,
        }
    }
}

/// What a user entry's text says was asked: the text itself, a slash command as typed
/// (`/compact now`), or nothing for what Claude Code wrote there itself (command output,
/// reminders, interruption notes).
fn prompt_text(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Some(name) = between(text, "<command-name>", "</command-name>") {
        let args = between(text, "<command-args>", "</command-args>").unwrap_or("");
        return Some(format!("{name} {args}").trim().to_string());
    }
    if text.starts_with('<') || text.starts_with("[Request interrupted") {
        return None;
    }
    Some(text.to_string())
}

fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(text[start..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(lines: &[&str]) -> Transcript {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        read(&path).unwrap()
    }

    #[test]
    fn prompts_calls_results_refusals_and_turn_ends_are_read_and_bad_lines_counted() {
        let t = transcript(&[
            r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-02T10:00:00Z","sessionId":"s1"}"#,
            r#"{"type":"user","uuid":"u1","timestamp":"2026-01-02T10:00:01Z","cwd":"/work/app","sessionId":"s1","message":{"role":"user","content":"Fix the build"}}"#,
            r#"{"type":"user","uuid":"m1","isMeta":true,"timestamp":"2026-01-02T10:00:01Z","message":{"role":"user","content":"<system-reminder>x</system-reminder>"}}"#,
            r#"{"type":"assistant","uuid":"a1","timestamp":"2026-01-02T10:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/work/app/src/main.rs","old_string":"a","new_string":"b"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo build"}}]}}"#,
            "this line is garbage",
            r#"{"type":"user","uuid":"r1","timestamp":"2026-01-02T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"filePath":"/work/app/src/main.rs"}}"#,
            r#"{"type":"user","uuid":"r2","timestamp":"2026-01-02T10:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"error[E0425]: cannot find value"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","isSidechain":true,"timestamp":"2026-01-02T10:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"subagent talk"}]}}"#,
            r#"{"type":"assistant","uuid":"a3","timestamp":"2026-01-02T10:00:06Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed.\n*Remember*: the build needs clang"}]}}"#,
            r#"{"type":"user","uuid":"u2","timestamp":"2026-01-02T10:01:00Z","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-args>keep it short</command-args>"}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"c1","timestamp":"2026-01-02T10:01:01Z","compactMetadata":{"trigger":"manual"}}"#,
            r#"{"type":"assistant","uuid":"a4","timestamp":"2026-01-02T10:01:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"rm -rf target"}}]}}"#,
            r#"{"type":"user","uuid":"r3","timestamp":"2026-01-02T10:01:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"rm needs approval"}]},"permissionDecision":{"decision":"reject"}}"#,
            r#"{"type":"assistant","uuid":"a5","timestamp":"2026-01-02T10:01:04Z","message":{"role":"assistant","content":[{"type":"text","text":"Not allo"#,
        ]);
        assert_eq!(t.session_id, "s1");
        assert_eq!(t.cwd.as_deref(), Some(Path::new("/work/app")));
        assert_eq!(t.skipped, 2, "the garbage line and the cut last line");
        let kinds: Vec<(&str, &str)> = t
            .entries
            .iter()
            .map(|e| (e.id.as_str(), e.kind.name()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("u1", "prompt"),
                ("call:t1", "tool_use"),
                ("call:t2", "tool_failure"),
                ("stop:a3", "stop"),
                ("u2", "prompt"),
                ("c1", "compaction"),
                ("call:t3", "tool_failure"),
            ]
        );
        match &t.entries[1].kind {
            EventKind::ToolUse { tool, files, .. } => {
                assert_eq!(tool, "Edit");
                assert_eq!(files, &["/work/app/src/main.rs"]);
            }
            other => panic!("{other:?}"),
        }
        match &t.entries[3].kind {
            EventKind::Stop { last_message, .. } => assert_eq!(
                last_message.as_deref(),
                Some("Fixed.\n*Remember*: the build needs clang")
            ),
            other => panic!("{other:?}"),
        }
        match &t.entries[4].kind {
            EventKind::Prompt { text } => assert_eq!(text, "/compact keep it short"),
            other => panic!("{other:?}"),
        }
        match &t.entries[6].kind {
            EventKind::ToolFailure { error, input, .. } => {
                assert_eq!(error, "permission denied: rm needs approval");
                assert_eq!(input, "rm -rf target");
            }
            other => panic!("{other:?}"),
        }
    }
}
