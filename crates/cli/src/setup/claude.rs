//! Claude Code: hooks in `~/.claude/settings.json`, with a permission rule there for cairn's
//! MCP tools (a headless `claude -p` denies any tool no rule allows), the MCP server in
//! `~/.claude.json` (where `claude mcp add --scope user` puts it), and the protocol as the skill
//! `~/.claude/skills/cairn-memory/SKILL.md`.

use anyhow::{Result, bail};
use serde_json::json;

use super::edit::{
    JsonFile, add_hooks, add_to_list, remove_entry, remove_from_list, remove_hooks, set_entry,
};
use super::{Change, Target, owned_file, plugin};
use crate::args::AgentArg;

/// The events cairn records. PreToolUse is left out: it records nothing that PostToolUse does
/// not, and would cost a process start before every tool call.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "PreCompact",
    "SubagentStop",
    "Stop",
    "SessionEnd",
    "Notification",
];

/// The permission rule allowing every tool of the MCP server named `cairn`, without a prompt.
pub const TOOLS_RULE: &str = "mcp__cairn";

/// What Claude Code prefixes the tools of the MCP server `cairn` with (the plugin's differ:
/// [`super::plugin::TOOL_PREFIX`]).
pub const TOOL_PREFIX: &str = "mcp__cairn__";

pub const SKILL_HEADER: &str = "---\nname: cairn-memory\ndescription: Persistent memory across \
sessions with cairn. Use before work that may overlap earlier work, after decisions, bug fixes, \
discoveries, configuration changes or stated preferences, when the user says \"remember\", \
before the session ends, and after the context was compacted.\n---\n\n";

pub fn plan(target: &Target, uninstall: bool) -> Result<Vec<Change>> {
    let settings_path = target.home.join(".claude/settings.json");
    let mut settings = JsonFile::load(&settings_path)?;
    if let Some(plugin) = plugin::enabled(&settings.value).filter(|_| !uninstall) {
        bail!(
            "Claude Code already runs cairn through its plugin {plugin} (enabled in {}): its \
             hooks, MCP server and skill are installed, and setting up as well would run every \
             hook twice. To use setup instead, run `claude plugin uninstall {plugin}` first",
            settings_path.display()
        );
    }
    let state_path = target.home.join(".claude.json");
    let mut state = JsonFile::load(&state_path)?;
    if uninstall {
        remove_hooks(&mut settings.value, AgentArg::ClaudeCode);
        remove_from_list(&mut settings.value, "permissions", "allow", TOOLS_RULE);
        remove_entry(&mut state.value, "mcpServers", "cairn");
    } else {
        add_hooks(&mut settings.value, target, AgentArg::ClaudeCode, EVENTS);
        add_to_list(&mut settings.value, "permissions", "allow", TOOLS_RULE);
        set_entry(
            &mut state.value,
            "mcpServers",
            "cairn",
            json!({ "type": "stdio", "command": target.exe, "args": target.mcp_args(), "env": {} }),
        );
    }
    let hooks_what = if uninstall {
        format!("remove cairn's hooks and the permission rule {TOOLS_RULE}")
    } else {
        format!(
            "hooks for {}; permission rule {TOOLS_RULE} (cairn's MCP tools run without a prompt)",
            EVENTS.join(", ")
        )
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
            format!("{SKILL_HEADER}{}", target.protocol()),
            "the memory protocol skill",
            uninstall,
            2,
        )?,
    ])
}
