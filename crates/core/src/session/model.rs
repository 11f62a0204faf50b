//! Sessions and observations: what an agent did, as its hooks reported it.
//!
//! A [`Session`] is one run of an agent (Claude Code, OpenCode, Codex …), keyed by the agent's
//! name and the agent's own session id ([`SessionKey`]). It belongs to the project the agent was
//! started in, and carries its first prompt and, once it ends or compacts, a summary.
//!
//! An [`Observation`] is one thing that happened in a session: a prompt, a tool use, a tool
//! failure, a subagent's result, a notification, a compaction. Inputs and outputs are truncated
//! to configured limits and redacted before they are stored. Observations are searchable, but
//! unlike memories they are working notes: they expire after `sessions.retention_days` (every
//! read hides older ones, `prune` deletes them).
//!
//! Adapters turn an agent's hook payload into an [`AgentEvent`], the one shape the service
//! records (see `session::recording`). Each event carries a unique id, so an event recorded twice —
//! a spooled event replayed after a crash — is stored once.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::memory::Importance;
use crate::scope::ProjectName;

/// Set in the environment of every process cairn starts. `cairn hook` does nothing when it is
/// set, so an agent run that cairn (or a hook) started cannot feed its own events back.
pub const HOOK_GUARD_ENV: &str = "CAIRN_HOOK_GUARD";

/// Which agent, and its own id for the session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionKey {
    /// `claude-code`, `opencode`, `codex`, or any other client's name.
    pub agent: String,
    /// The agent's own session id.
    pub id: String,
}

impl SessionKey {
    /// Longest agent name and session id, in characters.
    pub const MAX_CHARS: usize = 200;

    /// A key from raw text, both parts trimmed, non-empty and at most [`Self::MAX_CHARS`].
    pub fn new(agent: &str, id: &str) -> Result<Self> {
        let part = |field: &str, raw: &str| -> Result<String> {
            let text = raw.trim();
            if text.is_empty() {
                return Err(Error::invalid(field, "is empty"));
            }
            if text.chars().count() > Self::MAX_CHARS {
                return Err(Error::invalid(
                    field,
                    format!("is longer than {} characters", Self::MAX_CHARS),
                ));
            }
            Ok(text.to_string())
        };
        Ok(SessionKey {
            agent: part("agent", agent)?,
            id: part("session_id", id)?,
        })
    }
}

impl SessionKey {
    /// The error for a session that is not recorded.
    pub fn not_recorded(&self) -> Error {
        Error::Missing {
            field: "session".into(),
            message: format!("no session {self} is recorded; listing the sessions shows them"),
        }
    }
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.agent, self.id)
    }
}

/// Who wrote a session's summary. A summary by the agent itself is never replaced by one cairn
/// derives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SummaryAuthor {
    /// Derived by cairn from the observations, the same way every time.
    Cairn,
    /// Written by a language model through the configured summariser.
    Model,
    /// Stored by the agent (`memory_session_summary`).
    Agent,
}

impl SummaryAuthor {
    pub fn as_str(self) -> &'static str {
        match self {
            SummaryAuthor::Cairn => "cairn",
            SummaryAuthor::Model => "model",
            SummaryAuthor::Agent => "agent",
        }
    }
}

impl std::str::FromStr for SummaryAuthor {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        match text {
            "cairn" => Ok(SummaryAuthor::Cairn),
            "model" => Ok(SummaryAuthor::Model),
            "agent" => Ok(SummaryAuthor::Agent),
            other => Err(Error::invalid(
                "summary_by",
                format!("'{other}' is not cairn, model or agent"),
            )),
        }
    }
}

/// One run of an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub key: SessionKey,
    pub project: ProjectName,
    /// The directory the agent ran in, when it said.
    pub cwd: Option<String>,
    pub started_at: Timestamp,
    /// The time of the latest event.
    pub last_seen_at: Timestamp,
    pub ended_at: Option<Timestamp>,
    /// The first prompt, redacted and truncated: the session's goal, as far as cairn can tell.
    pub first_prompt: Option<String>,
    pub summary: Option<String>,
    pub summary_by: Option<SummaryAuthor>,
}

/// What an observation records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservationKind {
    Prompt,
    ToolUse,
    ToolFailure,
    SubagentResult,
    Notification,
    Compaction,
}

impl ObservationKind {
    pub const ALL: [ObservationKind; 6] = [
        ObservationKind::Prompt,
        ObservationKind::ToolUse,
        ObservationKind::ToolFailure,
        ObservationKind::SubagentResult,
        ObservationKind::Notification,
        ObservationKind::Compaction,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ObservationKind::Prompt => "prompt",
            ObservationKind::ToolUse => "tool_use",
            ObservationKind::ToolFailure => "tool_failure",
            ObservationKind::SubagentResult => "subagent_result",
            ObservationKind::Notification => "notification",
            ObservationKind::Compaction => "compaction",
        }
    }
}

impl std::str::FromStr for ObservationKind {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        ObservationKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| Error::invalid("kind", format!("'{text}' is not an observation kind")))
    }
}

/// One thing that happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The id of the event it came from: an event is recorded at most once.
    pub event_id: String,
    pub at: Timestamp,
    pub kind: ObservationKind,
    pub tool: Option<String>,
    /// The prompt, the tool's input, the notification: truncated and redacted.
    pub input: Option<String>,
    /// The tool's output or error, the subagent's result: truncated and redacted.
    pub output: Option<String>,
    /// Files the tool read or changed.
    pub files: Vec<String>,
    pub error: bool,
    pub importance: Importance,
}

/// An observation found by search, with the session it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObservationHit {
    pub session: SessionKey,
    pub project: ProjectName,
    pub observation: Observation,
    /// BM25, higher is better.
    pub score: f64,
}

/// One hook event, as every adapter hands it to the service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentEvent {
    /// Unique per event (time, process and a counter): replaying an event changes nothing.
    pub event_id: String,
    pub session: SessionKey,
    pub project: ProjectName,
    pub cwd: Option<String>,
    /// When the agent fired it (not when a spooled event was finally recorded).
    pub at: Timestamp,
    pub kind: EventKind,
}

impl AgentEvent {
    /// A new event id, unique and sortable by time: nanoseconds since the epoch, the process
    /// id, a counter (what a hook or a tool call that records an event gives it).
    pub fn new_id() -> String {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        format!(
            "{:020}-{:010}-{:04}",
            Timestamp::now().as_nanosecond(),
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        )
    }
}

/// A tool call the agent's permissions refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedCall {
    /// The agent's id of the call: the same call is recorded once however often it is read.
    pub id: String,
    pub tool: String,
    pub input: String,
    /// What the agent told the model.
    pub reason: String,
}

/// What happened, normalised across agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// A session started, resumed, was cleared or continues after compaction.
    SessionStart { source: Option<String> },
    /// The user submitted a prompt.
    Prompt { text: String },
    /// A tool is about to run: the session is touched, nothing is recorded.
    ToolStart { tool: String },
    /// A tool ran.
    ToolUse {
        tool: String,
        input: String,
        output: String,
        files: Vec<String>,
        /// Pictures the tool returned (screenshots), each a data URL or raw base64: kept as
        /// memories of the session (`image::screenshots`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<String>,
    },
    /// A tool failed.
    ToolFailure {
        tool: String,
        input: String,
        error: String,
        files: Vec<String>,
    },
    /// A subagent finished.
    SubagentResult { text: String },
    /// The agent notified the user (waiting for permission, idle …).
    Notification { text: String },
    /// The context is about to be compacted.
    Compaction { trigger: Option<String> },
    /// The agent finished a turn; its last message is read for `*Remember*:` facts. `refused`
    /// are calls the agent's permissions refused in the session that no tool hook reported
    /// (Claude Code's headless runs), read from its transcript: each is recorded once, as a
    /// failed call.
    Stop {
        last_message: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refused: Vec<RefusedCall>,
    },
    /// The session ended. `refused` as for [`EventKind::Stop`]: read again at the end, when
    /// the agent has written its whole transcript.
    SessionEnd {
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refused: Vec<RefusedCall>,
    },
}

impl EventKind {
    /// The event's name, as logs and errors show it.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::SessionStart { .. } => "session_start",
            EventKind::Prompt { .. } => "prompt",
            EventKind::ToolStart { .. } => "tool_start",
            EventKind::ToolUse { .. } => "tool_use",
            EventKind::ToolFailure { .. } => "tool_failure",
            EventKind::SubagentResult { .. } => "subagent_result",
            EventKind::Notification { .. } => "notification",
            EventKind::Compaction { .. } => "compaction",
            EventKind::Stop { .. } => "stop",
            EventKind::SessionEnd { .. } => "session_end",
        }
    }
}

/// Which sessions a listing shows, newest activity first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionFilter {
    pub project: Option<ProjectName>,
    pub agent: Option<String>,
    /// Only sessions with this id (the agent's own), of any agent.
    pub id: Option<String>,
    pub limit: usize,
    pub offset: usize,
}

/// Which observations a search considers.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservationFilter {
    pub project: Option<ProjectName>,
    pub session: Option<SessionKey>,
    /// Only observations at or after this time (the retention cut-off, or later).
    pub since: Timestamp,
    pub kinds: Vec<ObservationKind>,
}

/// Tools that run shell commands, across agents.
pub fn is_shell_tool(tool: &str) -> bool {
    matches!(
        tool.to_ascii_lowercase().as_str(),
        "bash" | "shell" | "exec_command" | "local_shell" | "run_shell_command"
    )
}

/// A language model that turns a session digest into a summary (see `config::SummarizerConfig`).
pub trait Summarizer: Send + Sync {
    fn summarize(&self, digest: &str) -> Result<String>;
}
