//! Relations at the front door: their inputs and the `Api` operations (verdicts, comparisons,
//! listings, scans, a memory's relations).
//!
//! The relation inputs: a verdict (`memory_judge`, `POST /v1/conflicts/{id}/judge`,
//! `cairn conflicts judge`), a comparison (`memory_compare`), a listing of conflicts and a scan,
//! and their conversion for a [`Caller`]. A verdict's actor is the caller's agent unless the
//! input names one; a listing or scan without a project means the caller's project.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Api;
use super::Caller;
use super::domains::Domains;
use super::memory::{page_limit, project, time};
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::id::{IdRef, MemoryId, RelationRef};
use crate::memory::Memory;
use crate::relation::{Actor, ActorKind, NewVerdict, RelationFilter, RelationKind, RelationStatus};
use crate::relation::{CompareStatus, Compared, RelationStats, RelationView, ScanReport};
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
    /// Compare every memory by meaning: embed what still waits for its vector first, and
    /// refuse, saying how to install one, when there is no model. Without it the scan uses
    /// the vectors already stored and words for the rest.
    pub semantic: bool,
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

/// The most pending judgments one scan records unless told otherwise.
pub const DEFAULT_SCAN_INSERTS: usize = 100;

/// An id error about another field (`a` or `b` of a comparison, `token`) rather than `id`.
pub(super) fn renamed(error: Error, field: &str) -> Error {
    match error {
        Error::Invalid { message, .. } => Error::invalid(field, message),
        other => other,
    }
}

impl Api {
    /// Settles a pending judgment (a write's candidate) with a verdict.
    pub fn judge(&self, caller: &Caller, input: JudgeInput) -> Result<RelationView> {
        self.judge_id(caller, &input.judgment_id, input.verdict)
    }

    /// Settles judgment `judgment_id` (a full id or a handle) with a verdict.
    pub fn judge_id(
        &self,
        caller: &Caller,
        judgment_id: &str,
        verdict: VerdictInput,
    ) -> Result<RelationView> {
        let judgment = RelationRef::parse(judgment_id)?;
        let relation = self.domains.relations().show(&judgment)?.relation;
        caller.access.write(&relation.scope, "judgment_id")?;
        let view = self
            .domains
            .relations()
            .judge(&judgment, verdict.into_verdict(caller))?;
        self.audit_verdict(caller, &view);
        Ok(view)
    }

    /// After a verdict, its audit entry: the judgment, and what it now says of the pair.
    fn audit_verdict(&self, caller: &Caller, view: &RelationView) {
        let relation = &view.relation;
        let said = relation
            .verdict
            .as_ref()
            .map_or("pending", |verdict| verdict.relation.as_str());
        let change = Change::in_scope(AuditAction::Verdict, &relation.scope)
            .of(relation.id)
            .saying(format!("{} {said} {}", relation.source, relation.target));
        self.audited(caller, change);
    }

    /// Records a verdict on two memories directly.
    pub fn compare(&self, caller: &Caller, input: CompareInput) -> Result<Compared> {
        let a = IdRef::parse(&input.a).map_err(|e| renamed(e, "a"))?;
        let b = IdRef::parse(&input.b).map_err(|e| renamed(e, "b"))?;
        self.writable(caller, &a, false)
            .map_err(|e| renamed(e, "a"))?;
        self.writable(caller, &b, false)
            .map_err(|e| renamed(e, "b"))?;
        let compared =
            self.domains
                .relations()
                .compare(&a, &b, input.verdict.into_verdict(caller))?;
        if let (CompareStatus::Created | CompareStatus::Updated, Some(view)) =
            (compared.status, &compared.relation)
        {
            self.audit_verdict(caller, view);
        }
        Ok(compared)
    }

    /// Relations under a filter, the most recently changed first.
    pub fn conflicts(&self, caller: &Caller, input: ConflictsInput) -> Result<Vec<RelationView>> {
        let mut filter = input.into_filter(&self.domains, caller)?;
        filter.scope = self.relation_scope(caller, filter.scope)?;
        self.domains.relations().list(&filter)
    }

    /// One judgment by id or handle.
    pub fn conflict(&self, caller: &Caller, judgment_id: &str) -> Result<RelationView> {
        let view = self
            .domains
            .relations()
            .show(&RelationRef::parse(judgment_id)?)?;
        caller.access.read(&view.relation.scope, "judgment_id")?;
        Ok(view)
    }

    /// Counts of relations by status and relation, in the scope the input names.
    pub fn conflict_stats(&self, caller: &Caller, input: &ConflictsInput) -> Result<RelationStats> {
        let scope = self.relation_scope(caller, input.scope(caller)?)?;
        self.domains.relations().stats(scope.as_ref())
    }

    /// The scope of a relation read (`None`: every scope), narrowed to the caller's.
    pub(super) fn relation_scope(
        &self,
        caller: &Caller,
        scope: Option<Scope>,
    ) -> Result<Option<Scope>> {
        match (scope, caller.access.project()) {
            (None, Some(project)) => Ok(Some(Scope::Project(project.clone()))),
            (Some(scope), _) => {
                caller.access.read(&scope, "project")?;
                Ok(Some(scope))
            }
            (None, None) => Ok(None),
        }
    }

    /// Walks one scope for pairs never related; records them with `apply`.
    pub fn scan_conflicts(
        &self,
        caller: &Caller,
        input: ScanInput,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<ScanReport> {
        let scope = input.scope(caller)?;
        match input.apply {
            true => caller.access.write(&scope, "project")?,
            false => caller.access.read(&scope, "project")?,
        }
        if input.semantic {
            self.domains
                .embeddings()
                .embed_pending(&mut |_| {})
                .map_err(|error| match error {
                    Error::Unavailable { hint, .. } => Error::Unavailable {
                        what: "a semantic scan".into(),
                        hint,
                    },
                    other => other,
                })?;
        }
        self.domains.relations().scan(
            &scope,
            input.apply,
            input.max_insert.unwrap_or(DEFAULT_SCAN_INSERTS),
            progress,
        )
    }

    /// The relations of these memories (both directions), with both sides' headlines.
    pub fn relations_of(&self, caller: &Caller, memories: &[Memory]) -> Result<Vec<RelationView>> {
        for memory in memories {
            caller.access.read(&memory.scope, "id")?;
        }
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        Ok(self
            .domains
            .relations()
            .relations_of(&ids)?
            .into_iter()
            .filter(|view| caller.access.can_read(&view.relation.scope))
            .collect())
    }
}
