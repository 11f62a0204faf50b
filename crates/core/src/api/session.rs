//! Sessions at the front door: context, recorded hook events (and the facts, summaries,
//! reflections and screenshots they bring), an agent's own session summary, session listings and
//! observations; their inputs over MCP and HTTP and the `Api` operations.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Api;
use super::Caller;
use super::domains::Domains;
use super::memory::{SearchInput, page_limit};
use crate::audit::AuditAction;
use crate::context::Context;
use crate::context::ContextRequest;
use crate::error::{Error, Result};
use crate::image::screenshots::screenshot_memories;
use crate::memory::filter::{ListQuery, MemoryFilter, SortKey, SortOrder};
use crate::memory::{Source, WriteOutcome};
use crate::scope::Scope;
use crate::scope::{ProjectName, ScopeFilter};
use crate::session::AgentSummary;
use crate::session::reminder;
use crate::session::{AgentEvent, Observation, Session};
use crate::session::{ObservationHit, SessionFilter, SessionKey};
use crate::slot::Recorded;

/// Input of `memory_context` and `/v1/context`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ContextInput {
    /// The project; the caller's project when omitted.
    pub project: Option<String>,
    /// What the session is about now: a prompt, a task, a question.
    pub query: Option<String>,
    /// Files in play; their names guide what is relevant.
    pub files: Vec<String>,
    /// Tokens the context may take (50–100000; default `context.budget_tokens`, 2000).
    #[schemars(range(min = 50, max = 100000))]
    pub budget: Option<usize>,
}

impl ContextInput {
    pub(crate) fn into_request(self, domains: &Domains, caller: &Caller) -> Result<ContextRequest> {
        Ok(ContextRequest {
            project: match self.project.as_deref() {
                Some(name) => Some(ProjectName::new(name)?),
                None => caller.default_project.clone(),
            },
            query: self.query,
            files: self.files,
            session: None,
            budget: self.budget.unwrap_or(domains.config.context.budget_tokens),
        })
    }
}

/// Input of `memory_session_summary` and `POST /v1/sessions/summary`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SessionSummaryInput {
    /// What the session set out to do.
    #[schemars(length(min = 1))]
    pub goal: String,
    /// What was found out (root causes, facts about the code).
    pub discoveries: Vec<String>,
    /// What was done.
    pub accomplished: Vec<String>,
    /// What is left to do.
    pub next_steps: Vec<String>,
    /// The files that matter.
    pub files: Vec<String>,
    /// The project; the caller's project when omitted.
    pub project: Option<String>,
    /// The agent's own session id, when known; otherwise the project's most recently active
    /// session (of this agent) is meant.
    pub session_id: Option<String>,
}

impl SessionSummaryInput {
    pub fn into_summary(self, caller: &Caller) -> Result<AgentSummary> {
        let project = match self.project.as_deref() {
            Some(name) => Some(ProjectName::new(name)?),
            None => caller.default_project.clone(),
        };
        let session = match (&self.session_id, &caller.agent) {
            (Some(id), Some(agent)) => Some(SessionKey::new(agent, id)?),
            (Some(_), None) => {
                return Err(Error::invalid(
                    "session_id",
                    "needs the agent's name, which this client did not give",
                ));
            }
            (None, _) => None,
        };
        Ok(AgentSummary {
            session,
            project,
            agent: caller.agent.clone(),
            goal: self.goal,
            discoveries: self.discoveries,
            accomplished: self.accomplished,
            next_steps: self.next_steps,
            files: self.files,
        })
    }
}

/// Input of `GET /v1/sessions`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SessionsInput {
    /// Only this project's sessions; the caller's project when omitted.
    pub project: Option<String>,
    /// Sessions of every project.
    pub all_projects: bool,
    /// Only this agent's sessions (`claude-code`, `opencode`, `codex` …).
    pub agent: Option<String>,
    /// Sessions wanted (1–100, default 20).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    pub offset: usize,
}

impl SessionsInput {
    pub fn into_filter(self, caller: &Caller) -> Result<SessionFilter> {
        let project = match (self.all_projects, self.project.as_deref()) {
            (true, Some(_)) => {
                return Err(Error::invalid(
                    "project",
                    "give at most one of project and all_projects",
                ));
            }
            (true, None) => None,
            (false, Some(name)) => Some(ProjectName::new(name)?),
            (false, None) => caller.default_project.clone(),
        };
        Ok(SessionFilter {
            project,
            agent: self.agent,
            id: None,
            limit: page_limit("limit", self.limit, 20)?,
            offset: self.offset,
        })
    }
}

impl SearchInput {
    /// Runs this search over observations (`observations: true`), best first: in the project
    /// named, else every project with `all_projects`, else the caller's. Memory-only filters
    /// are refused by name.
    pub(crate) fn search_observations(
        self,
        domains: &Domains,
        caller: &Caller,
    ) -> Result<Vec<ObservationHit>> {
        let mut project = self.observation_project(domains, caller)?;
        // `None` means every project's observations: a token reads its own.
        caller.access.narrow_project(&mut project)?;
        let limit = page_limit("limit", self.limit, domains.config.search.default_limit)?;
        domains
            .sessions()
            .search_observations(&self.query, project, None, limit)
    }

    fn observation_project(
        &self,
        domains: &Domains,
        caller: &Caller,
    ) -> Result<Option<ProjectName>> {
        let filter = self.filter.clone();
        let memory_only = [
            ("tags", !filter.tags.is_empty()),
            ("any_tags", !filter.any_tags.is_empty()),
            ("category", filter.category.is_some()),
            ("entered_by", filter.entered_by.is_some()),
            ("session", filter.session.is_some()),
            ("global", filter.global),
            ("mode", self.mode.is_some()),
            ("all_words", self.all_words),
            ("offset", self.offset > 0),
        ];
        if let Some((field, _)) = memory_only.iter().find(|(_, given)| *given) {
            return Err(Error::invalid(
                *field,
                "applies to memories, not to observations; leave it out with observations: true",
            ));
        }
        Ok(match filter.into_filter(domains, caller)?.scope {
            ScopeFilter::ProjectAndGlobal(project) => Some(project),
            _ => None,
        })
    }
}

impl Api {
    /// What a session should know now, packed into the budget.
    pub fn context(&self, caller: &Caller, input: ContextInput) -> Result<Context> {
        self.context_request(caller, &input.into_request(&self.domains, caller)?)
    }

    /// Stores the agent's own summary of its session.
    pub fn session_summary(
        &self,
        caller: &Caller,
        input: SessionSummaryInput,
    ) -> Result<WriteOutcome> {
        let summary = input.into_summary(caller)?;
        let scope = summary
            .project
            .clone()
            .map_or(Scope::Global, Scope::Project);
        caller.access.write(&scope, "project")?;
        let outcome = self.domains.sessions().store_agent_summary(summary)?;
        self.audit_write(caller, AuditAction::MemoryStore, &outcome);
        Ok(self.wrote(outcome))
    }

    pub fn sessions(&self, caller: &Caller, input: SessionsInput) -> Result<Vec<Session>> {
        self.session_list(caller, &input.into_filter(caller)?)
    }

    /// A session with its visible observations.
    pub fn session(
        &self,
        caller: &Caller,
        agent: &str,
        id: &str,
    ) -> Result<(Session, Vec<Observation>)> {
        let key = SessionKey::new(agent, id)?;
        let session = self.session_by_key(caller, &key)?;
        Ok((session, self.domains.sessions().observations(&key)?))
    }

    /// What the agents of session `key` did, oldest first (those past retention left out).
    pub fn observations(&self, caller: &Caller, key: &SessionKey) -> Result<Vec<Observation>> {
        self.session_by_key(caller, key)?;
        self.domains.sessions().observations(key)
    }

    /// Records agent events (a hook's, or the spool's), then summarises and reflects the
    /// sessions that ended, and keeps the screenshots their tools returned as memories.
    pub fn record_events(&self, events: &[AgentEvent]) -> Result<Recorded> {
        let domains = &self.domains;
        let mut report = domains.sessions().record_events(events)?;
        domains.land_written(&report.extracted);
        report.extracted = domains.detect_by_words(std::mem::take(&mut report.extracted));
        let hook = Caller::local(Source::Hook);
        for outcome in &report.extracted {
            self.audit_write(&hook, AuditAction::MemoryStore, outcome);
        }
        let recorded = domains.slots().reflect_ended(report)?;
        for reflection in recorded.reflected.iter().filter(|r| !r.changes.is_empty()) {
            self.audit_reflection(&hook, reflection);
        }
        // The screenshots the tools of these events returned, kept as memories of their
        // sessions; a picture the store refuses is logged and never fails the events.
        for (memory, picture) in events.iter().flat_map(screenshot_memories) {
            if let Err(error) = self.write(&hook, memory, Some(&picture)) {
                tracing::warn!(%error, "a screenshot a tool returned was not kept");
            }
        }
        // Facts extracted at a turn's end, and summaries, are memories too.
        let report = &recorded.report;
        self.written(
            report.extracted.iter().any(|o| o.status.stored_text())
                || !report.summarized.is_empty(),
        );
        Ok(recorded)
    }

    /// Stores the `*Remember*:` facts of an agent's output as memories, for `caller` (who has
    /// checked that it may write `scope`).
    pub fn extract(
        &self,
        caller: &Caller,
        text: &str,
        scope: Scope,
        entered_by: Option<String>,
        session_id: Option<String>,
    ) -> Result<Vec<WriteOutcome>> {
        let outcomes = self
            .domains
            .memories()
            .extract(text, scope, entered_by, session_id)?;
        self.domains.land_written(&outcomes);
        for outcome in &outcomes {
            self.audit_write(caller, AuditAction::MemoryStore, outcome);
        }
        let outcomes = self.domains.detect_by_words(outcomes);
        self.written(outcomes.iter().any(|o| o.status.stored_text()));
        Ok(outcomes)
    }

    /// Context as its domain takes the request.
    pub fn context_request(&self, caller: &Caller, request: &ContextRequest) -> Result<Context> {
        if let Some(project) = &request.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        // Hand edits to the project's files reach what a new session is told.
        if let Some(project) = &request.project {
            self.domains.refresh_files(project, Duration::ZERO);
        }
        self.domains.context().context(request)
    }

    /// The session `text` names: `AGENT/ID`, or a bare id that one agent's session has.
    pub fn session_key(&self, text: &str) -> Result<SessionKey> {
        self.domains.sessions().resolve(text)
    }

    /// A session without its observations.
    pub fn session_by_key(&self, caller: &Caller, key: &SessionKey) -> Result<Session> {
        let session = self.domains.sessions().session(key)?;
        caller
            .access
            .read(&Scope::Project(session.project.clone()), "session")?;
        Ok(session)
    }

    /// Whether this session's next prompt gets the reminder to save
    /// (`session::reminder`, `context.save_reminder_minutes`).
    pub fn save_reminder_due(&self, caller: &Caller, key: &SessionKey) -> Result<bool> {
        let minutes = self.domains.config.context.save_reminder_minutes;
        if minutes == 0 {
            return Ok(false);
        }
        let session = self.session_by_key(caller, key)?;
        let newest = self.domains.memories().list(&ListQuery {
            filter: MemoryFilter::in_scope(ScopeFilter::only(&Scope::Project(
                session.project.clone(),
            ))),
            sort: SortKey::Created,
            order: SortOrder::Desc,
            limit: 1,
            offset: 0,
        })?;
        let last_save = newest.first().map(|memory| memory.created_at);
        Ok(reminder::due(
            &session,
            last_save,
            self.now().timestamp(),
            minutes,
        ))
    }

    /// Sessions under a filter, the latest active first.
    pub fn session_list(&self, caller: &Caller, filter: &SessionFilter) -> Result<Vec<Session>> {
        let mut filter = filter.clone();
        caller.access.narrow_project(&mut filter.project)?;
        self.domains.sessions().sessions(&filter)
    }
}
