//! cairn-store-sqlite: the embedded default store, one SQLite file.
//!
//! The file lives at an absolute path chosen by the caller (see `cairn_core::config`). It runs in
//! WAL mode so readers never block the writer, with a busy timeout so that many processes — hooks,
//! the CLI, a server — can write at once without "database is locked" reaching the user: a write
//! transaction starts `IMMEDIATE` (taking the write lock up front, waiting for it if needed), so
//! the service's check-then-write logic runs once, atomically. The schema is created and upgraded
//! by versioned migrations. Full-text search is an FTS5 table over the memories table, whose rows
//! the store writes in the same transaction as every change to a memory.
//!
//! Map: `rows` (row ↔ domain types, tag tables, full-text rows), `filter` (filters → SQL), `tx`
//! (the write side), `bulk` (indexes deferred while one transaction inserts many memories),
//! `read` (the read side), `vectors` (stored vectors, the queue, the exact scan), `ann` (the
//! HNSW index file beside the database), `sessions` (agent sessions and their observations),
//! `deferred` (relations an import keeps until their memories come), [`migrations`].

mod access;
mod ann;
mod audit;
mod bulk;
mod columns;
mod deferred;
mod error;
mod exchange;
mod files;
mod filter;
mod health;
mod image;
pub mod index_file;
mod memory;
pub mod migrations;
mod opening;
mod read;
mod relation;
mod rows;
mod session;
mod slot;
mod tx;
mod vector_rows;
mod vectors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use cairn_core::Result;
use cairn_core::embedding::VectorSpace;

use cairn_core::query::{WordSet, WordSink};
use cairn_core::store::{Store, StoreTx};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use ann::AnnSettings;
pub use error::SqliteError;
pub use health::{Recovery, recover};
pub use usearch::ScalarKind;

/// How long one statement waits for another process's write lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Page cache per connection, in KiB: big enough that bulk writes to the id and full-text
/// indexes of a 100K-memory store stay in memory; SQLite only allocates what it uses.
const CACHE_KIB: i64 = 64 * 1024;
/// How many times a write retries taking the lock after a busy timeout.
const WRITE_ATTEMPTS: u32 = 3;
/// A write-ahead log up to this long is left for others to fold in by processes that skip the
/// checkpoint on close ([`SqliteStore::without_checkpoint_on_close`]): about 16 hook events,
/// and under a millisecond for the next process to read in full.
pub const SHORT_LOG_BYTES: u64 = 1 << 20;

/// The embedded SQLite store.
pub struct SqliteStore {
    /// The one connection that writes (and reads, when there are no readers).
    conn: Mutex<Connection>,
    /// Extra read-only connections for long-lived processes, so searches run in parallel with
    /// each other and with writes (WAL lets readers and one writer overlap). Empty for a CLI
    /// command or an in-memory store.
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    /// Vocabulary words this process knows are stored (see core's `query::WordSink`).
    known_words: Mutex<WordSet>,
    path: Option<PathBuf>,
    /// One HNSW index per vector space, in [`VectorSpace::ALL`] order.
    ann: Vec<ann::AnnIndex>,
    /// How many times a write tries to take the lock, each waiting the busy timeout.
    write_attempts: u32,
    /// Why the database cannot be written, when it cannot (opened for reading only).
    read_only: Option<String>,
    /// The schema upgrade this process made when it opened the store.
    upgrade: Option<migrations::Upgrade>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date,
    /// keeping a copy of an older database first (see [`migrations`]). An empty file, a file
    /// that is not a SQLite database or a directory is refused, naming the path (see
    /// the `opening` module); a database that cannot be written is opened for reading.
    pub fn open(path: &Path) -> Result<Self, SqliteError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| SqliteError::Open {
                path: parent.to_path_buf(),
                source: Box::new(e),
            })?;
        }
        let opened = opening::open(path)?;
        let named = |error: SqliteError| match error {
            SqliteError::Sql(e) if error::is_corrupt(&e) => SqliteError::NotADatabase {
                path: path.to_path_buf(),
                why: format!("SQLite cannot read it ({e})"),
            },
            SqliteError::Sql(e) => SqliteError::Open {
                path: path.to_path_buf(),
                source: Box::new(e),
            },
            SqliteError::Migration {
                step,
                name,
                backup,
                source,
                ..
            } => SqliteError::Migration {
                path: path.to_path_buf(),
                step,
                name,
                backup,
                source,
            },
            other => other,
        };
        Self::prepare(opened.conn, Some(path.to_path_buf()), opened.read_only).map_err(named)
    }

    /// A private in-memory store (tests, benchmarks).
    pub fn open_in_memory() -> Result<Self, SqliteError> {
        Self::prepare(Connection::open_in_memory()?, None, None)
    }

    fn prepare(
        mut conn: Connection,
        path: Option<PathBuf>,
        read_only: Option<String>,
    ) -> Result<Self, SqliteError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
        let upgrade = match (&path, &read_only) {
            (Some(path), None) => {
                enable_wal(&conn)?;
                migrations::migrate_file(&mut conn, path)?
            }
            (Some(path), Some(why)) => {
                let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                if version != migrations::SCHEMA_VERSION {
                    return Err(SqliteError::ReadOnly {
                        path: path.clone(),
                        why: format!(
                            "{why}, and it needs an upgrade from schema {version} to {} first",
                            migrations::SCHEMA_VERSION
                        ),
                    });
                }
                None
            }
            (None, _) => {
                migrations::migrate(&mut conn)?;
                None
            }
        };
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            readers: Vec::new(),
            next_reader: AtomicUsize::new(0),
            known_words: Mutex::new(WordSet::default()),
            ann: ann_indexes(path.as_deref(), &AnnSettings::default()),
            path,
            write_attempts: WRITE_ATTEMPTS,
            read_only,
            upgrade,
        })
    }

    /// The schema upgrade opening this store made, if it made one (to say so once).
    pub fn upgrade(&self) -> Option<&migrations::Upgrade> {
        self.upgrade.as_ref()
    }

    /// Why the database cannot be written, when it was opened for reading only.
    pub fn read_only(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// Verifies the database file and that the full-text index matches the memories exactly.
    /// An error describes the first problem found.
    pub fn check_integrity(&self) -> Result<(), SqliteError> {
        let conn = self.conn();
        let verdict: String = conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))?;
        if verdict != "ok" {
            return Err(SqliteError::CorruptRow(verdict));
        }
        conn.execute(
            "INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )?;
        Ok(())
    }

    /// The same store with other HNSW index settings (benchmarks measure the crossover and the
    /// index's precision with this).
    pub fn with_ann_settings(mut self, settings: AnnSettings) -> Self {
        self.ann = ann_indexes(self.path.as_deref(), &settings);
        self
    }

    /// The HNSW index of `space`.
    fn ann(&self, space: VectorSpace) -> &ann::AnnIndex {
        let at = VectorSpace::ALL
            .iter()
            .position(|s| *s == space)
            .expect("every space is in VectorSpace::ALL");
        &self.ann[at]
    }

    /// The same store with `count` more connections that only read, for a process that serves
    /// many requests at once (`cairn serve`, `cairn mcp`). Reads then use a free reader, so one
    /// slow search no longer queues the others behind it. An in-memory store keeps its single
    /// connection (another connection would see another database).
    pub fn with_read_connections(mut self, count: usize) -> Result<Self, SqliteError> {
        let Some(path) = self.path.clone() else {
            return Ok(self);
        };
        for _ in 0..count {
            let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn =
                Connection::open_with_flags(&path, flags).map_err(|e| SqliteError::Open {
                    path: path.clone(),
                    source: Box::new(e),
                })?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
            // A reader that tried to write would be a bug; make it fail loudly.
            conn.pragma_update(None, "query_only", "ON")?;
            self.readers.push(Mutex::new(conn));
        }
        Ok(self)
    }

    /// A connection to read with: a free reader if there is one, else the least recently
    /// handed out, else (without readers) the writer.
    fn reader(&self) -> MutexGuard<'_, Connection> {
        if self.readers.is_empty() {
            return self.conn();
        }
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        let count = self.readers.len();
        for offset in 0..count {
            if let Ok(guard) = self.readers[(start + offset) % count].try_lock() {
                return guard;
            }
        }
        self.readers[start % count]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The same store waiting at most `timeout`, once, for another process's write lock
    /// instead of up to three times ten seconds: for callers that must never stall, such as
    /// agent hooks, which spool an event rather than wait.
    pub fn with_lock_wait(mut self, timeout: Duration) -> Result<Self, SqliteError> {
        self.conn().busy_timeout(timeout)?;
        self.write_attempts = 1;
        Ok(self)
    }

    /// The same store leaving a short write-ahead log for others to fold into the database
    /// file: closing it does not checkpoint (SQLite otherwise does when the last connection
    /// closes, which rewrites the log's pages into the file, fsyncs both and deletes the log).
    /// For a process that writes one event and exits, an agent hook, that checkpoint costs
    /// more than the event. Once the log is longer than [`SHORT_LOG_BYTES`], the process that
    /// finds it so checkpoints as usual: a process that opens the store alone reads the whole
    /// log (SQLite rebuilds its index), and without a connection that stays open SQLite's
    /// automatic checkpoint cannot restart the log, so it would grow, and every hook slow
    /// down, with each event. Nothing is less durable: a committed transaction is in the log
    /// either way.
    pub fn without_checkpoint_on_close(self) -> Result<Self, SqliteError> {
        let log = self.path.as_ref().map(|path| {
            let mut log = path.clone().into_os_string();
            log.push("-wal");
            std::fs::metadata(log).map_or(0, |m| m.len())
        });
        if log.is_some_and(|bytes| bytes <= SHORT_LOG_BYTES) {
            self.conn()
                .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        }
        Ok(self)
    }

    /// The database file, or `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Forgets which vocabulary words this process knows are stored (after a restore replaced
    /// them).
    fn forget_known_words(&self) {
        self.known_words
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (the transaction
        // rolls back on drop), so a poisoned lock is safe to keep using.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// An index for every vector space, beside the database at `path` (in memory without one).
fn ann_indexes(path: Option<&Path>, settings: &AnnSettings) -> Vec<ann::AnnIndex> {
    VectorSpace::ALL
        .iter()
        .map(|space| ann::AnnIndex::new(path, *space, settings.clone()))
        .collect()
}

/// WAL is a property of the file: set it once; later opens just see it.
fn enable_wal(conn: &Connection) -> Result<(), SqliteError> {
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
    if mode.eq_ignore_ascii_case("wal") {
        return Ok(());
    }
    let mut attempt = 0;
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        }) {
            Ok(_) => return Ok(()),
            Err(e) if error::is_busy(&e) && attempt < WRITE_ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(20 * u64::from(attempt)));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

impl Store for SqliteStore {
    fn write(&self, work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>) -> Result<()> {
        if let (Some(why), Some(path)) = (&self.read_only, &self.path) {
            return Err(SqliteError::ReadOnly {
                path: path.clone(),
                why: why.clone(),
            }
            .into());
        }
        self.write_once(work).map_err(|error| self.explain(error))
    }

    fn location(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| ":memory:".to_string(), |p| p.display().to_string())
    }
}

impl SqliteStore {
    /// A failed write as the user should read it: a full disk says so, with the path.
    fn explain(&self, error: cairn_core::Error) -> cairn_core::Error {
        let Some(path) = &self.path else {
            return error;
        };
        let cause = std::error::Error::source(&error)
            .and_then(|source| source.downcast_ref::<SqliteError>());
        let full = match cause {
            Some(SqliteError::Sql(e)) => {
                e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
                    || (error::may_be_disk_full(e) && opening::disk_full(path))
            }
            _ => false,
        };
        match full {
            true => cairn_core::Error::DiskFull {
                path: path.display().to_string(),
                message: format!(
                    "the disk holding {} has no room left; the write did not happen and every \
                     memory stored before is kept. Free some space, then try again",
                    path.display()
                ),
            },
            false => error,
        }
    }

    fn write_once(&self, work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>) -> Result<()> {
        let mut conn = self.conn();
        let mut attempt = 1;
        let tx = loop {
            match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
                Ok(tx) => break tx,
                Err(e) if error::is_busy(&e) && attempt < self.write_attempts => {
                    tracing::debug!(attempt, "store busy; retrying the write lock");
                    attempt += 1;
                }
                Err(e) => return Err(SqliteError::from(e).into()),
            }
        };
        let mut known = self
            .known_words
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut store_tx = tx::SqliteTx {
            tx,
            words: WordSink::new(&known),
            bulk: bulk::BulkWrites::default(),
        };
        work(&mut store_tx)?;
        let tx::SqliteTx {
            tx,
            words,
            mut bulk,
        } = store_tx;
        rows::flush_words(&tx, &words)?;
        bulk.finish(&tx)?;
        let added = words.added;
        tx.commit().map_err(SqliteError::from)?;
        // Only now, committed, are the new words really stored.
        known.extend(added);
        Ok(())
    }
}
