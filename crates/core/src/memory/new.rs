//! A write as an adapter asks for it: [`NewMemory`] (a memory to store) and [`MemoryPatch`] (a
//! change to a stored one). The write path (`memory::write`) validates, normalises and redacts
//! them before anything reaches a store.

use jiff::Timestamp;

use crate::memory::{Category, Source};
use crate::scope::Scope;

/// A new memory as an adapter received it; the service validates and normalises it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    pub content: String,
    pub title: Option<String>,
    pub category: Category,
    pub tags: Vec<String>,
    pub scope: Scope,
    pub topic_key: Option<String>,
    pub entered_by: Option<String>,
    pub session_id: Option<String>,
    pub source: Source,
    /// 1–5; 3 when unsaid.
    pub importance: Option<i64>,
    pub expires_at: Option<Timestamp>,
}

impl NewMemory {
    /// A memory with just content, in `scope`, from `source`; everything else default.
    pub fn new(content: impl Into<String>, scope: Scope, source: Source) -> Self {
        NewMemory {
            content: content.into(),
            title: None,
            category: Category::default(),
            tags: Vec::new(),
            scope,
            topic_key: None,
            entered_by: None,
            session_id: None,
            source,
            importance: None,
            expires_at: None,
        }
    }
}

/// A change to an existing memory. `None` leaves a field alone; `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryPatch {
    pub content: Option<String>,
    pub title: Option<Option<String>>,
    pub category: Option<Category>,
    /// Replaces all tags.
    pub tags: Option<Vec<String>>,
    pub importance: Option<i64>,
    pub expires_at: Option<Option<Timestamp>>,
    pub topic_key: Option<Option<String>>,
}
