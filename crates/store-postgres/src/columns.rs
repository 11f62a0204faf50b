//! How cairn's values sit in PostgreSQL columns: times as milliseconds since the epoch, tags as
//! one space-joined text, a scope as its `project` column (`''` for global), and a column read
//! that fails as an unreadable row. A leaf every table's code uses.

use cairn_core::{ProjectName, Result, Scope, Tag};
use jiff::Timestamp;
use postgres::Row;
use postgres::types::FromSql;

use crate::error::corrupt;

/// Column `index` of `row` as a `T`, or an error saying the row is unreadable.
pub fn get<'a, T: FromSql<'a>>(row: &'a Row, index: usize) -> Result<T> {
    row.try_get(index).map_err(corrupt)
}

pub fn time(ms: i64) -> Result<Timestamp> {
    Timestamp::from_millisecond(ms).map_err(corrupt)
}

pub fn optional_time(ms: Option<i64>) -> Result<Option<Timestamp>> {
    ms.map(time).transpose()
}

pub fn millis(ts: Timestamp) -> i64 {
    ts.as_millisecond()
}

pub fn tags_from_text(text: &str) -> Result<Vec<Tag>> {
    Tag::split_joined(text).map_err(corrupt)
}

pub fn tags_to_text(tags: &[Tag]) -> String {
    Tag::join(tags)
}

pub fn project_column(scope: &Scope) -> String {
    scope.project().map_or("", ProjectName::as_str).to_string()
}

/// The scope a `project` column names (`''` is global).
pub fn scope_from_column(project: &str) -> Result<Scope> {
    if project.is_empty() {
        Ok(Scope::Global)
    } else {
        Ok(Scope::Project(ProjectName::new(project).map_err(corrupt)?))
    }
}
