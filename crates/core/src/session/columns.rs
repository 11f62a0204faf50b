//! A session and an observation as a SQL backend's columns hold them, and the one reading of
//! those columns back into the model (see `memory::columns` for the values they share: times
//! as milliseconds, a value the model refuses as a [`CorruptColumn`]).

use crate::memory::columns::{CorruptColumn, optional_time, time};
use crate::memory::model::Importance;
use crate::scope::ProjectName;
use crate::session::model::{Observation, Session, SessionKey};

/// The session columns, in the order [`SessionRow`] holds them; `s` is the table alias.
pub const SESSION_COLUMNS: &str = "s.agent, s.session_id, s.project, s.cwd, s.started_at, \
     s.last_seen_at, s.ended_at, s.first_prompt, s.summary, s.summary_by";

/// The observation columns, in the order [`ObservationRow`] holds them; `o` is the alias.
pub const OBSERVATION_COLUMNS: &str =
    "o.event_id, o.at, o.kind, o.tool, o.input, o.output, o.files, o.error, o.importance";

fn corrupt(what: impl std::fmt::Display) -> CorruptColumn {
    CorruptColumn(what.to_string())
}

/// A session's [`SESSION_COLUMNS`], as SQL hands them back.
pub struct SessionRow {
    pub agent: String,
    pub id: String,
    pub project: String,
    pub cwd: Option<String>,
    pub started_at: i64,
    pub last_seen_at: i64,
    pub ended_at: Option<i64>,
    pub first_prompt: Option<String>,
    pub summary: Option<String>,
    pub summary_by: Option<String>,
}

impl SessionRow {
    /// The session these columns hold.
    pub fn into_session(self) -> Result<Session, CorruptColumn> {
        Ok(Session {
            key: SessionKey {
                agent: self.agent,
                id: self.id,
            },
            project: ProjectName::new(&self.project).map_err(corrupt)?,
            cwd: self.cwd,
            started_at: time(self.started_at)?,
            last_seen_at: time(self.last_seen_at)?,
            ended_at: optional_time(self.ended_at)?,
            first_prompt: self.first_prompt,
            summary: self.summary,
            summary_by: self
                .summary_by
                .map(|text| text.parse().map_err(corrupt))
                .transpose()?,
        })
    }
}

/// An observation's [`OBSERVATION_COLUMNS`], as SQL hands them back (`files` one per line).
pub struct ObservationRow {
    pub event_id: String,
    pub at: i64,
    pub kind: String,
    pub tool: Option<String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub files: String,
    pub error: bool,
    pub importance: i64,
}

impl ObservationRow {
    /// The observation these columns hold.
    pub fn into_observation(self) -> Result<Observation, CorruptColumn> {
        Ok(Observation {
            event_id: self.event_id,
            at: time(self.at)?,
            kind: self.kind.parse().map_err(corrupt)?,
            tool: self.tool,
            input: self.input,
            output: self.output,
            files: self.files.lines().map(String::from).collect(),
            error: self.error,
            importance: Importance::new(self.importance).map_err(corrupt)?,
        })
    }
}
