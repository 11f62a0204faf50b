//! Codex: hooks in `~/.codex/hooks.json` (Claude Code's shape), the MCP server as
//! `[mcp_servers.cairn]` in `~/.codex/config.toml` (edited in place, comments and order kept),
//! and the protocol as a marked block in `~/.codex/AGENTS.md`.

use anyhow::{Context, Result};
use toml_edit::{Array, DocumentMut, Item, Table, value};

use super::edit::{JsonFile, add_hooks, remove_hooks, with_block};
use super::{Change, PROTOCOL, Target, read, unless_emptied};
use crate::args::AgentArg;

pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PreCompact",
    "Stop",
    "SessionEnd",
];

pub fn plan(target: &Target, uninstall: bool) -> Result<Vec<Change>> {
    let dir = target.home.join(".codex");
    let hooks_path = dir.join("hooks.json");
    let mut hooks = JsonFile::load(&hooks_path)?;
    if uninstall {
        remove_hooks(&mut hooks.value, AgentArg::Codex);
    } else {
        add_hooks(&mut hooks.value, target, AgentArg::Codex, EVENTS);
    }
    let hooks_what = if uninstall {
        "remove cairn's hooks".to_string()
    } else {
        format!("hooks for {}", EVENTS.join(", "))
    };

    let config_path = dir.join("config.toml");
    let config_before = read(&config_path)?;
    let mut config: DocumentMut = config_before
        .as_deref()
        .unwrap_or("")
        .parse()
        .with_context(|| {
            format!(
                "{} is not valid TOML; fix it first (cairn never overwrites a file it cannot read)",
                config_path.display()
            )
        })?;
    set_mcp_server(&mut config, target, uninstall);
    let config_after = unless_emptied(&config_path, config_before.as_deref(), config.to_string());

    let agents_path = dir.join("AGENTS.md");
    let agents_before = read(&agents_path)?;
    let agents_after = with_block(
        agents_before.as_deref().unwrap_or(""),
        (!uninstall).then_some(PROTOCOL),
    );
    let agents_after = unless_emptied(&agents_path, agents_before.as_deref(), agents_after);
    Ok(vec![
        hooks.change(&hooks_path, hooks_what),
        Change {
            path: config_path,
            what: if uninstall {
                "remove [mcp_servers.cairn]".into()
            } else {
                "[mcp_servers.cairn] (cairn mcp)".into()
            },
            before: config_before,
            after: config_after,
            own_directory: false,
        },
        Change {
            path: agents_path,
            what: if uninstall {
                "remove the memory protocol block".into()
            } else {
                "the memory protocol (a marked block)".into()
            },
            before: agents_before,
            after: agents_after,
            own_directory: false,
        },
    ])
}

fn set_mcp_server(config: &mut DocumentMut, target: &Target, uninstall: bool) {
    if uninstall {
        if let Some(servers) = config.get_mut("mcp_servers").and_then(Item::as_table_mut) {
            servers.remove("cairn");
            if servers.is_empty() {
                config.remove("mcp_servers");
            }
        }
        return;
    }
    let servers = config
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut();
    let Some(servers) = servers else { return };
    let wanted_args = target.args(["mcp"]);
    let mut args = Array::new();
    for arg in &wanted_args {
        args.push(arg.as_str());
    }
    let wanted_command = target.exe.as_str();
    let current = servers.get("cairn").and_then(Item::as_table);
    let up_to_date = current.is_some_and(|t| {
        t.get("command").and_then(Item::as_str) == Some(wanted_command)
            && t.get("args").and_then(Item::as_array).is_some_and(|a| {
                a.iter()
                    .map(|v| v.as_str())
                    .eq(wanted_args.iter().map(|w| Some(w.as_str())))
            })
    });
    if up_to_date {
        return;
    }
    let mut server = Table::new();
    server.insert("command", value(wanted_command));
    server.insert("args", value(args));
    servers.insert("cairn", Item::Table(server));
}
