//! Moving a store in SQLite: the export's consistent snapshot, backups and restores.
//!
//! An export reads inside one read transaction on one connection, so its counts and records
//! are one state however much others write meanwhile (WAL lets them). A backup is SQLite's
//! online backup of that same kind of snapshot into a new file, renamed into place when
//! complete. A restore checks the file is a cairn store this build can read, backs up the
//! database it replaces beside it (`<name>.before-restore-<time>.db`), copies the file over the
//! live database in one step (other connections see it as one commit), brings its schema up to
//! date and gives the store a new key, so a vector index file made for the replaced contents is
//! never used for the restored ones.

use std::path::{Path, PathBuf};

use cairn_core::exchange::{Counts, ExchangeStore, ExportItem};
use cairn_core::session::SessionKey;
use cairn_core::{Error, Result, Scope};
use jiff::Timestamp;
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::SqliteStore;
use crate::columns::scope_from_column;
use crate::error::SqlResult;
use crate::migrations::{self, SCHEMA_VERSION};
use crate::rows::{self, MEMORY_COLUMNS};
use crate::{session, slot};

impl ExchangeStore for SqliteStore {
    fn export(&self, sessions: bool, sink: &mut dyn FnMut(ExportItem) -> Result<()>) -> Result<()> {
        let conn = self.reader();
        conn.execute_batch("BEGIN DEFERRED").sql()?;
        let exported = export_snapshot(&conn, sessions, sink);
        // A read transaction has nothing to keep: ending it either way is the same.
        let ended = conn.execute_batch("COMMIT").sql();
        exported.and(ended)
    }

    fn backup(&self, file: &Path) -> Result<()> {
        if file.exists() {
            return Err(Error::invalid(
                "file",
                format!(
                    "{} already exists; a backup never overwrites a file",
                    file.display()
                ),
            ));
        }
        let partial = partial_name(file);
        let copied = (|| -> Result<()> {
            let mut target = Connection::open(&partial).sql()?;
            copy(&self.reader(), &mut target)?;
            target.close().map_err(|(_, e)| e).sql()?;
            std::fs::rename(&partial, file)?;
            Ok(())
        })();
        if copied.is_err() {
            let _ = std::fs::remove_file(&partial);
        }
        copied
    }

    fn restore(&self, file: &Path) -> Result<Option<PathBuf>> {
        let source = open_backup(file)?;
        let previous = match &self.path {
            Some(database) => {
                let previous = before_restore_name(database);
                self.backup(&previous).map_err(|error| Error::Storage {
                    message: format!(
                        "the current store could not be saved to {} first ({error}); nothing \
                         was restored",
                        previous.display()
                    ),
                    source: None,
                })?;
                Some(previous)
            }
            None => None,
        };
        let mut conn = self.conn();
        copy(&source, &mut conn)?;
        migrations::migrate(&mut conn)?;
        conn.execute(
            "UPDATE vector_clock SET store_key = lower(hex(randomblob(16)))",
            [],
        )
        .sql()?;
        // Words this process knew were stored belong to the replaced contents.
        self.forget_known_words();
        Ok(previous)
    }
}

/// The items of one snapshot, in export order (see [`ExportItem`]).
fn export_snapshot(
    conn: &Connection,
    sessions: bool,
    sink: &mut dyn FnMut(ExportItem) -> Result<()>,
) -> Result<()> {
    let count = |sql: &str| -> Result<u64> {
        conn.query_row(sql, [], |row| row.get::<_, i64>(0))
            .map(|n| n as u64)
            .sql()
    };
    let with_sessions = |sql: &str| if sessions { count(sql) } else { Ok(0) };
    sink(ExportItem::Counts(Counts {
        memories: count("SELECT count(*) FROM memories")?,
        relations: count("SELECT count(*) FROM relations")?,
        slots: count("SELECT count(*) FROM slots")?,
        slot_seeds: count("SELECT count(DISTINCT project) FROM slot_seeds")?,
        sessions: with_sessions("SELECT count(*) FROM sessions")?,
        observations: with_sessions("SELECT count(*) FROM observations")?,
    }))?;

    let mut memories = conn
        .prepare(&format!(
            "SELECT m.seq, {MEMORY_COLUMNS} FROM memories m ORDER BY m.created_at, m.seq"
        ))
        .sql()?;
    let mut rows = memories.query([]).sql()?;
    while let Some(row) = rows.next().sql()? {
        let seq: i64 = row.get(0).sql()?;
        let memory = rows::memory_from_row_at(row, 1).sql()?;
        sink(ExportItem::Memory(memory, rows::revisions_of(conn, seq)?))?;
    }
    for relation in crate::relation::all_relations(conn)? {
        sink(ExportItem::Relation(relation))?;
    }

    let scopes = |sql: &str| -> Result<Vec<Scope>> {
        let mut statement = conn.prepare(sql).sql()?;
        let projects = statement
            .query_map([], |row| scope_from_column(&row.get::<_, String>(0)?))
            .sql()?;
        projects.collect::<rusqlite::Result<_>>().sql()
    };
    for slot in slot::slots(conn, &scopes("SELECT DISTINCT project FROM slots")?)? {
        sink(ExportItem::Slot(slot))?;
    }
    for scope in scopes("SELECT DISTINCT project FROM slot_seeds ORDER BY project")? {
        let labels = slot::seeded_slots(conn, &scope)?;
        sink(ExportItem::SlotSeeds(scope, labels))?;
    }

    if sessions {
        let mut statement = conn
            .prepare("SELECT agent, session_id FROM sessions ORDER BY started_at, seq")
            .sql()?;
        let keys = statement
            .query_map([], |row| {
                Ok(SessionKey {
                    agent: row.get(0)?,
                    id: row.get(1)?,
                })
            })
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        for key in keys {
            let Some(found) = session::session(conn, &key)? else {
                continue;
            };
            sink(ExportItem::Session(found))?;
            for observation in session::observations(conn, &key, Timestamp::MIN)? {
                sink(ExportItem::Observation(key.clone(), observation))?;
            }
        }
    }
    Ok(())
}

/// Copies every page of `source` over `target` in one step.
fn copy(source: &Connection, target: &mut Connection) -> Result<()> {
    match Backup::new(source, target).and_then(|b| b.step(-1)).sql()? {
        StepResult::Done => Ok(()),
        _ => Err(Error::Busy {
            message: "the database stayed locked by another cairn process; try again".into(),
        }),
    }
}

/// Where a backup is written until it is complete.
fn partial_name(file: &Path) -> std::path::PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

/// A free name beside `database` for the contents a restore replaces:
/// `<name>.before-restore-<UTC time>[-n].db`.
fn before_restore_name(database: &Path) -> PathBuf {
    let stem = database
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cairn".into());
    let stamp = Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    (1..)
        .map(|n| match n {
            1 => format!("{stem}.before-restore-{stamp}.db"),
            n => format!("{stem}.before-restore-{stamp}-{n}.db"),
        })
        .map(|name| database.with_file_name(name))
        .find(|path| !path.exists())
        .expect("some name is free")
}

/// The backup at `file`, opened read-only once it proved to be a cairn store this build reads.
fn open_backup(file: &Path) -> Result<Connection> {
    let refuse = |why: String| {
        Error::invalid(
            "file",
            format!("{}: {why}; nothing was restored", file.display()),
        )
    };
    if !file.is_file() {
        return Err(refuse("no such file".into()));
    }
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| refuse(format!("cannot open it ({e})")))?;
    let check = |conn: &Connection| -> rusqlite::Result<(String, u32, bool)> {
        let verdict = conn.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
        let version = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let memories = conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memories'",
            [],
            |row| row.get::<_, i64>(0),
        )?;
        Ok((verdict, version, memories == 1))
    };
    let (verdict, version, has_memories) =
        check(&conn).map_err(|e| refuse(format!("not a SQLite database ({e})")))?;
    if verdict != "ok" {
        return Err(refuse(format!("the file is damaged ({verdict})")));
    }
    if !has_memories || version == 0 {
        return Err(refuse(
            "not a cairn store (a file made by cairn backup)".into(),
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(refuse(format!(
            "written by a newer cairn (schema {version}; this one knows up to {SCHEMA_VERSION}); \
             upgrade cairn"
        )));
    }
    Ok(conn)
}
