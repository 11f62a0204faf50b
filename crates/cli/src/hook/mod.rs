//! `cairn hook <agent> <event>`: record one agent hook event, fast, and never get in the way.
//!
//! The agent runs this for each event with the event's JSON on stdin. The payload is read in
//! the agent's own shape ([`payload::claude`] for Claude Code and Codex,
//! [`payload::opencode`] for cairn's OpenCode plugin) into one [`AgentEvent`], which the
//! service records (redaction, truncation, summaries and extraction are its business).
//! Whatever happens, the command exits 0 and prints nothing but what the agent should see;
//! failures go to `logs/hooks.log` beside the database, and an event neither recorded nor
//! spooled is also said on stderr (the log may be on the same full disk):
//! - the store is opened without a model and with a short lock timeout; when it is busy (a long
//!   import, say) the event goes to the [`spool`] instead, and the next command records it;
//! - while the spool holds events, new ones join it, so events are recorded in order;
//! - with `CAIRN_HOOK_GUARD` set (cairn sets it for every process it starts), nothing happens,
//!   so a hook can never feed on itself; nor does a hook of Claude Code's plugin (`--plugin`)
//!   when `cairn setup claude-code` installed cairn's hooks too, so nothing happens twice;
//! - SessionStart reads the project's instruction files again when it follows them
//!   (`history::instructions`), then prints the context for the new session (as `additionalContext` for Claude
//!   Code and Codex, as text for OpenCode); PreCompact prints it as text before compaction,
//!   after a first line telling the agent to save its session summary before anything else
//!   (`context.compaction_instruction`, on by default);
//! - a prompt of a session that has saved nothing in its project for a while gets one line
//!   reminding it to save (`context.save_reminder_minutes`, 15 by default, 0 off).

pub mod payload;
pub mod spool;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use cairn_core::api::{Api, Caller};
use cairn_core::config::{Config, ToolProfile};
use cairn_core::context::ContextRequest;
use cairn_core::image::ImageDir;
use cairn_core::input::Bounded;
use cairn_core::project::{detect_project, project_root};
use cairn_core::session::{AgentEvent, EventKind, HOOK_GUARD_ENV, SessionKey};
use cairn_core::{ApiParts, ProjectName, Source};
use jiff::Timestamp;
use serde_json::Value;

use crate::app::load_config;
use crate::args::{AgentArg, Cli, HookArgs};
use crate::outcome::Outcome;
use crate::summarizer::summarizer_part;
use payload::Shape;
use spool::Spool;

/// The largest payload read; a larger one is refused whole (tool outputs are truncated anyway).
const MAX_PAYLOAD_BYTES: u64 = 16 << 20;
/// How long a hook waits for another process's write lock before spooling.
const LOCK_WAIT: Duration = Duration::from_millis(50);

pub fn run(cli: &Cli, args: &HookArgs) -> Result<Outcome> {
    // Read the payload even when guarded, so the agent never writes into a closed pipe.
    let read = Bounded {
        field: "payload",
        limit: MAX_PAYLOAD_BYTES,
        setting: "the most a hook reads",
    }
    .read_text(&mut std::io::stdin().lock(), "the hook payload");
    // Installed twice (the plugin, then `cairn setup claude-code` refused, or setup first and
    // the plugin after): only setup's hooks record, so nothing is recorded or injected twice.
    if std::env::var_os(HOOK_GUARD_ENV).is_some()
        || (args.plugin && crate::setup::claude_hooks_installed())
    {
        return Ok(Outcome::Done);
    }
    let config = std::env::current_dir()
        .context("cannot read the current directory")
        .and_then(|cwd| load_config(cli, &cwd));
    let outcome = config.and_then(|config| record(&config, args, &read?));
    if let Err(error) = outcome {
        if error.downcast_ref::<Lost>().is_some()
            || error.chain().any(|e| e.is::<spool::NotSpooled>())
        {
            // Neither recorded nor kept: the agent's user must hear it (the log may be on the
            // same full disk).
            eprintln!("cairn: {} {}: {error:#}", args.agent.name(), args.event);
        }
        log_failure(cli, args, &error);
    }
    Ok(Outcome::Done)
}

/// An event the store refused for what it is (not for the store's state), so spooling it
/// would only refuse it again: it is lost, and the agent's user must hear it.
#[derive(Debug)]
struct Lost;

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the event could not be recorded; it is lost")
    }
}

fn record(config: &Config, args: &HookArgs, raw: &str) -> Result<()> {
    let shape = match args.agent {
        AgentArg::ClaudeCode | AgentArg::Codex => Shape::Claude,
        AgentArg::Opencode => Shape::OpenCode,
    };
    let Some((payload, kind)) = payload::read(shape, &args.event, raw)? else {
        return Ok(());
    };
    let event = event(config, args.agent, &payload, kind)?;
    let db = config.database_path()?;
    let spool = Spool::beside(&db);
    let api = match open_api(config) {
        Ok(api) => api,
        Err(error) => {
            spool.push(&event)?;
            return Err(error.context("the store could not be opened; the event was spooled"));
        }
    };
    // files.enabled: a project's first hook starts its workspace, as any command would.
    let root = event.cwd.as_deref().map_or_else(
        || std::env::current_dir().unwrap_or_default(),
        PathBuf::from,
    );
    let caller = Caller {
        default_project: Some(event.project.clone()),
        agent: Some(args.agent.name().to_string()),
        ..Caller::local(Source::Hook)
    };
    if let Err(error) = api.start_files_if_enabled(&caller, &project_root(&root)) {
        tracing::warn!(%error, "files.enabled: the project's memory files could not be started");
    }
    let recorded = if spool.is_empty() {
        api.record_events(std::slice::from_ref(&event)).map(drop)
    } else {
        spool.push(&event)?;
        spool.drain(&api).map(drop)
    };
    match recorded {
        Ok(()) => {}
        // The event is kept for the next command: quietly when another writer held the lock
        // (Busy), reported when the store failed otherwise (a full disk: the spool may still
        // have room, and when it has not, the hook says the event is lost).
        Err(
            error @ (cairn_core::Error::Busy { .. }
            | cairn_core::Error::Storage { .. }
            | cairn_core::Error::DiskFull { .. }),
        ) => {
            if !spool.is_queued(&event) {
                spool.push(&event)?;
            }
            if !error.is_retryable() {
                return Err(
                    anyhow::Error::from(error).context("the store failed; the event was spooled")
                );
            }
            tracing::debug!(%error, "store busy; event spooled");
        }
        Err(error) if spool.is_queued(&event) => {
            return Err(anyhow::Error::from(error).context("the spool could not be drained"));
        }
        Err(error) => return Err(anyhow::Error::from(error).context(Lost)),
    }
    if api.has_images_to_read() {
        look_at_images_later(&db);
    }
    if matches!(event.kind, EventKind::SessionStart { .. }) {
        follow_instructions(&api, &caller, &event.project, &project_root(&root));
    }
    if matches!(
        event.kind,
        EventKind::SessionStart { .. } | EventKind::Compaction { .. }
    ) {
        print_context(&api, &event, args, &ToolNames::of(args, config))?;
    }
    if matches!(event.kind, EventKind::Prompt { .. }) {
        print_save_reminder(&api, &event, args, &ToolNames::of(args, config))?;
    }
    Ok(())
}

/// A project that follows its instruction files (`cairn import --instructions` started it)
/// reads them again as a session starts, so its memories of them follow the files. A failure
/// is logged: it must not cost the session its context.
fn follow_instructions(api: &Api, caller: &Caller, project: &ProjectName, root: &Path) {
    let followed = api
        .follows_instructions(caller, project)
        .and_then(|follows| {
            if !follows {
                return Ok(());
            }
            let home = dirs::home_dir().unwrap_or_default();
            let files = crate::history::instructions::instruction_files(root, &home);
            api.follow_instructions(caller, project, &files, false)
                .map(drop)
        });
    if let Err(error) = followed {
        tracing::warn!(%error, "the project's instruction files could not be read again");
    }
}

/// Starts `cairn reindex --images` on its own, so a screenshot a tool returned gets its look
/// and text (and its memory its embedding) without the agent waiting for the OCR model.
fn look_at_images_later(db: &Path) {
    crate::background::reindex(db, &["--images"], "looking at a kept screenshot");
}

/// The event as the service takes it: who, where, when.
fn event(config: &Config, agent: AgentArg, payload: &Value, kind: EventKind) -> Result<AgentEvent> {
    let field = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| payload.get(*key).and_then(Value::as_str))
            .map(String::from)
    };
    let session_id = field(&["session_id", "sessionID", "thread_id"])
        .context("the payload has no session_id")?;
    let cwd = field(&["cwd", "directory"]).map(PathBuf::from);
    let project = match &config.project {
        Some(name) => ProjectName::new(name)?,
        None => {
            let dir = match &cwd {
                Some(dir) => dir.clone(),
                None => std::env::current_dir()?,
            };
            detect_project(&dir).0
        }
    };
    Ok(AgentEvent {
        event_id: AgentEvent::new_id(),
        session: SessionKey::new(agent.name(), &session_id)?,
        project,
        cwd: cwd.map(|dir| dir.display().to_string()),
        at: Timestamp::now(),
        kind,
    })
}

/// The api a hook needs: no model (lexical context is enough and loading one costs more than
/// the whole hook may take), the image directory, a short lock timeout, no checkpoint when it exits (the next
/// command folds the log in), the configured summariser.
fn open_api(config: &Config) -> Result<Api> {
    let store = crate::app::open_store(config, |sqlite| {
        sqlite
            .with_lock_wait(LOCK_WAIT)?
            .without_checkpoint_on_close()
    })?;
    let parts = ApiParts {
        summarizer: summarizer_part(&config.summarizer),
        // Screenshots tools return are kept (their looks and text come later, off the hook).
        images: Some(ImageDir::new(config.images_dir()?)),
        ..ApiParts::new(store)
    };
    Ok(Api::open(parts, config))
}

/// What a Claude Code session is told first: cairn's tools may be deferred, and how to load
/// them.
fn load_tools(tools: &ToolNames) -> String {
    format!(
        "cairn memory: its MCP tools ({}*) may be deferred. On the first prompt, load them with \
         ToolSearch, query \"select:{},{},{},{}\".",
        tools.name("memory_"),
        tools.name("memory_search"),
        tools.name("memory_store"),
        tools.name("memory_context"),
        tools.name("memory_session_summary"),
    )
}

/// The line a compaction opens with: the session's summary is saved before anything else.
fn save_summary_first(tools: &ToolNames) -> String {
    format!(
        "FIRST ACTION REQUIRED after this compaction: save this session's summary with {} \
         (goal, discoveries, accomplished, next steps, files) before anything else, so what it \
         learned outlives the compaction.",
        tools.name("memory_session_summary")
    )
}

/// The line a prompt gets when the session has saved nothing for a while
/// (`context.save_reminder_minutes`).
fn save_now(tools: &ToolNames, minutes: u32) -> String {
    format!(
        "cairn memory: nothing has been saved in this project for {minutes} minutes or more. If \
         you decided, fixed or found something worth keeping, save it now with {}.",
        tools.name("memory_store")
    )
}

/// cairn's tools as the agent sees them: the prefix they carry in this agent (setup's server
/// and the plugin's are named differently in Claude Code; other agents show bare names), and
/// engram's names when the server offers engram's profile (`--tools engram`, else `mcp.tools`).
struct ToolNames {
    prefix: &'static str,
    engram: bool,
}

impl ToolNames {
    fn of(args: &HookArgs, config: &Config) -> Self {
        let prefix = match (args.agent, args.plugin) {
            (AgentArg::ClaudeCode, true) => crate::setup::plugin::TOOL_PREFIX,
            (AgentArg::ClaudeCode, false) => crate::setup::claude::TOOL_PREFIX,
            _ => "",
        };
        let profile = args.tools.map_or(config.mcp.tools, ToolProfile::from);
        ToolNames {
            prefix,
            engram: profile == ToolProfile::Engram,
        }
    }

    /// cairn's tool `tool` (or the start of its names, `memory_`) as the agent calls it:
    /// engram's name for it from the engram profile's own table.
    fn name(&self, tool: &str) -> String {
        let name = match (self.engram, tool) {
            (false, _) => tool,
            (true, "memory_") => "mem_",
            (true, _) => cairn_mcp::engram::name_of(tool).unwrap_or(tool),
        };
        format!("{}{name}", self.prefix)
    }
}

/// Prints the save reminder when it is due. Whether it is can fail to be told (the event was
/// spooled, so its session is not recorded yet): then the prompt goes without it.
fn print_save_reminder(
    api: &Api,
    event: &AgentEvent,
    args: &HookArgs,
    tools: &ToolNames,
) -> Result<()> {
    let hook = Caller::local(Source::Hook);
    let due = api
        .save_reminder_due(&hook, &event.session)
        .inspect_err(|error| tracing::debug!(%error, "the save reminder could not be decided"));
    if !due.unwrap_or(false) {
        return Ok(());
    }
    let text = save_now(tools, api.save_reminder_minutes());
    Shown::for_event(args.agent, "UserPromptSubmit").print(text)
}

/// How an agent takes what a hook prints: Claude Code and Codex read an event's JSON with
/// `additionalContext`; OpenCode's plugin, and every agent before a compaction, take text.
enum Shown {
    ContextOf(&'static str),
    Text,
}

impl Shown {
    /// How `agent` takes what its hook prints for `event` (Claude Code's name of it).
    fn for_event(agent: AgentArg, event: &'static str) -> Shown {
        match agent {
            AgentArg::ClaudeCode | AgentArg::Codex => Shown::ContextOf(event),
            AgentArg::Opencode => Shown::Text,
        }
    }

    fn print(self, text: String) -> Result<()> {
        let output = match self {
            Shown::ContextOf(event) => {
                let mut json = serde_json::json!({
                    "hookSpecificOutput": {
                        "hookEventName": event,
                        "additionalContext": text,
                    }
                })
                .to_string();
                json.push('\n');
                json
            }
            Shown::Text => text,
        };
        let mut out = std::io::stdout().lock();
        out.write_all(output.as_bytes())?;
        out.flush()?;
        Ok(())
    }
}

fn print_context(api: &Api, event: &AgentEvent, args: &HookArgs, tools: &ToolNames) -> Result<()> {
    let hook = Caller::local(Source::Hook);
    let session = api
        .session_by_key(&hook, &event.session)
        .ok()
        .map(|_| event.session.clone());
    let context = api.context_request(
        &hook,
        &ContextRequest {
            project: Some(event.project.clone()),
            session,
            budget: api.context_budget(),
            ..Default::default()
        },
    )?;
    let starting = matches!(event.kind, EventKind::SessionStart { .. });
    // Claude Code defers MCP tools behind its tool search: the session is told, first thing,
    // how to load cairn's. Before a compaction, the agent is told to keep what it knows first.
    let first = match (args.agent, starting) {
        (AgentArg::ClaudeCode, true) => Some(load_tools(tools)),
        (_, false) if api.compaction_instruction() => Some(save_summary_first(tools)),
        _ => None,
    };
    let text = match first {
        Some(first) if context.text.is_empty() => first,
        Some(first) => format!("{first}\n\n{}", context.text),
        None => context.text,
    };
    if text.is_empty() {
        return Ok(());
    }
    match starting {
        true => Shown::for_event(args.agent, "SessionStart").print(text),
        false => Shown::Text.print(text),
    }
}

/// Appends the failure to `logs/hooks.log` beside the database (or in the data directory).
fn log_failure(cli: &Cli, args: &HookArgs, error: &anyhow::Error) {
    let dir = std::env::current_dir()
        .ok()
        .and_then(|cwd| load_config(cli, &cwd).ok())
        .and_then(|config| config.database_path().ok())
        .and_then(|db| db.parent().map(|p| p.join("logs")));
    let Some(dir) = dir else { return };
    let _ = std::fs::create_dir_all(&dir);
    let line = format!(
        "{} {} {}: {:#}\n",
        Timestamp::now(),
        args.agent.name(),
        args.event,
        error
    );
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("hooks.log"))
    {
        let _ = file.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_agent_is_told_names_the_tools_its_server_offers() {
        let cairn = ToolNames {
            prefix: crate::setup::claude::TOOL_PREFIX,
            engram: false,
        };
        assert!(save_now(&cairn, 15).ends_with("save it now with mcp__cairn__memory_store."));
        let engram = ToolNames {
            prefix: "",
            engram: true,
        };
        assert!(save_now(&engram, 15).ends_with("save it now with mem_save."));
        assert!(save_summary_first(&engram).contains(" mem_session_summary "));
        assert_eq!(
            load_tools(&ToolNames {
                prefix: "mcp__cairn__",
                engram: true
            }),
            "cairn memory: its MCP tools (mcp__cairn__mem_*) may be deferred. On the first \
             prompt, load them with ToolSearch, query \"select:mcp__cairn__mem_search,\
             mcp__cairn__mem_save,mcp__cairn__mem_context,mcp__cairn__mem_session_summary\"."
        );
    }
}
