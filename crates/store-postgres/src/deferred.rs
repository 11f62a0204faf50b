//! Relations waiting for their memories in PostgreSQL (the table of migration 9): a row per
//! judgment id with the relation as imported (JSON, core's `DeferredRow`) and its memories' ids
//! in columns of their own, so purging a memory finds the rows that name it. `relation.rs`
//! answers the storage traits with these.

use cairn_core::relation::columns::{DEFERRED_COLUMNS, DeferredRow};
use cairn_core::relation::{DeferredFilter, DeferredRelation};
use cairn_core::{MemoryId, RelationId, Result};
use postgres::Row;

use crate::columns::get;
use crate::error::{SqlResult, corrupt};
use crate::sql::Sql;

fn deferred_from_row(row: &Row) -> Result<DeferredRelation> {
    DeferredRow {
        record: get(row, 0)?,
        status: get(row, 1)?,
        attempts: get(row, 2)?,
        last_error: get(row, 3)?,
        first_seen_at: get(row, 4)?,
        last_tried_at: get(row, 5)?,
    }
    .into_deferred()
    .map_err(corrupt)
}

/// The deferred relations under `filter`, the first kept first.
pub fn deferred_list(
    client: &mut impl Sql,
    filter: &DeferredFilter,
) -> Result<Vec<DeferredRelation>> {
    client
        .query(
            &format!(
                "SELECT {DEFERRED_COLUMNS} FROM deferred_relations \
                 WHERE ($1::text IS NULL OR status = $1) ORDER BY first_seen_at, id LIMIT $2"
            ),
            &[&filter.status.map(|s| s.as_str()), &(filter.limit as i64)],
        )
        .sql()?
        .iter()
        .map(deferred_from_row)
        .collect()
}

/// The waiting rows whose source or target is one of `ids`.
pub fn deferred_naming(client: &mut impl Sql, ids: &[MemoryId]) -> Result<Vec<DeferredRelation>> {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    client
        .query(
            &format!(
                "SELECT {DEFERRED_COLUMNS} FROM deferred_relations WHERE status = 'deferred' \
                 AND (source_id = ANY($1) OR target_id = ANY($1))"
            ),
            &[&ids],
        )
        .sql()?
        .iter()
        .map(deferred_from_row)
        .collect()
}

/// The deferred relation with this judgment id.
pub fn deferred(client: &mut impl Sql, id: &RelationId) -> Result<Option<DeferredRelation>> {
    client
        .query_opt(
            &format!("SELECT {DEFERRED_COLUMNS} FROM deferred_relations WHERE id = $1"),
            &[&id.to_string()],
        )
        .sql()?
        .map(|row| deferred_from_row(&row))
        .transpose()
}

/// Keeps `deferred`, replacing the row of its judgment id.
pub fn put_deferred(client: &mut impl Sql, deferred: &DeferredRelation) -> Result<()> {
    let row = DeferredRow::of(deferred)?;
    let relation = &deferred.relation;
    client
        .execute(
            &format!(
                "INSERT INTO deferred_relations (id, source_id, target_id, {DEFERRED_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (id) DO UPDATE SET source_id = excluded.source_id, \
                 target_id = excluded.target_id, record = excluded.record, \
                 status = excluded.status, attempts = excluded.attempts, \
                 last_error = excluded.last_error, first_seen_at = excluded.first_seen_at, \
                 last_tried_at = excluded.last_tried_at"
            ),
            &[
                &relation.id.to_string(),
                &relation.source.to_string(),
                &relation.target.to_string(),
                &row.record,
                &row.status,
                &row.attempts,
                &row.last_error,
                &row.first_seen_at,
                &row.last_tried_at,
            ],
        )
        .sql()?;
    Ok(())
}

/// Drops the row of this judgment id; whether there was one.
pub fn delete_deferred(client: &mut impl Sql, id: &RelationId) -> Result<bool> {
    let deleted = client
        .execute(
            "DELETE FROM deferred_relations WHERE id = $1",
            &[&id.to_string()],
        )
        .sql()?;
    Ok(deleted > 0)
}

/// Drops every row naming the memory `id` (when it is purged).
pub fn delete_deferred_naming(client: &mut impl Sql, id: &MemoryId) -> Result<()> {
    client
        .execute(
            "DELETE FROM deferred_relations WHERE source_id = $1 OR target_id = $1",
            &[&id.to_string()],
        )
        .sql()?;
    Ok(())
}

/// How many rows wait (`deferred`) and how many are dead.
pub fn deferred_counts(client: &mut impl Sql) -> Result<(u64, u64)> {
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE status = 'deferred'), \
                    count(*) FILTER (WHERE status = 'dead') FROM deferred_relations",
            &[],
        )
        .sql()?;
    Ok((get::<i64>(&row, 0)? as u64, get::<i64>(&row, 1)? as u64))
}
