//! The relation inputs: a verdict (`memory_judge`, `POST /v1/conflicts/{id}/judge`,
//! `cairn conflicts judge`), a comparison (`memory_compare`), a listing of conflicts and a scan,
//! and their conversion for a [`Caller`]. A verdict's actor is the caller's agent unless the
//! input names one; a listing or scan without a project means the caller's project.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Caller;
use super::domains::Domains;
use super::memory::{page_limit, project, time};
use crate::error::{Error, Result};
use crate::relation::{Actor, ActorKind, NewVerdict, RelationFilter, RelationKind, RelationStatus};
use crate::scope::Scope;

/// A verdict on a pair of memories.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictInput {
    /// What the newer memory is to the older one: `supersedes` (it replaces it; the old one is
    /// kept as history and ranks below), `conflicts_with` (they cannot both hold; nobody knows
    /// which), `scoped` (both hold, in different contexts), `compatible` (both hold),
    /// `related` (same subject, nothing to settle), `not_conflict` (unrelated: dismiss).
    pub relation: Option<RelationKind>,
    /// Why, in a sentence.
    #[serde(default)]
    pub reason: Option<String>,
    /// What shows it (a commit, a file, a message).
    #[serde(default)]
    pub evidence: Option<String>,
    /// How sure, 0–1 (clamped).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Who judges: `agent` (default), `user` or `system`.
    #[serde(default)]
    pub actor_kind: Option<ActorKind>,
    /// The judge's name; the calling agent's when omitted.
    #[serde(default)]
    pub actor: Option<String>,
    /// The model behind the judge, if any.
    #[serde(default)]
    pub model: Option<String>,
    /// The session the verdict was made in.
    #[serde(default)]
    pub session_id: Option<String>,
}

impl VerdictInput {
    pub(crate) fn into_verdict(self, caller: &Caller) -> NewVerdict {
        NewVerdict {
            relation: self.relation,
            reason: self.reason,
            evidence: self.evidence,
            confidence: self.confidence,
            actor: Actor {
                kind: self.actor_kind.unwrap_or_default(),
                name: self.actor.or_else(|| caller.agent.clone()),
                model: self.model,
                session: self.session_id,
            },
        }
    }
}

/// Input of `memory_judge`: a pending judgment (from a write's `candidates`) and the verdict.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeInput {
    /// The `judgment_id` a write returned with a candidate (or its first 8 characters).
    pub judgment_id: String,
    #[serde(flatten)]
    pub verdict: VerdictInput,
}

/// Input of `memory_compare`: a verdict on any two memories of one project.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareInput {
    /// The newer memory (id or handle).
    pub a: String,
    /// The older memory (id or handle).
    pub b: String,
    #[serde(flatten)]
    pub verdict: VerdictInput,
}

/// Which conflicts a listing shows.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConflictsInput {
    /// One project's relations; the caller's project when omitted.
    pub project: Option<String>,
    /// Global memories' relations.
    pub global: bool,
    /// Every project's.
    pub all_projects: bool,
    /// `pending` or `judged`.
    pub status: Option<RelationStatus>,
    /// Changed since (ISO 8601 or natural language, e.g. `2 days ago`).
    pub since: Option<String>,
    /// Relations wanted (1–100, default 20).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
}

impl ConflictsInput {
    /// The scope asked for: `None` for every project.
    pub(crate) fn scope(&self, caller: &Caller) -> Result<Option<Scope>> {
        scope_of(
            self.project.as_deref(),
            self.global,
            self.all_projects,
            caller,
        )
    }

    pub(crate) fn into_filter(self, domains: &Domains, caller: &Caller) -> Result<RelationFilter> {
        Ok(RelationFilter {
            scope: self.scope(caller)?,
            status: self.status,
            since: time(domains, "since", self.since.as_deref())?,
            limit: page_limit("limit", self.limit, 20)?,
        })
    }
}

/// Input of `POST /v1/conflicts/scan`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ScanInput {
    /// The project to walk; the caller's when omitted.
    pub project: Option<String>,
    /// Walk the global memories.
    pub global: bool,
    /// Record a pending judgment for each pair found (a dry run otherwise).
    pub apply: bool,
    /// The most judgments one scan records (default 100).
    pub max_insert: Option<usize>,
}

impl ScanInput {
    /// The scope to walk: one project or the global memories.
    pub(crate) fn scope(&self, caller: &Caller) -> Result<Scope> {
        scope_of(self.project.as_deref(), self.global, false, caller)?.ok_or_else(|| {
            Error::invalid(
                "project",
                "name the project to scan (or global); a scan walks one scope",
            )
        })
    }
}

/// The scope a project / global / all-projects choice means for `caller`.
fn scope_of(
    name: Option<&str>,
    global: bool,
    all_projects: bool,
    caller: &Caller,
) -> Result<Option<Scope>> {
    match (all_projects, global, project(name)?) {
        (true, true, _) | (true, _, Some(_)) | (_, true, Some(_)) => Err(Error::invalid(
            "project",
            "give at most one of project, global and all_projects",
        )),
        (true, false, None) => Ok(None),
        (false, true, None) => Ok(Some(Scope::Global)),
        (false, false, Some(name)) => Ok(Some(Scope::Project(name))),
        (false, false, None) => Ok(caller.default_project.clone().map(Scope::Project)),
    }
}
