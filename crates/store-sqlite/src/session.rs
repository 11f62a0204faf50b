//! Sessions and observations in SQLite (tables of migration 4).
//!
//! Observations are indexed by `observations_fts`, an external-content FTS5 table written in the
//! same statement sequence as each observation, as `memories_fts` is for memories; pruning
//! removes index entries before their rows. An observation's `event_id` is unique, so a replayed
//! event is ignored by the database itself.

use cairn_core::query::Match;
use cairn_core::session::{
    Observation, ObservationFilter, ObservationHit, Session, SessionFilter, SessionKey,
};
use cairn_core::session::{SessionStore, SessionTx};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::SqliteStore;
use crate::columns::{corrupt, millis};
use cairn_core::session::columns::{
    OBSERVATION_COLUMNS, ObservationRow, SESSION_COLUMNS, SessionRow,
};

use crate::error::SqlResult;
use crate::read::fts5_expression;
use crate::tx::SqliteTx;

fn session_from_row(row: &Row<'_>) -> rusqlite::Result<Session> {
    SessionRow {
        agent: row.get(0)?,
        id: row.get(1)?,
        project: row.get(2)?,
        cwd: row.get(3)?,
        started_at: row.get(4)?,
        last_seen_at: row.get(5)?,
        ended_at: row.get(6)?,
        first_prompt: row.get(7)?,
        summary: row.get(8)?,
        summary_by: row.get(9)?,
    }
    .into_session()
    .map_err(corrupt)
}

fn observation_from_row_at(row: &Row<'_>, first: usize) -> rusqlite::Result<Observation> {
    let at = |n: usize| first + n;
    ObservationRow {
        event_id: row.get(at(0))?,
        at: row.get(at(1))?,
        kind: row.get(at(2))?,
        tool: row.get(at(3))?,
        input: row.get(at(4))?,
        output: row.get(at(5))?,
        files: row.get(at(6))?,
        error: row.get(at(7))?,
        importance: row.get(at(8))?,
    }
    .into_observation()
    .map_err(corrupt)
}

pub fn session(conn: &Connection, key: &SessionKey) -> Result<Option<Session>> {
    conn.prepare_cached(&format!(
        "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.agent = ?1 AND s.session_id = ?2"
    ))
    .sql()?
    .query_row(params![key.agent, key.id], session_from_row)
    .optional()
    .sql()
}

pub fn put_session(conn: &Connection, session: &Session) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO sessions (agent, session_id, project, cwd, started_at, last_seen_at, \
         ended_at, first_prompt, summary, summary_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
         ON CONFLICT (agent, session_id) DO UPDATE SET project = excluded.project, \
         cwd = excluded.cwd, started_at = excluded.started_at, \
         last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at, \
         first_prompt = excluded.first_prompt, summary = excluded.summary, \
         summary_by = excluded.summary_by",
    )
    .sql()?
    .execute(params![
        session.key.agent,
        session.key.id,
        session.project.as_str(),
        session.cwd,
        millis(session.started_at),
        millis(session.last_seen_at),
        session.ended_at.map(millis),
        session.first_prompt,
        session.summary,
        session.summary_by.map(|by| by.as_str()),
    ])
    .sql()?;
    Ok(())
}

pub fn sessions(conn: &Connection, filter: &SessionFilter) -> Result<Vec<Session>> {
    let mut sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE 1 = 1");
    let mut values = Vec::new();
    if let Some(project) = &filter.project {
        sql.push_str(" AND s.project = ?");
        values.push(Value::Text(project.as_str().into()));
    }
    if let Some(agent) = &filter.agent {
        sql.push_str(" AND s.agent = ?");
        values.push(Value::Text(agent.clone()));
    }
    if let Some(id) = &filter.id {
        sql.push_str(" AND s.session_id = ?");
        values.push(Value::Text(id.clone()));
    }
    sql.push_str(" ORDER BY s.last_seen_at DESC, s.seq DESC LIMIT ? OFFSET ?");
    values.push(Value::Integer(filter.limit as i64));
    values.push(Value::Integer(filter.offset as i64));
    conn.prepare_cached(&sql)
        .sql()?
        .query_map(params_from_iter(values), session_from_row)
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()
}

fn session_seq(conn: &Connection, key: &SessionKey) -> Result<Option<i64>> {
    conn.prepare_cached("SELECT seq FROM sessions WHERE agent = ?1 AND session_id = ?2")
        .sql()?
        .query_row(params![key.agent, key.id], |row| row.get(0))
        .optional()
        .sql()
}

pub fn add_observation(
    conn: &Connection,
    key: &SessionKey,
    observation: &Observation,
) -> Result<bool> {
    let seq = session_seq(conn, key)?.ok_or_else(|| key.not_recorded())?;
    let files = observation.files.join("\n");
    let inserted = conn
        .prepare_cached(
            "INSERT INTO observations (session_seq, event_id, at, kind, tool, input, output, \
             files, error, importance) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
             ON CONFLICT (event_id) DO NOTHING",
        )
        .sql()?
        .execute(params![
            seq,
            observation.event_id,
            millis(observation.at),
            observation.kind.as_str(),
            observation.tool,
            observation.input,
            observation.output,
            files,
            observation.error,
            observation.importance.get(),
        ])
        .sql()?;
    if inserted == 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO observations_fts (rowid, tool, input, output, files) \
         VALUES (last_insert_rowid(), ?1, ?2, ?3, ?4)",
    )
    .sql()?
    .execute(params![
        observation.tool,
        observation.input,
        observation.output,
        files
    ])
    .sql()?;
    Ok(true)
}

pub fn observations(
    conn: &Connection,
    key: &SessionKey,
    since: Timestamp,
) -> Result<Vec<Observation>> {
    conn.prepare_cached(&format!(
        "SELECT {OBSERVATION_COLUMNS} FROM observations o JOIN sessions s ON s.seq = o.session_seq \
         WHERE s.agent = ?1 AND s.session_id = ?2 AND o.at >= ?3 ORDER BY o.at, o.seq"
    ))
    .sql()?
    .query_map(params![key.agent, key.id, millis(since)], |row| {
        observation_from_row_at(row, 0)
    })
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

pub fn prune_observations(conn: &Connection, before: Timestamp) -> Result<u64> {
    conn.prepare_cached(
        "INSERT INTO observations_fts (observations_fts, rowid, tool, input, output, files) \
         SELECT 'delete', seq, tool, input, output, files FROM observations WHERE at < ?1",
    )
    .sql()?
    .execute([millis(before)])
    .sql()?;
    let deleted = conn
        .prepare_cached("DELETE FROM observations WHERE at < ?1")
        .sql()?
        .execute([millis(before)])
        .sql()?;
    Ok(deleted as u64)
}

pub fn search_observations(
    conn: &Connection,
    expression: &Match,
    filter: &ObservationFilter,
    limit: usize,
) -> Result<Vec<ObservationHit>> {
    let mut sql = format!(
        "SELECT s.agent, s.session_id, s.project, bm25(observations_fts) AS score, \
         {OBSERVATION_COLUMNS} FROM observations_fts \
         JOIN observations o ON o.seq = observations_fts.rowid \
         JOIN sessions s ON s.seq = o.session_seq \
         WHERE observations_fts MATCH ? AND o.at >= ?"
    );
    let mut values = vec![
        Value::Text(fts5_expression(expression)),
        Value::Integer(millis(filter.since)),
    ];
    if let Some(project) = &filter.project {
        sql.push_str(" AND s.project = ?");
        values.push(Value::Text(project.as_str().into()));
    }
    if let Some(key) = &filter.session {
        sql.push_str(" AND s.agent = ? AND s.session_id = ?");
        values.push(Value::Text(key.agent.clone()));
        values.push(Value::Text(key.id.clone()));
    }
    if !filter.kinds.is_empty() {
        let marks = vec!["?"; filter.kinds.len()].join(", ");
        sql.push_str(&format!(" AND o.kind IN ({marks})"));
        values.extend(
            filter
                .kinds
                .iter()
                .map(|kind| Value::Text(kind.as_str().into())),
        );
    }
    sql.push_str(" ORDER BY score LIMIT ?");
    values.push(Value::Integer(limit as i64));
    conn.prepare_cached(&sql)
        .sql()?
        .query_map(params_from_iter(values), |row| {
            Ok(ObservationHit {
                session: SessionKey {
                    agent: row.get(0)?,
                    id: row.get(1)?,
                },
                project: ProjectName::new(&row.get::<_, String>(2)?).map_err(corrupt)?,
                // FTS5's bm25() is negated so that ascending order is best-first; undo that.
                score: -row.get::<_, f64>(3)?,
                observation: observation_from_row_at(row, 4)?,
            })
        })
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()
}

impl SessionStore for SqliteStore {
    fn session(&self, key: &SessionKey) -> Result<Option<Session>> {
        session(&self.reader(), key)
    }

    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        sessions(&self.reader(), filter)
    }

    fn observations(&self, key: &SessionKey, since: Timestamp) -> Result<Vec<Observation>> {
        observations(&self.reader(), key, since)
    }

    fn search_observations(
        &self,
        expression: &Match,
        filter: &ObservationFilter,
        limit: usize,
    ) -> Result<Vec<ObservationHit>> {
        search_observations(&self.reader(), expression, filter, limit)
    }
}

impl SessionTx for SqliteTx<'_, '_> {
    fn session(&mut self, key: &SessionKey) -> Result<Option<Session>> {
        session(&self.tx, key)
    }

    fn put_session(&mut self, session: &Session) -> Result<()> {
        put_session(&self.tx, session)
    }

    fn add_observation(&mut self, key: &SessionKey, observation: &Observation) -> Result<bool> {
        add_observation(&self.tx, key, observation)
    }

    fn observations(&mut self, key: &SessionKey) -> Result<Vec<Observation>> {
        observations(&self.tx, key, Timestamp::MIN)
    }

    fn prune_observations(&mut self, before: Timestamp) -> Result<u64> {
        prune_observations(&self.tx, before)
    }
}
