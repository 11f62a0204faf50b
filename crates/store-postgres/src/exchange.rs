//! Moving a PostgreSQL store: the export's consistent snapshot. An export reads inside one
//! `REPEATABLE READ` read-only transaction, so its counts and records are one state however
//! much other servers write meanwhile. `cairn backup` and `cairn restore` copy a SQLite file;
//! a PostgreSQL database is backed up with the database's own tools, and the error says so.

use std::path::{Path, PathBuf};

use cairn_core::exchange::{Counts, ExchangeStore, ExportItem};
use cairn_core::session::SessionKey;
use cairn_core::{Error, Result, Scope};
use jiff::Timestamp;

use crate::PostgresStore;
use crate::columns::{get, scope_from_column};
use crate::error::SqlResult;
use crate::rows::{MEMORY_COLUMNS, memory_from_row, revisions_of};
use crate::sql::Sql;
use crate::{session, slot};

/// Why `backup` and `restore` do not apply here, and what does.
const USE_DATABASE_TOOLS: &str = "a PostgreSQL store is backed up and restored with PostgreSQL's \
     own tools (pg_dump and pg_restore, or your provider's snapshots); `cairn export` writes a \
     portable copy of its memories";

impl ExchangeStore for PostgresStore {
    fn export(&self, sessions: bool, sink: &mut dyn FnMut(ExportItem) -> Result<()>) -> Result<()> {
        let mut client = self.reader()?;
        let mut tx = client.snapshot().sql()?;
        export_snapshot(&mut tx, sessions, sink)?;
        tx.commit().sql()
    }

    fn backup(&self, _file: &Path) -> Result<()> {
        Err(Error::invalid("store", USE_DATABASE_TOOLS))
    }

    fn restore(&self, _file: &Path) -> Result<Option<PathBuf>> {
        Err(Error::invalid("store", USE_DATABASE_TOOLS))
    }
}

/// The items of one snapshot, in export order (see [`ExportItem`]).
fn export_snapshot(
    client: &mut impl Sql,
    sessions: bool,
    sink: &mut dyn FnMut(ExportItem) -> Result<()>,
) -> Result<()> {
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM relations), \
             (SELECT count(*) FROM slots), (SELECT count(DISTINCT project) FROM slot_seeds), \
             (SELECT count(*) FROM sessions), (SELECT count(*) FROM observations)",
            &[],
        )
        .sql()?;
    let count = |index: usize| -> Result<u64> { Ok(get::<i64>(&row, index)? as u64) };
    let with_sessions = |index: usize| if sessions { count(index) } else { Ok(0) };
    sink(ExportItem::Counts(Counts {
        memories: count(0)?,
        relations: count(1)?,
        slots: count(2)?,
        slot_seeds: count(3)?,
        sessions: with_sessions(4)?,
        observations: with_sessions(5)?,
    }))?;

    let memories = client
        .query(
            &format!("SELECT m.seq, {MEMORY_COLUMNS} FROM memories m ORDER BY m.created_at, m.seq"),
            &[],
        )
        .sql()?;
    for row in &memories {
        let seq: i64 = get(row, 0)?;
        let memory = memory_from_row(row, 1)?;
        sink(ExportItem::Memory(memory, revisions_of(client, seq)?))?;
    }
    for relation in crate::relation::all_relations(client)? {
        sink(ExportItem::Relation(relation))?;
    }

    let mut scopes = |sql: &str| -> Result<Vec<Scope>> {
        client
            .query(sql, &[])
            .sql()?
            .iter()
            .map(|row| scope_from_column(&get::<String>(row, 0)?))
            .collect()
    };
    let slot_scopes = scopes("SELECT DISTINCT project FROM slots")?;
    let seed_scopes = scopes("SELECT DISTINCT project FROM slot_seeds ORDER BY project")?;
    for slot in slot::slots(client, &slot_scopes)? {
        sink(ExportItem::Slot(slot))?;
    }
    for scope in seed_scopes {
        let labels = slot::seeded_slots(client, &scope)?;
        sink(ExportItem::SlotSeeds(scope, labels))?;
    }

    if sessions {
        let keys: Vec<SessionKey> = client
            .query(
                "SELECT agent, session_id FROM sessions ORDER BY started_at, seq",
                &[],
            )
            .sql()?
            .iter()
            .map(|row| {
                Ok(SessionKey {
                    agent: get(row, 0)?,
                    id: get(row, 1)?,
                })
            })
            .collect::<Result<_>>()?;
        for key in keys {
            let Some(found) = session::session(client, &key)? else {
                continue;
            };
            sink(ExportItem::Session(found))?;
            for observation in session::observations(client, &key, Timestamp::MIN)? {
                sink(ExportItem::Observation(key.clone(), observation))?;
            }
        }
    }
    Ok(())
}
