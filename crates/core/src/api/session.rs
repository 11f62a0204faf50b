//! The inputs of the session operations over MCP and HTTP: context, an agent's own session
//! summary, and session listings; and observation search's project.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Caller;
use super::domains::Domains;
use super::memory::{SearchInput, page_limit};
use crate::context::ContextRequest;
use crate::error::{Error, Result};
use crate::scope::{ProjectName, ScopeFilter};
use crate::session::AgentSummary;
use crate::session::{ObservationHit, SessionFilter, SessionKey};

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
