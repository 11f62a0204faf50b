//! Relations waiting for their memories in SQLite (the table of migration 21): a row per
//! judgment id with the relation as imported (JSON, core's `DeferredRow`) and its memories' ids
//! in columns of their own, so purging a memory finds the rows that name it. `relation.rs`
//! answers the storage traits with these.

use cairn_core::relation::columns::{DEFERRED_COLUMNS, DeferredRow};
use cairn_core::relation::{DeferredFilter, DeferredRelation};
use cairn_core::{MemoryId, RelationId, Result};
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::columns::corrupt;
use crate::error::SqlResult;

fn deferred_from_row(row: &Row<'_>) -> rusqlite::Result<DeferredRelation> {
    DeferredRow {
        record: row.get(0)?,
        status: row.get(1)?,
        attempts: row.get(2)?,
        last_error: row.get(3)?,
        first_seen_at: row.get(4)?,
        last_tried_at: row.get(5)?,
    }
    .into_deferred()
    .map_err(corrupt)
}

/// The deferred relations under `filter`, the first kept first.
pub fn deferred_list(conn: &Connection, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>> {
    conn.prepare_cached(&format!(
        "SELECT {DEFERRED_COLUMNS} FROM deferred_relations \
         WHERE (?1 IS NULL OR status = ?1) ORDER BY first_seen_at, id LIMIT ?2"
    ))
    .sql()?
    .query_map(
        params![filter.status.map(|s| s.as_str()), filter.limit as i64],
        deferred_from_row,
    )
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

/// The waiting rows whose source or target is one of `ids`.
pub fn deferred_naming(conn: &Connection, ids: &[MemoryId]) -> Result<Vec<DeferredRelation>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; ids.len()].join(", ");
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    conn.prepare_cached(&format!(
        "SELECT {DEFERRED_COLUMNS} FROM deferred_relations WHERE status = 'deferred' \
         AND id IN (SELECT id FROM deferred_relations WHERE source_id IN ({marks}) \
                    UNION SELECT id FROM deferred_relations WHERE target_id IN ({marks}))"
    ))
    .sql()?
    .query_map(
        rusqlite::params_from_iter(ids.iter().chain(ids.iter())),
        deferred_from_row,
    )
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

/// The deferred relation with this judgment id.
pub fn deferred(conn: &Connection, id: &RelationId) -> Result<Option<DeferredRelation>> {
    conn.prepare_cached(&format!(
        "SELECT {DEFERRED_COLUMNS} FROM deferred_relations WHERE id = ?1"
    ))
    .sql()?
    .query_row([id.to_string()], deferred_from_row)
    .optional()
    .sql()
}

/// Keeps `deferred`, replacing the row of its judgment id.
pub fn put_deferred(conn: &Connection, deferred: &DeferredRelation) -> Result<()> {
    let row = DeferredRow::of(deferred)?;
    let relation = &deferred.relation;
    conn.prepare_cached(&format!(
        "INSERT OR REPLACE INTO deferred_relations (id, source_id, target_id, {DEFERRED_COLUMNS}) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
    ))
    .sql()?
    .execute(params![
        relation.id.to_string(),
        relation.source.to_string(),
        relation.target.to_string(),
        row.record,
        row.status,
        row.attempts,
        row.last_error,
        row.first_seen_at,
        row.last_tried_at,
    ])
    .sql()?;
    Ok(())
}

/// Drops the row of this judgment id; whether there was one.
pub fn delete_deferred(conn: &Connection, id: &RelationId) -> Result<bool> {
    let deleted = conn
        .prepare_cached("DELETE FROM deferred_relations WHERE id = ?1")
        .sql()?
        .execute([id.to_string()])
        .sql()?;
    Ok(deleted > 0)
}

/// Drops every row naming the memory `id` (when it is purged).
pub fn delete_deferred_naming(conn: &Connection, id: &MemoryId) -> Result<()> {
    conn.prepare_cached("DELETE FROM deferred_relations WHERE source_id = ?1 OR target_id = ?1")
        .sql()?
        .execute([id.to_string()])
        .sql()?;
    Ok(())
}

/// How many rows wait (`deferred`) and how many are dead.
pub fn deferred_counts(conn: &Connection) -> Result<(u64, u64)> {
    conn.prepare_cached(
        "SELECT count(*) FILTER (WHERE status = 'deferred'), \
                count(*) FILTER (WHERE status = 'dead') FROM deferred_relations",
    )
    .sql()?
    .query_row([], |row| {
        Ok((row.get::<_, i64>(0)? as u64, row.get::<_, i64>(1)? as u64))
    })
    .sql()
}
