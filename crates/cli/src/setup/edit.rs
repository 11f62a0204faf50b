//! Merging cairn's entries into configuration files without touching anything else: JSON
//! documents (key order kept), hook tables in the Claude Code / Codex shape, and a marked block
//! in a markdown file.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Change, Target, backup_path, hook_command, is_cairn_hook, read};
use crate::args::AgentArg;

/// A JSON document on disk: its text (if any) and its value (`{}` when missing).
pub struct JsonFile {
    pub before: Option<String>,
    pub value: Value,
}

impl JsonFile {
    pub fn load(path: &Path) -> Result<Self> {
        let before = read(path)?;
        let value = match before.as_deref() {
            None => json!({}),
            Some(text) if text.trim().is_empty() => json!({}),
            Some(text) => serde_json::from_str(text).with_context(|| {
                format!(
                    "{} is not valid JSON; fix it first (cairn never overwrites a file it cannot read)",
                    path.display()
                )
            })?,
        };
        if !value.is_object() {
            anyhow::bail!("{} does not hold a JSON object", path.display());
        }
        Ok(JsonFile { before, value })
    }

    /// The change to `path` that writes the current value. When the file did not exist and
    /// the value is empty, there is nothing to write.
    pub fn change(self, path: &Path, what: String) -> Change {
        let empty = self.value.as_object().is_some_and(Map::is_empty);
        let after = match &self.before {
            // Unchanged content keeps its own formatting.
            Some(before) if same_json(before, &self.value) => Some(before.clone()),
            // Emptied, and not there before cairn's first change (no backup was ever taken).
            _ if empty && !backup_path(path).exists() => None,
            _ => Some(render_like(self.before.as_deref(), &self.value)),
        };
        Change {
            path: path.to_path_buf(),
            what,
            before: self.before,
            after,
            empty_parents: 0,
        }
    }
}

/// `value` as JSON text laid out the way `before` was: its indentation (or none, for a file on
/// one line) and whether it ended with a newline; two spaces and a newline for a new file. So
/// an edit that is undone leaves the file's bytes as they were.
fn render_like(before: Option<&str>, value: &Value) -> String {
    let before = before.filter(|text| !text.trim().is_empty());
    let one_line = before.is_some_and(|text| !text.trim().contains('\n'));
    let indent = before
        .and_then(|text| {
            text.lines()
                .skip(1)
                .map(|line| &line[..line.len() - line.trim_start().len()])
                .find(|indent| !indent.is_empty())
        })
        .unwrap_or("  ");
    let mut out = Vec::new();
    if one_line {
        serde_json::to_writer(&mut out, value).expect("JSON values serialise");
    } else {
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        value
            .serialize(&mut serializer)
            .expect("JSON values serialise");
    }
    let mut text = String::from_utf8(out).expect("JSON is UTF-8");
    if before.is_none_or(|text| text.ends_with('\n')) {
        text.push('\n');
    }
    text
}

fn same_json(text: &str, value: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|old| &old == value)
}

/// Sets `object[key] = value`, creating `object` as needed.
pub fn set_entry(root: &mut Value, object: &str, key: &str, value: Value) {
    let map = root
        .as_object_mut()
        .expect("roots are objects")
        .entry(object)
        .or_insert_with(|| json!({}));
    if let Some(map) = map.as_object_mut() {
        map.insert(key.to_string(), value);
    }
}

/// Removes `object[key]`, and `object` itself when that leaves it empty.
pub fn remove_entry(root: &mut Value, object: &str, key: &str) {
    let root = root.as_object_mut().expect("roots are objects");
    if let Some(map) = root.get_mut(object).and_then(Value::as_object_mut) {
        map.remove(key);
        if map.is_empty() {
            root.remove(object);
        }
    }
}

/// Adds cairn's command for each event to `root.hooks` (Claude Code's and Codex's shape:
/// event → groups → `{type: command, command}`). An event that already runs exactly this
/// command is left as it is; an older cairn command is replaced; every other hook stays where
/// it is.
pub fn add_hooks(root: &mut Value, target: &Target, agent: AgentArg, events: &[&str]) {
    remove_hooks_where(root, agent, |event| !events.contains(&event));
    for event in events {
        let command = hook_command(target, agent, event);
        let timeout = hook_timeout_secs(agent, event);
        let installed = root["hooks"][*event].as_array().is_some_and(|groups| {
            groups.iter().any(|group| {
                group["hooks"].as_array().is_some_and(|handlers| {
                    handlers.iter().any(|h| {
                        h["command"].as_str() == Some(&command) && h["timeout"] == json!(timeout)
                    })
                })
            })
        });
        if installed {
            continue;
        }
        remove_hooks_where(root, agent, |other| other == *event);
        let hooks = root
            .as_object_mut()
            .expect("roots are objects")
            .entry("hooks")
            .or_insert_with(|| json!({}));
        if let Some(groups) = hooks
            .as_object_mut()
            .map(|hooks| hooks.entry(*event).or_insert_with(|| json!([])))
            .and_then(Value::as_array_mut)
        {
            groups.push(json!({
                "hooks": [{ "type": "command", "command": command, "timeout": timeout }]
            }));
        }
    }
}

/// How long the agent lets cairn's hook for `event` run: 30 s, except where the agent allows
/// less — Codex clamps a SessionEnd hook to 3 s and warns on every run when asked for more.
pub fn hook_timeout_secs(agent: AgentArg, event: &str) -> u64 {
    match (agent, event) {
        (AgentArg::Codex, "SessionEnd") => 3,
        _ => 30,
    }
}

/// Whether `root.hooks` (Claude Code's and Codex's shape) runs a cairn command of `agent`.
pub fn has_cairn_hook(root: &Value, agent: AgentArg) -> bool {
    root["hooks"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(_, groups)| {
            groups.as_array().into_iter().flatten().any(|group| {
                group["hooks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|handler| {
                        handler["command"]
                            .as_str()
                            .is_some_and(|command| is_cairn_hook(command, agent))
                    })
            })
        })
}

/// Removes every cairn command of `agent` from `root.hooks`, and the groups, events and the
/// `hooks` table that only held them.
pub fn remove_hooks(root: &mut Value, agent: AgentArg) {
    remove_hooks_where(root, agent, |_| true);
}

fn remove_hooks_where(root: &mut Value, agent: AgentArg, event_matches: impl Fn(&str) -> bool) {
    let root = root.as_object_mut().expect("roots are objects");
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    // Only what held cairn's commands may be dropped for being empty.
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut().filter(|_| event_matches(event)) else {
            continue;
        };
        let mut removed = false;
        for group in groups.iter_mut() {
            if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                let count = handlers.len();
                handlers.retain(|handler| {
                    !handler
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|command| is_cairn_hook(command, agent))
                });
                if handlers.is_empty() && count > 0 {
                    removed = true;
                }
            }
        }
        if removed {
            groups.retain(|group| {
                group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|handlers| !handlers.is_empty())
            });
            if groups.is_empty() {
                emptied.push(event.clone());
            }
        }
    }
    if emptied.is_empty() {
        return;
    }
    for event in emptied {
        hooks.remove(&event);
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
}

/// Adds `item` to the list `root[object][list]` (creating both as needed) unless it is there.
/// A `list` that is not a list is left alone: it is the user's, and cairn does not guess.
pub fn add_to_list(root: &mut Value, object: &str, list: &str, item: &str) {
    let map = root
        .as_object_mut()
        .expect("roots are objects")
        .entry(object)
        .or_insert_with(|| json!({}));
    let Some(map) = map.as_object_mut() else {
        return;
    };
    if let Some(items) = map.entry(list).or_insert_with(|| json!([])).as_array_mut()
        && !items.iter().any(|existing| existing == item)
    {
        items.push(json!(item));
    }
}

/// Removes `item` from the list `root[object][list]`, then the list and the object when that
/// leaves them empty.
pub fn remove_from_list(root: &mut Value, object: &str, list: &str, item: &str) {
    let root = root.as_object_mut().expect("roots are objects");
    let Some(map) = root.get_mut(object).and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(items) = map.get_mut(list).and_then(Value::as_array_mut) {
        items.retain(|existing| existing != item);
        if items.is_empty() {
            map.remove(list);
        }
    }
    if map.is_empty() {
        root.remove(object);
    }
}

const BLOCK_BEGIN: &str = "<!-- cairn:memory-protocol:begin -->";
const BLOCK_END: &str = "<!-- cairn:memory-protocol:end -->";

/// `text` with the marked protocol block set to `body` (added at the end, or replaced in
/// place), or removed when `body` is `None`, together with the blank line setup put before it.
pub fn with_block(text: &str, body: Option<&str>) -> String {
    let block = body.map(|body| format!("{BLOCK_BEGIN}\n{}\n{BLOCK_END}\n", body.trim_end()));
    if let (Some(start), Some(end)) = (text.find(BLOCK_BEGIN), text.find(BLOCK_END))
        && start < end
    {
        let mut end = end + BLOCK_END.len();
        if text[end..].starts_with('\n') {
            end += 1;
        }
        return match block {
            Some(block) => format!("{}{block}{}", &text[..start], &text[end..]),
            None => {
                let mut before = text[..start].to_string();
                if before.ends_with("\n\n") {
                    before.pop();
                }
                format!("{before}{}", &text[end..])
            }
        };
    }
    match block {
        None => text.to_string(),
        Some(block) if text.is_empty() => block,
        Some(block) if text.ends_with('\n') => format!("{text}\n{block}"),
        Some(block) => format!("{text}\n\n{block}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_that_is_undone_leaves_the_json_bytes_as_they_were() {
        for original in [
            "{\n    \"theme\": \"dark\",\n    \"n\": [\n        1\n    ]\n}",
            "{\n\t\"theme\": \"dark\"\n}\n",
            "{\"theme\":\"dark\",\"n\":[1]}",
        ] {
            let value: Value = serde_json::from_str(original).unwrap();
            assert_eq!(render_like(Some(original), &value), original);
            let mut edited = value.clone();
            set_entry(
                &mut edited,
                "mcpServers",
                "cairn",
                json!({"command": "cairn"}),
            );
            let written = render_like(Some(original), &edited);
            let mut undone: Value = serde_json::from_str(&written).unwrap();
            remove_entry(&mut undone, "mcpServers", "cairn");
            assert_eq!(render_like(Some(&written), &undone), original);
        }
        assert_eq!(render_like(None, &json!({"a": 1})), "{\n  \"a\": 1\n}\n");
    }

    #[test]
    fn a_list_item_is_added_once_and_removed_with_the_containers_it_emptied() {
        let mut settings = json!({"permissions": {"allow": ["Bash(ls:*)"]}});
        add_to_list(&mut settings, "permissions", "allow", "mcp__cairn");
        add_to_list(&mut settings, "permissions", "allow", "mcp__cairn");
        assert_eq!(
            settings,
            json!({"permissions": {"allow": ["Bash(ls:*)", "mcp__cairn"]}})
        );
        remove_from_list(&mut settings, "permissions", "allow", "mcp__cairn");
        assert_eq!(settings, json!({"permissions": {"allow": ["Bash(ls:*)"]}}));
        let mut fresh = json!({"theme": "dark"});
        add_to_list(&mut fresh, "permissions", "allow", "mcp__cairn");
        remove_from_list(&mut fresh, "permissions", "allow", "mcp__cairn");
        assert_eq!(fresh, json!({"theme": "dark"}));
        // A value of another shape is the user's: left as it is.
        let mut odd = json!({"permissions": {"allow": "everything"}});
        add_to_list(&mut odd, "permissions", "allow", "mcp__cairn");
        assert_eq!(odd, json!({"permissions": {"allow": "everything"}}));
    }

    #[test]
    fn a_block_is_added_replaced_and_removed_leaving_the_text_as_it_was() {
        let original = "# My rules\n\nBe terse.\n";
        let added = with_block(original, Some("protocol v1"));
        assert!(added.starts_with(original) && added.contains("protocol v1"));
        let replaced = with_block(&added, Some("protocol v2"));
        assert!(!replaced.contains("v1") && replaced.contains("protocol v2"));
        assert_eq!(with_block(&replaced, Some("protocol v2")), replaced);
        assert_eq!(with_block(&replaced, None), original);
        assert_eq!(with_block("", None), "");
        assert_eq!(with_block(&with_block("", Some("p")), None), "");
    }
}
