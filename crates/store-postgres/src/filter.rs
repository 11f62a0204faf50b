//! Translating a [`MemoryFilter`] into an SQL condition over `memories m`.
//!
//! Visibility comes first and is on by default: unless the filter asks otherwise, forgotten rows
//! and rows whose expiry is at or before `now` never match. [`visible_sql`] is the one SQL form of
//! core's [`Visibility`] in this store, as `filter.rs` is in the SQLite store.

use cairn_core::ScopeFilter;
use cairn_core::memory::{MemoryFilter, Visibility};
use jiff::Timestamp;

use crate::columns::millis;
use crate::params::Params;

/// The condition a row of `memories` (named `alias`) meets when it has expired by the time
/// bound at `now`: the complement of [`visible_sql`]'s expiry clause, for what prune
/// deletes and stats count.
pub fn expired_sql(alias: &str, now: &str) -> String {
    format!("{alias}.expires_at IS NOT NULL AND {alias}.expires_at <= {now}")
}

/// The condition a row of `memories` (named `alias`) meets when `visibility` shows it, with the
/// time of the read at `now` (a `$n` mark) when expiry is checked; `true` when every row is shown.
pub fn visible_sql(alias: &str, visibility: Visibility, now: &str) -> String {
    let mut parts = Vec::new();
    if !visibility.forgotten {
        parts.push(format!("{alias}.deleted_at IS NULL"));
    }
    if !visibility.expired {
        parts.push(format!(
            "({alias}.expires_at IS NULL OR {alias}.expires_at > {now})"
        ));
    }
    if parts.is_empty() {
        return "true".into();
    }
    parts.join(" AND ")
}

/// The condition `filter` puts on `memories m` at `now`, its values bound into `params`.
pub fn condition(filter: &MemoryFilter, now: Timestamp, params: &mut Params) -> String {
    let mut parts: Vec<String> = Vec::new();
    if filter.visibility != Visibility::ALL {
        let now = if filter.visibility.expired {
            String::new()
        } else {
            params.bind(millis(now))
        };
        parts.push(visible_sql("m", filter.visibility, &now));
    }
    match &filter.scope {
        ScopeFilter::ProjectAndGlobal(project) => {
            parts.push(format!(
                "m.project IN ('', {})",
                params.bind(project.as_str().to_string())
            ));
        }
        ScopeFilter::Global => parts.push("m.project = ''".into()),
        ScopeFilter::Project(project) => {
            parts.push(format!(
                "m.project = {}",
                params.bind(project.as_str().to_string())
            ));
        }
        ScopeFilter::All => {}
    }
    if let Some(category) = filter.category {
        parts.push(format!(
            "m.category = {}",
            params.bind(category.as_str().to_string())
        ));
    }
    if let Some(agent) = &filter.entered_by {
        parts.push(format!(
            "lower(m.entered_by) = lower({})",
            params.bind(agent.clone())
        ));
    }
    if let Some(topic) = &filter.topic_key {
        parts.push(format!(
            "m.topic_key = {}",
            params.bind(topic.as_str().to_string())
        ));
    }
    if let Some(after) = filter.created_after {
        parts.push(format!("m.created_at >= {}", params.bind(millis(after))));
    }
    if let Some(before) = filter.created_before {
        parts.push(format!("m.created_at < {}", params.bind(millis(before))));
    }
    if let Some(session) = &filter.session {
        parts.push(format!("m.session_id = {}", params.bind(session.clone())));
    }
    if filter.with_images {
        parts.push("EXISTS (SELECT 1 FROM memory_images l WHERE l.memory_seq = m.seq)".into());
    }
    const HAS_TAG: &str = "EXISTS (SELECT 1 FROM memory_tags mt JOIN tags t ON t.id = mt.tag_id \
                           WHERE mt.memory_seq = m.seq AND t.name";
    for tag in &filter.tags_all {
        parts.push(format!(
            "{HAS_TAG} = {})",
            params.bind(tag.as_str().to_string())
        ));
    }
    if !filter.tags_any.is_empty() {
        let names: Vec<String> = filter
            .tags_any
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        parts.push(format!("{HAS_TAG} = ANY({}))", params.bind(names)));
    }
    if parts.is_empty() {
        "true".into()
    } else {
        parts.join(" AND ")
    }
}
