//! cairn's values in PostgreSQL columns: core's one reading of them
//! (`cairn_core::memory::columns`: times as milliseconds, tags as one text, a scope as its
//! `project` column), with a column read or a value that fails turned into an unreadable row.
//! A leaf every table's code uses.

use cairn_core::memory::columns;
use cairn_core::{Result, Scope};
use jiff::Timestamp;
use postgres::Row;
use postgres::types::FromSql;

use crate::error::corrupt;

/// Column `index` of `row` as a `T`, or an error saying the row is unreadable.
pub fn get<'a, T: FromSql<'a>>(row: &'a Row, index: usize) -> Result<T> {
    row.try_get(index).map_err(corrupt)
}

pub fn time(ms: i64) -> Result<Timestamp> {
    columns::time(ms).map_err(corrupt)
}

pub fn optional_time(ms: Option<i64>) -> Result<Option<Timestamp>> {
    columns::optional_time(ms).map_err(corrupt)
}

pub fn project_column(scope: &Scope) -> String {
    columns::project_column(scope).to_string()
}

/// The scope a `project` column names (`''` is global).
pub fn scope_from_column(project: &str) -> Result<Scope> {
    columns::scope(project).map_err(corrupt)
}

pub use columns::{millis, tags_text as tags_to_text};
