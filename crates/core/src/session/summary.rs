//! Session summaries: what a session did, written when it ends or compacts.
//!
//! The agent's own summary (`memory_session_summary`) is kept and never replaced; otherwise a
//! configured [`Summarizer`](crate::session::Summarizer) (a language model) writes one from cairn's digest, else cairn's
//! own digest is the summary: the goal (first prompt), files touched, commands, errors,
//! memories stored, counts. A session that holds nothing a later one could use (no tool use,
//! no memory stored, a few words asked) gets no summary. A summary is recorded on the session
//! and kept as a memory (tag
//! [`SUMMARY_TAG`], one topic key per session, so a later summary
//! revises it), which makes it searchable and lets context show recent sessions.

use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};

use crate::error::{Error, Result};
use crate::memory::filter::{ListQuery, MemoryFilter, SortKey, SortOrder};
use crate::memory::model::{Category, Memory, Source, TopicKey, WriteOutcome};
use crate::memory::new::NewMemory;
use crate::memory::write::store_in;
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::session::model::{
    ObservationKind, Session, SessionFilter, SessionKey, SummaryAuthor, is_shell_tool,
};
use crate::session::recording::Sessions;
use crate::store::in_transaction;
use crate::tag::Tag;

/// The tag every session summary memory carries.
pub const SUMMARY_TAG: &str = "session-summary";

/// Whether a memory is a session's summary (it carries [`SUMMARY_TAG`]): a record of what
/// happened, which ranks below what an agent or person wrote and never conflicts.
pub fn is_summary(memory: &Memory) -> bool {
    memory.tags.iter().any(|tag| tag.as_str() == SUMMARY_TAG)
}

/// How many characters of prompts a session without tool use or stored memories needs before
/// its summary is worth keeping: about two sentences — a question or a task stated, not a
/// greeting ("Say hello", "thanks").
pub const WORTH_A_SUMMARY_CHARS: usize = 120;

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

impl Sessions<'_> {
    /// Writes a session's summary, unless its agent wrote one or it holds nothing a later
    /// session could use (see `worth_a_summary`): the configured model's, else cairn's
    /// own. Recorded on the session and as its summary memory.
    pub fn summarize_session(&self, key: &SessionKey) -> Result<Option<WriteOutcome>> {
        let session = self.session(key)?;
        if session.summary_by == Some(SummaryAuthor::Agent) || !self.worth_a_summary(&session)? {
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

    /// Whether a session did something a later one could use: it used a tool (or one failed,
    /// or a subagent reported), a memory was stored while it ran (an agent's `memory_store`, a
    /// `*Remember*:` line), or what was asked in it runs to [`WORTH_A_SUMMARY_CHARS`]. A "Say
    /// hello" session, or one `claude mcp list` starts, is not: its summary would be noise in
    /// search and context.
    fn worth_a_summary(&self, session: &Session) -> Result<bool> {
        // All of them, as the summary reads them: a session imported from an agent's history
        // can be older than the observations' retention.
        let observations = self.store.observations(&session.key, Timestamp::MIN)?;
        let acted = observations.iter().any(|o| {
            matches!(
                o.kind,
                ObservationKind::ToolUse
                    | ObservationKind::ToolFailure
                    | ObservationKind::SubagentResult
            )
        });
        let asked: usize = observations
            .iter()
            .filter(|o| o.kind == ObservationKind::Prompt)
            .filter_map(|o| o.input.as_deref())
            .map(|text| text.trim().chars().count())
            .sum::<usize>()
            .max(
                session
                    .first_prompt
                    .as_deref()
                    .map_or(0, |p| p.trim().chars().count()),
            );
        if acted || asked >= WORTH_A_SUMMARY_CHARS {
            return Ok(true);
        }
        let end = session.ended_at.unwrap_or(session.last_seen_at);
        Ok(!self.memories_stored_in(session, end)?.is_empty())
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
            id: None,
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
                id: None,
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
        if self.config.summary_retention_days > 0 {
            let days = i64::from(self.config.summary_retention_days);
            new.expires_at = Some(now + jiff::SignedDuration::from_hours(24 * days));
        }
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

    /// `[handle] title` of the memories stored in the session's project while it ran, or
    /// from it (its `*Remember*:` facts, recorded later when the session was imported), its
    /// own summary aside.
    fn memories_stored_in(&self, session: &Session, end: Timestamp) -> Result<Vec<String>> {
        let summary = Tag::new(SUMMARY_TAG)?;
        let query = |filter: MemoryFilter| ListQuery {
            filter,
            sort: SortKey::Created,
            order: SortOrder::Asc,
            limit: 50,
            offset: 0,
        };
        let scope =
            || MemoryFilter::in_scope(ScopeFilter::ProjectAndGlobal(session.project.clone()));
        let mut stored = self.memories.list(&query(MemoryFilter {
            created_after: Some(session.started_at),
            created_before: end.checked_add(SignedDuration::from_millis(1)).ok(),
            ..scope()
        }))?;
        for memory in self.memories.list(&query(MemoryFilter {
            session: Some(session.key.id.clone()),
            ..scope()
        }))? {
            if !stored.iter().any(|m| m.id == memory.id) {
                stored.push(memory);
            }
        }
        Ok(stored
            .into_iter()
            .filter(|m| !m.tags.contains(&summary))
            .map(|m| {
                let label = m.title.clone().unwrap_or_else(|| one_line(&m.content, 80));
                format!("[{}] {label}", m.id.handle())
            })
            .collect())
    }
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
