//! Claude Code's hook payloads, which Codex shares (same event names, same common fields:
//! `session_id`, `cwd`, `hook_event_name`, `transcript_path`), turned into [`EventKind`]s.
//!
//! Differences between the two are in the details this reader tolerates: Codex's shell tool may
//! be `Bash` or `exec_command`, its edits come as `apply_patch` text naming the files, and its
//! `Stop` carries `last_assistant_message`; Claude Code's `Stop` may not, in which case the last
//! assistant message is read from the end of the transcript file.

use anyhow::{Result, bail};
use cairn_core::session::EventKind;
use serde_json::Value;

use super::json::{images_in, text_of, tool_input_text, without_images};
use super::transcript;

/// What an event becomes: recorded, or knowingly ignored.
pub enum Parsed {
    Event(EventKind),
    Ignored,
}

/// The event `name` (as the hook was registered) from its `payload`.
pub fn parse(name: &str, payload: &Value) -> Result<Parsed> {
    let field = |key: &str| payload.get(key).and_then(Value::as_str).map(String::from);
    let tool = || field("tool_name").unwrap_or_else(|| "tool".into());
    let input = || payload.get("tool_input").cloned().unwrap_or(Value::Null);
    Ok(Parsed::Event(match name {
        "SessionStart" => EventKind::SessionStart {
            source: field("source"),
        },
        "UserPromptSubmit" => EventKind::Prompt {
            text: field("prompt").unwrap_or_default(),
        },
        "PreToolUse" => EventKind::ToolStart { tool: tool() },
        "PostToolUse" => {
            let tool = tool();
            let input = input();
            let response = payload.get("tool_response").unwrap_or(&Value::Null);
            EventKind::ToolUse {
                input: tool_input_text(&input),
                output: text_of(&without_images(response)),
                files: files_of(&input),
                images: images_in(response),
                tool,
            }
        }
        "PostToolUseFailure" => {
            let tool = tool();
            let input = input();
            EventKind::ToolFailure {
                input: tool_input_text(&input),
                error: field("error").unwrap_or_else(|| "failed".into()),
                files: files_of(&input),
                tool,
            }
        }
        // A call a permission rule, the mode or a hook refused: a failed call, counted as one.
        "PermissionDenied" => {
            let tool = tool();
            let input = input();
            EventKind::ToolFailure {
                input: tool_input_text(&input),
                error: match field("reason") {
                    Some(reason) => format!("permission denied: {reason}"),
                    None => "permission denied".into(),
                },
                files: files_of(&input),
                tool,
            }
        }
        "PreCompact" => EventKind::Compaction {
            trigger: field("trigger"),
        },
        "SubagentStop" => EventKind::SubagentResult {
            text: last_message(payload, "agent_transcript_path").unwrap_or_else(|| {
                format!(
                    "subagent {} finished",
                    field("agent_type").unwrap_or_default()
                )
            }),
        },
        "Stop" => {
            // The transcript's tail is read once, for both.
            let tail = transcript::tail(payload, "transcript_path");
            EventKind::Stop {
                last_message: given_last_message(payload)
                    .or_else(|| tail.as_deref().and_then(transcript::last_assistant_text)),
                refused: tail
                    .map(|tail| transcript::refused_calls(&tail))
                    .unwrap_or_default(),
            }
        }
        // Read again at the end: a turn's Stop may come before its results reach the file.
        "SessionEnd" => EventKind::SessionEnd {
            reason: field("reason"),
            refused: refused_in(payload),
        },
        "Notification" => EventKind::Notification {
            text: field("message").unwrap_or_default(),
        },
        // Compaction is recorded before it happens; permission prompts say nothing new.
        "PostCompact" | "PermissionRequest" => return Ok(Parsed::Ignored),
        other => bail!("unknown event '{other}'"),
    }))
}

/// Paths a tool input names: `file_path`, `path`, `notebook_path`, `filePath`, and the files of
/// an `apply_patch` text.
pub fn files_of(input: &Value) -> Vec<String> {
    let mut files: Vec<String> = ["file_path", "notebook_path", "filePath", "path"]
        .iter()
        .filter_map(|key| input.get(key).and_then(Value::as_str))
        .map(String::from)
        .collect();
    let patch = tool_input_text(input);
    for line in patch.lines() {
        for marker in ["*** Add File: ", "*** Update File: ", "*** Delete File: "] {
            if let Some(path) = line.strip_prefix(marker) {
                files.push(path.trim().to_string());
            }
        }
    }
    files
}

/// The agent's last message: the payload's `last_assistant_message`, else the last assistant
/// text in the transcript named by `transcript_key`.
fn last_message(payload: &Value, transcript_key: &str) -> Option<String> {
    given_last_message(payload)
        .or_else(|| transcript::last_assistant_text(&transcript::tail(payload, transcript_key)?))
}

/// The calls the transcript's tail shows refused.
fn refused_in(payload: &Value) -> Vec<cairn_core::session::RefusedCall> {
    transcript::tail(payload, "transcript_path")
        .map(|tail| transcript::refused_calls(&tail))
        .unwrap_or_default()
}

/// The payload's own `last_assistant_message`, when the agent sends one.
fn given_last_message(payload: &Value) -> Option<String> {
    payload
        .get("last_assistant_message")
        .and_then(Value::as_str)
        .map(String::from)
}
