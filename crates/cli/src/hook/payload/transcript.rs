//! Claude Code's transcript (JSON Lines, one entry a line), read from its tail only: the
//! agent's last message, and the calls its permissions refused. A headless run that refuses a
//! call (`claude -p` without a rule for it) fires no tool hook, so the transcript is where the
//! refusal is seen: the assistant's `tool_use` and the `tool_result` that answers it, an error
//! on an entry whose `permissionDecision` is `reject` (or that carries a `toolDenialKind`), or
//! whose text says the permission was not granted (older versions).

use std::collections::HashMap;

use cairn_core::session::RefusedCall;
use serde_json::Value;

use super::json::tool_input_text;

/// The most of a transcript read: its end, where the current turn is.
const TAIL_BYTES: u64 = 256 * 1024;

/// What a refused call's result says, as older Claude Code versions word it.
const REFUSALS: &[&str] = &["requested permissions to use", "haven't granted it yet"];

/// The end of the transcript the payload's `key` names; `None` when there is none or it is not
/// a regular file (a FIFO in its place would block the hook, and the agent, forever).
pub fn tail(payload: &Value, key: &str) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let path = payload.get(key)?.as_str()?;
    let mut file = cairn_core::input::open_regular(std::path::Path::new(path)).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES)))
        .ok()?;
    let mut tail = String::new();
    file.take(TAIL_BYTES).read_to_string(&mut tail).ok()?;
    Some(tail)
}

fn entries(tail: &str) -> impl DoubleEndedIterator<Item = Value> + '_ {
    // The first line may be cut by the tail: it does not parse and is skipped.
    tail.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
}

pub fn parts<'e>(entry: &'e Value, kind: &'e str) -> impl Iterator<Item = &'e Value> + 'e {
    entry
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(move |part| part.get("type").and_then(Value::as_str) == Some(kind))
}

/// The text of the last assistant entry.
pub fn last_assistant_text(tail: &str) -> Option<String> {
    entries(tail).rev().find_map(|entry| {
        let message = entry.get("message")?;
        let role = message.get("role").or_else(|| entry.get("type"))?;
        if role != "assistant" {
            return None;
        }
        let text: Vec<&str> = parts(&entry, "text")
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        (!text.is_empty()).then(|| text.join("\n"))
    })
}

/// The calls whose results say the permission to use the tool was not granted.
pub fn refused_calls(tail: &str) -> Vec<RefusedCall> {
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    let mut refused = Vec::new();
    for entry in entries(tail) {
        for call in parts(&entry, "tool_use") {
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
                let input = call.get("input").cloned().unwrap_or(Value::Null);
                calls.insert(id.to_string(), (name.to_string(), input));
            }
        }
        for result in parts(&entry, "tool_result") {
            let Some(reason) = refusal(&entry, result) else {
                continue;
            };
            let Some(id) = result.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            let (tool, input) = calls
                .get(id)
                .cloned()
                .unwrap_or(("tool".into(), Value::Null));
            refused.push(RefusedCall {
                id: id.to_string(),
                tool,
                input: tool_input_text(&input),
                reason,
            });
        }
    }
    refused
}

/// Why the permissions refused the call `result` answers (an entry's `tool_result` part), or
/// `None` when they did not (the call ran, or failed for itself).
pub fn refusal(entry: &Value, result: &Value) -> Option<String> {
    if result.get("is_error").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let decided_no = entry.get("toolDenialKind").is_some()
        || matches!(
            entry
                .get("permissionDecision")
                .and_then(|d| d.get("decision"))
                .and_then(Value::as_str),
            Some("reject" | "deny")
        );
    let reason = result_text(result.get("content").unwrap_or(&Value::Null));
    (decided_no || REFUSALS.iter().any(|words| reason.contains(words))).then_some(reason)
}

/// A tool result's content: a string, or text parts.
pub fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| item.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_call_is_found_with_its_tool_and_input_and_a_real_failure_is_not() {
        let lines = [
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"touch x"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Claude requested permissions to use Bash, but you haven't granted it yet."}]}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"false"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"Exit code 1"}]}]}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"touch y"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"touch in 'y' needs approval."}]},"toolDenialKind":"user-rejected","permissionDecision":{"decision":"reject","source":"config"}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Not allowed."}]}}"#,
        ];
        // A cut first line (the tail starts mid-entry) is skipped.
        let tail = format!("cut\"}}\n{}\n", lines.join("\n"));
        let refused = refused_calls(&tail);
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert_eq!(refused[1].id, "t3");
        assert_eq!(refused[1].reason, "touch in 'y' needs approval.");
        assert_eq!(refused[0].id, "t1");
        assert_eq!(refused[0].tool, "Bash");
        assert!(refused[0].input.contains("touch x"), "{:?}", refused[0]);
        assert!(
            refused[0]
                .reason
                .starts_with("Claude requested permissions")
        );
        assert_eq!(last_assistant_text(&tail).as_deref(), Some("Not allowed."));
    }
}
