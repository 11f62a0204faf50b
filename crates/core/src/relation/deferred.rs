//! Relations waiting for their memories: a relation record an import could not apply because
//! its source or target memory is not in the store (a relation file imported before its
//! memories, a memory purged here but judged elsewhere, a hand-made file).
//!
//! Such a record is kept as a [`DeferredRelation`] — the relation exactly as imported, why it
//! waits, how often applying it was tried — instead of failing the whole import. Every later
//! import that brings memories, and `cairn conflicts deferred --replay`, tries again: a record
//! whose memories are both here is applied as an imported relation is, and leaves the queue. A
//! record that can never apply (its memories arrived in different projects) is marked
//! [`DeferredStatus::Dead`], with the reason, and is kept until someone discards it. What
//! applies records lives with the import (`exchange::deferred`); this is the model the store
//! keeps.

use std::str::FromStr;

use jiff::Timestamp;
use serde::Serialize;

use crate::error::Error;
use crate::relation::model::Relation;

/// Where a deferred relation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeferredStatus {
    /// A memory is missing; the next import or replay tries again.
    Deferred,
    /// Both memories are here but the relation cannot join them; not tried again.
    Dead,
}

impl DeferredStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DeferredStatus::Deferred => "deferred",
            DeferredStatus::Dead => "dead",
        }
    }
}

impl FromStr for DeferredStatus {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "deferred" => Ok(DeferredStatus::Deferred),
            "dead" => Ok(DeferredStatus::Dead),
            _ => Err(Error::invalid(
                "status",
                format!("unknown status '{s}'; expected deferred or dead"),
            )),
        }
    }
}

/// A relation record kept until its memories are in the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeferredRelation {
    /// The relation as the import gave it (its verdicts already checked).
    pub relation: Relation,
    pub status: DeferredStatus,
    /// Times it was tried again after it was first kept.
    pub attempts: u32,
    /// Why it is not applied: which memory is missing, or why it can never apply.
    pub last_error: String,
    pub first_seen_at: Timestamp,
    pub last_tried_at: Timestamp,
}

/// Which deferred relations a listing shows, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct DeferredFilter {
    pub status: Option<DeferredStatus>,
    pub limit: usize,
}
