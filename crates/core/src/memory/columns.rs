//! A memory and a revision as a SQL backend's columns hold them, and the one reading of those
//! columns back into the model, so SQLite and PostgreSQL cannot drift in what they accept.
//!
//! Times are milliseconds since the epoch, tags one space-joined text, a scope its `project`
//! column (`''` for global), category and source their names. A column that holds what the
//! model refuses (a row written by a newer cairn, or damaged) is a [`CorruptColumn`] naming the
//! value; each backend turns it into its own "unreadable row" error.

use jiff::Timestamp;

use crate::id::MemoryId;
use crate::memory::model::{Category, Importance, Memory, Revision, Source, TopicKey};
use crate::scope::{ProjectName, Scope};
use crate::tag::Tag;

/// The memory columns, in the order [`MemoryRow`] holds them; `m` is the table alias.
pub const MEMORY_COLUMNS: &str = "m.id, m.content, m.title, m.category, m.project, m.topic_key, \
     m.entered_by, m.session_id, m.source, m.importance, m.created_at, m.updated_at, \
     m.expires_at, m.deleted_at, m.tags";

/// The revision columns, in the order [`RevisionRow`] holds them.
pub const REVISION_COLUMNS: &str =
    "number, content, title, category, tags, importance, expires_at, written_at";

/// A value a column holds that the model refuses.
#[derive(Debug)]
pub struct CorruptColumn(pub String);

impl std::fmt::Display for CorruptColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CorruptColumn {}

fn corrupt(what: impl std::fmt::Display) -> CorruptColumn {
    CorruptColumn(what.to_string())
}

/// A time column (milliseconds since the epoch).
pub fn time(ms: i64) -> Result<Timestamp, CorruptColumn> {
    Timestamp::from_millisecond(ms).map_err(corrupt)
}

/// A nullable time column.
pub fn optional_time(ms: Option<i64>) -> Result<Option<Timestamp>, CorruptColumn> {
    ms.map(time).transpose()
}

/// A time as its column holds it.
pub fn millis(ts: Timestamp) -> i64 {
    ts.as_millisecond()
}

/// A tags column (space-joined).
pub fn tags(text: &str) -> Result<Vec<Tag>, CorruptColumn> {
    Tag::split_joined(text).map_err(corrupt)
}

/// Tags as their column holds them.
pub fn tags_text(tags: &[Tag]) -> String {
    Tag::join(tags)
}

/// The `project` column of a scope (`''` is global).
pub fn project_column(scope: &Scope) -> &str {
    scope.project().map_or("", ProjectName::as_str)
}

/// The scope a `project` column names.
pub fn scope(project: &str) -> Result<Scope, CorruptColumn> {
    if project.is_empty() {
        Ok(Scope::Global)
    } else {
        Ok(Scope::Project(ProjectName::new(project).map_err(corrupt)?))
    }
}

/// A memory's [`MEMORY_COLUMNS`], as SQL hands them back.
pub struct MemoryRow {
    pub id: String,
    pub content: String,
    pub title: Option<String>,
    pub category: String,
    pub project: String,
    pub topic_key: Option<String>,
    pub entered_by: Option<String>,
    pub session_id: Option<String>,
    pub source: String,
    pub importance: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub expires_at: Option<i64>,
    pub deleted_at: Option<i64>,
    pub tags: String,
}

impl MemoryRow {
    /// The memory these columns hold.
    pub fn into_memory(self) -> Result<Memory, CorruptColumn> {
        Ok(Memory {
            id: self.id.parse::<MemoryId>().map_err(corrupt)?,
            content: self.content,
            title: self.title,
            category: self.category.parse::<Category>().map_err(corrupt)?,
            tags: tags(&self.tags)?,
            scope: scope(&self.project)?,
            topic_key: self
                .topic_key
                .as_deref()
                .map(TopicKey::new)
                .transpose()
                .map_err(corrupt)?,
            entered_by: self.entered_by,
            session_id: self.session_id,
            source: self.source.parse::<Source>().map_err(corrupt)?,
            importance: Importance::new(self.importance).map_err(corrupt)?,
            created_at: time(self.created_at)?,
            updated_at: time(self.updated_at)?,
            expires_at: optional_time(self.expires_at)?,
            deleted_at: optional_time(self.deleted_at)?,
        })
    }
}

/// A revision's [`REVISION_COLUMNS`], as SQL hands them back.
pub struct RevisionRow {
    pub number: i64,
    pub content: String,
    pub title: Option<String>,
    pub category: String,
    pub tags: String,
    pub importance: i64,
    pub expires_at: Option<i64>,
    pub written_at: i64,
}

impl RevisionRow {
    /// The revision these columns hold.
    pub fn into_revision(self) -> Result<Revision, CorruptColumn> {
        Ok(Revision {
            number: self.number.try_into().map_err(corrupt)?,
            content: self.content,
            title: self.title,
            category: self.category.parse::<Category>().map_err(corrupt)?,
            tags: tags(&self.tags)?,
            importance: Importance::new(self.importance).map_err(corrupt)?,
            expires_at: optional_time(self.expires_at)?,
            written_at: time(self.written_at)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> MemoryRow {
        MemoryRow {
            id: MemoryId::generate().to_string(),
            content: "kept".into(),
            title: None,
            category: "decision".into(),
            project: "acme".into(),
            topic_key: None,
            entered_by: None,
            session_id: None,
            source: "cli".into(),
            importance: 3,
            created_at: 1_700_000_000_000,
            updated_at: 1_700_000_000_000,
            expires_at: None,
            deleted_at: None,
            tags: "ci deploy".into(),
        }
    }

    #[test]
    fn columns_read_back_into_the_memory_and_a_refused_value_is_named() {
        let memory = row().into_memory().unwrap();
        assert_eq!(
            memory.scope,
            Scope::Project(ProjectName::new("acme").unwrap())
        );
        assert_eq!(tags_text(&memory.tags), "ci deploy");
        assert_eq!(millis(memory.created_at), 1_700_000_000_000);
        let global = MemoryRow {
            project: String::new(),
            ..row()
        };
        assert_eq!(global.into_memory().unwrap().scope, Scope::Global);
        let error = MemoryRow {
            category: "gossip".into(),
            ..row()
        }
        .into_memory()
        .unwrap_err();
        assert!(error.to_string().contains("gossip"), "{error}");
        assert!(
            MemoryRow {
                importance: 9,
                ..row()
            }
            .into_memory()
            .is_err()
        );
    }
}
