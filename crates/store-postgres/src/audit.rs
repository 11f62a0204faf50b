//! The audit log in PostgreSQL (table of migration 8): a row per entry, `seq` its place; read
//! newest first, narrowed by the query's fields; pruned by time.

use cairn_core::audit::{AuditEntry, AuditQuery, AuditStore, AuditTx, NewAuditEntry};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, time};
use crate::error::{SqlResult, corrupt};
use crate::sql::Sql;
use crate::tx::PostgresTx;

fn entry_from_row(row: &Row) -> Result<AuditEntry> {
    Ok(AuditEntry {
        seq: get(row, 0)?,
        entry: NewAuditEntry {
            at: time(get(row, 1)?)?,
            action: get::<String>(row, 2)?.parse().map_err(corrupt)?,
            entry_point: get::<String>(row, 3)?.parse().map_err(corrupt)?,
            token: get::<Option<String>>(row, 4)?
                .map(|id| cairn_core::access::TokenId::parse(&id).map_err(corrupt))
                .transpose()?,
            agent: get(row, 5)?,
            project: get::<Option<String>>(row, 6)?
                .map(|name| ProjectName::new(&name).map_err(corrupt))
                .transpose()?,
            target: get(row, 7)?,
            detail: get(row, 8)?,
        },
    })
}

impl AuditStore for PostgresStore {
    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
        self.reader()?
            .query(
                "SELECT seq, at, action, entry_point, token, agent, project, target, detail \
                 FROM audit_log \
                 WHERE ($1::text IS NULL OR action = $1) AND ($2::text IS NULL OR project = $2) \
                   AND ($3::text IS NULL OR token = $3) AND ($4::text IS NULL OR target = $4) \
                   AND ($5::bigint IS NULL OR at >= $5) \
                 ORDER BY seq DESC LIMIT $6",
                &[
                    &query.action.map(|a| a.as_str()),
                    &query.project.as_ref().map(|p| p.as_str()),
                    &query.token.as_ref().map(|t| t.as_str()),
                    &query.target,
                    &query.since.map(millis),
                    &(query.limit as i64),
                ],
            )
            .sql()?
            .iter()
            .map(entry_from_row)
            .collect()
    }
}

impl AuditTx for PostgresTx<'_, '_> {
    fn append_audit(&mut self, entry: &NewAuditEntry) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO audit_log \
                 (at, action, entry_point, token, agent, project, target, detail) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &millis(entry.at),
                    &entry.action.as_str(),
                    &entry.entry_point.as_str(),
                    &entry.token.as_ref().map(|t| t.as_str()),
                    &entry.agent,
                    &entry.project.as_ref().map(|p| p.as_str()),
                    &entry.target,
                    &entry.detail,
                ],
            )
            .sql()?;
        Ok(())
    }

    fn prune_audit(&mut self, before: Timestamp) -> Result<usize> {
        let deleted = self
            .tx
            .execute("DELETE FROM audit_log WHERE at < $1", &[&millis(before)])
            .sql()?;
        Ok(deleted as usize)
    }
}
