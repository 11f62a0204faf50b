//! Relations between memories in PostgreSQL: one row per relation, keyed by judgment id, naming
//! its memories by id (not by row), so a memory replaced by an import keeps its relations;
//! `memory.rs` deletes a memory's relations when it purges it (and the deferred ones naming it,
//! kept by `deferred.rs`). The current verdict and the
//! history are JSON, as in SQLite; `relation` repeats the current verdict's kind for counting.

use cairn_core::memory::{Visibility, headline};
use cairn_core::relation::{
    DeferredFilter, DeferredRelation, Relation, RelationFilter, RelationStats, RelationStatus,
    RelationStore, RelationTx, RelationView,
};
use cairn_core::{MemoryId, RelationId, Result, Scope};
use jiff::Timestamp;
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, project_column};
use crate::deferred;
use crate::error::{SqlResult, corrupt};
use crate::filter::visible_sql;
use crate::params::Params;
use crate::sql::Sql;
use crate::tx::PostgresTx;
use cairn_core::relation::columns::{RELATION_COLUMNS, RelationRow, verdict_columns};

fn relation_from_row(row: &Row) -> Result<Relation> {
    RelationRow {
        id: get(row, 0)?,
        source: get(row, 1)?,
        target: get(row, 2)?,
        project: get(row, 3)?,
        score: get(row, 4)?,
        verdict: get(row, 5)?,
        history: get(row, 6)?,
        created_at: get(row, 7)?,
        updated_at: get(row, 8)?,
    }
    .into_relation()
    .map_err(corrupt)
}

/// Relation views matching `condition` (which may order and limit): the relation, then for
/// source and target their title, the opening of their content, and whether they are visible
/// at `now` (bound first, as `$1`).
fn views(client: &mut impl Sql, condition: &str, params: &Params) -> Result<Vec<RelationView>> {
    let visible = |alias: &str| {
        format!(
            "({alias}.seq IS NOT NULL AND {})",
            visible_sql(alias, Visibility::VISIBLE, "$1")
        )
    };
    let sql = format!(
        "SELECT {RELATION_COLUMNS}, s.title, substr(s.content, 1, 300), {}, \
                t.title, substr(t.content, 1, 300), {} \
         FROM relations r \
         LEFT JOIN memories s ON s.id = r.source_id \
         LEFT JOIN memories t ON t.id = r.target_id WHERE {condition}",
        visible("s"),
        visible("t")
    );
    client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| {
            let title = |first: usize| -> Result<Option<String>> {
                if !get::<bool>(row, first + 2)? {
                    return Ok(None);
                }
                let title: Option<String> = get(row, first)?;
                let content: String = get(row, first + 1)?;
                Ok(Some(headline(title.as_deref(), &content).to_string()))
            };
            Ok(RelationView {
                relation: relation_from_row(row)?,
                source_title: title(9)?,
                target_title: title(12)?,
                reason: None,
            })
        })
        .collect()
}

/// Deletes every relation of the memory `id`, and every deferred one naming it (when it is
/// purged).
pub fn delete_relations_of(client: &mut impl Sql, id: &MemoryId) -> Result<()> {
    client
        .execute(
            "DELETE FROM relations WHERE source_id = $1 OR target_id = $1",
            &[&id.to_string()],
        )
        .sql()?;
    deferred::delete_deferred_naming(client, id)
}

/// Every relation, oldest first (for export).
pub fn all_relations(client: &mut impl Sql) -> Result<Vec<Relation>> {
    client
        .query(
            &format!("SELECT {RELATION_COLUMNS} FROM relations r ORDER BY r.created_at, r.id"),
            &[],
        )
        .sql()?
        .iter()
        .map(relation_from_row)
        .collect()
}

impl RelationStore for PostgresStore {
    fn relation(&self, id: &RelationId, now: Timestamp) -> Result<Option<RelationView>> {
        let mut params = Params::default();
        params.bind(millis(now));
        let condition = format!("r.id = {}", params.bind(id.to_string()));
        Ok(views(&mut *self.reader()?, &condition, &params)?.pop())
    }

    fn relation_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<RelationId>> {
        let upper = format!("{prefix}\u{10ffff}");
        self.reader()?
            .query(
                "SELECT id FROM relations WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3",
                &[&prefix, &upper, &(limit as i64)],
            )
            .sql()?
            .iter()
            .map(|row| get::<String>(row, 0)?.parse().map_err(corrupt))
            .collect()
    }

    fn relations(&self, filter: &RelationFilter, now: Timestamp) -> Result<Vec<RelationView>> {
        let mut params = Params::default();
        params.bind(millis(now));
        let mut parts = vec!["true".to_string()];
        if let Some(scope) = &filter.scope {
            parts.push(format!(
                "r.project = {}",
                params.bind(project_column(scope))
            ));
        }
        match filter.status {
            Some(RelationStatus::Pending) => parts.push("r.relation IS NULL".into()),
            Some(RelationStatus::Judged) => parts.push("r.relation IS NOT NULL".into()),
            None => {}
        }
        if let Some(since) = filter.since {
            parts.push(format!("r.updated_at >= {}", params.bind(millis(since))));
        }
        let condition = format!(
            "{} ORDER BY r.updated_at DESC, r.id LIMIT {}",
            parts.join(" AND "),
            params.bind(filter.limit as i64)
        );
        views(&mut *self.reader()?, &condition, &params)
    }

    fn relations_of(&self, ids: &[MemoryId], now: Timestamp) -> Result<Vec<RelationView>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut params = Params::default();
        params.bind(millis(now));
        let ids = params.bind(ids.iter().map(MemoryId::to_string).collect::<Vec<_>>());
        let condition = format!(
            "(r.source_id = ANY({ids}) OR r.target_id = ANY({ids})) ORDER BY r.created_at, r.id"
        );
        views(&mut *self.reader()?, &condition, &params)
    }

    fn relation_stats(&self, scope: Option<&Scope>) -> Result<RelationStats> {
        let mut params = Params::default();
        let condition = match scope {
            Some(scope) => format!("WHERE project = {}", params.bind(project_column(scope))),
            None => String::new(),
        };
        let rows: Vec<(Option<String>, u64)> = self
            .reader()?
            .query(
                &format!(
                    "SELECT relation, count(*) FROM relations {condition} GROUP BY relation \
                     ORDER BY count(*) DESC, relation"
                ),
                &params.refs(),
            )
            .sql()?
            .iter()
            .map(|row| Ok((get(row, 0)?, get::<i64>(row, 1)? as u64)))
            .collect::<Result<_>>()?;
        Ok(RelationStats::from_counts(rows))
    }

    fn deferred_relations(&self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_list(&mut *self.reader()?, filter)
    }

    fn deferred_relation(&self, id: &RelationId) -> Result<Option<DeferredRelation>> {
        deferred::deferred(&mut *self.reader()?, id)
    }

    fn deferred_counts(&self) -> Result<(u64, u64)> {
        deferred::deferred_counts(&mut *self.reader()?)
    }
}

impl RelationTx for PostgresTx<'_, '_> {
    fn relation(&mut self, id: &RelationId) -> Result<Option<Relation>> {
        self.tx
            .query_opt(
                &format!("SELECT {RELATION_COLUMNS} FROM relations r WHERE r.id = $1"),
                &[&id.to_string()],
            )
            .sql()?
            .map(|row| relation_from_row(&row))
            .transpose()
    }

    fn relations_between(&mut self, a: &MemoryId, b: &MemoryId) -> Result<Vec<Relation>> {
        self.tx
            .query(
                &format!(
                    "SELECT {RELATION_COLUMNS} FROM relations r \
                     WHERE (r.source_id = $1 AND r.target_id = $2) \
                        OR (r.source_id = $2 AND r.target_id = $1) \
                     ORDER BY r.created_at, r.id"
                ),
                &[&a.to_string(), &b.to_string()],
            )
            .sql()?
            .iter()
            .map(relation_from_row)
            .collect()
    }

    fn put_relation(&mut self, relation: &Relation) -> Result<()> {
        let (verdict, history) = verdict_columns(relation)?;
        self.tx
            .execute(
                "INSERT INTO relations (id, source_id, target_id, project, score, relation, \
                 verdict, history, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 ON CONFLICT (id) DO UPDATE SET source_id = excluded.source_id, \
                 target_id = excluded.target_id, project = excluded.project, \
                 score = excluded.score, relation = excluded.relation, \
                 verdict = excluded.verdict, history = excluded.history, \
                 created_at = excluded.created_at, updated_at = excluded.updated_at",
                &[
                    &relation.id.to_string(),
                    &relation.source.to_string(),
                    &relation.target.to_string(),
                    &project_column(&relation.scope),
                    &relation.score,
                    &relation.kind().map(|k| k.as_str()),
                    &verdict,
                    &history,
                    &millis(relation.created_at),
                    &millis(relation.updated_at),
                ],
            )
            .sql()?;
        Ok(())
    }

    fn deferred(&mut self, id: &RelationId) -> Result<Option<DeferredRelation>> {
        deferred::deferred(&mut self.tx, id)
    }

    fn deferred_list(&mut self, filter: &DeferredFilter) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_list(&mut self.tx, filter)
    }

    fn deferred_naming(&mut self, ids: &[MemoryId]) -> Result<Vec<DeferredRelation>> {
        deferred::deferred_naming(&mut self.tx, ids)
    }

    fn put_deferred(&mut self, deferred: &DeferredRelation) -> Result<()> {
        deferred::put_deferred(&mut self.tx, deferred)
    }

    fn delete_deferred(&mut self, id: &RelationId) -> Result<bool> {
        deferred::delete_deferred(&mut self.tx, id)
    }
}
