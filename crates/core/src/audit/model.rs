//! An audit entry and the query that reads them back.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Serialize, Serializer};

use crate::access::TokenId;
use crate::error::Error;
use crate::memory::Source;
use crate::scope::{ProjectName, Scope};

/// What a change did. The names are stable: scripts filter on them (`cairn audit --action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditAction {
    /// A memory was stored (created, or revised by its topic key).
    MemoryStore,
    /// A memory was changed in place.
    MemoryUpdate,
    /// A memory was hidden.
    MemoryForget,
    /// A hidden memory was brought back.
    MemoryRestore,
    /// A memory was deleted for good.
    MemoryPurge,
    /// Expired memories and old observations were deleted.
    Prune,
    /// Records were imported.
    Import,
    /// Deferred relations were tried again (some applied, or found dead).
    DeferredReplay,
    /// A deferred relation was dropped from the queue.
    DeferredDiscard,
    /// A project's markdown files were read back (units created, revised, cut or restored by
    /// hand or by git).
    FilesSync,
    /// Two memories were judged (supersedes, conflicts_with, …).
    Verdict,
    /// A slot was created.
    SlotCreate,
    /// A slot's text was appended to or replaced.
    SlotEdit,
    /// A slot's settings were changed.
    SlotConfigure,
    /// A slot was deleted.
    SlotDelete,
    /// Slots were reset to their defaults.
    SlotReset,
    /// An ended session was reflected into slots.
    SlotReflect,
    /// A stored image was looked at on demand (its vectors made).
    ImageEmbed,
    /// An access token was issued.
    TokenIssue,
    /// An access token was revoked.
    TokenRevoke,
}

impl AuditAction {
    pub const ALL: [AuditAction; 20] = [
        AuditAction::MemoryStore,
        AuditAction::MemoryUpdate,
        AuditAction::MemoryForget,
        AuditAction::MemoryRestore,
        AuditAction::MemoryPurge,
        AuditAction::Prune,
        AuditAction::Import,
        AuditAction::DeferredReplay,
        AuditAction::DeferredDiscard,
        AuditAction::FilesSync,
        AuditAction::Verdict,
        AuditAction::SlotCreate,
        AuditAction::SlotEdit,
        AuditAction::SlotConfigure,
        AuditAction::SlotDelete,
        AuditAction::SlotReset,
        AuditAction::SlotReflect,
        AuditAction::ImageEmbed,
        AuditAction::TokenIssue,
        AuditAction::TokenRevoke,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::MemoryStore => "memory.store",
            AuditAction::MemoryUpdate => "memory.update",
            AuditAction::MemoryForget => "memory.forget",
            AuditAction::MemoryRestore => "memory.restore",
            AuditAction::MemoryPurge => "memory.purge",
            AuditAction::Prune => "prune",
            AuditAction::Import => "import",
            AuditAction::DeferredReplay => "deferred.replay",
            AuditAction::DeferredDiscard => "deferred.discard",
            AuditAction::FilesSync => "files.sync",
            AuditAction::Verdict => "verdict",
            AuditAction::SlotCreate => "slot.create",
            AuditAction::SlotEdit => "slot.edit",
            AuditAction::SlotConfigure => "slot.configure",
            AuditAction::SlotDelete => "slot.delete",
            AuditAction::SlotReset => "slot.reset",
            AuditAction::SlotReflect => "slot.reflect",
            AuditAction::ImageEmbed => "image.embed",
            AuditAction::TokenIssue => "token.issue",
            AuditAction::TokenRevoke => "token.revoke",
        }
    }
}

impl fmt::Display for AuditAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AuditAction {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        AuditAction::ALL
            .into_iter()
            .find(|a| a.as_str() == s.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
                Error::invalid(
                    "action",
                    format!("unknown action '{s}'; one of {}", known.join(", ")),
                )
            })
    }
}

impl Serialize for AuditAction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What one change was, as the operation that made it says: the action, the project it touched,
/// what it changed and how. The front door adds who made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub action: AuditAction,
    pub project: Option<ProjectName>,
    pub target: String,
    pub detail: String,
}

impl Change {
    pub fn new(action: AuditAction, project: Option<&ProjectName>) -> Self {
        Change {
            action,
            project: project.cloned(),
            target: String::new(),
            detail: String::new(),
        }
    }

    /// A change of something in `scope` (its project, or none for the global scope).
    pub fn in_scope(action: AuditAction, scope: &Scope) -> Self {
        Change::new(action, scope.project())
    }

    pub fn of(mut self, target: impl ToString) -> Self {
        self.target = target.to_string();
        self
    }

    pub fn saying(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }
}

/// A change as the front door records it; the backend adds its place in the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewAuditEntry {
    pub at: Timestamp,
    pub action: AuditAction,
    /// The entry point the change came through.
    pub entry_point: Source,
    /// The access token that made the change; `None`: the local operator (or a server's own
    /// `--token`).
    pub token: Option<TokenId>,
    /// The agent the request named (an MCP client's name, a hook's agent).
    pub agent: Option<String>,
    /// The project changed; `None`: the global scope, or the whole store.
    pub project: Option<ProjectName>,
    /// What was changed: a memory id, a slot's label, a token id, an image; empty for a change
    /// of many (an import, a prune).
    pub target: String,
    /// A few words on the change: a write's status, a verdict's relation, counts.
    pub detail: String,
}

/// An entry of the log: a change and its place (`seq` grows with every entry).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    pub seq: i64,
    #[serde(flatten)]
    pub entry: NewAuditEntry,
}

/// Which entries to read: newest first, at most `limit`, narrowed by any of the others.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditQuery {
    pub limit: usize,
    pub action: Option<AuditAction>,
    pub project: Option<ProjectName>,
    pub token: Option<TokenId>,
    pub target: Option<String>,
    /// Entries at or after this time.
    pub since: Option<Timestamp>,
}

impl AuditQuery {
    /// The newest `limit` entries, of every kind.
    pub fn latest(limit: usize) -> Self {
        AuditQuery {
            limit,
            action: None,
            project: None,
            token: None,
            target: None,
            since: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_reads_back_from_its_name_and_an_unknown_one_lists_them() {
        for action in AuditAction::ALL {
            assert_eq!(action.as_str().parse::<AuditAction>().unwrap(), action);
        }
        let error = "memory.delete".parse::<AuditAction>().unwrap_err();
        assert_eq!(error.field(), Some("action"));
        assert!(error.to_string().contains("memory.purge"), "{error}");
    }
}
