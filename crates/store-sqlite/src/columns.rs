//! cairn's values in SQLite columns: core's one reading of them (`cairn_core::memory::columns`:
//! times as milliseconds, tags as one text, a scope as its `project` column), with a value
//! cairn cannot read back turned into rusqlite's error for an unreadable row. A leaf every
//! table's code uses.

use cairn_core::Scope;
use cairn_core::memory::columns;
use jiff::Timestamp;

use crate::error::SqliteError;

pub(crate) fn corrupt(what: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        Box::new(SqliteError::CorruptRow(what.to_string())),
    )
}

pub(crate) fn time(ms: i64) -> rusqlite::Result<Timestamp> {
    columns::time(ms).map_err(corrupt)
}

/// The scope a `project` column names (`''` is global).
pub(crate) fn scope_from_column(project: &str) -> rusqlite::Result<Scope> {
    columns::scope(project).map_err(corrupt)
}

pub use columns::{millis, project_column, tags_text as tags_to_text};
