//! A relation as a SQL backend's columns hold it — its verdict and the verdicts before it as
//! JSON; a deferred relation's record as one JSON value — and the one writing and reading of those columns for both backends (see
//! `memory::columns` for the values they share).

use crate::error::{Error, Result};
use crate::memory::columns::{CorruptColumn, millis, scope, time};
use crate::relation::deferred::DeferredRelation;
use crate::relation::model::{Relation, Verdict};

/// The relation columns, in the order [`RelationRow`] holds them; `r` is the table alias.
pub const RELATION_COLUMNS: &str = "r.id, r.source_id, r.target_id, r.project, r.score, \
     r.verdict, r.history, r.created_at, r.updated_at";

fn corrupt(what: impl std::fmt::Display) -> CorruptColumn {
    CorruptColumn(what.to_string())
}

/// A relation's [`RELATION_COLUMNS`], as SQL hands them back.
pub struct RelationRow {
    pub id: String,
    pub source: String,
    pub target: String,
    pub project: String,
    pub score: Option<f64>,
    pub verdict: Option<String>,
    pub history: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl RelationRow {
    /// The relation these columns hold.
    pub fn into_relation(self) -> Result<Relation, CorruptColumn> {
        Ok(Relation {
            id: self.id.parse().map_err(corrupt)?,
            source: self.source.parse().map_err(corrupt)?,
            target: self.target.parse().map_err(corrupt)?,
            scope: scope(&self.project)?,
            score: self.score,
            verdict: self
                .verdict
                .map(|json| serde_json::from_str::<Verdict>(&json))
                .transpose()
                .map_err(corrupt)?,
            history: serde_json::from_str(&self.history).map_err(corrupt)?,
            created_at: time(self.created_at)?,
            updated_at: time(self.updated_at)?,
        })
    }
}

/// A relation's verdict and history as their columns hold them (JSON).
pub fn verdict_columns(relation: &Relation) -> Result<(Option<String>, String)> {
    let verdict = relation
        .verdict
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| Error::storage("could not write a verdict", e))?;
    let history = serde_json::to_string(&relation.history)
        .map_err(|e| Error::storage("could not write a verdict history", e))?;
    Ok((verdict, history))
}

/// The deferred relation columns, in the order [`DeferredRow`] holds them.
pub const DEFERRED_COLUMNS: &str =
    "record, status, attempts, last_error, first_seen_at, last_tried_at";

/// A deferred relation's [`DEFERRED_COLUMNS`]: the relation as imported is one JSON record
/// (its memories' ids have columns of their own, for a purge to find it).
pub struct DeferredRow {
    pub record: String,
    pub status: String,
    pub attempts: i64,
    pub last_error: String,
    pub first_seen_at: i64,
    pub last_tried_at: i64,
}

impl DeferredRow {
    /// The columns of `deferred`.
    pub fn of(deferred: &DeferredRelation) -> Result<Self> {
        Ok(DeferredRow {
            record: serde_json::to_string(&deferred.relation)
                .map_err(|e| Error::storage("could not write a deferred relation", e))?,
            status: deferred.status.as_str().into(),
            attempts: i64::from(deferred.attempts),
            last_error: deferred.last_error.clone(),
            first_seen_at: millis(deferred.first_seen_at),
            last_tried_at: millis(deferred.last_tried_at),
        })
    }

    /// The deferred relation these columns hold.
    pub fn into_deferred(self) -> Result<DeferredRelation, CorruptColumn> {
        Ok(DeferredRelation {
            relation: serde_json::from_str(&self.record).map_err(corrupt)?,
            status: self.status.parse().map_err(corrupt)?,
            attempts: u32::try_from(self.attempts).map_err(corrupt)?,
            last_error: self.last_error,
            first_seen_at: time(self.first_seen_at)?,
            last_tried_at: time(self.last_tried_at)?,
        })
    }
}
