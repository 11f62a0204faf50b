//! Recording what agents do: [`Sessions`], the session operations, and the recording of hook
//! events (summaries are in `summary.rs`, observation search and retention in
//! `observations.rs`).
//!
//! [`Sessions::record_events`] takes events in the order the agent fired them and applies
//! them in one transaction: each creates or touches its [`Session`]; prompts, tool uses, failures,
//! subagent results, notifications and compactions become [`Observation`]s (redacted, then
//! truncated to `sessions.max_*_chars`); a turn's stop stores the `*Remember*:` facts of the last
//! message ([`crate::memory::extract`]); a session's end marks it ended. After the commit, sessions that
//! ended or compacted get a summary ([`Sessions::summarize_session`]): the agent's own, when
//! it stored one, is kept; otherwise a configured model writes one, else cairn derives one from
//! the observations — the goal (first prompt), files touched, commands, errors and memories
//! stored. A summary is recorded on the session and kept as a memory (tag `session-summary`,
//! one topic key per session, so a later summary revises it), which makes it searchable and
//! lets context show recent sessions. A session that ended is then reflected into its
//! project's slots (`slots.reflect_on_session_end`; see `slot::reflection`).

use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::config::SessionsConfig;
use crate::error::{Error, Result};
use crate::memory::extract;
use crate::memory::model::{Importance, WriteOutcome};
use crate::memory::operations::Memories;
use crate::memory::write::store_in;
use crate::redact::redact;
use crate::scope::Scope;
use crate::session::model::{
    AgentEvent, EventKind, Observation, ObservationKind, RefusedCall, Session, SessionFilter,
    SessionKey, Summarizer,
};
use crate::store::{Store, StoreTx, in_transaction};

/// Most files an observation keeps.
const MAX_FILES: usize = 50;
/// Longest file path kept, in characters.
const MAX_PATH_CHARS: usize = 500;
/// Longest first prompt kept on a session, in characters.
const MAX_FIRST_PROMPT_CHARS: usize = 1_000;

/// What recording a batch of events did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RecordReport {
    /// Events applied.
    pub events: usize,
    /// Observations added.
    pub observations: usize,
    /// Events already recorded before (replays), skipped.
    pub replayed: usize,
    /// Memories stored from `*Remember*:` lines.
    pub extracted: Vec<WriteOutcome>,
    /// Sessions summarised after the batch (one that held nothing worth a summary is not).
    pub summarized: Vec<SessionKey>,
    /// Sessions that ended in the batch, in order (each once).
    pub ended: Vec<SessionKey>,
}

/// Redacted, then cut to `max` characters with a note of how much was cut. A NUL character
/// (tool output can hold one) becomes U+FFFD: no store keeps NUL in text (PostgreSQL refuses it).
pub fn clip(text: &str, max: usize) -> String {
    let clean = redact(text.trim());
    let clean = match clean.contains('\0') {
        true => std::borrow::Cow::Owned(clean.replace('\0', "\u{FFFD}")),
        false => clean,
    };
    let total = clean.chars().count();
    if total <= max {
        return clean.into_owned();
    }
    let kept: String = clean.chars().take(max).collect();
    format!("{kept}… [{} more characters]", total - max)
}

/// The session operations over one store, with the memories they write summaries and facts
/// into.
#[derive(Clone, Copy)]
pub struct Sessions<'a> {
    pub(super) memories: Memories<'a>,
    pub(super) store: &'a dyn Store,
    pub(super) config: &'a SessionsConfig,
    pub(super) summarizer: Option<&'a dyn Summarizer>,
}

impl<'a> Sessions<'a> {
    pub fn new(
        memories: Memories<'a>,
        config: &'a SessionsConfig,
        summarizer: Option<&'a dyn Summarizer>,
    ) -> Self {
        Sessions {
            memories,
            store: memories.backend(),
            config,
            summarizer,
        }
    }

    pub(super) fn now_ts(&self) -> Timestamp {
        self.memories.timestamp()
    }

    /// Records events, in order, in one transaction, then summarises the sessions that ended or
    /// compacted. An event already recorded (same event id) changes nothing.
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<RecordReport> {
        let now = self.now_ts();
        let stale = self.stale_sessions(events)?;
        let (mut report, summarize) = in_transaction(self.store, |tx| {
            let mut report = RecordReport::default();
            let mut summarize = Vec::new();
            for (key, idle_since) in &stale {
                if close_stale(tx, key, *idle_since)? {
                    summarize.push((key.clone(), true));
                }
            }
            for event in events {
                self.record_in(tx, event, now, &mut report, &mut summarize)?;
            }
            Ok((report, summarize))
        })?;
        let mut considered: Vec<SessionKey> = Vec::new();
        for (key, ended) in summarize {
            if !considered.contains(&key) {
                if self.summarize_session(&key)?.is_some() {
                    report.summarized.push(key.clone());
                }
                considered.push(key.clone());
            }
            if ended && !report.ended.contains(&key) {
                report.ended.push(key);
            }
        }
        Ok(report)
    }

    /// For each session start among `events`: the same agent's other sessions of the project
    /// that recorded no end and have been idle `sessions.close_idle_minutes` by then, with the
    /// start that finds them.
    fn stale_sessions(&self, events: &[AgentEvent]) -> Result<Vec<(SessionKey, Timestamp)>> {
        let minutes = i64::from(self.config.close_idle_minutes);
        let mut stale: Vec<(SessionKey, Timestamp)> = Vec::new();
        if minutes == 0 {
            return Ok(stale);
        }
        for event in events {
            if !matches!(event.kind, EventKind::SessionStart { .. }) {
                continue;
            }
            let idle_before = event.at - SignedDuration::from_mins(minutes);
            let open = self.store.sessions(&SessionFilter {
                project: Some(event.project.clone()),
                agent: Some(event.session.agent.clone()),
                id: None,
                limit: STALE_LOOKED_AT,
                offset: 0,
            })?;
            for session in open {
                if session.ended_at.is_none()
                    && session.key != event.session
                    && session.last_seen_at <= idle_before
                    && !stale.iter().any(|(key, _)| *key == session.key)
                {
                    stale.push((session.key, event.at));
                }
            }
        }
        Ok(stale)
    }

    fn record_in(
        &self,
        tx: &mut dyn StoreTx,
        event: &AgentEvent,
        now: Timestamp,
        report: &mut RecordReport,
        summarize: &mut Vec<(SessionKey, bool)>,
    ) -> Result<()> {
        let limits = self.config;
        let mut session = tx.session(&event.session)?.unwrap_or_else(|| Session {
            key: event.session.clone(),
            project: event.project.clone(),
            cwd: None,
            started_at: event.at,
            last_seen_at: event.at,
            ended_at: None,
            first_prompt: None,
            summary: None,
            summary_by: None,
        });
        session.last_seen_at = session.last_seen_at.max(event.at);
        session.started_at = session.started_at.min(event.at);
        if session.cwd.is_none() {
            session.cwd = event.cwd.as_deref().map(|cwd| clip(cwd, MAX_PATH_CHARS));
        }
        let observation =
            |kind, tool: Option<&str>, input: Option<&str>, output: Option<&str>| Observation {
                event_id: event.event_id.clone(),
                at: event.at,
                kind,
                tool: tool.map(|t| clip(t, 200)),
                input: input.map(|text| clip(text, limits.max_input_chars)),
                output: output.map(|text| clip(text, limits.max_output_chars)),
                files: Vec::new(),
                error: false,
                importance: Importance::default(),
            };
        // A failed call matters more than one that worked.
        let failure = |tool: &str, input: &str, error: &str| -> Result<Observation> {
            Ok(Observation {
                error: true,
                importance: Importance::new(4)?,
                ..observation(
                    ObservationKind::ToolFailure,
                    Some(tool),
                    Some(input),
                    Some(error),
                )
            })
        };
        // Calls the agent reports refused (at a turn's end or the session's).
        let mut refused: &[RefusedCall] = &[];
        let recorded = match &event.kind {
            EventKind::SessionStart { .. } => {
                // A resumed session is open again.
                session.ended_at = None;
                None
            }
            EventKind::ToolStart { .. } => None,
            EventKind::Prompt { text } => {
                if session.first_prompt.is_none() && !text.trim().is_empty() {
                    session.first_prompt = Some(clip(text, MAX_FIRST_PROMPT_CHARS));
                }
                Some(observation(ObservationKind::Prompt, None, Some(text), None))
            }
            EventKind::ToolUse {
                tool,
                input,
                output,
                files,
                ..
            } => Some(Observation {
                files: clean_files(files),
                ..observation(
                    ObservationKind::ToolUse,
                    Some(tool),
                    Some(input),
                    Some(output),
                )
            }),
            EventKind::ToolFailure {
                tool,
                input,
                error,
                files,
            } => Some(Observation {
                files: clean_files(files),
                ..failure(tool, input, error)?
            }),
            EventKind::SubagentResult { text } => Some(observation(
                ObservationKind::SubagentResult,
                None,
                None,
                Some(text),
            )),
            EventKind::Notification { text } => Some(Observation {
                importance: Importance::new(2)?,
                ..observation(ObservationKind::Notification, None, Some(text), None)
            }),
            EventKind::Compaction { trigger } => {
                summarize.push((session.key.clone(), false));
                Some(observation(
                    ObservationKind::Compaction,
                    None,
                    trigger.as_deref(),
                    None,
                ))
            }
            EventKind::Stop {
                last_message,
                refused: calls,
            } => {
                if limits.extract_on_stop
                    && let Some(message) = last_message
                {
                    self.extract_in(tx, message, &session, now, report)?;
                }
                refused = calls;
                None
            }
            EventKind::SessionEnd { refused: calls, .. } => {
                refused = calls;
                session.ended_at = Some(event.at);
                summarize.push((session.key.clone(), true));
                None
            }
        };
        // Each refused call once, by its id, as a failed call.
        for call in refused {
            let refusal = Observation {
                event_id: format!("refused-{}", clip(&call.id, 200)),
                ..failure(
                    &call.tool,
                    &call.input,
                    &format!("permission denied: {}", call.reason),
                )?
            };
            if tx.add_observation(&session.key, &refusal)? {
                report.observations += 1;
            }
        }
        tx.put_session(&session)?;
        report.events += 1;
        if let Some(observation) = recorded {
            if tx.add_observation(&session.key, &observation)? {
                report.observations += 1;
            } else {
                report.replayed += 1;
            }
        }
        Ok(())
    }

    /// Stores each `*Remember*:` fact of `message` in the session's project. A fact the rules
    /// refuse (too long, say) is skipped with a warning: it must not cost the events around it.
    fn extract_in(
        &self,
        tx: &mut dyn StoreTx,
        message: &str,
        session: &Session,
        now: Timestamp,
        report: &mut RecordReport,
    ) -> Result<()> {
        for fact in extract::facts(message, &self.memories.now()) {
            let new = fact.into_new_memory(
                Scope::Project(session.project.clone()),
                Some(session.key.agent.clone()),
                Some(session.key.id.clone()),
            );
            match self.memories.candidate(new, now) {
                Ok(candidate) => report.extracted.push(store_in(tx, &candidate, now)?),
                Err(error) => tracing::warn!(%error, "a *Remember* fact was not stored"),
            }
        }
        Ok(())
    }

    /// A session by key.
    pub fn session(&self, key: &SessionKey) -> Result<Session> {
        self.store.session(key)?.ok_or_else(|| key.not_recorded())
    }

    /// The session `text` names: `AGENT/ID`, or a bare id that exactly one agent has a session
    /// with.
    pub fn resolve(&self, text: &str) -> Result<SessionKey> {
        if let Some((agent, id)) = text.split_once('/') {
            return SessionKey::new(agent, id);
        }
        let found = self.store.sessions(&SessionFilter {
            project: None,
            agent: None,
            id: Some(text.to_string()),
            limit: 2,
            offset: 0,
        })?;
        match found.as_slice() {
            [one] => Ok(one.key.clone()),
            [] => Err(Error::Missing {
                field: "session".into(),
                message: format!("no session '{text}' is recorded; give it as AGENT/ID"),
            }),
            _ => Err(Error::invalid(
                "session",
                format!("'{text}' names sessions of several agents; give it as AGENT/ID"),
            )),
        }
    }

    /// Sessions, the latest active first.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        crate::memory::validate::page(filter.limit, filter.offset)?;
        self.store.sessions(filter)
    }
}

fn clean_files(files: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    files
        .iter()
        .map(|f| clip(f, MAX_PATH_CHARS))
        .filter(|f| !f.is_empty() && seen.insert(f.clone()))
        .take(MAX_FILES)
        .collect()
}

/// The most recent sessions of an agent in a project looked at for stale ones when a session
/// starts.
const STALE_LOOKED_AT: usize = 20;

/// Ends a session that is still open (under the write lock: its end may have arrived since) at
/// its last event, with a note of why; false when there was nothing to do.
fn close_stale(tx: &mut dyn StoreTx, key: &SessionKey, found_at: Timestamp) -> Result<bool> {
    let Some(mut session) = tx.session(key)? else {
        return Ok(false);
    };
    if session.ended_at.is_some() {
        return Ok(false);
    }
    session.ended_at = Some(session.last_seen_at);
    tx.put_session(&session)?;
    let idle = found_at.duration_since(session.last_seen_at).as_mins();
    tx.add_observation(
        key,
        &Observation {
            event_id: format!("cairn-closed-{}", found_at.as_millisecond()),
            at: session.last_seen_at,
            kind: ObservationKind::Notification,
            tool: None,
            input: Some(format!(
                "closed by cairn: no end was recorded, and it had been idle {idle} minutes when \
                 a later session of {} started",
                key.agent
            )),
            output: None,
            files: Vec::new(),
            error: false,
            importance: Importance::new(2)?,
        },
    )?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_redacts_before_it_cuts_and_says_how_much_was_cut() {
        assert_eq!(clip("  short  ", 10), "short");
        assert_eq!(clip("abcdefghij", 4), "abcd… [6 more characters]");
        // A secret cut in half would leak its first half: redaction comes first.
        let clipped = clip("key sk-proj-abcdefghijklmnopqrstuvwx1234 and more", 12);
        assert!(clipped.starts_with("key [REDACTE"), "{clipped}");
        assert!(!clipped.contains("sk-proj"), "{clipped}");
    }
}
