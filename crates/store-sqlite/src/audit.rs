//! The audit log in SQLite (table of migration 20): a row per entry, `seq` its place; read
//! newest first, narrowed by the query's fields; pruned by time.

use cairn_core::audit::{AuditEntry, AuditQuery, AuditStore, AuditTx, NewAuditEntry};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use rusqlite::{Row, params};

use crate::SqliteStore;
use crate::columns::{corrupt, millis, time};
use crate::error::SqlResult;
use crate::tx::SqliteTx;

fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        seq: row.get(0)?,
        entry: NewAuditEntry {
            at: time(row.get(1)?)?,
            action: row.get::<_, String>(2)?.parse().map_err(corrupt)?,
            entry_point: row.get::<_, String>(3)?.parse().map_err(corrupt)?,
            token: row
                .get::<_, Option<String>>(4)?
                .map(|id| cairn_core::access::TokenId::parse(&id).map_err(corrupt))
                .transpose()?,
            agent: row.get(5)?,
            project: row
                .get::<_, Option<String>>(6)?
                .map(|name| ProjectName::new(&name).map_err(corrupt))
                .transpose()?,
            target: row.get(7)?,
            detail: row.get(8)?,
        },
    })
}

impl AuditStore for SqliteStore {
    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
        self.reader()
            .prepare_cached(
                "SELECT seq, at, action, entry_point, token, agent, project, target, detail \
                 FROM audit_log \
                 WHERE (?1 IS NULL OR action = ?1) AND (?2 IS NULL OR project = ?2) \
                   AND (?3 IS NULL OR token = ?3) AND (?4 IS NULL OR target = ?4) \
                   AND (?5 IS NULL OR at >= ?5) \
                 ORDER BY seq DESC LIMIT ?6",
            )
            .sql()?
            .query_map(
                params![
                    query.action.map(|a| a.as_str()),
                    query.project.as_ref().map(|p| p.as_str()),
                    query.token.as_ref().map(|t| t.as_str()),
                    query.target,
                    query.since.map(millis),
                    query.limit as i64,
                ],
                entry_from_row,
            )
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }
}

impl AuditTx for SqliteTx<'_, '_> {
    fn append_audit(&mut self, entry: &NewAuditEntry) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO audit_log \
                 (at, action, entry_point, token, agent, project, target, detail) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .sql()?
            .execute(params![
                millis(entry.at),
                entry.action.as_str(),
                entry.entry_point.as_str(),
                entry.token.as_ref().map(|t| t.as_str()),
                entry.agent,
                entry.project.as_ref().map(|p| p.as_str()),
                entry.target,
                entry.detail,
            ])
            .sql()?;
        Ok(())
    }

    fn prune_audit(&mut self, before: Timestamp) -> Result<usize> {
        self.tx
            .prepare_cached("DELETE FROM audit_log WHERE at < ?1")
            .sql()?
            .execute([millis(before)])
            .sql()
    }
}
