//! OpenCode: the MCP server in `~/.config/opencode/opencode.json`, and cairn's plugin
//! `~/.config/opencode/plugin/cairn.ts`, which runs the hooks and merges the protocol into the
//! system prompt (see `opencode_plugin.ts`).

use anyhow::Result;
use serde_json::json;

use super::edit::{JsonFile, remove_entry, set_entry};
use super::{Change, Target, owned_file};

const PLUGIN: &str = include_str!("opencode_plugin.ts");

pub fn plan(target: &Target, uninstall: bool) -> Result<Vec<Change>> {
    let dir = target.home.join(".config/opencode");
    let config_path = dir.join("opencode.json");
    let mut config = JsonFile::load(&config_path)?;
    if uninstall {
        remove_entry(&mut config.value, "mcp", "cairn");
    } else {
        set_entry(
            &mut config.value,
            "mcp",
            "cairn",
            json!({
                "type": "local",
                "command": std::iter::once(target.exe.clone())
                    .chain(target.mcp_args())
                    .collect::<Vec<_>>(),
                "enabled": true,
            }),
        );
    }
    // Every value goes into the TypeScript as a JSON literal, so no path can break out of it.
    let plugin = PLUGIN
        .replace("\"__CAIRN_EXE__\"", &json!(target.exe).to_string())
        .replace("__CAIRN_ARGS__", &json!(target.leading_args).to_string())
        .replace(
            "__CAIRN_HOOK_ARGS__",
            &json!(target.tools_args()).to_string(),
        )
        .replace("__CAIRN_PROTOCOL__", &json!(target.protocol()).to_string());
    Ok(vec![
        config.change(
            &config_path,
            if uninstall {
                "remove the MCP server 'cairn'".into()
            } else {
                "the MCP server 'cairn' (cairn mcp)".into()
            },
        ),
        owned_file(
            dir.join("plugin/cairn.ts"),
            plugin,
            "the cairn plugin (hooks, protocol in the system prompt)",
            uninstall,
            1,
        )?,
    ])
}
