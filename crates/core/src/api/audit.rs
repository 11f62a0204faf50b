//! The audit log at the front door (see [`crate::audit`]): every change an operation commits is
//! followed by its entry, naming the caller behind it; and the operator reads the log back.

use schemars::JsonSchema;
use serde::Deserialize;

use super::memory::{page_limit, project, time};
use super::relation::renamed;
use super::{Api, Caller};
use crate::access::{Access, TokenId};
use crate::audit::{AuditAction, AuditEntry, AuditQuery, Change, NewAuditEntry};
use crate::error::Result;
use crate::memory::WriteOutcome;
use crate::memory::validate::MAX_LABEL_CHARS;
use crate::store::in_transaction;

/// Input of `GET /v1/audit` and `cairn audit`: the newest entries first, narrowed by any field.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditInput {
    /// How many entries, newest first (1–100; 20 by default).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only this action: `memory.store`, `memory.update`, `memory.forget`, `memory.restore`,
    /// `memory.purge`, `prune`, `import`, `deferred.replay`, `deferred.discard`, `files.sync`,
    /// `verdict`, `slot.create`, `slot.edit`, `slot.configure`, `slot.delete`, `slot.reset`,
    /// `slot.reflect`, `image.embed`, `token.issue`, `token.revoke`.
    #[serde(default)]
    pub action: Option<String>,
    /// Only changes in this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Only changes made with this access token (its 12-digit id).
    #[serde(default)]
    pub token: Option<String>,
    /// Only changes of this memory id, slot label or token id.
    #[serde(default)]
    pub target: Option<String>,
    /// Only changes at or after this time (ISO 8601 or `2 days ago`).
    #[serde(default)]
    pub since: Option<String>,
}

impl AuditInput {
    fn into_query(self, api: &Api) -> Result<AuditQuery> {
        Ok(AuditQuery {
            limit: page_limit("limit", self.limit, 20)?,
            action: self.action.as_deref().map(str::parse).transpose()?,
            project: project(self.project.as_deref())?,
            token: (self.token.as_deref().map(TokenId::parse).transpose())
                .map_err(|e| renamed(e, "token"))?,
            target: self.target.filter(|t| !t.trim().is_empty()),
            since: time(&api.domains, "since", self.since.as_deref())?,
        })
    }
}

impl Api {
    /// The newest entries of the audit log that `input` asks for; the operator's alone.
    pub fn audit(&self, caller: &Caller, input: AuditInput) -> Result<Vec<AuditEntry>> {
        caller.access.whole_store("reading the audit log")?;
        let query = input.into_query(self)?;
        self.domains.store.audit_entries(&query)
    }

    /// Appends the entry of a change `caller` just committed, deleting the entries past the
    /// retention. The change stands whatever happens here: an entry that cannot be written is
    /// reported in the process log.
    pub(super) fn audited(&self, caller: &Caller, change: Change) {
        let retention_days = self.domains.config.audit.retention_days;
        if retention_days == 0 {
            return;
        }
        let now = self.domains.now().timestamp();
        let entry = NewAuditEntry {
            at: now,
            action: change.action,
            entry_point: caller.source,
            token: match &caller.access {
                Access::Full => None,
                Access::Token(grant) => Some(grant.token.clone()),
            },
            // The agent's name comes from the client (an MCP handshake): kept to a label's
            // length, so a hostile name cannot make every entry it causes large.
            agent: caller
                .agent
                .as_deref()
                .map(|agent| agent.chars().take(MAX_LABEL_CHARS).collect()),
            project: change.project,
            target: change.target,
            detail: change.detail,
        };
        let horizon = now - jiff::SignedDuration::from_hours(24 * i64::from(retention_days));
        let appended = in_transaction(self.domains.store.as_ref(), |tx| {
            tx.append_audit(&entry)?;
            tx.prune_audit(horizon)
        });
        if let Err(error) = appended {
            tracing::warn!(action = %entry.action, target = %entry.target, %error,
                "the change was made but its audit entry could not be written");
        }
    }

    /// After a write of one memory that changed something (created or updated), its audit
    /// entry; a duplicate or an unchanged update changed nothing and leaves none.
    pub(super) fn audit_write(&self, caller: &Caller, action: AuditAction, outcome: &WriteOutcome) {
        if outcome.status.stored_text() {
            let memory = &outcome.memory;
            let change = Change::in_scope(action, &memory.scope)
                .of(memory.id)
                .saying(outcome.status.as_str());
            self.audited(caller, change);
        }
    }
}
