//! What an agent hands cairn from its own session through a tool, rather than through a hook:
//! a prompt of its user ([`Api::save_prompt`], engram's `mem_save_prompt`) and the facts in
//! its output ([`Api::capture`], engram's `mem_capture_passive`).
//!
//! A saved prompt is recorded as the hook records one — a prompt observation of the session,
//! which starts the session when it is the first — under the caller's agent (`mcp` when the
//! client named none) and the session `manual-save-<project>` when the call names none, as
//! engram does. A capture is `cairn extract` for a caller: its `*Remember*:` lines and the
//! items of its `## Key Learnings` sections (`memory::extract`) stored in the caller's project,
//! a fact already stored counted as a duplicate and written again never.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::memory::project;
use super::{Api, Caller};
use crate::error::{Error, Result};
use crate::memory::{WriteOutcome, WriteStatus};
use crate::scope::{ProjectName, Scope};
use crate::session::{AgentEvent, EventKind, SessionKey};

/// The agent a saved prompt's session is recorded under when the client named none.
const TOOL_AGENT: &str = "mcp";

/// Input of a prompt saved by a tool call (engram's `mem_save_prompt`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PromptInput {
    /// What the user asked, as they wrote it (redacted and truncated as a hook's prompt is).
    pub content: String,
    /// The session it belongs to; `manual-save-<project>` when omitted.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The project; the caller's when omitted (one is needed: a session belongs to a project).
    #[serde(default)]
    pub project: Option<String>,
}

/// A prompt recorded: the session it went to.
#[derive(Debug, Clone, Serialize)]
pub struct SavedPrompt {
    pub session: SessionKey,
    pub project: ProjectName,
}

/// Input of the facts captured from an agent's output (engram's `mem_capture_passive`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureInput {
    /// The output: `*Remember*:` lines, or a `## Key Learnings` section of numbered or
    /// bulleted items, each stored as one memory.
    pub content: String,
    /// The session the facts came from, recorded on their memories.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The project; the caller's when omitted (global when the caller has none).
    #[serde(default)]
    pub project: Option<String>,
    /// Where the output came from (`subagent-stop`, `session-end`): recorded as the memories'
    /// author when the client named no agent.
    #[serde(default)]
    pub source: Option<String>,
}

/// What a capture found and kept.
#[derive(Debug, Clone, Serialize)]
pub struct Captured {
    /// Facts found in the output.
    pub extracted: usize,
    /// Stored as new memories.
    pub saved: usize,
    /// Already stored (nothing written for them).
    pub duplicates: usize,
    pub outcomes: Vec<WriteOutcome>,
}

impl Api {
    /// Records `input` as a prompt of its session (see the module's documentation).
    pub fn save_prompt(&self, caller: &Caller, input: PromptInput) -> Result<SavedPrompt> {
        if input.content.trim().is_empty() {
            return Err(Error::invalid("content", "the prompt is empty"));
        }
        let project = project(input.project.as_deref())?
            .or_else(|| caller.default_project.clone())
            .ok_or_else(|| Error::invalid("project", "name the project the prompt belongs to"))?;
        caller
            .access
            .write(&Scope::Project(project.clone()), "project")?;
        let id = input
            .session_id
            .filter(|id| !id.trim().is_empty())
            .unwrap_or_else(|| format!("manual-save-{project}"));
        let session = SessionKey::new(caller.agent.as_deref().unwrap_or(TOOL_AGENT), &id)?;
        let event = AgentEvent {
            event_id: AgentEvent::new_id(),
            session: session.clone(),
            project: project.clone(),
            cwd: None,
            at: self.now().timestamp(),
            kind: EventKind::Prompt {
                text: input.content,
            },
        };
        self.record_events(std::slice::from_ref(&event))?;
        Ok(SavedPrompt { session, project })
    }

    /// Stores the facts of `input`'s output in the caller's project (see the module's
    /// documentation).
    pub fn capture(&self, caller: &Caller, input: CaptureInput) -> Result<Captured> {
        if input.content.trim().is_empty() {
            return Err(Error::invalid(
                "content",
                "give the output that holds the facts: *Remember*: lines or a ## Key Learnings \
                 section",
            ));
        }
        let scope = match project(input.project.as_deref())? {
            Some(name) => Scope::Project(name),
            None => caller
                .default_project
                .clone()
                .map_or(Scope::Global, Scope::Project),
        };
        caller.access.write(&scope, "project")?;
        let entered_by = caller.agent.clone().or(input.source);
        let outcomes = self.extract(caller, &input.content, scope, entered_by, input.session_id)?;
        let count = |status| outcomes.iter().filter(|o| o.status == status).count();
        Ok(Captured {
            extracted: outcomes.len(),
            saved: count(WriteStatus::Created),
            duplicates: count(WriteStatus::Duplicate),
            outcomes,
        })
    }
}
