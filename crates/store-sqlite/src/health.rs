//! The SQLite store's part of `cairn doctor`: its file, its full-text indexes, its vectors and
//! its vector index file, free disk and permissions; and the repairs of what is derived.
//!
//! A damaged database is never repaired in place: [`recover`] copies what SQLite can still
//! read — table by table, forward in rowid order, stepping over a damaged page by a bounded
//! search so only its rows are left out (see `copy_table`) — into a new database of the current schema beside
//! it (`<db>.recovered-<time>.db`), rebuilds its full-text indexes, drops rows left pointing at
//! nothing, and says how much came across. `cairn restore` switches to it (keeping the damaged
//! file beside it).

use std::path::{Path, PathBuf};

use cairn_core::embedding::VectorSpace;
use cairn_core::health::{Finding, HealthStore, Repair, Severity};
use cairn_core::{Error, Result};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags, params_from_iter};

use crate::error::{SqlResult, SqliteError};
use crate::{SqliteStore, migrations, opening};

/// The full-text indexes, each over its table (external content, so rebuilt from it).
const FULL_TEXT: &[&str] = &["memories_fts", "observations_fts", "vocabulary_trigrams"];

/// Free space under which the disk is worth a warning.
const LOW_DISK_BYTES: u64 = 100 << 20;

impl HealthStore for SqliteStore {
    fn check_health(&self, quick: bool) -> Result<Vec<Finding>> {
        let mut findings = Vec::new();
        let Some(path) = self.path().map(Path::to_path_buf) else {
            return Ok(findings);
        };
        if let Some(why) = self.read_only() {
            findings.push(Finding::new(
                "permissions",
                Severity::Warning,
                format!("the database is read-only: {why}"),
                "searches and reads work; nothing can be stored, changed or forgotten, and hook \
                 events wait in the spool",
            ));
        }
        if let Some(free) = opening::free_bytes(&path)
            && free < LOW_DISK_BYTES
        {
            findings.push(Finding::new(
                "disk",
                Severity::Warning,
                format!("{} MiB free on the disk of {}", free >> 20, path.display()),
                "once it is full, writes are refused (nothing stored is lost); free some space",
            ));
        }
        if quick {
            return Ok(findings);
        }
        // The writer's connection: the full-text check is a command (it changes nothing), which
        // a read-only connection would refuse.
        let conn = self.conn();
        let whole = integrity(&conn, &mut findings)?;
        full_text(&conn, &mut findings);
        if !whole {
            // The checks below read the tables, and a damaged page fails them: the damage is
            // the finding, and its repair (a recovered copy) is the next step.
            return Ok(findings);
        }
        vectors(&conn, &mut findings)?;
        drop(conn);
        if let Some(why) = self.ann(VectorSpace::Text).check(&self.reader())? {
            findings.push(Finding::vector_index_unusable(&why));
        }
        Ok(findings)
    }

    fn repair(&self, repair: Repair) -> Result<String> {
        match repair {
            Repair::RebuildFullText => {
                let mut conn = self.conn();
                let tx = conn.transaction().sql()?;
                for index in FULL_TEXT {
                    tx.execute(
                        &format!("INSERT INTO {index}({index}) VALUES ('rebuild')"),
                        [],
                    )
                    .sql()?;
                }
                tx.commit().sql()?;
                Ok("rebuilt the full-text indexes from their tables".into())
            }
            Repair::DeleteOrphans => {
                let conn = self.conn();
                let deleted = delete_orphans(&conn)?;
                Ok(format!("deleted {deleted} rows that pointed at nothing"))
            }
            Repair::RequeueEmbeddings => {
                let conn = self.conn();
                let dropped = conn
                    .execute(
                        "DELETE FROM memory_vectors WHERE rowid IN (SELECT v.rowid FROM \
                         memory_vectors v JOIN vector_models m ON m.space = v.space \
                         WHERE length(v.vector) != m.dimensions * 4)",
                        [],
                    )
                    .sql()?;
                let queued = conn
                    .execute(
                        "INSERT OR IGNORE INTO embedding_queue (memory_seq, space) \
                         SELECT m.seq, 'text' FROM memories m \
                         WHERE m.deleted_at IS NULL \
                         AND EXISTS (SELECT 1 FROM vector_models WHERE space = 'text') \
                         AND NOT EXISTS (SELECT 1 FROM memory_vectors v \
                                         WHERE v.memory_seq = m.seq AND v.space = 'text')",
                        [],
                    )
                    .sql()?;
                Ok(format!(
                    "dropped {dropped} vectors of the wrong size and queued {queued} memories \
                     for embedding"
                ))
            }
            Repair::RecoverDatabase => {
                let path = self.path().ok_or_else(|| Error::Unavailable {
                    what: "recovery".into(),
                    hint: "an in-memory store has no file to recover".into(),
                })?;
                recover(path).map(|recovery| recovery.to_string())
            }
            other => Err(Error::Unavailable {
                what: format!("the repair {other:?}"),
                hint: "the SQLite store has nothing of that kind".into(),
            }),
        }
    }
}

/// SQLite's integrity check and the rows that point at nothing; false when the file is damaged.
fn integrity(conn: &Connection, findings: &mut Vec<Finding>) -> Result<bool> {
    let problems: Vec<String> = conn
        .prepare("PRAGMA integrity_check(20)")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap_or_else(|error| vec![error.to_string()]);
    if problems != ["ok"] {
        findings.push(
            Finding::new(
                "database",
                Severity::Problem,
                format!(
                    "SQLite's integrity check fails: {}",
                    problems[..problems.len().min(3)].join("; ")
                ),
                "parts of the database are damaged: some memories or their indexes cannot be \
                 read, and what reads them may fail. A repair copies everything that can still \
                 be read into a new file beside it; the damaged file is kept",
            )
            .repaired_by(Repair::RecoverDatabase),
        );
        return Ok(false);
    }
    let orphans = orphan_rows(conn).unwrap_or_default();
    if !orphans.is_empty() {
        let tables: std::collections::BTreeSet<&str> =
            orphans.iter().map(|(table, _)| table.as_str()).collect();
        findings.push(
            Finding::new(
                "database",
                Severity::Problem,
                format!(
                    "{} rows point at rows that no longer exist (in {})",
                    orphans.len(),
                    tables.into_iter().collect::<Vec<_>>().join(", ")
                ),
                "they belong to nothing and are never shown, but they take room and confuse \
                 counts",
            )
            .repaired_by(Repair::DeleteOrphans),
        );
    }
    Ok(true)
}

fn full_text(conn: &Connection, findings: &mut Vec<Finding>) {
    let damaged: Vec<&str> = FULL_TEXT
        .iter()
        .copied()
        .filter(|index| {
            conn.execute(
                &format!("INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)"),
                [],
            )
            .is_err()
        })
        .collect();
    if !damaged.is_empty() {
        findings.push(
            Finding::new(
                "full_text",
                Severity::Problem,
                format!(
                    "the full-text index does not match its table ({})",
                    damaged.join(", ")
                ),
                "keyword and typo searches miss memories or return ones that changed",
            )
            .repaired_by(Repair::RebuildFullText),
        );
    }
}

fn vectors(conn: &Connection, findings: &mut Vec<Finding>) -> Result<()> {
    let count = |sql: &str| -> Result<i64> { conn.query_row(sql, [], |row| row.get(0)).sql() };
    let wrong = count(
        "SELECT count(*) FROM memory_vectors v JOIN vector_models m ON m.space = v.space \
         WHERE length(v.vector) != m.dimensions * 4",
    )?;
    let missing = count(
        "SELECT count(*) FROM memories m WHERE m.deleted_at IS NULL \
         AND EXISTS (SELECT 1 FROM vector_models WHERE space = 'text') \
         AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_seq = m.seq \
                         AND v.space = 'text') \
         AND NOT EXISTS (SELECT 1 FROM embedding_queue q WHERE q.memory_seq = m.seq \
                         AND q.space = 'text')",
    )?;
    if wrong > 0 {
        findings.push(
            Finding::new(
                "vectors",
                Severity::Problem,
                format!("{wrong} vectors are not of the model's size"),
                "those memories cannot be found by meaning",
            )
            .repaired_by(Repair::RequeueEmbeddings),
        );
    }
    if missing > 0 {
        findings.push(
            Finding::new(
                "vectors",
                Severity::Warning,
                format!("{missing} memories have no vector and are not queued for one"),
                "they are found by keyword, never by meaning",
            )
            .repaired_by(Repair::RequeueEmbeddings),
        );
    }
    Ok(())
}

/// `(table, rowid)` of every row a foreign key check finds pointing at nothing.
fn orphan_rows(conn: &Connection) -> rusqlite::Result<Vec<(String, Option<i64>)>> {
    let mut statement = conn.prepare("PRAGMA foreign_key_check")?;
    statement
        .query_map([], |row| Ok((row.get::<_, String>(0)?, row.get(1)?)))?
        .collect()
}

/// (key id, parent table, child column, parent column) of one column of a foreign key.
type ForeignKey = (i64, String, String, Option<String>);

/// Deletes every row whose foreign key names a row that does not exist, table by table (by
/// key, so tables without row ids are covered too).
fn delete_orphans(conn: &Connection) -> Result<usize> {
    let tables: Vec<String> = orphan_rows(conn)
        .sql()?
        .into_iter()
        .map(|(table, _)| table)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut deleted = 0;
    for table in tables {
        let keys: Vec<ForeignKey> = conn
            .prepare(&format!("PRAGMA foreign_key_list(\"{table}\")"))
            .sql()?
            .query_map([], |row| {
                Ok((row.get(0)?, row.get(2)?, row.get(3)?, row.get(4)?))
            })
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        let mut by_key: std::collections::BTreeMap<i64, Vec<&ForeignKey>> =
            std::collections::BTreeMap::new();
        for key in &keys {
            by_key.entry(key.0).or_default().push(key);
        }
        for columns in by_key.values() {
            let parent = &columns[0].1;
            let matches = columns
                .iter()
                .map(|(_, _, from, to)| {
                    let to = to.clone().unwrap_or_else(|| "rowid".into());
                    format!("p.\"{to}\" = c.\"{from}\"")
                })
                .collect::<Vec<_>>()
                .join(" AND ");
            let present = columns
                .iter()
                .map(|(_, _, from, _)| format!("c.\"{from}\" IS NOT NULL"))
                .collect::<Vec<_>>()
                .join(" AND ");
            deleted += conn
                .execute(
                    &format!(
                        "DELETE FROM \"{table}\" AS c WHERE {present} AND NOT EXISTS \
                         (SELECT 1 FROM \"{parent}\" p WHERE {matches})"
                    ),
                    [],
                )
                .sql()?;
        }
    }
    Ok(deleted)
}

/// What [`recover`] copied.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    pub into: PathBuf,
    /// Per table: rows copied, and ranges of rows that could not be read.
    pub tables: Vec<(String, u64, u64)>,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let memories = self
            .tables
            .iter()
            .find(|(table, _, _)| table == "memories")
            .map_or(0, |(_, copied, _)| *copied);
        let lost: u64 = self.tables.iter().map(|(_, _, lost)| lost).sum();
        write!(
            f,
            "recovered {memories} memories into {} ({} unreadable stretches left out); the \
             damaged database is untouched. `cairn restore {}` switches to the recovered one",
            self.into.display(),
            lost,
            self.into.display()
        )
    }
}

/// Copies what can be read of the database at `damaged` into a new file beside it (see the
/// module's documentation). Opens nothing for writing but the new file.
pub fn recover(damaged: &Path) -> Result<Recovery> {
    let stamp = Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let into = {
        let mut name = damaged.as_os_str().to_owned();
        name.push(format!(".recovered-{stamp}.db"));
        PathBuf::from(name)
    };
    let mut staged = into.clone().into_os_string();
    staged.push(".partial");
    let staged = PathBuf::from(staged);
    let recovered = recover_into(damaged, &staged).and_then(|tables| {
        std::fs::rename(&staged, &into)
            .map_err(|e| Error::storage(format!("{}: {e}", into.display()), e))?;
        Ok(tables)
    });
    if recovered.is_err() {
        let _ = std::fs::remove_file(&staged);
    }
    Ok(Recovery {
        into,
        tables: recovered?,
    })
}

fn recover_into(damaged: &Path, staged: &Path) -> Result<Vec<(String, u64, u64)>> {
    let source = Connection::open_with_flags(
        format!("file:{}?mode=ro&immutable=1", damaged.display()),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| {
        Error::from(SqliteError::Open {
            path: damaged.to_path_buf(),
            source: Box::new(e),
        })
    })?;
    let mut target = Connection::open(staged).sql()?;
    migrations::migrate(&mut target).map_err(Error::from)?;
    target.pragma_update(None, "foreign_keys", "OFF").sql()?;
    let tables: Vec<(String, String)> = target
        .prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
        .sql()?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()?;
    let virtual_tables: Vec<&str> = FULL_TEXT.to_vec();
    let mut report = Vec::new();
    let tx = target.transaction().sql()?;
    for (table, sql) in &tables {
        // Full-text indexes and their shadow tables are rebuilt, not copied.
        if virtual_tables
            .iter()
            .any(|v| table == v || table.starts_with(&format!("{v}_")))
        {
            continue;
        }
        let columns = common_columns(&source, &tx, table);
        if columns.is_empty() {
            continue;
        }
        tx.execute(&format!("DELETE FROM \"{table}\""), []).sql()?;
        let rowid = !sql.to_ascii_uppercase().contains("WITHOUT ROWID");
        let (copied, lost) = copy_table(&source, &tx, table, &columns, rowid);
        report.push((table.clone(), copied, lost));
    }
    for index in FULL_TEXT {
        tx.execute(
            &format!("INSERT INTO {index}({index}) VALUES ('rebuild')"),
            [],
        )
        .sql()?;
    }
    // Rows whose parent was unreadable point at nothing: drop them.
    delete_orphans(&tx)?;
    // Another store now: its vector index is its own, and its clock is past every vector.
    tx.execute(
        "INSERT OR IGNORE INTO vector_clock (singleton, store_key, last_write) \
         VALUES (1, '', (SELECT coalesce(max(written), 0) FROM memory_vectors))",
        [],
    )
    .sql()?;
    tx.execute(
        "UPDATE vector_clock SET store_key = lower(hex(randomblob(16))), \
         last_write = max(last_write, (SELECT coalesce(max(written), 0) FROM memory_vectors))",
        [],
    )
    .sql()?;
    tx.commit().sql()?;
    Ok(report)
}

/// The columns `table` has in both databases, in the target's order.
fn common_columns(source: &Connection, target: &Connection, table: &str) -> Vec<String> {
    let names = |conn: &Connection| -> Vec<String> {
        conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .and_then(|mut statement| {
                statement
                    .query_map([], |row| row.get::<_, String>(1))?
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .unwrap_or_default()
    };
    let from = names(source);
    names(target)
        .into_iter()
        .filter(|column| from.contains(column))
        .collect()
}

/// Copies every readable row of `table`; returns (rows copied, stretches left out).
///
/// A rowid table is read forward in rowid order, a batch at a time. A read that meets a damaged
/// page keeps the rows before it; then [`past_damage`] finds the first rowid a read can start
/// from again, and the rows between are one stretch left out. Each stretch costs at most about
/// 128 reads, whether the damage is a leaf, an interior page over many leaves, or the root (then
/// nothing of the table is readable and the search runs to the end of the rowid range). A
/// `WITHOUT ROWID` table is copied whole or not at all.
fn copy_table(
    source: &Connection,
    target: &Connection,
    table: &str,
    columns: &[String],
    rowid: bool,
) -> (u64, u64) {
    let list = columns
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let marks = vec!["?"; columns.len()].join(", ");
    let insert = format!("INSERT OR IGNORE INTO \"{table}\" ({list}) VALUES ({marks})");
    let mut copied = 0;
    let mut lost = 0;
    let mut put = |rows: &mut dyn Iterator<Item = Vec<Value>>| {
        for row in rows {
            if target.execute(&insert, params_from_iter(row)).is_ok() {
                copied += 1;
            }
        }
    };
    if !rowid {
        match read_rows(source, &format!("SELECT {list} FROM \"{table}\""), &[]) {
            (rows, None) => put(&mut rows.into_iter()),
            (_, Some(_)) => lost += 1,
        }
        return (copied, lost);
    }
    let select = format!(
        "SELECT rowid, {list} FROM \"{table}\" WHERE rowid >= ?1 ORDER BY rowid LIMIT {COPY_BATCH}"
    );
    let mut next = i64::MIN;
    loop {
        let (rows, error) = read_rows(source, &select, &[Value::Integer(next)]);
        let read = rows.len();
        let last = rows.last().and_then(|row| match row.first() {
            Some(Value::Integer(rowid)) => Some(*rowid),
            _ => None,
        });
        put(&mut rows.into_iter().map(|mut row| row.split_off(1)));
        if let Some(last) = last {
            match last.checked_add(1) {
                Some(after) => next = after,
                None => break,
            }
        }
        match error {
            None if read < COPY_BATCH => break,
            None => {}
            Some(_) => {
                lost += 1;
                match past_damage(source, table, next) {
                    Some(start) => next = start,
                    None => break,
                }
            }
        }
    }
    (copied, lost)
}

/// Rows one read of a table's copy asks for.
const COPY_BATCH: usize = 1_000;

/// The smallest rowid above `from` that a read of `table` can start at again, when a read from
/// `from` fails: larger and larger steps until one succeeds, then halving back to the first
/// that does. `None` when none does up to the largest rowid.
fn past_damage(source: &Connection, table: &str, from: i64) -> Option<i64> {
    let probe = format!("SELECT rowid FROM \"{table}\" WHERE rowid >= ?1 ORDER BY rowid LIMIT 1");
    let readable = |at: i64| read_rows(source, &probe, &[Value::Integer(at)]).1.is_none();
    let (mut bad, mut step) = (from, 1i64);
    let mut good = loop {
        let at = bad.saturating_add(step);
        if readable(at) {
            break at;
        }
        if at == i64::MAX {
            return None;
        }
        bad = at;
        step = step.saturating_mul(2);
    };
    while good - bad > 1 {
        let middle = bad + (good - bad) / 2;
        match readable(middle) {
            true => good = middle,
            false => bad = middle,
        }
    }
    Some(good)
}

/// The rows `sql` reads, up to the first error (and the error, if one ended the read).
fn read_rows(
    conn: &Connection,
    sql: &str,
    params: &[Value],
) -> (Vec<Vec<Value>>, Option<rusqlite::Error>) {
    let mut read = Vec::new();
    let mut statement = match conn.prepare(sql) {
        Ok(statement) => statement,
        Err(error) => return (read, Some(error)),
    };
    let columns = statement.column_count();
    let mut rows = match statement.query(params_from_iter(params.iter())) {
        Ok(rows) => rows,
        Err(error) => return (read, Some(error)),
    };
    loop {
        let row = match rows.next() {
            Ok(Some(row)) => row,
            Ok(None) => return (read, None),
            Err(error) => return (read, Some(error)),
        };
        match (0..columns).map(|n| row.get(n)).collect() {
            Ok(values) => read.push(values),
            Err(error) => return (read, Some(error)),
        }
    }
}
