//! cairn-store-postgres: the team backend, PostgreSQL with pgvector and pg_trgm.
//!
//! One database serves many cairn processes on many machines at once. Each process keeps a small
//! pool of connections (`pool`); reads take any free one. A write runs in one transaction that
//! first takes the store's write lock (a transaction-level advisory lock, one per schema), so
//! the service's check-then-write logic (dedupe, topic upsert, a slot's limit) is atomic across
//! every server, exactly as SQLite's single writer makes it on one machine; waiting longer than
//! [`LOCK_WAIT`] is [`cairn_core::Error::Busy`]. The schema is created and upgraded by versioned
//! migrations ([`migrations`]).
//!
//! The tables mirror the SQLite store's, with the same values (times in milliseconds, the same
//! JSON): full text is a `tsvector` column per memory and observation, written by `text` from
//! the words as SQLite's tokenizer splits them and ranked BM25-like; typo-tolerant search finds
//! candidates in a trigram (pg_trgm) index of the vocabulary; text vectors are pgvector
//! `vector`s, found through a pgvector HNSW index once a space holds [`INDEX_MIN_VECTORS`] and
//! scored by cairn (see `vectors`); image hashes and vectors are scanned like SQLite's.
//!
//! Connections are encrypted as the URL's `sslmode` says, read as libpq reads it, through
//! rustls (`tls`); `prefer`, the default, encrypts when the server offers it.
//!
//! The client is `postgres`, tokio-postgres's own blocking front: the storage traits are
//! synchronous (the service runs them on blocking threads), so an async pool would only be
//! bridged back.
//!
//! Map: `pool` (connections), `tls` (`sslmode`), `sql` (statements prepared once per
//! connection), `params` (statements and their `$n`), `written` (the columns a write sets,
//! bound as arrays: any number of rows per statement), `filter` (filters → SQL),
//! `text` (full-text documents and queries, the vocabulary), `tx` (the write side),
//! `bulk` (what a bulk write settles after its commit), `memory`,
//! `vectors`, `session`, `slot`, `relation` (with `deferred`), `files`, `image`, `exchange`
//! (one domain each).

mod access;
mod audit;
mod bulk;
mod columns;
mod deferred;
mod embedding_queue;
mod error;
mod exchange;
mod files;
mod filter;
mod health;
mod image;
mod memory;
pub mod migrations;
mod params;
mod pool;
mod relation;
mod rows;
mod session;
mod slot;
mod sql;
#[cfg(feature = "testing")]
pub mod testing;
mod text;
mod tls;
mod tx;
mod vectors;
mod written;

use std::sync::Mutex;
use std::time::Duration;

use cairn_core::Result;
use cairn_core::query::{WordSet, WordSink};
use cairn_core::store::{Store, StoreTx};

pub use bulk::BULK_MIN_INSERTS;
pub use error::PostgresError;
pub use pool::url_in_schema;
pub use vectors::{INDEX_EF_SEARCH, INDEX_MIN_VECTORS};

use crate::bulk::Growth;
use crate::error::SqlResult;
use crate::pool::Pool;
use crate::sql::{CachedClient, Sql};

/// How long a write waits for another writer's lock before it is [`cairn_core::Error::Busy`].
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The PostgreSQL store.
pub struct PostgresStore {
    pool: Pool,
    /// Vocabulary words this process knows are stored (see core's `query::WordSink`).
    known_words: Mutex<WordSet>,
    /// Spaces with fewer vectors get no HNSW index ([`INDEX_MIN_VECTORS`] unless set).
    index_min_vectors: u64,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database`)
    /// and brings its schema up to date, in the schema the connection's search path names
    /// (`public` unless the URL sets `options=-c search_path=…`).
    pub fn open(url: &str) -> Result<Self, PostgresError> {
        Self::open_with(pool::Server::from_url(url)?)
    }

    /// The same, in `schema` (created when missing): several stores in one database, each in a
    /// schema of its own (tests, separate teams).
    pub fn open_in_schema(url: &str, schema: &str) -> Result<Self, PostgresError> {
        let mut server = pool::Server::from_url(url)?;
        let mut client = server.connect()?;
        client.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {}",
            pool::quote_identifier(schema)
        ))?;
        server.config.options(&format!(
            "-c search_path={},public",
            pool::quote_identifier(schema)
        ));
        Self::open_with(server)
    }

    fn open_with(server: pool::Server) -> Result<Self, PostgresError> {
        let pool = Pool::new(server, session_settings(vectors::INDEX_EF_SEARCH));
        migrations::migrate(pool.get()?.raw())?;
        Ok(PostgresStore {
            pool,
            known_words: Mutex::new(WordSet::default()),
            index_min_vectors: INDEX_MIN_VECTORS,
        })
    }

    /// The same store, indexing a vector space from `count` vectors on (tests and benchmarks
    /// build the index at small sizes with this).
    pub fn with_index_min_vectors(mut self, count: u64) -> Self {
        self.index_min_vectors = count;
        self
    }

    /// The same store, searching the HNSW index with a candidate list of `breadth`
    /// (`hnsw.ef_search`, at most 1,000; [`INDEX_EF_SEARCH`] unless set): benchmarks weigh
    /// recall against speed with this.
    pub fn with_index_search_breadth(mut self, breadth: usize) -> Self {
        self.pool = self
            .pool
            .with_session(session_settings(breadth.clamp(1, 1_000)));
        self
    }

    /// Bytes on disk of every table and index in the store's schema.
    pub fn size_bytes(&self) -> Result<u64> {
        size_bytes(&mut *self.reader()?)
    }

    /// A pooled connection to read with.
    fn reader(&self) -> Result<pool::Connection<'_>> {
        self.pool.get().sql()
    }

    /// [`Store::write`]'s transaction on `client`, committed; what it added.
    fn write_on(
        &self,
        client: &mut CachedClient,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>,
    ) -> Result<Growth> {
        let mut tx = client.transaction().sql()?;
        tx.batch_execute(&format!(
            "{}; SET LOCAL lock_timeout = {}; \
             SELECT pg_advisory_xact_lock({}, hashtext(current_schema()))",
            sql::WRITE_PLANNING,
            LOCK_WAIT.as_millis(),
            migrations::LOCK_CLASS
        ))
        .sql()?;
        let mut known = self
            .known_words
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut store_tx = tx::PostgresTx {
            tx,
            words: WordSink::new(&known),
            growth: Growth::default(),
        };
        work(&mut store_tx)?;
        let tx::PostgresTx {
            mut tx,
            words,
            growth,
        } = store_tx;
        text::flush_words(&mut tx, &words)?;
        let added = words.added;
        tx.commit().sql()?;
        // Only now, committed, are the new words really stored.
        known.extend(added);
        Ok(growth)
    }
}

/// What every connection sets when it is made: how statements are planned (`sql`), how alike a
/// near-spelling must be (`text`) and how the vector index is searched with a candidate list of
/// `breadth` (`vectors`).
fn session_settings(breadth: usize) -> String {
    format!(
        "{}; {}; {}",
        sql::READ_PLANNING,
        text::SIMILARITY_SETTING,
        vectors::index_settings(breadth)
    )
}

/// Bytes on disk of the tables (with their indexes and TOAST) of the current schema.
pub(crate) fn size_bytes(client: &mut impl Sql) -> Result<u64> {
    let bytes: i64 = client
        .query_one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'",
            &[],
        )
        .sql()?
        .get(0);
    Ok(bytes.max(0) as u64)
}

impl Store for PostgresStore {
    fn write(&self, work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<()>) -> Result<()> {
        let mut client = self.pool.get().sql()?;
        let growth = self.write_on(&mut client, work)?;
        growth.settle(&mut client);
        Ok(())
    }

    fn location(&self) -> String {
        self.pool.location()
    }
}
