//! Relations between memories in SQLite (the table of migration 8).
//!
//! One row per relation, keyed by judgment id, naming its memories by id (not by row), so a
//! memory replaced by an import keeps its relations; `memory.rs` deletes a memory's relations
//! when it purges it (and the deferred ones naming it, kept by `deferred.rs`). The current verdict and the history are JSON; `relation` repeats the
//! current verdict's kind for counting and filtering. Reads that show relations join both
//! memories once, for their headlines and whether they are still visible.

use cairn_core::memory::{Visibility, headline};
use cairn_core::relation::{
    DeferredFilter, DeferredRelation, Relation, RelationFilter, RelationStats, RelationStatus,
    RelationStore, RelationTx, RelationView,
};
use cairn_core::{MemoryId, RelationId, Result, Scope};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::SqliteStore;
use crate::deferred;
use cairn_core::relation::columns::{RELATION_COLUMNS, RelationRow, verdict_columns};

use crate::columns::{corrupt, millis, project_column};
use crate::error::SqlResult;
use crate::filter::visible_sql;
use crate::tx::SqliteTx;

fn relation_from_row(row: &Row<'_>) -> rusqlite::Result<Relation> {
    RelationRow {
        id: row.get(0)?,
        source: row.get(1)?,
        target: row.get(2)?,
        project: row.get(3)?,
        score: row.get(4)?,
        verdict: row.get(5)?,
        history: row.get(6)?,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    }
    .into_relation()
    .map_err(corrupt)
}

/// The SELECT of relation views: the relation, then for source and target their title, the
/// opening of their content, and whether they are visible at `?1`.
fn view_select() -> String {
    let visible = |alias: &str| {
        format!(
            "CASE WHEN {alias}.seq IS NOT NULL AND {} THEN 1 ELSE 0 END",
            visible_sql(alias, Visibility::VISIBLE, "?1")
        )
    };
    format!(
        "SELECT {RELATION_COLUMNS}, s.title, substr(s.content, 1, 300), {}, \
                t.title, substr(t.content, 1, 300), {} \
         FROM relations r \
         LEFT JOIN memories s ON s.id = r.source_id \
         LEFT JOIN memories t ON t.id = r.target_id",
        visible("s"),
        visible("t")
    )
}

fn view_from_row(row: &Row<'_>) -> rusqlite::Result<RelationView> {
    let title = |first: usize| -> rusqlite::Result<Option<String>> {
        let visible: bool = row.get(first + 2)?;
        if !visible {
            return Ok(None);
        }
        let title: Option<String> = row.get(first)?;
        let content: String = row.get(first + 1)?;
        Ok(Some(headline(title.as_deref(), &content).to_string()))
    };
    Ok(RelationView {
        relation: relation_from_row(row)?,
        source_title: title(9)?,
        target_title: title(12)?,
        reason: None,
    })
}

fn views(conn: &Connection, condition: &str, params: Vec<Value>) -> Result<Vec<RelationView>> {
    conn.prepare(&format!("{} WHERE {condition}", view_select()))
        .sql()?
        .query_map(params_from_iter(params), view_from_row)
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()
}

fn relation(conn: &Connection, id: &RelationId) -> Result<Option<Relation>> {
    conn.prepare_cached(&format!(
        "SELECT {RELATION_COLUMNS} FROM relations r WHERE r.id = ?1"
    ))
    .sql()?
    .query_row([id.to_string()], relation_from_row)
    .optional()
    .sql()
}

fn put_relation(conn: &Connection, relation: &Relation) -> Result<()> {
    let (verdict, history) = verdict_columns(relation)?;
    conn.prepare_cached(
        "INSERT OR REPLACE INTO relations (id, source_id, target_id, project, score, relation, \
             verdict, history, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )
    .sql()?
    .execute(params![
        relation.id.to_string(),
        relation.source.to_string(),
        relation.target.to_string(),
        project_column(&relation.scope),
        relation.score,
        relation.kind().map(|k| k.as_str()),
        verdict,
        history,
        millis(relation.created_at),
        millis(relation.updated_at),
    ])
    .sql()?;
    Ok(())
}

/// Deletes every relation of the memory `id`, and every deferred one naming it (when it is
/// purged).
pub fn delete_relations_of(conn: &Connection, id: &MemoryId) -> Result<()> {
    conn.prepare_cached("DELETE FROM relations WHERE source_id = ?1 OR target_id = ?1")
        .sql()?
        .execute([id.to_string()])
        .sql()?;
    deferred::delete_deferred_naming(conn, id)
}

/// Every relation, oldest first (for export).
pub fn all_relations(conn: &Connection) -> Result<Vec<Relation>> {
    conn.prepare(&format!(
        "SELECT {RELATION_COLUMNS} FROM relations r ORDER BY r.created_at, r.id"
    ))
    .sql()?
    .query_map([], relation_from_row)
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

impl RelationStore for SqliteStore {
    fn relation(&self, id: &RelationId, now: Timestamp) -> Result<Option<RelationView>> {
        let params = vec![Value::Integer(millis(now)), Value::Text(id.to_string())];
        Ok(views(&self.reader(), "r.id = ?2", params)?.pop())
    }

    fn relation_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<RelationId>> {
        let upper = format!("{prefix}\u{10ffff}");
        self.reader()
            .prepare_cached("SELECT id FROM relations WHERE id >= ?1 AND id < ?2 LIMIT ?3")
            .sql()?
            .query_map(params![prefix, upper, limit as i64], |row| {
                row.get::<_, String>(0)?.parse().map_err(corrupt)
            })
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn relations(&self, filter: &RelationFilter, now: Timestamp) -> Result<Vec<RelationView>> {
        let mut parts = vec!["1".to_string()];
        let mut params = vec![Value::Integer(millis(now))];
        if let Some(scope) = &filter.scope {
            params.push(Value::Text(project_column(scope).into()));
            parts.push(format!("r.project = ?{}", params.len()));
        }
        match filter.status {
            Some(RelationStatus::Pending) => parts.push("r.relation IS NULL".into()),
            Some(RelationStatus::Judged) => parts.push("r.relation IS NOT NULL".into()),
            None => {}
        }
        if let Some(since) = filter.since {
            params.push(Value::Integer(millis(since)));
            parts.push(format!("r.updated_at >= ?{}", params.len()));
        }
        params.push(Value::Integer(filter.limit as i64));
        let condition = format!(
            "{} ORDER BY r.updated_at DESC, r.id LIMIT ?{}",
            parts.join(" AND "),
            params.len()
        );
        views(&self.reader(), &condition, params)
    }

    fn relations_of(&self, ids: &[MemoryId], now: Timestamp) -> Result<Vec<RelationView>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (0..ids.len()).map(|i| format!("?{}", i + 2)).collect();
        let marks = marks.join(", ");
        let mut params = vec![Value::Integer(millis(now))];
        params.extend(ids.iter().map(|id| Value::Text(id.to_string())));
        let condition = format!(
            "r.id IN (SELECT id FROM relations WHERE source_id IN ({marks}) \
             UNION SELECT id FROM relations WHERE target_id IN ({marks})) \
             ORDER BY r.created_at, r.id"
        );
        views(&self.reader(), &condition, params)
    }

    fn relation_stats(&self, scope: Option<&Scope>) -> Result<RelationStats> {
        let conn = self.reader();
        let (condition, params): (&str, Vec<Value>) = match scope {
            Some(scope) => (
                "WHERE project = ?1",
                vec![Value::Text(project_column(scope).into())],
            ),
            None => ("", Vec::new()),
        };
        let rows: Vec<(Option<String>, u64)> = conn
            .prepare(&format!(
                "SELECT relation, count(*) FROM relations {condition} GROUP BY relation \
                 ORDER BY count(*) DESC, relation"
            ))
            .sql()?
            .query_map(params_from_iter(params), |row| {
                Ok((row.get(0)?, row.get::<_, i64>(1)? as u64))
            })
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        Ok(RelationStats::from_counts(rows))
    }

    fn deferred_relations(&self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_list(&self.reader(), filter)
    }

    fn deferred_relation(&self, id: &RelationId) -> Result<Option<DeferredRelation>> {
        deferred::deferred(&self.reader(), id)
    }

    fn deferred_counts(&self) -> Result<(u64, u64)> {
        deferred::deferred_counts(&self.reader())
    }
}

impl RelationTx for SqliteTx<'_, '_> {
    fn relation(&mut self, id: &RelationId) -> Result<Option<Relation>> {
        relation(&self.tx, id)
    }

    fn relations_between(&mut self, a: &MemoryId, b: &MemoryId) -> Result<Vec<Relation>> {
        self.tx
            .prepare_cached(&format!(
                "SELECT {RELATION_COLUMNS} FROM relations r \
                 WHERE (r.source_id = ?1 AND r.target_id = ?2) \
                    OR (r.source_id = ?2 AND r.target_id = ?1) \
                 ORDER BY r.created_at, r.id"
            ))
            .sql()?
            .query_map(params![a.to_string(), b.to_string()], relation_from_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn put_relation(&mut self, relation: &Relation) -> Result<()> {
        put_relation(&self.tx, relation)
    }

    fn deferred(&mut self, id: &RelationId) -> Result<Option<DeferredRelation>> {
        deferred::deferred(&self.tx, id)
    }

    fn deferred_list(&mut self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_list(&self.tx, filter)
    }

    fn deferred_naming(&mut self, ids: &[MemoryId]) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_naming(&self.tx, ids)
    }

    fn put_deferred(&mut self, deferred: &DeferredRelation) -> Result<()> {
        deferred::put_deferred(&self.tx, deferred)
    }

    fn delete_deferred(&mut self, id: &RelationId) -> Result<bool> {
        deferred::delete_deferred(&self.tx, id)
    }
}
