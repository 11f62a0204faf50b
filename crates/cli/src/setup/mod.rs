//! `cairn setup <agent> [--dry-run] [--uninstall]`: install cairn into an agent's own
//! configuration — hooks, the MCP server entry and the memory protocol.
//!
//! Each agent module ([`claude`], [`codex`], [`opencode`]) plans its changes as whole new file
//! contents ([`Change`]), computed from what is on disk now; nothing is written while planning.
//! The rules that make setup safe to run on a configured machine:
//! - **merge, never clobber**: a JSON or TOML file is parsed and only cairn's own entries are
//!   added or replaced; a file that does not parse is an error naming it, and nothing is written;
//! - **idempotent**: planning against an installed setup yields no change;
//! - **backed up**: a file that exists is copied to `<file>.cairn-backup` before it changes;
//! - **exact uninstall**: cairn's entries are recognised by the command `cairn … hook <agent>`,
//!   the server name `cairn` and the marked protocol block; uninstall removes those (and the
//!   containers that only held them), and files that only cairn wrote. When what is left says
//!   the same as the backup (nothing else changed since), the backup's own bytes are written
//!   back, so a hand-formatted file comes back as it was; uninstall leaves no backup, and the
//!   directories that held only cairn's files (`skills/cairn-memory`, and `skills/` or
//!   `plugin/` when that left them empty) go too.
//!
//! [`hooks_advice`] reads an installed setup back, for commands that find nothing recorded.

pub mod claude;
mod codex;
mod edit;
mod installed;
mod opencode;
pub mod plugin;

pub use installed::{claude_hooks_installed, hooks_advice};

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::args::{AgentArg, Cli, Format, SetupArgs, ToolsArg};
use crate::history::{Histories, default_location};
use crate::outcome::Outcome;

/// The memory protocol every agent is taught.
pub const PROTOCOL: &str = include_str!("protocol.md");

/// The same protocol naming engram's tools, for an agent whose cairn server offers engram's
/// profile (`--tools engram`).
pub const ENGRAM_PROTOCOL: &str = include_str!("protocol_engram.md");

/// Where setup works and what the hooks run.
pub struct Target {
    pub home: PathBuf,
    /// The cairn binary the agent should run (this one).
    pub exe: String,
    /// Arguments before the subcommand: `--db PATH` when setup was given one, so the agent
    /// uses the same store.
    pub leading_args: Vec<String>,
    /// The MCP tool profile the agent gets; `None`: cairn's default.
    pub tools: Option<ToolsArg>,
}

impl Target {
    /// The arguments of `cairn … <subcommand…>`, after the program.
    pub fn args<'a>(&self, subcommand: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut args = self.leading_args.clone();
        args.extend(subcommand.into_iter().map(String::from));
        args
    }

    /// `--tools PROFILE` when a profile was chosen: the MCP server and the hooks take it alike,
    /// so what the hooks tell the agent names the tools its server offers.
    pub fn tools_args(&self) -> Vec<String> {
        self.tools
            .map(|tools| vec!["--tools".to_string(), tools.name().to_string()])
            .unwrap_or_default()
    }

    /// The arguments of `cairn … mcp [--tools PROFILE]`, after the program.
    pub fn mcp_args(&self) -> Vec<String> {
        let mut args = self.args(["mcp"]);
        args.extend(self.tools_args());
        args
    }

    /// The memory protocol the agent is taught: it names the tools its server offers.
    pub fn protocol(&self) -> &'static str {
        match self.tools {
            Some(ToolsArg::Engram) => ENGRAM_PROTOCOL,
            _ => PROTOCOL,
        }
    }
}

/// The MCP server `name` in `agent`'s configuration in `home`: the file that holds it and its
/// arguments (OpenCode's `command` after the program). OpenCode's `opencode.jsonc` (JSON with
/// comments) is not parsed: it is only searched for the server's name, and no arguments are
/// read from it.
fn mcp_server(agent: AgentArg, home: &Path, name: &str) -> Option<(PathBuf, Vec<String>)> {
    let strings = |value: Option<&serde_json::Value>| -> Vec<String> {
        let items = value
            .and_then(|v| v.as_array())
            .cloned()
            .unwrap_or_default();
        items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let json = |path: &Path| -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    match agent {
        AgentArg::ClaudeCode => {
            let path = home.join(".claude.json");
            let server = json(&path)?["mcpServers"].get(name)?.clone();
            Some((path, strings(server.get("args"))))
        }
        AgentArg::Codex => {
            let path = home.join(".codex/config.toml");
            let config: toml_edit::DocumentMut =
                std::fs::read_to_string(&path).ok()?.parse().ok()?;
            let server = config.get("mcp_servers")?.get(name)?;
            let args = server
                .get("args")
                .and_then(|args| args.as_array())
                .map(|args| args.iter().filter_map(|a| a.as_str().map(str::to_string)))
                .map(Iterator::collect)
                .unwrap_or_default();
            Some((path, args))
        }
        AgentArg::Opencode => {
            let dir = home.join(".config/opencode");
            let path = dir.join("opencode.json");
            if let Some(server) = json(&path).and_then(|config| config["mcp"].get(name).cloned()) {
                let mut command = strings(server.get("command"));
                command.drain(..command.len().min(1));
                return Some((path, command));
            }
            let path = dir.join("opencode.jsonc");
            let text = std::fs::read_to_string(&path).ok()?;
            text.contains(&format!("\"{name}\""))
                .then_some((path, Vec::new()))
        }
    }
}

/// Where `agent`'s configuration in `home` already runs engram (its MCP server named `engram`,
/// or in Claude Code its plugin): setup then offers engram's tool names, so engram's protocol
/// and skills call cairn.
pub fn engram_config(agent: AgentArg, home: &Path) -> Option<PathBuf> {
    if let Some((path, _)) = mcp_server(agent, home, "engram") {
        return Some(path);
    }
    let settings = home.join(".claude/settings.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).ok()?).ok()?;
    let plugin_on = value["enabledPlugins"].as_object().is_some_and(|plugins| {
        plugins
            .iter()
            .any(|(name, on)| name.starts_with("engram@") && on == true)
    });
    (agent == AgentArg::ClaudeCode && plugin_on).then_some(settings)
}

/// The tool profile cairn's MCP server is installed with in `agent`'s configuration now (its
/// `--tools`), so running setup again keeps it.
fn installed_tools(agent: AgentArg, home: &Path) -> Option<ToolsArg> {
    let (_, args) = mcp_server(agent, home, "cairn")?;
    let at = args.iter().position(|arg| arg == "--tools")?;
    clap::ValueEnum::from_str(args.get(at + 1)?, false).ok()
}

/// `--db PATH` when setup was pointed at a store (`--db`, `CAIRN_DB` or `CAIRN_HOME`), so the
/// agent's hooks and MCP server use that store whatever their own environment says; nothing
/// when setup uses the default store (the agent finds it the same way).
fn store_args(cli: &Cli) -> Result<Vec<String>> {
    let pointed = cli.db.is_some()
        || ["CAIRN_DB", "CAIRN_HOME"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
    if !pointed {
        return Ok(Vec::new());
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let db = crate::app::load_config(cli, &cwd)?.database_path()?;
    Ok(vec![
        "--db".to_string(),
        std::path::absolute(&db)?.display().to_string(),
    ])
}

/// One file's new state.
#[derive(Debug, Serialize)]
pub struct Change {
    pub path: PathBuf,
    /// What changes, for people.
    pub what: String,
    #[serde(skip)]
    pub before: Option<String>,
    /// `None` deletes the file.
    #[serde(skip)]
    pub after: Option<String>,
    /// How many of the file's directories, from its own up, are removed with it when that
    /// leaves them empty (those setup creates for cairn's files: `skills/cairn-memory/` and
    /// `skills/`, OpenCode's `plugin/`).
    #[serde(skip)]
    pub empty_parents: usize,
}

impl Change {
    fn action(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => "create",
            (Some(_), None) => "remove",
            _ => "update",
        }
    }
}

pub fn run(cli: &Cli, args: &SetupArgs) -> Result<Outcome> {
    let home = match &args.home {
        Some(home) => std::path::absolute(home)?,
        None => dirs::home_dir().context("no home directory is known; pass --home")?,
    };
    let exe = std::env::current_exe()
        .context("cannot tell where the cairn binary is")?
        .display()
        .to_string();
    let leading_args = store_args(cli)?;
    let engram = match args.uninstall {
        true => None,
        false => engram_config(args.agent, &home),
    };
    // Asked for, else as installed now (setup run again keeps it), else engram's names where
    // engram is configured.
    let tools = args
        .tools
        .or_else(|| installed_tools(args.agent, &home))
        .or(engram.as_ref().map(|_| ToolsArg::Engram));
    let target = Target {
        home,
        exe,
        leading_args,
        tools,
    };
    let changes = plan(&target, args.agent, args.uninstall)?;
    // The files that already hold cairn's entries (those an uninstall would change): their
    // backup, when they have one, is of the file before cairn, and stays so.
    let holding_cairn: Vec<PathBuf> = match args.uninstall {
        true => Vec::new(),
        false => plan(&target, args.agent, true)?
            .into_iter()
            .map(|change| change.path)
            .collect(),
    };
    if !args.dry_run {
        for change in &changes {
            apply(change, args.uninstall, holding_cairn.contains(&change.path))?;
        }
    }
    let notice = (!args.uninstall && !changes.is_empty())
        .then(|| notice(args.agent))
        .flatten();
    // The agent's sessions from before cairn, offered for import.
    let history = match args.uninstall || args.dry_run {
        true => 0,
        false => Histories::find_at(args.agent, &default_location(args.agent, &target.home))
            .map_or(0, |found| found.len()),
    };
    if cli.format == Format::Json {
        let report = serde_json::json!({
            "agent": args.agent.name(),
            "dry_run": args.dry_run,
            "uninstall": args.uninstall,
            "notice": notice,
            "tools": tools.map(ToolsArg::name),
            "engram_found": engram,
            "sessions_before_cairn": history,
            "changes": changes.iter().map(|c| serde_json::json!({
                "path": c.path, "action": c.action(), "what": c.what,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(Outcome::Done);
    }
    let verb = if args.dry_run { "would " } else { "" };
    if changes.is_empty() {
        eprintln!(
            "{} is already {}; nothing to change",
            args.agent.name(),
            if args.uninstall {
                "free of cairn"
            } else {
                "set up"
            }
        );
    }
    for change in &changes {
        println!(
            "{verb}{} {}: {}",
            change.action(),
            change.path.display(),
            change.what
        );
    }
    if !args.dry_run && !changes.is_empty() && !args.uninstall {
        eprintln!(
            "{} now records sessions, injects context and can reach cairn's MCP tools; restart it",
            args.agent.name()
        );
    }
    if let Some(notice) = notice {
        eprintln!("{notice}");
    }
    if let Some(found) = &engram {
        eprintln!("{}", engram_notice(args.agent, found, tools));
    }
    if history > 0 {
        eprintln!(
            "found {history} {} session{} from before cairn; `cairn import --agent {}` records \
             them (add --dry-run to see what first)",
            args.agent.name(),
            if history == 1 { "" } else { "s" },
            args.agent.name()
        );
    }
    Ok(Outcome::Done)
}

/// What setup did about engram's configuration in `found`.
fn engram_notice(agent: AgentArg, found: &Path, tools: Option<ToolsArg>) -> String {
    let remove = match agent {
        AgentArg::ClaudeCode => "`claude mcp remove engram` (or `claude plugin uninstall engram`)",
        AgentArg::Codex => "its [mcp_servers.engram] table",
        AgentArg::Opencode => "its \"engram\" entry under \"mcp\"",
    };
    match tools {
        Some(ToolsArg::Engram) => format!(
            "found engram in {}: cairn's server offers engram's tools (mem_save, mem_search, \
             mem_context, …; --tools engram), so engram's protocol and skills now reach cairn. \
             Remove engram's own server ({remove}) so its tools do not answer beside cairn's. \
             `--tools core` installs cairn's own tool names instead",
            found.display()
        ),
        _ => format!(
            "found engram in {}: installed with cairn's own tool names as asked; `--tools \
             engram` would answer engram's protocol and skills instead",
            found.display()
        ),
    }
}

/// What the user still has to do in the agent itself for setup to take effect.
fn notice(agent: AgentArg) -> Option<&'static str> {
    match agent {
        AgentArg::Codex => Some(codex::NOTICE),
        AgentArg::ClaudeCode | AgentArg::Opencode => None,
    }
}

/// The changes that would set up (or remove) cairn for `agent` in `target`.
pub fn plan(target: &Target, agent: AgentArg, uninstall: bool) -> Result<Vec<Change>> {
    let mut changes = match agent {
        AgentArg::ClaudeCode => claude::plan(target, uninstall)?,
        AgentArg::Codex => codex::plan(target, uninstall)?,
        AgentArg::Opencode => opencode::plan(target, uninstall)?,
    };
    if uninstall {
        for change in &mut changes {
            if let Some(original) = restorable(change)? {
                change.after = Some(original);
            }
        }
    }
    Ok(changes
        .into_iter()
        .filter(|change| change.before != change.after)
        .collect())
}

/// The backup's text, when the file an uninstall leaves says the same thing (the same JSON
/// value; for other files, the same text): the file as it was before cairn, byte for byte.
fn restorable(change: &Change) -> Result<Option<String>> {
    let Some(after) = &change.after else {
        return Ok(None);
    };
    let Some(original) = read(&backup_path(&change.path))? else {
        return Ok(None);
    };
    let same = match change.path.extension().and_then(|e| e.to_str()) {
        Some("json") => matches!(
            (
                serde_json::from_str::<serde_json::Value>(after),
                serde_json::from_str::<serde_json::Value>(&original),
            ),
            (Ok(a), Ok(b)) if a == b
        ),
        _ => *after == original,
    };
    Ok(same.then_some(original))
}

/// Writes one change, backing up what it replaces unless that already holds cairn's entries
/// (`holds_cairn`: a setup run again with other settings keeps the backup of the file as it
/// was before cairn); an uninstall takes no backup and removes the one setup left.
fn apply(change: &Change, uninstall: bool, holds_cairn: bool) -> Result<()> {
    let path = &change.path;
    // A file that is removed is cairn's own (or was created by it): only changes to files
    // that hold other things are backed up. So a backup also marks a file that existed before
    // cairn touched it.
    if !uninstall && !holds_cairn && change.before.is_some() && change.after.is_some() {
        let backup = backup_path(path);
        std::fs::copy(path, &backup).with_context(|| {
            format!("cannot back up {} to {}", path.display(), backup.display())
        })?;
    }
    match &change.after {
        Some(text) => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            let partial = path.with_extension("cairn-partial");
            std::fs::write(&partial, text)
                .with_context(|| format!("cannot write {}", partial.display()))?;
            std::fs::rename(&partial, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            // Each stops, harmlessly, at a directory something else is in.
            for dir in path.ancestors().skip(1).take(change.empty_parents) {
                if std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
        }
    }
    if uninstall {
        let backup = backup_path(path);
        if backup.exists() {
            std::fs::remove_file(&backup)
                .with_context(|| format!("cannot remove {}", backup.display()))?;
        }
    }
    Ok(())
}

/// `<file>.cairn-backup`: the file as it was before cairn last changed it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".cairn-backup");
    path.with_file_name(name)
}

/// The file's text, or `None` when it does not exist.
fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// A text file's new content, or `None` (remove it) when nothing is left and cairn created it:
/// no backup was ever taken, so there was no file before cairn's first change.
fn unless_emptied(path: &Path, before: Option<&str>, after: String) -> Option<String> {
    if before == Some(after.as_str()) {
        Some(after)
    } else if after.trim().is_empty() && !backup_path(path).exists() {
        None
    } else {
        Some(after)
    }
}

/// The shell command that runs `cairn hook <agent> <event>`.
fn hook_command(target: &Target, agent: AgentArg, event: &str) -> String {
    let words: Vec<String> = std::iter::once(target.exe.clone())
        .chain(target.args(["hook", agent.name(), event]))
        .chain(target.tools_args())
        .map(|word| shell_quote(&word))
        .collect();
    words.join(" ")
}

/// Whether a hook command is one setup wrote for `agent`.
fn is_cairn_hook(command: &str, agent: AgentArg) -> bool {
    let command = command.trim_start();
    let program = match command.strip_prefix('\'') {
        Some(quoted) => quoted.split('\'').next().unwrap_or(""),
        None => command.split_whitespace().next().unwrap_or(""),
    };
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.starts_with("cairn") && command.contains(&format!(" hook {} ", agent.name()))
}

fn shell_quote(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A file only cairn writes: created with `content` on setup, removed on uninstall (with its
/// `empty_parents` directories, from its own up, that this leaves empty).
fn owned_file(
    path: PathBuf,
    content: String,
    what: &str,
    uninstall: bool,
    empty_parents: usize,
) -> Result<Change> {
    let before = read(&path)?;
    let after = if uninstall { None } else { Some(content) };
    let after = match (&before, after) {
        // Nothing to remove.
        (None, None) => None,
        (_, after) => after,
    };
    Ok(Change {
        what: if uninstall {
            format!("remove {what}")
        } else {
            what.to_string()
        },
        path,
        before,
        after,
        empty_parents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cairn_hooks_are_recognised_by_program_and_agent() {
        assert!(is_cairn_hook(
            "/usr/local/bin/cairn hook claude-code Stop",
            AgentArg::ClaudeCode
        ));
        assert!(is_cairn_hook(
            "'/opt/my tools/cairn' hook codex SessionStart",
            AgentArg::Codex
        ));
        assert!(!is_cairn_hook(
            "/usr/local/bin/cairn hook codex Stop",
            AgentArg::ClaudeCode
        ));
        assert!(!is_cairn_hook(
            "notify-send 'cairn hook claude-code Stop'",
            AgentArg::ClaudeCode
        ));
        assert_eq!(shell_quote("/a b/cairn"), "'/a b/cairn'");
    }
}
