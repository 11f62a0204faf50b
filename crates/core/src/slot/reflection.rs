//! Reflection: what a finished session leaves in the project's slots.
//!
//! At the end of a session (and on `slot reflect`) cairn reads the session's observations and
//! writes three kinds of lines, each into one of the project's default slots:
//! - **pending items** (`pending_items`): every `TODO` or `FIXME` — whole words, any case, so
//!   "todoist" and "mastodon" are not items — in what the session asked and wrote: prompts, tool
//!   inputs (not shell commands: `grep TODO` is a search, not an item) and subagent results.
//!   Tool outputs are the codebase talking, not the session, and are left out;
//! - **a session pattern** (`session_patterns`): one line per session counting its tool uses by
//!   tool, its shell commands and its errors;
//! - **touched files** (`project_context`): one line per file the session's tools read or changed,
//!   relative to the session's directory when inside it.
//!
//! Lines are merged by [`merge`]: a line already in the slot is not added again (exact match),
//! and when the slot would exceed its limit the oldest lines that reflection wrote are dropped
//! first — text the agent or the user wrote is never dropped. New lines that still do not fit
//! are left out. So a slot never exceeds its limit.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::session::model::{Observation, ObservationKind, Session, is_shell_tool};
use crate::slot::model::Slot;

/// Longest pending item, in characters.
const ITEM_CHARS: usize = 200;
/// Tools named in a session pattern line.
const PATTERN_TOOLS: usize = 5;

/// What one session says, before it is merged into slots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionSignals {
    /// `- TODO: …` lines for `pending_items`.
    pub pending: Vec<String>,
    /// The session's line for `session_patterns`, when it did anything.
    pub pattern: Option<String>,
    /// `- touched: …` lines for `project_context`.
    pub files: Vec<String>,
}

/// What merging lines into one slot did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SlotChange {
    pub label: String,
    /// Lines added.
    pub added: Vec<String>,
    /// Older reflected lines dropped to make room.
    pub dropped: Vec<String>,
    /// New lines that did not fit even so.
    pub left_out: Vec<String>,
    /// Why nothing was written, when the slot was skipped (deleted, read-only).
    pub skipped: Option<String>,
}

/// Reads the signals of a session from its observations.
pub fn signals(session: &Session, observations: &[Observation]) -> SessionSignals {
    let mut pending: Vec<String> = Vec::new();
    let mut tools: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut commands, mut errors) = (0, 0);
    let mut files: Vec<String> = Vec::new();
    for observation in observations {
        let shell = observation.tool.as_deref().is_some_and(is_shell_tool);
        let written = match observation.kind {
            ObservationKind::Prompt => observation.input.as_deref(),
            ObservationKind::ToolUse | ObservationKind::ToolFailure if !shell => {
                observation.input.as_deref()
            }
            ObservationKind::SubagentResult => observation.output.as_deref(),
            _ => None,
        };
        for item in written
            .map(|text| todo_items(&plain_text(text)))
            .unwrap_or_default()
        {
            let line = format!("- {item}");
            if !pending.contains(&line) {
                pending.push(line);
            }
        }
        if let Some(tool) = observation.tool.as_deref() {
            *tools.entry(tool).or_default() += 1;
            commands += usize::from(shell);
        }
        errors += usize::from(observation.error);
        for file in &observation.files {
            let line = format!("- touched: {}", relative(file, session.cwd.as_deref()));
            if !files.contains(&line) {
                files.push(line);
            }
        }
    }
    SessionSignals {
        pending,
        pattern: pattern_line(session, &tools, commands, errors),
        files,
    }
}

/// `- 2026-11-21 claude-code/5f1c2a9e: 12 tool uses (Bash 6, Edit 4, Read 2), 6 commands, 1 error`
fn pattern_line(
    session: &Session,
    tools: &BTreeMap<&str, usize>,
    commands: usize,
    errors: usize,
) -> Option<String> {
    let uses: usize = tools.values().sum();
    if uses == 0 && errors == 0 {
        return None;
    }
    let mut by_use: Vec<(&str, usize)> = tools.iter().map(|(t, n)| (*t, *n)).collect();
    by_use.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut named: Vec<String> = by_use
        .iter()
        .take(PATTERN_TOOLS)
        .map(|(tool, n)| format!("{tool} {n}"))
        .collect();
    if by_use.len() > PATTERN_TOOLS {
        named.push(format!("{} more", by_use.len() - PATTERN_TOOLS));
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let id: String = session.key.id.chars().take(8).collect();
    Some(format!(
        "- {} {}/{id}: {} ({}), {}, {}",
        session.started_at.strftime("%Y-%m-%d"),
        session.key.agent,
        plural(uses, "tool use"),
        named.join(", "),
        plural(commands, "command"),
        plural(errors, "error"),
    ))
}

/// `file` relative to `cwd` when inside it.
fn relative(file: &str, cwd: Option<&str>) -> String {
    cwd.and_then(|cwd| Path::new(file).strip_prefix(cwd).ok())
        .map(|rest| rest.to_string_lossy().into_owned())
        .filter(|rest| !rest.is_empty())
        .unwrap_or_else(|| file.to_string())
}

/// The `TODO …`/`FIXME …` items of `text`: from the marker to the end of its line, when the
/// marker is a whole word and says something after it.
pub fn todo_items(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    for line in text.lines() {
        let Some(start) = marker_position(line) else {
            continue;
        };
        let item = trim_trailing_syntax(&line[start..]);
        let marker_len = if item[..4].eq_ignore_ascii_case("todo") {
            4
        } else {
            5
        };
        let said = item[marker_len..].trim_matches(|c: char| !c.is_alphanumeric());
        if said.chars().count() < 2 {
            continue;
        }
        let item = shortened(item);
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items
}

/// `item` without what closes the code or data around it: quotes, commas, backslashes,
/// comment ends, and brackets it does not open itself (`[REDACTED]` keeps its own).
fn trim_trailing_syntax(item: &str) -> &str {
    let mut item = item.trim_end();
    loop {
        let before = item;
        item = item
            .trim_end_matches(|c: char| c.is_whitespace() || "\"',\\".contains(c))
            .trim_end_matches("*/")
            .trim_end_matches("-->");
        for (open, close) in [('[', ']'), ('{', '}')] {
            if item.ends_with(close) && item.matches(close).count() > item.matches(open).count() {
                item = &item[..item.len() - 1];
            }
        }
        if item == before {
            return item.trim();
        }
    }
}

/// `item` cut to `ITEM_CHARS` characters with an ellipsis, never inside a `[REDACTED]`.
fn shortened(item: &str) -> String {
    if item.chars().count() <= ITEM_CHARS {
        return item.to_string();
    }
    let mut cut = item
        .char_indices()
        .nth(ITEM_CHARS)
        .map_or(item.len(), |(at, _)| at);
    // A marker the cut would split: its opening bracket is the last `[` before the cut, and
    // what follows it is a beginning of the marker.
    if let Some(open) = item[..cut].rfind('[')
        && cut - open < crate::redact::REDACTED.len()
        && crate::redact::REDACTED.starts_with(&item[open..cut])
    {
        cut = open;
    }
    format!("{}…", item[..cut].trim_end())
}

/// The text of a tool input: its string values, one per line, when it is JSON (as hooks
/// record most tool inputs); else the text itself.
fn plain_text(input: &str) -> String {
    fn strings<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match value {
            serde_json::Value::String(text) => out.push(text),
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(value @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
            let mut found = Vec::new();
            strings(&value, &mut found);
            found.join("\n")
        }
        _ => input.to_string(),
    }
}

/// Where the first whole-word `todo` or `fixme` (any case) of `line` starts.
fn marker_position(line: &str) -> Option<usize> {
    let lower = line.to_ascii_lowercase();
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut best: Option<usize> = None;
    for marker in ["todo", "fixme"] {
        for (at, _) in lower.match_indices(marker) {
            let before = lower[..at].chars().next_back();
            let after = lower[at + marker.len()..].chars().next();
            if !word_char(before) && !word_char(after) {
                best = Some(best.map_or(at, |b| b.min(at)));
                break;
            }
        }
    }
    best
}

/// Merges reflected `lines` into `slot` (see the module documentation) and says what changed.
pub fn merge(slot: &mut Slot, lines: &[String]) -> SlotChange {
    let mut change = SlotChange {
        label: slot.label.to_string(),
        ..SlotChange::default()
    };
    slot.prune_reflected();
    let mut content: Vec<String> = slot.content.lines().map(String::from).collect();
    for line in lines {
        if content.contains(line) {
            continue;
        }
        content.push(line.clone());
        slot.reflected.push(line.clone());
        change.added.push(line.clone());
    }
    let size = |content: &[String]| {
        content.iter().map(|l| l.chars().count()).sum::<usize>() + content.len().saturating_sub(1)
    };
    while size(&content) > slot.limit && !slot.reflected.is_empty() {
        let oldest = slot.reflected.remove(0);
        if let Some(at) = content.iter().position(|l| *l == oldest) {
            content.remove(at);
        }
        if let Some(at) = change.added.iter().position(|l| *l == oldest) {
            change.added.remove(at);
            change.left_out.push(oldest);
        } else {
            change.dropped.push(oldest);
        }
    }
    slot.content = content.join("\n");
    change
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scope::Scope;
    use crate::slot::SlotLabel;

    #[test]
    fn todo_and_fixme_count_only_as_whole_words() {
        let text = "fn main() {} // TODO: handle the empty case\n\
                    We use todoist for chores and post on mastodon.\n\
                    # fixme(ana) retry on 503\n\
                    TODOS are not items, nor is a bare TODO\n\
                    /* FIXME: leaks the socket */";
        assert_eq!(
            todo_items(text),
            vec![
                "TODO: handle the empty case",
                "fixme(ana) retry on 503",
                "FIXME: leaks the socket",
            ]
        );
        assert!(todo_items("todoist mastodon TODOLIST autodo").is_empty());
    }

    #[test]
    fn json_tool_inputs_are_read_by_their_string_values() {
        let input = r#"{"content":"x\n// TODO: escape me\nfn f() {}","file_path":"/a/b.rs"}"#;
        assert_eq!(todo_items(&plain_text(input)), ["TODO: escape me"]);
        assert_eq!(plain_text("TODO: plain"), "TODO: plain");
    }

    fn slot(content: &str, limit: usize, reflected: &[&str]) -> Slot {
        let now = jiff::Timestamp::UNIX_EPOCH;
        Slot {
            label: SlotLabel::new("pending_items").unwrap(),
            scope: Scope::Global,
            content: content.into(),
            description: None,
            limit,
            pinned: true,
            read_only: false,
            created_at: now,
            updated_at: now,
            reflected: reflected.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_redacted_secret_at_the_end_of_an_item_keeps_its_closing_bracket() {
        let text = "TODO rotate the key [REDACTED]\n\"// FIXME: drop the fallback\",\n\
                    {\"note\": \"TODO ask about {cache} size\"}";
        assert_eq!(
            todo_items(text),
            [
                "TODO rotate the key [REDACTED]",
                "FIXME: drop the fallback",
                "TODO ask about {cache} size"
            ]
        );
        // Cut to its length, an item never ends inside a marker.
        let long = format!("TODO {} [REDACTED] then more", "x".repeat(ITEM_CHARS - 10));
        let item = &todo_items(&long)[0];
        assert!(item.ends_with("x…"), "{item}");
        let whole = format!("TODO {} [REDACTED] then more", "x".repeat(ITEM_CHARS - 20));
        assert!(todo_items(&whole)[0].contains("[REDACTED] "));
    }

    #[test]
    fn merge_skips_lines_already_there_and_drops_the_oldest_reflected_first() {
        // 40 characters: "agent note" (10), "- old one" (9), "- old two" (9), newlines.
        let mut s = slot(
            "agent note\n- old one\n- old two",
            40,
            &["- old one", "- old two"],
        );
        let change = merge(&mut s, &["- old two".into(), "- new item".into()]);
        assert_eq!(change.added, vec!["- new item"]);
        assert_eq!(change.dropped, vec!["- old one"]);
        assert_eq!(s.content, "agent note\n- old two\n- new item");
        assert!(s.chars() <= 40);
        assert_eq!(s.reflected, vec!["- old two", "- new item"]);
    }

    #[test]
    fn merge_never_drops_what_the_agent_wrote_and_never_exceeds_the_limit() {
        let mut s = slot("agent notes fill this", 25, &[]);
        let change = merge(&mut s, &["- a new line".into()]);
        assert_eq!(s.content, "agent notes fill this");
        assert!(change.added.is_empty());
        assert_eq!(change.left_out, vec!["- a new line"]);
    }
}
