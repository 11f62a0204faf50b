//! The columns a write sets, gathered column by column and bound as one array each, so that one
//! statement writes any number of rows (`unnest` turns the arrays back into rows): an import
//! writes hundreds of memories per round trip, an ordinary write one, through the same SQL.

use cairn_core::{Memory, Revision};

use crate::columns::{millis, project_column, tags_to_text};
use crate::params::Params;

/// The columns of `memories` a write sets, but `id`, `fts` and `image_text`.
#[derive(Default)]
pub struct MemoryColumns {
    content: Vec<String>,
    title: Vec<Option<String>>,
    category: Vec<String>,
    project: Vec<String>,
    topic_key: Vec<Option<String>>,
    content_hash: Vec<i64>,
    entered_by: Vec<Option<String>>,
    session_id: Vec<Option<String>>,
    source: Vec<String>,
    importance: Vec<i64>,
    created_at: Vec<i64>,
    updated_at: Vec<i64>,
    expires_at: Vec<Option<i64>>,
    deleted_at: Vec<Option<i64>>,
    tags: Vec<String>,
}

impl MemoryColumns {
    /// Adds `memory`'s row; `tags` is its tags joined ([`tags_to_text`]).
    pub fn push(&mut self, memory: &Memory, tags: String) {
        self.content.push(memory.content.clone());
        self.title.push(memory.title.clone());
        self.category.push(memory.category.as_str().to_string());
        self.project.push(project_column(&memory.scope));
        self.topic_key
            .push(memory.topic_key.as_ref().map(|t| t.as_str().to_string()));
        self.content_hash
            .push(cairn_core::memory::normalise::content_hash(&memory.content));
        self.entered_by.push(memory.entered_by.clone());
        self.session_id.push(memory.session_id.clone());
        self.source.push(memory.source.as_str().to_string());
        self.importance.push(i64::from(memory.importance.get()));
        self.created_at.push(millis(memory.created_at));
        self.updated_at.push(millis(memory.updated_at));
        self.expires_at.push(memory.expires_at.map(millis));
        self.deleted_at.push(memory.deleted_at.map(millis));
        self.tags.push(tags);
    }

    /// Binds every column into `params`: the column names, and the arrays to `unnest` in the
    /// same order.
    pub fn bind(self, params: &mut Params) -> Bound {
        Bound::from([
            ("content", params.bind(self.content), "text"),
            ("title", params.bind(self.title), "text"),
            ("category", params.bind(self.category), "text"),
            ("project", params.bind(self.project), "text"),
            ("topic_key", params.bind(self.topic_key), "text"),
            ("content_hash", params.bind(self.content_hash), "int8"),
            ("entered_by", params.bind(self.entered_by), "text"),
            ("session_id", params.bind(self.session_id), "text"),
            ("source", params.bind(self.source), "text"),
            ("importance", params.bind(self.importance), "int8"),
            ("created_at", params.bind(self.created_at), "int8"),
            ("updated_at", params.bind(self.updated_at), "int8"),
            ("expires_at", params.bind(self.expires_at), "int8"),
            ("deleted_at", params.bind(self.deleted_at), "int8"),
            ("tags", params.bind(self.tags), "text"),
        ])
    }
}

/// The columns of `memory_revisions` (its `memory_seq` and every column of a [`Revision`]).
#[derive(Default)]
pub struct RevisionColumns {
    memory_seq: Vec<i64>,
    number: Vec<i64>,
    content: Vec<String>,
    title: Vec<Option<String>>,
    category: Vec<String>,
    tags: Vec<String>,
    importance: Vec<i64>,
    expires_at: Vec<Option<i64>>,
    written_at: Vec<i64>,
}

impl RevisionColumns {
    /// Adds the row of `revision`, a revision of the memory at `seq`.
    pub fn push(&mut self, seq: i64, revision: &Revision) {
        self.memory_seq.push(seq);
        self.number.push(i64::from(revision.number));
        self.content.push(revision.content.clone());
        self.title.push(revision.title.clone());
        self.category.push(revision.category.as_str().to_string());
        self.tags.push(tags_to_text(&revision.tags));
        self.importance.push(i64::from(revision.importance.get()));
        self.expires_at.push(revision.expires_at.map(millis));
        self.written_at.push(millis(revision.written_at));
    }

    pub fn is_empty(&self) -> bool {
        self.memory_seq.is_empty()
    }

    /// Binds every column into `params`, as [`MemoryColumns::bind`] does.
    pub fn bind(self, params: &mut Params) -> Bound {
        Bound::from([
            ("memory_seq", params.bind(self.memory_seq), "int8"),
            ("number", params.bind(self.number), "int8"),
            ("content", params.bind(self.content), "text"),
            ("title", params.bind(self.title), "text"),
            ("category", params.bind(self.category), "text"),
            ("tags", params.bind(self.tags), "text"),
            ("importance", params.bind(self.importance), "int8"),
            ("expires_at", params.bind(self.expires_at), "int8"),
            ("written_at", params.bind(self.written_at), "int8"),
        ])
    }
}

/// Columns bound as arrays: their names, and the arrays' marks with their types.
pub struct Bound {
    names: Vec<&'static str>,
    arrays: Vec<String>,
}

impl<const N: usize> From<[(&'static str, String, &'static str); N]> for Bound {
    fn from(columns: [(&'static str, String, &'static str); N]) -> Self {
        let (names, arrays) = columns
            .into_iter()
            .map(|(name, mark, kind)| (name, format!("{mark}::{kind}[]")))
            .unzip();
        Bound { names, arrays }
    }
}

impl Bound {
    /// The column names, comma-separated.
    pub fn names(&self) -> String {
        self.names.join(", ")
    }

    /// The arrays, comma-separated (the arguments of an `unnest`).
    pub fn arrays(&self) -> String {
        self.arrays.join(", ")
    }
}
