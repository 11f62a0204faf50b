//! Plain records: what a person writes by hand, or another tool exports — a `content` and a
//! few optional fields — stored like any new memory.
//!
//! ```text
//! {"content": "Deploys go out on Wednesdays", "tags": ["release"], "category": "decision"}
//! ```
//!
//! Unknown fields are refused (a misspelt `tilte` would otherwise vanish silently). Dates take
//! ISO 8601 or the phrases of [`crate::dates`]. Without `project` the memory goes to the
//! importer's default scope; `"project": null` means global. A plain memory passes the same
//! validation, redaction and duplicate check as `cairn store`, so importing a file twice stores
//! each memory once.

use jiff::Zoned;
use serde::{Deserialize, Deserializer};

use crate::config::Limits;
use crate::dates::parse_time;
use crate::error::{Error, Result};
use crate::memory::write::candidate;
use crate::memory::{Category, Memory, NewMemory, Source};
use crate::scope::{ProjectName, Scope};

/// A plain record.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlainMemory {
    pub content: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub category: Option<Category>,
    #[serde(default)]
    pub importance: Option<i64>,
    /// When it stops being true.
    #[serde(default)]
    pub expires: Option<String>,
    #[serde(default)]
    pub entered_by: Option<String>,
    /// Absent: the importer's default scope; `null`: global; a name: that project.
    #[serde(default, deserialize_with = "present")]
    pub project: Option<Option<String>>,
    /// When it was written; now when absent. Never in the future.
    #[serde(default)]
    pub created_at: Option<String>,
}

/// Tells a field given as `null` (`Some(None)`) from one left out (`None`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

impl PlainMemory {
    /// The memory this record stores, validated and redacted, written at its `created_at`.
    pub fn into_candidate(self, default: &Scope, limits: &Limits, now: &Zoned) -> Result<Memory> {
        let scope = match self.project {
            None => default.clone(),
            Some(None) => Scope::Global,
            Some(Some(name)) => Scope::Project(ProjectName::new(&name)?),
        };
        let time = |field: &str, text: Option<&str>| {
            text.map(|text| parse_time(field, text, now)).transpose()
        };
        let written = time("created_at", self.created_at.as_deref())?;
        if let Some(at) = written
            && at > now.timestamp()
        {
            return Err(Error::invalid(
                "created_at",
                format!("{at} is in the future"),
            ));
        }
        let new = NewMemory {
            content: self.content,
            title: self.title,
            category: self.category.unwrap_or_default(),
            tags: self.tags,
            scope,
            topic_key: None,
            entered_by: self.entered_by,
            session_id: None,
            source: Source::Import,
            importance: self.importance,
            expires_at: time("expires", self.expires.as_deref())?,
        };
        let mut memory = candidate(new, limits, now.timestamp())?;
        if let Some(at) = written {
            memory.created_at = at;
            memory.updated_at = at;
        }
        Ok(memory)
    }
}
