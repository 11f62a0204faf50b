//! The audit log: who changed what, when, and through which entry point.
//!
//! A shared store is written by many agents, some through tokens; when a memory vanishes or a
//! slot changes, the operator needs to see who did it. After every change the front door
//! ([`crate::api::Api`]) appends one [`AuditEntry`]: the [`AuditAction`] (a memory stored,
//! updated, forgotten, restored or purged; a project's files read back; a verdict; a slot created, edited, reset or
//! reflected; an image looked at; a token issued or revoked; an import, a prune), the entry
//! point ([`Source`](crate::memory::Source): cli, mcp, http, hook), the token that made it
//! (none: the local operator), the agent it named, the project, what was changed (a memory id,
//! a slot's label, a token id) and a short detail. Reads change nothing and leave no entry.
//!
//! An entry is appended right after its change commits, in a transaction of its own: a process
//! killed between the two loses the entry, never the change, and a log that cannot be written
//! (a full disk) is reported in the process log without undoing what was done. Entries older
//! than `audit.retention_days` are deleted as new ones are appended (0 keeps none, turning the
//! log off). Only the operator reads the log (`cairn audit`, `GET /v1/audit`): it names the
//! tokens and agents of every project.
//!
//! - [`model`]: [`AuditAction`], [`Change`] (what an operation says it changed), [`AuditEntry`], [`NewAuditEntry`], [`AuditQuery`];
//! - [`store`]: what a backend provides ([`AuditStore`], [`AuditTx`]).

pub mod model;
pub mod store;

pub use model::{AuditAction, AuditEntry, AuditQuery, Change, NewAuditEntry};
pub use store::{AuditStore, AuditTx};
