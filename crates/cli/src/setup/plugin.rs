//! cairn's Claude Code plugin: `plugins/cairn/` in the repository, listed by the marketplace
//! `.claude-plugin/marketplace.json` at its root, so that `claude plugin marketplace add
//! cairn-memory/cairn` and `claude plugin install cairn@cairn` give what `cairn setup
//! claude-code` gives — the hooks, the MCP server, the memory skill and cairn's tools allowed
//! without a prompt — without cairn editing any of the user's files.
//!
//! The plugin's files are rendered here ([`files`], for the test that holds the repository's
//! copies equal to them) from setup's own definitions: the events, the hook timeout, the
//! protocol, the version. Differences from setup:
//! - the plugin runs the `cairn` on PATH; when there is none its hook says how to get it, once
//!   per session, and exits 0 — a missing cairn never blocks the agent;
//! - Claude Code names a plugin's MCP tools `mcp__plugin_<plugin>_<server>__*`, so cairn's are
//!   [`TOOL_PREFIX`]`*`; the hooks run with `--plugin` so what they tell the model names them so;
//! - a plugin cannot add a permission rule, so a `PreToolUse` hook matching only cairn's tools
//!   allows them (setup's rule `mcp__cairn` does the same).
//!
//! Setup and the plugin exclude each other: [`enabled`] is how setup finds the plugin (and
//! refuses), `claude_hooks_installed` how the plugin's hooks find setup's (and do nothing).

use serde_json::Value;

/// The plugin's name, and its marketplace's.
pub const NAME: &str = "cairn";

/// What Claude Code prefixes the tools of the plugin's MCP server `cairn` with.
pub const TOOL_PREFIX: &str = "mcp__plugin_cairn_cairn__";

/// The plugin's id (`cairn@<marketplace>`) when Claude Code's user settings enable it.
pub fn enabled(settings: &Value) -> Option<String> {
    settings["enabledPlugins"]
        .as_object()?
        .iter()
        .find(|(id, on)| id.split('@').next() == Some(NAME) && on.as_bool() == Some(true))
        .map(|(id, _)| id.clone())
}

#[cfg(test)]
pub use render::files;

#[cfg(test)]
mod render {
    use serde_json::{Value, json};

    use super::{NAME, TOOL_PREFIX};
    use crate::args::AgentArg;
    use crate::setup::PROTOCOL;
    use crate::setup::claude::{self, EVENTS, SKILL_HEADER};
    use crate::setup::edit::hook_timeout_secs;

    /// Each file of `plugins/cairn/` (path inside the plugin, contents), and the marketplace
    /// (path from the repository's root, `../../` of the plugin).
    pub fn files() -> Vec<(&'static str, String)> {
        vec![
            (
                "../../.claude-plugin/marketplace.json",
                pretty(&marketplace()),
            ),
            (".claude-plugin/plugin.json", pretty(&manifest())),
            ("hooks/hooks.json", pretty(&hooks())),
            ("hooks/run-cairn.sh", RUN_CAIRN.to_string()),
            (
                ".mcp.json",
                pretty(&json!({"mcpServers": {"cairn": {"command": "cairn", "args": ["mcp"]}}})),
            ),
            (
                "skills/cairn-memory/SKILL.md",
                format!(
                    "{SKILL_HEADER}{}",
                    PROTOCOL.replace(claude::TOOL_PREFIX, TOOL_PREFIX)
                ),
            ),
        ]
    }

    const DESCRIPTION: &str = "Persistent, local-first memory for Claude Code: sessions \
        recorded, context injected at the start, and cairn's MCP tools to store and search \
        what was learned. Needs the cairn binary on PATH.";

    fn marketplace() -> Value {
        json!({
            "name": NAME,
            "owner": {"name": "the cairn developers"},
            "metadata": {"description": "cairn, persistent memory for AI coding agents"},
            "plugins": [{
                "name": NAME,
                "source": "./plugins/cairn",
                "description": DESCRIPTION,
                "version": env!("CARGO_PKG_VERSION"),
            }],
        })
    }

    fn manifest() -> Value {
        json!({
            "name": NAME,
            "version": env!("CARGO_PKG_VERSION"),
            "description": DESCRIPTION,
            "author": {"name": "the cairn developers"},
            "homepage": env!("CARGO_PKG_REPOSITORY"),
            "repository": env!("CARGO_PKG_REPOSITORY"),
            "license": env!("CARGO_PKG_LICENSE"),
            "keywords": ["memory", "mcp", "agents", "sqlite", "local-first"],
        })
    }

    fn hooks() -> Value {
        let mut hooks = serde_json::Map::new();
        for event in EVENTS {
            let command = format!("sh \"${{CLAUDE_PLUGIN_ROOT}}/hooks/run-cairn.sh\" {event}");
            let timeout = hook_timeout_secs(AgentArg::ClaudeCode, event);
            hooks.insert(
                event.to_string(),
                json!([{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]),
            );
        }
        let allow = json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "the cairn plugin allows its memory tools",
        }});
        hooks.insert(
            "PreToolUse".into(),
            json!([{
                "matcher": format!("{TOOL_PREFIX}.*"),
                "hooks": [{"type": "command", "command": format!("echo '{allow}'"), "timeout": 5}],
            }]),
        );
        json!({
            "description": "cairn records the session and injects its context; cairn's own MCP tools run without a prompt",
            "hooks": hooks,
        })
    }

    fn pretty(value: &Value) -> String {
        let mut text = serde_json::to_string_pretty(value).expect("JSON values serialise");
        text.push('\n');
        text
    }

    const RUN_CAIRN: &str = r#"#!/bin/sh
# cairn's Claude Code plugin: every hook runs `cairn hook claude-code EVENT --plugin` with the
# event Claude Code sends on stdin. Without cairn on PATH it says how to get it (into the
# session's context at its start, to stderr otherwise) and exits 0: a missing cairn never
# blocks the agent.
if command -v cairn >/dev/null 2>&1; then
    exec cairn hook claude-code "$1" --plugin
fi
cat >/dev/null
message="cairn is not on PATH, so this session has no memory: install it (https://github.com/cairn-memory/cairn#install) and start a new session"
if [ "$1" = SessionStart ]; then
    echo "$message"
else
    echo "$message" >&2
fi
exit 0
"#;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    /// The repository's plugin is what cairn renders; `CAIRN_WRITE_PLUGIN=1` writes it.
    #[test]
    fn the_repository_plugin_is_the_rendered_one() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/cairn");
        let write = std::env::var_os("CAIRN_WRITE_PLUGIN").is_some();
        let mut stale = Vec::new();
        for (path, rendered) in super::files() {
            let path = root.join(path);
            if write {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &rendered).unwrap();
            }
            if std::fs::read_to_string(&path).ok().as_deref() != Some(rendered.as_str()) {
                stale.push(path.display().to_string());
            }
        }
        assert!(
            stale.is_empty(),
            "the plugin's files differ from what cairn renders: {stale:?}; run this test with \
             CAIRN_WRITE_PLUGIN=1 to write them"
        );
    }

    #[test]
    fn only_an_enabled_cairn_plugin_counts() {
        let enabled = |settings| super::enabled(&settings);
        assert_eq!(
            enabled(json!({"enabledPlugins": {"other@x": true, "cairn@cairn": true}})).as_deref(),
            Some("cairn@cairn")
        );
        assert_eq!(
            enabled(json!({"enabledPlugins": {"cairn@cairn": false}})),
            None
        );
        assert_eq!(
            enabled(json!({"enabledPlugins": {"cairnish@x": true}})),
            None
        );
        assert_eq!(enabled(json!({})), None);
    }
}
