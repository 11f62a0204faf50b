//! Translating a [`MemoryFilter`] into an SQL condition over `memories m`.
//!
//! Visibility comes first and is on by default: unless the filter asks otherwise, forgotten rows
//! and rows whose expiry is at or before `now` never match. [`visible_sql`] is the one SQL form of
//! core's [`Visibility`]: every read that hides memories — filters, lookups by topic and content
//! inside a write, stats, the vector scan and the ANN re-check (through the filter) — builds its
//! condition there. Tag conditions use one `EXISTS` per
//! required tag (all) or one `EXISTS … IN` (any) over the indexed link table; a count tests
//! membership of the tags' lists instead ([`TagTest`]).

use cairn_core::ScopeFilter;
use cairn_core::memory::{MemoryFilter, Visibility};
use jiff::Timestamp;
use rusqlite::types::Value;

use crate::columns::millis;

/// The condition a row of `memories` (named `alias`) meets when it has expired by the time
/// bound at `now_param`: the complement of [`visible_sql`]'s expiry clause, for what prune
/// deletes and stats count.
pub fn expired_sql(alias: &str, now_param: &str) -> String {
    format!("{alias}.expires_at IS NOT NULL AND {alias}.expires_at <= {now_param}")
}

/// The condition a row of `memories` (named `alias`) meets when `visibility` shows it, with the
/// time of the read bound at `now_param` (`?`, `?3`, …) when expiry is checked; `1` when every
/// row is shown.
pub fn visible_sql(alias: &str, visibility: Visibility, now_param: &str) -> String {
    let mut parts = Vec::new();
    if !visibility.forgotten {
        parts.push(format!("{alias}.deleted_at IS NULL"));
    }
    if !visibility.expired {
        parts.push(format!(
            "({alias}.expires_at IS NULL OR {alias}.expires_at > {now_param})"
        ));
    }
    if parts.is_empty() {
        return "1".into();
    }
    parts.join(" AND ")
}

/// An SQL condition (`1` when nothing constrains) and its positional parameters.
pub struct SqlCondition {
    pub sql: String,
    pub params: Vec<Value>,
}

/// How a condition tests a memory's tags.
#[derive(Clone, Copy)]
pub enum TagTest {
    /// An `EXISTS` per row, through the link table's primary key: cheap for the few rows a
    /// search or a page visits.
    PerRow,
    /// Membership of the tag's list of memories, read once from the tag's index: for a count,
    /// which visits every row the rest of the filter matches (a project's every memory, when a
    /// session start asks whether any of them is tagged `instructions`).
    FromTagList,
}

pub fn condition(filter: &MemoryFilter, now: Timestamp) -> SqlCondition {
    condition_testing_tags(filter, now, TagTest::PerRow)
}

pub fn condition_testing_tags(
    filter: &MemoryFilter,
    now: Timestamp,
    tags: TagTest,
) -> SqlCondition {
    let mut parts: Vec<String> = Vec::new();
    let mut params: Vec<Value> = Vec::new();
    if filter.visibility != Visibility::ALL {
        parts.push(visible_sql("m", filter.visibility, "?"));
    }
    if !filter.visibility.expired {
        params.push(Value::Integer(millis(now)));
    }
    match &filter.scope {
        ScopeFilter::ProjectAndGlobal(project) => {
            parts.push("m.project IN ('', ?)".into());
            params.push(Value::Text(project.as_str().to_string()));
        }
        ScopeFilter::Global => parts.push("m.project = ''".into()),
        ScopeFilter::Project(project) => {
            parts.push("m.project = ?".into());
            params.push(Value::Text(project.as_str().to_string()));
        }
        ScopeFilter::All => {}
    }
    if let Some(category) = filter.category {
        parts.push("m.category = ?".into());
        params.push(Value::Text(category.as_str().to_string()));
    }
    if let Some(agent) = &filter.entered_by {
        parts.push("m.entered_by = ? COLLATE NOCASE".into());
        params.push(Value::Text(agent.clone()));
    }
    if let Some(topic) = &filter.topic_key {
        parts.push("m.topic_key = ?".into());
        params.push(Value::Text(topic.as_str().to_string()));
    }
    if let Some(after) = filter.created_after {
        parts.push("m.created_at >= ?".into());
        params.push(Value::Integer(millis(after)));
    }
    if let Some(before) = filter.created_before {
        parts.push("m.created_at < ?".into());
        params.push(Value::Integer(millis(before)));
    }
    if let Some(session) = &filter.session {
        parts.push("m.session_id = ?".into());
        params.push(Value::Text(session.clone()));
    }
    if filter.with_images {
        parts.push("EXISTS (SELECT 1 FROM memory_images l WHERE l.memory_seq = m.seq)".into());
    }
    let has_tag = match tags {
        TagTest::PerRow => {
            "EXISTS (SELECT 1 FROM memory_tags mt JOIN tags t ON t.id = mt.tag_id \
             WHERE mt.memory_seq = m.seq AND t.name"
        }
        TagTest::FromTagList => {
            "m.seq IN (SELECT mt.memory_seq FROM memory_tags mt JOIN tags t ON t.id = mt.tag_id \
             WHERE t.name"
        }
    };
    for tag in &filter.tags_all {
        parts.push(format!("{has_tag} = ?)"));
        params.push(Value::Text(tag.as_str().to_string()));
    }
    if !filter.tags_any.is_empty() {
        let marks = vec!["?"; filter.tags_any.len()].join(", ");
        parts.push(format!("{has_tag} IN ({marks}))"));
        params.extend(
            filter
                .tags_any
                .iter()
                .map(|t| Value::Text(t.as_str().to_string())),
        );
    }
    SqlCondition {
        sql: if parts.is_empty() {
            "1".into()
        } else {
            parts.join(" AND ")
        },
        params,
    }
}
