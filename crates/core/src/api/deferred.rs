//! Relations waiting for their memories (see [`crate::relation::deferred`]) at the front door:
//! list them, look at one, try the queue again, drop one (`cairn conflicts deferred`, and
//! `/v1/conflicts/deferred` over HTTP). The queue spans every project and
//! holds what imports (the operator's alone) kept, so each operation is the operator's too.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Api, Caller};
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::exchange::ReplayReport;
use crate::exchange::deferred::replay;
use crate::id::RelationId;
use crate::relation::{DeferredFilter, DeferredRelation, DeferredStatus};
use crate::store::in_transaction;

/// The most deferred relations one listing shows.
pub const MAX_DEFERRED_LISTED: usize = 500;

/// Query of `GET /v1/conflicts/deferred` and the flags of `cairn conflicts deferred`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeferredInput {
    /// `deferred` (waiting for a memory) or `dead` (can never apply); both by default.
    #[serde(default)]
    pub status: Option<String>,
    /// How many, the first kept first (1–500; 50 by default).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl DeferredInput {
    fn filter(&self) -> Result<DeferredFilter> {
        let limit = self.limit.unwrap_or(50);
        if !(1..=MAX_DEFERRED_LISTED).contains(&limit) {
            return Err(Error::invalid(
                "limit",
                format!("must be 1–{MAX_DEFERRED_LISTED}, got {limit}"),
            ));
        }
        let status = self.status.as_deref().map(str::parse::<DeferredStatus>);
        Ok(DeferredFilter {
            status: status.transpose()?,
            limit,
        })
    }
}

impl Api {
    /// Deferred relations, the first kept first, as `input` narrows them.
    pub fn deferred_relations(
        &self,
        caller: &Caller,
        input: &DeferredInput,
    ) -> Result<Vec<DeferredRelation>> {
        caller.access.whole_store("the deferred relations")?;
        self.domains.store.deferred_relations(&input.filter()?)
    }

    /// One deferred relation, by its full judgment id.
    pub fn deferred_relation(&self, caller: &Caller, id: &str) -> Result<DeferredRelation> {
        caller.access.whole_store("the deferred relations")?;
        let id = judgment_id(id)?;
        self.domains
            .store
            .deferred_relation(&id)?
            .ok_or_else(|| not_deferred(&id))
    }

    /// Tries every waiting relation again: those whose memories are both here are applied and
    /// leave the queue.
    pub fn replay_deferred(&self, caller: &Caller) -> Result<ReplayReport> {
        caller.access.whole_store("replaying deferred relations")?;
        let now = self.domains.now().timestamp();
        let report = in_transaction(self.domains.store.as_ref(), |tx| replay(tx, now))?;
        if report.applied + report.dead > 0 {
            let change = Change::new(AuditAction::DeferredReplay, None).saying(format!(
                "{} applied, {} dead, {} still waiting",
                report.applied, report.dead, report.waiting
            ));
            self.audited(caller, change);
        }
        Ok(report)
    }

    /// Drops one deferred relation (waiting or dead) from the queue; returns it as it was.
    pub fn discard_deferred(&self, caller: &Caller, id: &str) -> Result<DeferredRelation> {
        caller
            .access
            .whole_store("discarding a deferred relation")?;
        let id = judgment_id(id)?;
        let mut discarded = None;
        in_transaction(self.domains.store.as_ref(), |tx| {
            discarded = tx.deferred(&id)?;
            if discarded.is_some() {
                tx.delete_deferred(&id)?;
            }
            Ok(())
        })?;
        let discarded = discarded.ok_or_else(|| not_deferred(&id))?;
        let change = Change::in_scope(AuditAction::DeferredDiscard, &discarded.relation.scope)
            .of(id)
            .saying(format!(
                "{} -> {} ({})",
                discarded.relation.source,
                discarded.relation.target,
                discarded.status.as_str()
            ));
        self.audited(caller, change);
        Ok(discarded)
    }
}

fn judgment_id(text: &str) -> Result<RelationId> {
    RelationId::parse_full(text.trim()).ok_or_else(|| {
        Error::invalid(
            "id",
            format!(
                "'{text}' is not a full judgment id (36 characters, as `cairn conflicts deferred` \
                 lists it)"
            ),
        )
    })
}

fn not_deferred(id: &RelationId) -> Error {
    Error::Missing {
        field: "id".into(),
        message: format!(
            "no deferred relation has the judgment id {id} (applied already, or discarded)"
        ),
    }
}
