//! What setup left in a home, read back: which agents run cairn's hooks, and whether Codex
//! trusts them yet — so that a command with nothing recorded (`cairn sessions`) can say why,
//! instead of advising a setup that was already done.

use std::path::Path;

use super::edit::{JsonFile, has_cairn_hook};
use super::{codex, plugin};
use crate::args::AgentArg;

/// Whether `cairn setup claude-code` installed cairn's hooks in this user's Claude Code
/// settings (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`).
pub fn claude_hooks_installed() -> bool {
    let settings = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => Path::new(&dir).join("settings.json"),
        None => match dirs::home_dir() {
            Some(home) => home.join(".claude/settings.json"),
            None => return false,
        },
    };
    JsonFile::load(&settings).is_ok_and(|file| has_cairn_hook(&file.value, AgentArg::ClaudeCode))
}

/// Why no session may have been recorded, as one line of advice.
pub fn hooks_advice(home: &Path) -> String {
    let mut running = Vec::new();
    let claude = JsonFile::load(&home.join(".claude/settings.json"));
    if claude.is_ok_and(|file| {
        has_cairn_hook(&file.value, AgentArg::ClaudeCode) || plugin::enabled(&file.value).is_some()
    }) {
        running.push(AgentArg::ClaudeCode.name());
    }
    if home.join(".config/opencode/plugin/cairn.ts").is_file() {
        running.push(AgentArg::Opencode.name());
    }
    match codex::hooks_trusted(home) {
        Ok(Some(true)) => running.push(AgentArg::Codex.name()),
        Ok(Some(false)) => {
            return "Codex has cairn's hooks but does not trust them yet: start `codex`, review \
                    the hooks it lists and trust cairn's (until then they do not run)"
                .into();
        }
        Ok(None) | Err(_) => {}
    }
    match running.is_empty() {
        true => "no agent runs cairn's hooks: install them with `cairn setup <agent>`".into(),
        false => format!(
            "cairn's hooks are installed for {}; a session appears here once an agent runs in \
             this project",
            running.join(", ")
        ),
    }
}
