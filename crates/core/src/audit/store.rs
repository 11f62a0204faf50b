//! What a backend must provide for the audit log: [`AuditStore`] (reads) and [`AuditTx`]
//! (appending and pruning, inside one transaction). Entries are kept in the order appended.

use jiff::Timestamp;

use crate::audit::model::{AuditEntry, AuditQuery, NewAuditEntry};
use crate::error::Result;

/// The read side of the audit log.
pub trait AuditStore: Send + Sync {
    /// The entries `query` asks for, newest first (by `seq`).
    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>>;
}

/// The write side of the audit log, inside one transaction.
pub trait AuditTx {
    /// Appends an entry after every earlier one.
    fn append_audit(&mut self, entry: &NewAuditEntry) -> Result<()>;

    /// Deletes the entries from before `before`; how many.
    fn prune_audit(&mut self, before: Timestamp) -> Result<usize>;
}
