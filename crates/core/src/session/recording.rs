//! The session operations: recording hook events, summaries, observation search.
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
use crate::memory::filter::{ListQuery, MemoryFilter, SortKey, SortOrder};
use crate::memory::model::{Category, Importance, Memory, Source, TopicKey, WriteOutcome};
use crate::memory::new::NewMemory;
use crate::memory::operations::Memories;
use crate::memory::write::store_in;
use crate::query::{Match, ParsedQuery, SearchQuery};
use crate::redact::redact;
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::session::model::{
    AgentEvent, EventKind, Observation, ObservationFilter, ObservationHit, ObservationKind,
    Session, SessionFilter, SessionKey, SummaryAuthor, is_shell_tool,
};
use crate::store::{Store, StoreTx, in_transaction};
use crate::tag::Tag;

/// The tag every session summary memory carries.
pub const SUMMARY_TAG: &str = "session-summary";
/// Most files an observation keeps.
const MAX_FILES: usize = 50;
/// Longest file path kept, in characters.
const MAX_PATH_CHARS: usize = 500;
/// Longest first prompt kept on a session, in characters.
const MAX_FIRST_PROMPT_CHARS: usize = 1_000;

/// A language model that turns a session digest into a summary (see `config::SummarizerConfig`).
pub trait Summarizer: Send + Sync {
    fn summarize(&self, digest: &str) -> Result<String>;
}

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
    /// Sessions summarised after the batch.
    pub summarized: Vec<SessionKey>,
    /// Sessions that ended in the batch, in order (each once).
    pub ended: Vec<SessionKey>,
}

/// A summary an agent writes of its own session (`memory_session_summary`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentSummary {
    /// The session it summarises; `None` means the project's most recently active session, if
    /// one was active in the last 12 hours.
    pub session: Option<SessionKey>,
    pub project: Option<ProjectName>,
    pub agent: Option<String>,
    pub goal: String,
    pub discoveries: Vec<String>,
    pub accomplished: Vec<String>,
    pub next_steps: Vec<String>,
    pub files: Vec<String>,
}

/// The topic key of a session's summary memory.
fn summary_topic(key: &SessionKey) -> String {
    format!("session-summary:{}:{}", key.agent, key.id)
}

/// Redacted, then cut to `max` characters with a note of how much was cut.
pub fn clip(text: &str, max: usize) -> String {
    let clean = redact(text.trim());
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
    memories: Memories<'a>,
    store: &'a dyn Store,
    config: &'a SessionsConfig,
    summarizer: Option<&'a dyn Summarizer>,
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

    fn now_ts(&self) -> Timestamp {
        self.memories.now().timestamp()
    }

    /// The oldest time an observation may have and still be visible.
    pub fn observation_cutoff(&self) -> Timestamp {
        let days = i64::from(self.config.retention_days);
        self.now_ts()
            .checked_sub(SignedDuration::from_hours(days * 24))
            .unwrap_or(Timestamp::MIN)
    }

    /// Records events, in order, in one transaction, then summarises the sessions that ended or
    /// compacted. An event already recorded (same event id) changes nothing.
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<RecordReport> {
        let now = self.now_ts();
        let (mut report, summarize) = in_transaction(self.store, |tx| {
            let mut report = RecordReport::default();
            let mut summarize = Vec::new();
            for event in events {
                self.record_in(tx, event, now, &mut report, &mut summarize)?;
            }
            Ok((report, summarize))
        })?;
        for (key, ended) in summarize {
            if !report.summarized.contains(&key) {
                self.summarize_session(&key)?;
                report.summarized.push(key.clone());
            }
            if ended && !report.ended.contains(&key) {
                report.ended.push(key);
            }
        }
        Ok(report)
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
                error: true,
                importance: Importance::new(4)?,
                ..observation(
                    ObservationKind::ToolFailure,
                    Some(tool),
                    Some(input),
                    Some(error),
                )
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
            EventKind::Stop { last_message } => {
                if limits.extract_on_stop
                    && let Some(message) = last_message
                {
                    self.extract_in(tx, message, &session, now, report)?;
                }
                None
            }
            EventKind::SessionEnd { .. } => {
                session.ended_at = Some(event.at);
                summarize.push((session.key.clone(), true));
                None
            }
        };
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

    /// Sessions, the latest active first.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        crate::memory::validate::page(filter.limit, filter.offset)?;
        self.store.sessions(filter)
    }

    /// A session's visible observations (within retention), oldest first.
    pub fn observations(&self, key: &SessionKey) -> Result<Vec<Observation>> {
        self.store.observations(key, self.observation_cutoff())
    }

    /// Observations whose text matches `query` (the memory query language), within retention,
    /// best first.
    pub fn search_observations(
        &self,
        query: &str,
        project: Option<ProjectName>,
        session: Option<SessionKey>,
        limit: usize,
    ) -> Result<Vec<ObservationHit>> {
        crate::memory::validate::page(limit, 0)?;
        let filter = ObservationFilter {
            project,
            session,
            since: self.observation_cutoff(),
            kinds: Vec::new(),
        };
        // A plain query ranks observations holding every word first, then those holding some.
        let expressions = match SearchQuery::parse(query, false)?.parsed {
            ParsedQuery::Strict(expression) => vec![expression],
            ParsedQuery::Soft { items, excluded } => [Match::All(items.clone()), Match::Any(items)]
                .into_iter()
                .map(|base| match excluded.is_empty() {
                    true => base,
                    false => Match::Without {
                        base: Box::new(base),
                        excluded: excluded.clone(),
                    },
                })
                .collect(),
        };
        let mut hits: Vec<ObservationHit> = Vec::new();
        for expression in expressions {
            if hits.len() >= limit {
                break;
            }
            for hit in self
                .store
                .search_observations(&expression, &filter, limit)?
            {
                let seen = hits
                    .iter()
                    .any(|h| h.observation.event_id == hit.observation.event_id);
                if !seen && hits.len() < limit {
                    hits.push(hit);
                }
            }
        }
        Ok(hits)
    }

    /// Deletes observations older than the retention; returns how many.
    pub fn prune_observations(&self) -> Result<u64> {
        let cutoff = self.observation_cutoff();
        in_transaction(self.store, |tx| tx.prune_observations(cutoff))
    }

    /// Writes a session's summary, unless its agent wrote one: the configured model's, else
    /// cairn's own. Recorded on the session and as its summary memory.
    pub fn summarize_session(&self, key: &SessionKey) -> Result<Option<WriteOutcome>> {
        let session = self.session(key)?;
        if session.summary_by == Some(SummaryAuthor::Agent) {
            return Ok(None);
        }
        let derived = self.derived_summary(&session)?;
        let (text, author) = match self.summarizer {
            Some(model) => match model.summarize(&derived) {
                Ok(text) if !text.trim().is_empty() => (text, SummaryAuthor::Model),
                Ok(_) => (derived, SummaryAuthor::Cairn),
                Err(error) => {
                    tracing::warn!(%error, "the summariser failed; using cairn's own summary");
                    (derived, SummaryAuthor::Cairn)
                }
            },
            None => (derived, SummaryAuthor::Cairn),
        };
        self.write_summary(session, &text, author).map(Some)
    }

    /// Stores an agent's summary of its session; it is never replaced by a derived one.
    pub fn store_agent_summary(&self, summary: AgentSummary) -> Result<WriteOutcome> {
        if summary.goal.trim().is_empty() {
            return Err(Error::invalid(
                "goal",
                "is empty; say what the session set out to do",
            ));
        }
        let session = match &summary.session {
            Some(key) => Some(self.session(key)?),
            None => self.recent_session(summary.project.as_ref(), summary.agent.as_deref())?,
        };
        let text = render_agent_summary(&summary);
        match session {
            Some(session) => self.write_summary(session, &text, SummaryAuthor::Agent),
            None => {
                let scope = summary.project.map_or(Scope::Global, Scope::Project);
                let mut new = NewMemory::new(text, scope, Source::Mcp);
                new.title = Some(summary_title(&summary.goal));
                new.tags = vec![SUMMARY_TAG.into()];
                new.entered_by = summary.agent;
                self.memories.store(new)
            }
        }
    }

    /// The summary memories of the `count` most recently active summarised sessions of the
    /// project (of every project with `None`), newest first. Found through the sessions and
    /// each summary's topic key, both indexed, so the cost does not grow with the store.
    pub fn recent_summaries(
        &self,
        project: Option<&ProjectName>,
        count: usize,
    ) -> Result<Vec<Memory>> {
        let sessions = self.store.sessions(&SessionFilter {
            project: project.cloned(),
            agent: None,
            limit: count * 4,
            offset: 0,
        })?;
        let mut found = Vec::new();
        for session in sessions.iter().filter(|s| s.summary.is_some()) {
            if found.len() == count {
                break;
            }
            let query = ListQuery {
                filter: MemoryFilter {
                    topic_key: Some(TopicKey::new(&summary_topic(&session.key))?),
                    ..MemoryFilter::in_scope(ScopeFilter::ProjectAndGlobal(session.project.clone()))
                },
                sort: SortKey::Updated,
                order: SortOrder::Desc,
                limit: 1,
                offset: 0,
            };
            found.extend(self.memories.list(&query)?);
        }
        Ok(found)
    }

    /// The most recently active session of the project (and agent), if active in the last 12 h.
    fn recent_session(
        &self,
        project: Option<&ProjectName>,
        agent: Option<&str>,
    ) -> Result<Option<Session>> {
        let latest = self
            .store
            .sessions(&SessionFilter {
                project: project.cloned(),
                agent: agent.map(String::from),
                limit: 1,
                offset: 0,
            })?
            .pop();
        let recent = self
            .now_ts()
            .checked_sub(SignedDuration::from_hours(12))
            .unwrap_or(Timestamp::MIN);
        Ok(latest.filter(|s| s.last_seen_at >= recent))
    }

    fn write_summary(
        &self,
        mut session: Session,
        text: &str,
        author: SummaryAuthor,
    ) -> Result<WriteOutcome> {
        let goal = session.first_prompt.clone().unwrap_or_default();
        let mut new = NewMemory::new(text, Scope::Project(session.project.clone()), Source::Hook);
        new.title = Some(summary_title(if goal.is_empty() {
            "session"
        } else {
            &goal
        }));
        new.category = Category::Other;
        new.tags = vec![SUMMARY_TAG.into(), session.key.agent.clone()];
        new.topic_key = Some(summary_topic(&session.key));
        new.entered_by = Some(session.key.agent.clone());
        new.session_id = Some(session.key.id.clone());
        if author == SummaryAuthor::Agent {
            new.source = Source::Mcp;
        }
        let now = self.now_ts();
        let candidate = self.memories.candidate(new, now)?;
        session.summary = Some(candidate.content.clone());
        session.summary_by = Some(author);
        in_transaction(self.store, |tx| {
            tx.put_session(&session)?;
            store_in(tx, &candidate, now)
        })
    }

    /// cairn's own summary of a session: goal, files touched, commands, errors, memories stored.
    pub fn derived_summary(&self, session: &Session) -> Result<String> {
        let observations = self.store.observations(&session.key, Timestamp::MIN)?;
        let end = session.ended_at.unwrap_or(session.last_seen_at);
        let mut lines = vec![format!(
            "Session {} in {}, {} to {}.",
            session.key,
            session.project,
            session.started_at.strftime("%Y-%m-%d %H:%M UTC"),
            end.strftime("%H:%M UTC")
        )];
        if let Some(goal) = &session.first_prompt {
            lines.push(format!("Goal: {}", one_line(goal, 300)));
        }
        let files: BTreeSet<&str> = observations
            .iter()
            .flat_map(|o| o.files.iter().map(String::as_str))
            .collect();
        if !files.is_empty() {
            lines.push(listed("Files touched", files.iter().copied(), 20));
        }
        let mut commands: Vec<String> = Vec::new();
        for o in observations
            .iter()
            .filter(|o| o.tool.as_deref().is_some_and(is_shell_tool))
        {
            let command = one_line(o.input.as_deref().unwrap_or(""), 120);
            if !command.is_empty() && !commands.contains(&command) {
                commands.push(command);
            }
        }
        if !commands.is_empty() {
            lines.push(listed("Commands", commands.iter().map(String::as_str), 10));
        }
        let errors: Vec<String> = observations
            .iter()
            .filter(|o| o.error)
            .map(|o| {
                format!(
                    "{}: {}",
                    o.tool.as_deref().unwrap_or("tool"),
                    one_line(o.output.as_deref().unwrap_or(""), 120)
                )
            })
            .collect();
        if !errors.is_empty() {
            lines.push(listed("Errors", errors.iter().map(String::as_str), 5));
        }
        let stored = self.memories_stored_in(session, end)?;
        if !stored.is_empty() {
            lines.push(listed(
                "Memories stored",
                stored.iter().map(String::as_str),
                10,
            ));
        }
        let count = |kind| observations.iter().filter(|o| o.kind == kind).count();
        lines.push(format!(
            "Prompts: {}; tool uses: {}; failures: {}.",
            count(ObservationKind::Prompt),
            count(ObservationKind::ToolUse),
            count(ObservationKind::ToolFailure)
        ));
        Ok(lines.join("\n"))
    }

    /// `[handle] title` of the memories stored in the session's project while it ran (its own
    /// summary aside).
    fn memories_stored_in(&self, session: &Session, end: Timestamp) -> Result<Vec<String>> {
        let summary = Tag::new(SUMMARY_TAG)?;
        let query = ListQuery {
            filter: MemoryFilter {
                created_after: Some(session.started_at),
                created_before: end.checked_add(SignedDuration::from_millis(1)).ok(),
                ..MemoryFilter::in_scope(ScopeFilter::ProjectAndGlobal(session.project.clone()))
            },
            sort: SortKey::Created,
            order: SortOrder::Asc,
            limit: 50,
            offset: 0,
        };
        Ok(self
            .memories
            .list(&query)?
            .into_iter()
            .filter(|m| !m.tags.contains(&summary))
            .map(|m| {
                let label = m.title.clone().unwrap_or_else(|| one_line(&m.content, 80));
                format!("[{}] {label}", m.id.handle())
            })
            .collect())
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

/// The first line of `text`, at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}

/// `Label (n): a; b; c; … and k more`.
fn listed<'a>(label: &str, items: impl ExactSizeIterator<Item = &'a str>, max: usize) -> String {
    let total = items.len();
    let shown: Vec<&str> = items.take(max).collect();
    let more = if total > max {
        format!("; and {} more", total - max)
    } else {
        String::new()
    };
    format!("{label} ({total}): {}{more}", shown.join("; "))
}

fn summary_title(goal: &str) -> String {
    format!("Session summary: {}", one_line(goal, 120))
}

fn render_agent_summary(summary: &AgentSummary) -> String {
    let mut text = format!("Goal: {}", summary.goal.trim());
    for (label, items) in [
        ("Discoveries", &summary.discoveries),
        ("Accomplished", &summary.accomplished),
        ("Next steps", &summary.next_steps),
        ("Files", &summary.files),
    ] {
        let items: Vec<&str> = items
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        if !items.is_empty() {
            text.push_str(&format!("\n{label}:"));
            for item in items {
                text.push_str(&format!("\n- {item}"));
            }
        }
    }
    text
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

    #[test]
    fn listed_counts_everything_and_shows_at_most_max() {
        let items = ["a", "b", "c"];
        assert_eq!(
            listed("Files", items.iter().copied(), 2),
            "Files (3): a; b; and 1 more"
        );
        assert_eq!(
            listed("Files", items.iter().copied(), 5),
            "Files (3): a; b; c"
        );
    }
}
