//! How cairn's values sit in SQLite columns: times as milliseconds since the epoch, tags as one
//! space-joined text, a scope as its `project` column (`''` for global), and the error for a
//! value a column holds that cairn cannot read back. A leaf every table's code uses.

use cairn_core::{ProjectName, Scope, Tag};
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
    Timestamp::from_millisecond(ms).map_err(corrupt)
}

pub(crate) fn optional_time(ms: Option<i64>) -> rusqlite::Result<Option<Timestamp>> {
    ms.map(time).transpose()
}

pub fn millis(ts: Timestamp) -> i64 {
    ts.as_millisecond()
}

pub(crate) fn tags_from_text(text: &str) -> rusqlite::Result<Vec<Tag>> {
    Tag::split_joined(text).map_err(corrupt)
}

pub fn tags_to_text(tags: &[Tag]) -> String {
    Tag::join(tags)
}

pub fn project_column(scope: &Scope) -> &str {
    scope.project().map_or("", ProjectName::as_str)
}

/// The scope a `project` column names (`''` is global).
pub(crate) fn scope_from_column(project: &str) -> rusqlite::Result<Scope> {
    if project.is_empty() {
        Ok(Scope::Global)
    } else {
        Ok(Scope::Project(ProjectName::new(project).map_err(corrupt)?))
    }
}
