//! Codex: hooks in `~/.codex/hooks.json` (Claude Code's shape), the MCP server as
//! `[mcp_servers.cairn]` in `~/.codex/config.toml` (edited in place, comments and order kept),
//! and the protocol as a marked block in `~/.codex/AGENTS.md`.
//!
//! Codex starts an MCP server with a short allow-list of the environment (PATH, HOME, …), so
//! the server entry names the variables cairn reads ([`PASSED_ENV`]) for Codex to pass through
//! (`env_vars`): without them `cairn mcp` would not find a model kept under `HF_HUB_CACHE` and
//! would search by keyword only.
//!
//! Codex runs a hook only once the user has trusted it: the next time it starts it asks to
//! review new hooks, and records each trusted one in `config.toml` as
//! `[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`. Setup says so ([`NOTICE`]);
//! uninstall removes the trust records of cairn's hooks with the hooks.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item, Table, value};

use super::edit::{JsonFile, add_hooks, remove_hooks, with_block};
use super::{Change, Target, is_cairn_hook, read, unless_emptied};
use crate::args::AgentArg;

pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PreCompact",
    "Stop",
    "SessionEnd",
];

/// The environment variables Codex passes to `cairn mcp` when they are set: where the models
/// are, whether each is on, and which configuration and project apply.
pub const PASSED_ENV: &[&str] = &[
    "HF_HOME",
    "HF_HUB_CACHE",
    "CAIRN_CONFIG",
    "CAIRN_PROJECT",
    "CAIRN_MODEL_DIR",
    "CAIRN_EMBEDDING",
    "CAIRN_OCR_DIR",
    "CAIRN_OCR",
    "CAIRN_LOOK_DIR",
    "CAIRN_LOOK",
    "CAIRN_CLIP_DIR",
    "CAIRN_CLIP",
];

/// What a user must do before Codex runs the hooks setup installed.
pub const NOTICE: &str = "Codex runs new hooks only once you trust them: the next time you start \
codex it asks you to review them; trust cairn's. (`codex exec` runs untrusted hooks only with \
--dangerously-bypass-hook-trust.)";

pub fn plan(target: &Target, uninstall: bool) -> Result<Vec<Change>> {
    let dir = target.home.join(".codex");
    let hooks_path = dir.join("hooks.json");
    let mut hooks = JsonFile::load(&hooks_path)?;
    let trusted = trust_keys(&hooks_path, &hooks.value);
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
    if uninstall {
        remove_trust(&mut config, &trusted);
    }
    let config_after = unless_emptied(&config_path, config_before.as_deref(), config.to_string());

    let agents_path = dir.join("AGENTS.md");
    let agents_before = read(&agents_path)?;
    let agents_after = with_block(
        agents_before.as_deref().unwrap_or(""),
        (!uninstall).then_some(target.protocol()),
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
            empty_parents: 0,
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
            empty_parents: 0,
        },
    ])
}

/// Whether Codex has trusted cairn's hooks in `home`: `None` when none are installed, else
/// whether its config records trust in every one of them (Codex runs none it has not trusted).
pub fn hooks_trusted(home: &Path) -> Result<Option<bool>> {
    let hooks_path = home.join(".codex/hooks.json");
    let hooks = JsonFile::load(&hooks_path)?;
    let keys = trust_keys(&hooks_path, &hooks.value);
    if keys.is_empty() {
        return Ok(None);
    }
    let config: DocumentMut = read(&home.join(".codex/config.toml"))?
        .unwrap_or_default()
        .parse()
        .unwrap_or_default();
    let state = config
        .get("hooks")
        .and_then(|hooks| hooks.get("state"))
        .and_then(Item::as_table_like);
    Ok(Some(state.is_some_and(|state| {
        keys.iter().all(|key| state.contains_key(key))
    })))
}

/// The keys under which Codex records its trust in each of cairn's hooks in `hooks`.
fn trust_keys(hooks_path: &Path, hooks: &Value) -> Vec<String> {
    let mut keys = Vec::new();
    for (event, groups) in hooks["hooks"].as_object().into_iter().flatten() {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let command = handler["command"].as_str().unwrap_or_default();
                if is_cairn_hook(command, AgentArg::Codex) {
                    keys.push(format!(
                        "{}:{}:{g}:{h}",
                        hooks_path.display(),
                        snake_case(event)
                    ));
                }
            }
        }
    }
    keys
}

/// `SessionStart` → `session_start`: Codex's name for an event in its trust records.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Removes the trust records `keys` from `[hooks.state]`, and the tables they leave empty.
fn remove_trust(config: &mut DocumentMut, keys: &[String]) {
    let Some(hooks) = config.get_mut("hooks").and_then(Item::as_table_mut) else {
        return;
    };
    if let Some(state) = hooks.get_mut("state").and_then(Item::as_table_mut) {
        for key in keys {
            state.remove(key);
        }
        if state.is_empty() {
            hooks.remove("state");
        }
    }
    if hooks.is_empty() {
        config.remove("hooks");
    }
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
    let wanted_args = target.mcp_args();
    let mut args = Array::new();
    for arg in &wanted_args {
        args.push(arg.as_str());
    }
    let wanted_command = target.exe.as_str();
    let same = |item: Option<&Item>, wanted: &[&str]| {
        item.and_then(Item::as_array).is_some_and(|a| {
            a.iter()
                .map(|v| v.as_str())
                .eq(wanted.iter().map(|w| Some(*w)))
        })
    };
    let current = servers.get("cairn").and_then(Item::as_table);
    let wanted_arg_strs: Vec<&str> = wanted_args.iter().map(String::as_str).collect();
    let up_to_date = current.is_some_and(|t| {
        t.get("command").and_then(Item::as_str) == Some(wanted_command)
            && same(t.get("args"), &wanted_arg_strs)
            && same(t.get("env_vars"), PASSED_ENV)
    });
    if up_to_date {
        return;
    }
    let mut passed = Array::new();
    for name in PASSED_ENV {
        passed.push(*name);
    }
    let mut server = Table::new();
    server.insert("command", value(wanted_command));
    server.insert("args", value(args));
    server.insert("env_vars", value(passed));
    servers.insert("cairn", Item::Table(server));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Setup aimed at `home`, running an installed cairn.
    fn target_in(home: &Path) -> Target {
        Target {
            home: home.to_path_buf(),
            exe: "/usr/local/bin/cairn".into(),
            leading_args: Vec::new(),
            tools: None,
        }
    }

    #[test]
    fn uninstall_removes_codexs_trust_in_cairns_hooks_and_only_that() {
        let home = tempfile::tempdir().unwrap();
        let target = target_in(home.path());
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        for change in plan(&target, false).unwrap() {
            std::fs::write(&change.path, change.after.unwrap()).unwrap();
        }
        // Codex, once the user trusted the hooks (the shape Codex 0.169 writes), and a hook
        // of the user's own beside cairn's.
        let hooks_path = home.path().join(".codex/hooks.json");
        let mut hooks: Value =
            serde_json::from_str(&std::fs::read_to_string(&hooks_path).unwrap()).unwrap();
        hooks["hooks"]["Stop"].as_array_mut().unwrap().insert(
            0,
            serde_json::json!({"hooks": [{"type": "command", "command": "notify-send done"}]}),
        );
        std::fs::write(&hooks_path, hooks.to_string()).unwrap();
        let config_path = home.path().join(".codex/config.toml");
        let mut config = std::fs::read_to_string(&config_path).unwrap();
        let hooks_file = hooks_path.display();
        config.push_str(&format!(
            "\n[hooks.state]\n\n[hooks.state.\"{hooks_file}:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n\n\
             [hooks.state.\"{hooks_file}:stop:1:0\"]\ntrusted_hash = \"sha256:bb\"\n\n\
             [hooks.state.\"{hooks_file}:session_start:0:0\"]\ntrusted_hash = \"sha256:cc\"\n"
        ));
        std::fs::write(&config_path, config).unwrap();

        let changes = plan(&target, true).unwrap();
        let config = changes.iter().find(|c| c.path == config_path).unwrap();
        let after = config.after.as_deref().unwrap();
        assert!(!after.contains("mcp_servers"), "{after}");
        assert!(
            after.contains(":stop:0:0") && after.contains("sha256:aa"),
            "{after}"
        );
        assert!(!after.contains(":stop:1:0"), "{after}");
        assert!(!after.contains("session_start"), "{after}");
    }

    #[test]
    fn the_mcp_server_is_passed_the_variables_that_locate_the_model() {
        let home = tempfile::tempdir().unwrap();
        let target = target_in(home.path());
        let changes = plan(&target, false).unwrap();
        let config = changes
            .iter()
            .find(|c| c.path.ends_with("config.toml"))
            .unwrap();
        let config: toml_edit::DocumentMut = config.after.as_deref().unwrap().parse().unwrap();
        let passed: Vec<&str> = config["mcp_servers"]["cairn"]["env_vars"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert!(
            passed.contains(&"HF_HUB_CACHE") && passed.contains(&"CAIRN_MODEL_DIR"),
            "{passed:?}"
        );
    }

    #[test]
    fn hooks_count_as_trusted_once_codex_recorded_trust_in_every_one() {
        let home = tempfile::tempdir().unwrap();
        let target = target_in(home.path());
        assert_eq!(hooks_trusted(home.path()).unwrap(), None);
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        for change in plan(&target, false).unwrap() {
            std::fs::write(&change.path, change.after.unwrap()).unwrap();
        }
        assert_eq!(hooks_trusted(home.path()).unwrap(), Some(false));
        let hooks_path = home.path().join(".codex/hooks.json");
        let hooks: Value =
            serde_json::from_str(&std::fs::read_to_string(&hooks_path).unwrap()).unwrap();
        let keys = trust_keys(&hooks_path, &hooks);
        let config_path = home.path().join(".codex/config.toml");
        let mut config = std::fs::read_to_string(&config_path).unwrap();
        config.push_str("\n[hooks.state]\n");
        for (i, key) in keys.iter().enumerate() {
            config.push_str(&format!(
                "\n[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:{i}\"\n"
            ));
            std::fs::write(&config_path, &config).unwrap();
            // Trusted only once every one of them is.
            assert_eq!(
                hooks_trusted(home.path()).unwrap(),
                Some(i + 1 == keys.len()),
                "{i}"
            );
        }
    }

    #[test]
    fn events_are_named_as_codex_names_them_in_trust_records() {
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("Stop"), "stop");
    }
}
