//! Claude Code: hooks in `~/.claude/settings.json`, the MCP server in `~/.claude.json` (where
//! `claude mcp add --scope user` puts it), and the protocol as the skill
//! `~/.claude/skills/cairn-memory/SKILL.md`.

use anyhow::Result;
use serde_json::json;

use super::edit::{JsonFile, add_hooks, remove_entry, remove_hooks, set_entry};
use super::{Change, PROTOCOL, Target, owned_file};
use crate::args::AgentArg;

/// The events cairn records. PreToolUse is left out: it records nothing that PostToolUse does
/// not, and would cost a process start before every tool call.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "SubagentStop",
    "Stop",
    "SessionEnd",
    "Notification",
];

const SKILL_HEADER: &str = "---\nname: cairn-memory\ndescription: Persistent memory across \
sessions with cairn. Use before work that may overlap earlier work, after decisions, bug fixes, \
discoveries, configuration changes or stated preferences, when the user says \"remember\", \
before the session ends, and after the context was compacted.\n---\n\n";

pub fn plan(target: &Target, uninstall: bool) -> Result<Vec<Change>> {
    let settings_path = target.home.join(".claude/settings.json");
    let mut settings = JsonFile::load(&settings_path)?;
    let state_path = target.home.join(".claude.json");
    let mut state = JsonFile::load(&state_path)?;
    if uninstall {
        remove_hooks(&mut settings.value, AgentArg::ClaudeCode);
        remove_entry(&mut state.value, "mcpServers", "cairn");
    } else {
        add_hooks(&mut settings.value, target, AgentArg::ClaudeCode, EVENTS);
        set_entry(
            &mut state.value,
            "mcpServers",
            "cairn",
            json!({ "type": "stdio", "command": target.exe, "args": target.args(["mcp"]), "env": {} }),
        );
    }
    let hooks_what = if uninstall {
        "remove cairn's hooks".to_string()
    } else {
        format!("hooks for {}", EVENTS.join(", "))
    };
    Ok(vec![
        settings.change(&settings_path, hooks_what),
        state.change(
            &state_path,
            if uninstall {
                "remove the MCP server 'cairn'".into()
            } else {
                "the MCP server 'cairn' (cairn mcp)".into()
            },
        ),
        owned_file(
            target.home.join(".claude/skills/cairn-memory/SKILL.md"),
            format!("{SKILL_HEADER}{PROTOCOL}"),
            "the memory protocol skill",
            uninstall,
            true,
        )?,
    ])
}
