//! Sessions and observations in PostgreSQL. An observation's `fts` document is written with
//! it; its `event_id` is unique, so a replayed event is ignored by the database itself.

use cairn_core::query::Match;
use cairn_core::session::{
    Observation, ObservationFilter, ObservationHit, Session, SessionFilter, SessionKey,
};
use cairn_core::session::{SessionStore, SessionTx};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis};
use crate::error::{SqlResult, corrupt};
use crate::params::Params;
use crate::sql::Sql;
use crate::text::{observation_document, tsquery};
use crate::tx::PostgresTx;
use cairn_core::session::columns::{
    OBSERVATION_COLUMNS, ObservationRow, SESSION_COLUMNS, SessionRow,
};

fn session_from_row(row: &Row) -> Result<Session> {
    SessionRow {
        agent: get(row, 0)?,
        id: get(row, 1)?,
        project: get(row, 2)?,
        cwd: get(row, 3)?,
        started_at: get(row, 4)?,
        last_seen_at: get(row, 5)?,
        ended_at: get(row, 6)?,
        first_prompt: get(row, 7)?,
        summary: get(row, 8)?,
        summary_by: get(row, 9)?,
    }
    .into_session()
    .map_err(corrupt)
}

fn observation_from_row(row: &Row, first: usize) -> Result<Observation> {
    let at = |n: usize| first + n;
    ObservationRow {
        event_id: get(row, at(0))?,
        at: get(row, at(1))?,
        kind: get(row, at(2))?,
        tool: get(row, at(3))?,
        input: get(row, at(4))?,
        output: get(row, at(5))?,
        files: get(row, at(6))?,
        error: get(row, at(7))?,
        importance: get(row, at(8))?,
    }
    .into_observation()
    .map_err(corrupt)
}

pub fn session(client: &mut impl Sql, key: &SessionKey) -> Result<Option<Session>> {
    client
        .query_opt(
            &format!(
                "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.agent = $1 AND s.session_id = $2"
            ),
            &[&key.agent, &key.id],
        )
        .sql()?
        .map(|row| session_from_row(&row))
        .transpose()
}

pub fn sessions(client: &mut impl Sql, filter: &SessionFilter) -> Result<Vec<Session>> {
    let mut params = Params::default();
    let mut sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE true");
    if let Some(project) = &filter.project {
        sql += &format!(
            " AND s.project = {}",
            params.bind(project.as_str().to_string())
        );
    }
    if let Some(agent) = &filter.agent {
        sql += &format!(" AND s.agent = {}", params.bind(agent.clone()));
    }
    if let Some(id) = &filter.id {
        sql += &format!(" AND s.session_id = {}", params.bind(id.clone()));
    }
    sql += &format!(
        " ORDER BY s.last_seen_at DESC, s.seq DESC LIMIT {} OFFSET {}",
        params.bind(filter.limit as i64),
        params.bind(filter.offset as i64)
    );
    client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(session_from_row)
        .collect()
}

pub fn observations(
    client: &mut impl Sql,
    key: &SessionKey,
    since: Timestamp,
) -> Result<Vec<Observation>> {
    client
        .query(
            &format!(
                "SELECT {OBSERVATION_COLUMNS} FROM observations o \
                 JOIN sessions s ON s.seq = o.session_seq \
                 WHERE s.agent = $1 AND s.session_id = $2 AND o.at >= $3 ORDER BY o.at, o.seq"
            ),
            &[&key.agent, &key.id, &millis(since)],
        )
        .sql()?
        .iter()
        .map(|row| observation_from_row(row, 0))
        .collect()
}

impl SessionStore for PostgresStore {
    fn session(&self, key: &SessionKey) -> Result<Option<Session>> {
        session(&mut *self.reader()?, key)
    }

    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        sessions(&mut *self.reader()?, filter)
    }

    fn observations(&self, key: &SessionKey, since: Timestamp) -> Result<Vec<Observation>> {
        observations(&mut *self.reader()?, key, since)
    }

    fn search_observations(
        &self,
        expression: &Match,
        filter: &ObservationFilter,
        limit: usize,
    ) -> Result<Vec<ObservationHit>> {
        let mut params = Params::default();
        let query = tsquery(&mut params, expression);
        let mut sql = format!(
            "SELECT s.agent, s.session_id, s.project, ts_rank(o.fts, {query}, 1) AS score, \
             {OBSERVATION_COLUMNS} FROM observations o JOIN sessions s ON s.seq = o.session_seq \
             WHERE o.fts @@ ({query}) AND o.at >= {}",
            params.bind(millis(filter.since))
        );
        if let Some(project) = &filter.project {
            sql += &format!(
                " AND s.project = {}",
                params.bind(project.as_str().to_string())
            );
        }
        if let Some(key) = &filter.session {
            sql += &format!(
                " AND s.agent = {} AND s.session_id = {}",
                params.bind(key.agent.clone()),
                params.bind(key.id.clone())
            );
        }
        if !filter.kinds.is_empty() {
            let kinds: Vec<String> = filter.kinds.iter().map(|k| k.as_str().into()).collect();
            sql += &format!(" AND o.kind = ANY({})", params.bind(kinds));
        }
        sql += &format!(
            " ORDER BY score DESC, o.seq DESC LIMIT {}",
            params.bind(limit as i64)
        );
        self.reader()?
            .query(&sql, &params.refs())
            .sql()?
            .iter()
            .map(|row| {
                Ok(ObservationHit {
                    session: SessionKey {
                        agent: get(row, 0)?,
                        id: get(row, 1)?,
                    },
                    project: ProjectName::new(&get::<String>(row, 2)?).map_err(corrupt)?,
                    score: f64::from(get::<f32>(row, 3)?),
                    observation: observation_from_row(row, 4)?,
                })
            })
            .collect()
    }
}

impl SessionTx for PostgresTx<'_, '_> {
    fn session(&mut self, key: &SessionKey) -> Result<Option<Session>> {
        session(&mut self.tx, key)
    }

    fn put_session(&mut self, session: &Session) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO sessions (agent, session_id, project, cwd, started_at, \
                 last_seen_at, ended_at, first_prompt, summary, summary_by) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 ON CONFLICT (agent, session_id) DO UPDATE SET project = excluded.project, \
                 cwd = excluded.cwd, started_at = excluded.started_at, \
                 last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at, \
                 first_prompt = excluded.first_prompt, summary = excluded.summary, \
                 summary_by = excluded.summary_by",
                &[
                    &session.key.agent,
                    &session.key.id,
                    &session.project.as_str(),
                    &session.cwd,
                    &millis(session.started_at),
                    &millis(session.last_seen_at),
                    &session.ended_at.map(millis),
                    &session.first_prompt,
                    &session.summary,
                    &session.summary_by.map(|by| by.as_str()),
                ],
            )
            .sql()?;
        Ok(())
    }

    fn add_observation(&mut self, key: &SessionKey, observation: &Observation) -> Result<bool> {
        let seq: i64 = self
            .tx
            .query_opt(
                "SELECT seq FROM sessions WHERE agent = $1 AND session_id = $2",
                &[&key.agent, &key.id],
            )
            .sql()?
            .ok_or_else(|| key.not_recorded())?
            .get(0);
        let files = observation.files.join("\n");
        let mut params = Params::default();
        let document = observation_document(
            &mut params,
            &[
                observation.tool.as_deref(),
                observation.input.as_deref(),
                observation.output.as_deref(),
                Some(files.as_str()),
            ],
        );
        let values = [
            params.bind(seq),
            params.bind(observation.event_id.clone()),
            params.bind(millis(observation.at)),
            params.bind(observation.kind.as_str().to_string()),
            params.bind(observation.tool.clone()),
            params.bind(observation.input.clone()),
            params.bind(observation.output.clone()),
            params.bind(files),
            params.bind(observation.error),
            params.bind(i64::from(observation.importance.get())),
        ];
        let sql = format!(
            "INSERT INTO observations (session_seq, event_id, at, kind, tool, input, output, \
             files, error, importance, fts) VALUES ({}, {document}) \
             ON CONFLICT (event_id) DO NOTHING",
            values.join(", ")
        );
        Ok(self.tx.execute(&sql, &params.refs()).sql()? > 0)
    }

    fn observations(&mut self, key: &SessionKey) -> Result<Vec<Observation>> {
        observations(&mut self.tx, key, Timestamp::MIN)
    }

    fn prune_observations(&mut self, before: Timestamp) -> Result<u64> {
        self.tx
            .execute("DELETE FROM observations WHERE at < $1", &[&millis(before)])
            .sql()
    }
}
