//! Agent sessions: what an agent did, recorded from its hooks, and what it leaves behind.
//!
//! - [`model`]: [`SessionKey`] (agent + the agent's own id), [`Session`], [`Observation`],
//!   [`AgentEvent`]/[`EventKind`] (one shape for every agent's hook events), filters;
//! - [`recording`]: [`Sessions`], the session operations, and recording: events in order in
//!   one transaction (replays ignored by event id);
//! - [`summary`]: summaries (the agent's own kept; a configured [`Summarizer`]; else derived
//!   from the observations);
//! - [`observations`]: observation reads and search within retention, and pruning;
//! - [`reminder`]: whether a prompt gets the reminder to save (`context.save_reminder_minutes`);
//! - [`store`]: what a backend provides ([`SessionStore`], [`SessionTx`]);
//! - [`columns`]: a session and an observation as a SQL backend's columns hold them, read back
//!   in one place for both backends.
//!
//! Invariants: observations are redacted, then truncated; hidden once older than
//! `sessions.retention_days` and deleted by prune; an event id is recorded once; a summary the
//! agent wrote is never replaced by a derived one, and every summary is also a memory with one
//! topic key per session, so later summaries revise it.

pub mod columns;
pub mod model;
pub mod observations;
pub mod recording;
pub mod reminder;
pub mod store;
pub mod summary;

pub use model::{
    AgentEvent, EventKind, HOOK_GUARD_ENV, Observation, ObservationFilter, ObservationHit,
    ObservationKind, RefusedCall, Session, SessionFilter, SessionKey, Summarizer, SummaryAuthor,
    is_shell_tool,
};
pub use recording::{RecordReport, Sessions, clip};
pub use store::{SessionStore, SessionTx};
pub use summary::{AgentSummary, SUMMARY_TAG, is_summary};
