//! OpenCode's events, as cairn's OpenCode plugin (`setup/opencode_plugin.ts`) passes them: the
//! plugin API's own names and fields (`sessionID`, `tool`, `args`, `output` …) with the
//! directory OpenCode runs in, one JSON object on stdin.

use anyhow::{Result, bail};
use cairn_core::session::EventKind;
use serde_json::Value;

use super::claude::{Parsed, files_of};
use super::json::{images_in, text_of, without_images};

pub fn parse(name: &str, payload: &Value) -> Result<Parsed> {
    let field = |key: &str| payload.get(key).and_then(Value::as_str).map(String::from);
    let args = payload.get("args").cloned().unwrap_or(Value::Null);
    let tool = || field("tool").unwrap_or_else(|| "tool".into());
    Ok(Parsed::Event(match name {
        "session.created" => EventKind::SessionStart {
            source: Some("startup".into()),
        },
        "chat.message" => EventKind::Prompt {
            text: field("text").unwrap_or_default(),
        },
        "tool.execute.before" => EventKind::ToolStart { tool: tool() },
        "tool.execute.after" => match payload.get("error").filter(|e| !e.is_null()) {
            Some(error) => EventKind::ToolFailure {
                tool: tool(),
                input: text_of(&args),
                error: text_of(error),
                files: files_of(&args),
            },
            None => {
                let output = payload.get("output").unwrap_or(&Value::Null);
                EventKind::ToolUse {
                    tool: tool(),
                    input: text_of(&args),
                    output: text_of(&without_images(output)),
                    files: files_of(&args),
                    images: images_in(output),
                }
            }
        },
        "session.compacting" => EventKind::Compaction {
            trigger: Some("auto".into()),
        },
        // The conversation was compacted: like Claude Code's SessionStart after compaction, it
        // gets a fresh context and records nothing.
        "session.compacted" => EventKind::SessionStart {
            source: Some("compact".into()),
        },
        "session.idle" => EventKind::Stop {
            last_message: field("text"),
            refused: Vec::new(),
        },
        "session.deleted" => EventKind::SessionEnd {
            reason: Some("deleted".into()),
            refused: Vec::new(),
        },
        // The plugin ends the sessions it saw when OpenCode disposes of its instance or exits.
        "session.ended" => EventKind::SessionEnd {
            reason: Some("exit".into()),
            refused: Vec::new(),
        },
        "session.error" => EventKind::Notification {
            text: text_of(payload.get("error").unwrap_or(&Value::Null)),
        },
        "permission.updated" => return Ok(Parsed::Ignored),
        other => bail!("unknown OpenCode event '{other}'"),
    }))
}
