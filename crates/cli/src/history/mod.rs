//! An agent's own history, from before cairn: the sessions Claude Code, Codex and OpenCode keep
//! on disk, read into the events cairn's hooks would have recorded.
//!
//! - [`Transcript`]: one session as read — the agent's id for it, where it ran, and its
//!   [`Entry`]s in order (prompts, tool uses and failures, compactions, each turn's last
//!   message), with the lines that could not be read counted, never fatal;
//! - [`claude`] reads Claude Code's transcripts (`<config>/projects/<dir>/<session>.jsonl`),
//!   [`codex`] Codex's session logs (`<home>/sessions/YYYY/MM/DD/rollout-….jsonl`), [`opencode`]
//!   OpenCode's database (`<data>/opencode/opencode.db`, read only);
//! - [`instructions`]: the files a project's agents follow (`CLAUDE.md`, `AGENTS.md`, Claude
//!   Code's auto-memory), which `--instructions` and the SessionStart hook keep as read-only
//!   memories;
//! - [`Histories`]: where an agent keeps them (the usual default, its environment variable, or
//!   a path given), listed without reading them, and each read on demand.
//!
//! A transcript becomes [`AgentEvent`]s whose ids are derived from the agent's own ids for its
//! entries, so reading the same history twice gives the same events; the command
//! (`commands::history`) records each session through the same front door as the hooks.
//! Pictures in old tool results are not kept (the hooks keep a screenshot as it is taken).

pub mod claude;
pub mod codex;
pub mod instructions;
pub mod opencode;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use cairn_core::ProjectName;
use cairn_core::session::{AgentEvent, EventKind, SessionKey};
use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use crate::args::AgentArg;
use crate::hook::payload::claude::files_of;
use crate::hook::payload::json::tool_input_text;

/// The longest transcript line read; a longer one (a huge pasted log, say) is skipped whole.
const MAX_LINE_BYTES: usize = 32 << 20;
/// The most of a tool's input, output or error kept while a transcript is read (recording
/// keeps far less, `sessions.max_*_chars`): a long history's session stays small in memory.
const MAX_TOOL_TEXT_BYTES: usize = 64 << 10;
/// The most of a prompt or a turn's last message kept (a `*Remember*:` line is read from the
/// message).
const MAX_MESSAGE_BYTES: usize = 256 << 10;

/// `text` cut to at most `max` bytes, at a character boundary.
fn bounded(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// One thing that happened in a session, as the agent kept it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The agent's own id for it (an entry's id, a call's id, a line number): unique in the
    /// session and the same every time the history is read.
    pub id: String,
    pub at: Timestamp,
    pub kind: EventKind,
}

/// One session of an agent, as read from its history.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// The agent's id for the session (what its hooks send as `session_id`).
    pub session_id: String,
    /// The directory the agent ran in.
    pub cwd: Option<PathBuf>,
    pub entries: Vec<Entry>,
    /// Lines (or records) that could not be read: malformed, cut short, too long.
    pub skipped: usize,
}

impl Transcript {
    /// When its first and last entries happened.
    pub fn span(&self) -> Option<(Timestamp, Timestamp)> {
        let first = self.entries.iter().map(|e| e.at).min()?;
        let last = self.entries.iter().map(|e| e.at).max()?;
        Some((first, last))
    }

    /// The events the hooks would have recorded, in order, then the session's end (at its last
    /// entry). Each event's id is `import:<agent>:<session>:<entry id>` (event ids are unique
    /// across sessions): the same history gives the same events.
    pub fn events(&self, agent: AgentArg, project: &ProjectName) -> Result<Vec<AgentEvent>> {
        let key = SessionKey::new(agent.name(), &self.session_id)?;
        let cwd = self.cwd.as_ref().map(|dir| dir.display().to_string());
        let event = |id: &str, at: Timestamp, kind: EventKind| AgentEvent {
            event_id: format!("import:{}:{}:{id}", key.agent, key.id),
            session: key.clone(),
            project: project.clone(),
            cwd: cwd.clone(),
            at,
            kind,
        };
        let mut events: Vec<AgentEvent> = self
            .entries
            .iter()
            .map(|entry| event(&entry.id, entry.at, entry.kind.clone()))
            .collect();
        if let Some((_, last)) = self.span() {
            events.push(event(
                "end",
                last,
                EventKind::SessionEnd {
                    reason: Some("imported".into()),
                    refused: Vec::new(),
                },
            ));
        }
        Ok(events)
    }
}

/// A tool call the assistant made, until its outcome is read.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub tool: String,
    pub input: Value,
}

impl Call {
    /// A call whose start was not found (its outcome names only its id).
    pub fn unknown() -> Call {
        Call {
            tool: "tool".into(),
            input: Value::Null,
        }
    }

    /// The call finished, as its hook would report it: a use with its output, or a failure
    /// with its error. The input is shown as a person reads it, with the files it names.
    pub fn finished(self, outcome: std::result::Result<String, String>) -> EventKind {
        let input = bounded(tool_input_text(&self.input), MAX_TOOL_TEXT_BYTES);
        let files = files_of(&self.input);
        let outcome = outcome
            .map(|output| bounded(output, MAX_TOOL_TEXT_BYTES))
            .map_err(|error| bounded(error, MAX_TOOL_TEXT_BYTES));
        match outcome {
            Ok(output) => EventKind::ToolUse {
                tool: self.tool,
                input,
                output,
                files,
                images: Vec::new(),
            },
            Err(error) => EventKind::ToolFailure {
                tool: self.tool,
                input,
                error,
                files,
            },
        }
    }
}

/// A turn's last message, kept until the turn ends (the next prompt, or the session's end),
/// when it becomes the turn's `Stop`.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    last: Option<(String, Timestamp, String)>,
}

impl Turn {
    /// The assistant said `text` (entry `id`, at `at`): the turn's last message so far.
    pub fn said(&mut self, id: &str, at: Timestamp, text: &str) {
        if !text.trim().is_empty() {
            self.last = Some((
                id.to_string(),
                at,
                bounded(text.to_string(), MAX_MESSAGE_BYTES),
            ));
        }
    }

    /// The turn ended: its `Stop`, when the assistant said anything.
    pub fn end(&mut self, entries: &mut Vec<Entry>) {
        if let Some((id, at, text)) = self.last.take() {
            entries.push(Entry {
                id: format!("stop:{id}"),
                at,
                kind: EventKind::Stop {
                    last_message: Some(text),
                    refused: Vec::new(),
                },
            });
        }
    }
}

/// A prompt the user sent, as an entry.
pub(crate) fn prompt(id: String, at: Timestamp, text: String) -> Entry {
    Entry {
        id,
        at,
        kind: EventKind::Prompt {
            text: bounded(text, MAX_MESSAGE_BYTES),
        },
    }
}

/// Reads a JSON Lines file entry by entry: each line that parses as a JSON object goes to
/// `entry` with its line number (from 1); a line that does not (cut short, garbage, not UTF-8,
/// longer than [`MAX_LINE_BYTES`]) is counted and skipped. Only a file that cannot be read at
/// all is an error.
pub(crate) fn read_lines(path: &Path, entry: &mut dyn FnMut(usize, &Value)) -> Result<usize> {
    let file = cairn_core::input::open_regular(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut skipped = 0;
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut reader, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            break;
        }
        number += 1;
        if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            // Too long: skip to the end of the line.
            skipped += 1;
            let mut rest = Vec::new();
            reader.read_until(b'\n', &mut rest)?;
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(text) {
            Ok(value) if value.is_object() => entry(number, &value),
            _ => skipped += 1,
        }
    }
    Ok(skipped)
}

/// A timestamp as agents write them: RFC 3339 text, or milliseconds since the epoch.
pub(crate) fn timestamp(value: Option<&Value>) -> Option<Timestamp> {
    match value? {
        Value::String(text) => text.parse().ok(),
        Value::Number(number) => Timestamp::from_millisecond(number.as_i64()?).ok(),
        _ => None,
    }
}

/// Where one agent keeps its history, and what is there.
pub struct Histories {
    agent: AgentArg,
    /// Where it was looked for.
    pub location: PathBuf,
    items: Vec<Item>,
    opencode: Option<opencode::Database>,
}

/// One session's place in the history.
enum Item {
    /// A transcript file (Claude Code, Codex).
    File(PathBuf),
    /// A session in OpenCode's database.
    OpenCode(String),
}

impl Histories {
    /// The agent's history at `path`, else where the agent keeps it by default (its
    /// environment variable, then the usual place under the home directory).
    pub fn find(agent: AgentArg, path: Option<&Path>) -> Result<Histories> {
        match path {
            Some(path) => Self::find_at(agent, path),
            None => Self::find_at(
                agent,
                &default_location(
                    agent,
                    &dirs::home_dir()
                        .context("cannot tell the home directory; name the history with --path")?,
                ),
            ),
        }
    }

    /// The agent's history at `location`; a location that does not exist holds no sessions.
    pub fn find_at(agent: AgentArg, location: &Path) -> Result<Histories> {
        let mut histories = Histories {
            agent,
            location: location.to_path_buf(),
            items: Vec::new(),
            opencode: None,
        };
        if !location.exists() {
            return Ok(histories);
        }
        let location = location.to_path_buf();
        match agent {
            AgentArg::ClaudeCode => {
                histories.items = claude::transcripts(&location)?
                    .into_iter()
                    .map(Item::File)
                    .collect()
            }
            AgentArg::Codex => {
                histories.items = codex::transcripts(&location)?
                    .into_iter()
                    .map(Item::File)
                    .collect()
            }
            AgentArg::Opencode => {
                let database = opencode::Database::open(&location)?;
                histories.items = database
                    .sessions()?
                    .into_iter()
                    .map(Item::OpenCode)
                    .collect();
                histories.opencode = Some(database);
            }
        }
        Ok(histories)
    }

    /// How many sessions the history holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The `index`th session, read; an error names the file or session that could not be read.
    pub fn read(&self, index: usize) -> Result<Transcript> {
        match (&self.items[index], self.agent) {
            (Item::File(path), AgentArg::ClaudeCode) => claude::read(path),
            (Item::File(path), _) => codex::read(path),
            (Item::OpenCode(id), _) => self
                .opencode
                .as_ref()
                .expect("OpenCode sessions come from its database")
                .read(id),
        }
    }

    /// What the `index`th session is called in messages: its file, or its id.
    pub fn name(&self, index: usize) -> String {
        match &self.items[index] {
            Item::File(path) => path.display().to_string(),
            Item::OpenCode(id) => format!("{} session {id}", self.location.display()),
        }
    }
}

/// Where an agent whose user's home is `home` keeps its history unless told otherwise: under
/// its own environment variable's directory when set (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
/// `XDG_DATA_HOME`), else its usual place in `home`.
pub fn default_location(agent: AgentArg, home: &Path) -> PathBuf {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match agent {
        AgentArg::ClaudeCode => from_env("CLAUDE_CONFIG_DIR")
            .unwrap_or_else(|| home.join(".claude"))
            .join("projects"),
        AgentArg::Codex => from_env("CODEX_HOME")
            .unwrap_or_else(|| home.join(".codex"))
            .join("sessions"),
        AgentArg::Opencode => from_env("XDG_DATA_HOME")
            .unwrap_or_else(|| home.join(".local/share"))
            .join("opencode/opencode.db"),
    }
}

/// What importing an agent's history did (or, in a dry run, would do).
#[derive(Debug, Default, Serialize)]
pub struct HistoryReport {
    pub agent: String,
    /// Where the history was read.
    pub location: String,
    pub dry_run: bool,
    /// Sessions the history holds.
    pub found: usize,
    /// Sessions recorded (a dry run: that would be).
    pub imported: usize,
    /// Sessions cairn already has (recorded by its hooks, or by an earlier import): left as
    /// they are.
    pub already_recorded: usize,
    /// Sessions of another project than `--project`, or not active since `--since`.
    pub not_selected: usize,
    /// Sessions with nothing in them to record.
    pub empty: usize,
    /// Sessions that could not be read at all, each with why.
    pub unreadable: Vec<String>,
    /// Lines (or records) skipped because they could not be read: malformed, cut short.
    pub skipped_lines: usize,
    /// The files (or sessions) those lines were in, with how many.
    pub skipped_in: Vec<(String, usize)>,
    /// Events the imported sessions hold (prompts, tool uses, turn ends …).
    pub events: usize,
    /// Observations added.
    pub observations: usize,
    /// Memories stored from `*Remember*:` lines.
    pub remembered: usize,
    /// Sessions summarised.
    pub summarized: usize,
    /// With `--instructions`: what following each project's instruction files did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<cairn_core::files::FollowReport>,
    /// Imported sessions older than `sessions.retention_days`: their observations are hidden
    /// (as the hooks' would be by now); their summaries and facts are kept.
    pub beyond_retention: usize,
    /// How long it took, in seconds.
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_tool_output_is_cut_at_a_character_boundary_and_the_call_kept() {
        let call = Call {
            tool: "Bash".into(),
            input: serde_json::json!({"command": "cat big.log"}),
        };
        // 'é' is two bytes: the limit falls inside one.
        let output = format!("x{}", "é".repeat(MAX_TOOL_TEXT_BYTES));
        match call.finished(Ok(output)) {
            EventKind::ToolUse { output, input, .. } => {
                assert!(output.len() <= MAX_TOOL_TEXT_BYTES && output.len() > 60_000);
                assert!(output.ends_with('é'));
                assert_eq!(input, "cat big.log");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(bounded("short".into(), 3), "sho");
    }
}
