//! Bulk writes: a transaction that adds many memories to a store holding fewer stops keeping the
//! indexes that only serve reads, and builds them again just before it commits.
//!
//! Every index on `memories` costs each inserted row a B-tree descent to a random place (ids,
//! times and hashes arrive in no order), where building the index afresh sorts the table once.
//! Measured on a 100,000-memory import (`cairn import`, two cores): keeping the seven read-only
//! indexes cost 30 µs per inserted row, building them afterwards 15 µs per row of the table. So
//! deferring pays once a transaction has inserted as many memories as the store held before it,
//! and [`BULK_MIN`] keeps ordinary writes — a hook, a `cairn store` — from ever changing the
//! schema. The indexes that writes look up themselves stay: the id's, and those in
//! [`KEPT_INDEXES`]. Each deferred index is rebuilt from its own definition, read from
//! `sqlite_master`, so a later migration that changes an index changes what is rebuilt.
//!
//! Schema changes are transactional: a rollback brings the indexes back as they were, and other
//! connections keep reading through them until the commit, which they see as a whole.

use rusqlite::Connection;

use crate::error::SqliteError;

/// A transaction defers indexes only after inserting this many memories.
pub const BULK_MIN: u64 = 10_000;

/// Indexes on `memories` that writes read (the duplicate and topic lookups name them with
/// `INDEXED BY`): never deferred.
const KEPT_INDEXES: [&str; 2] = ["memories_by_content", "memories_by_topic"];

/// The bulk state of one write transaction.
#[derive(Debug, Default)]
pub struct BulkWrites {
    /// Memories inserted by this transaction.
    inserted: u64,
    /// The memories the store held before the transaction, estimated once [`BULK_MIN`] is
    /// reached.
    held_before: Option<u64>,
    /// The definitions of the indexes dropped, to run again before the commit; `Some` once
    /// deferral ran (even if it found nothing to drop), so it runs at most once.
    deferred: Option<Vec<String>>,
}

impl BulkWrites {
    /// Counts one inserted memory; defers the read-only indexes when the transaction has become
    /// a bulk write.
    pub fn inserted(&mut self, conn: &Connection) -> Result<(), SqliteError> {
        self.inserted += 1;
        if self.inserted < BULK_MIN || self.deferred.is_some() {
            return Ok(());
        }
        let held_before = match self.held_before {
            Some(held) => held,
            None => {
                // Row keys only grow, so the largest is an upper bound of the rows ever held:
                // a store with deleted memories looks larger, never smaller, than it is.
                let largest: i64 =
                    conn.query_row("SELECT coalesce(max(seq), 0) FROM memories", [], |row| {
                        row.get(0)
                    })?;
                *self
                    .held_before
                    .insert((largest as u64).saturating_sub(self.inserted))
            }
        };
        if self.inserted >= held_before {
            self.defer(conn)?;
        }
        Ok(())
    }

    fn defer(&mut self, conn: &Connection) -> Result<(), SqliteError> {
        let indexes: Vec<(String, String)> = conn
            .prepare(
                "SELECT name, sql FROM sqlite_schema \
                 WHERE type = 'index' AND tbl_name = 'memories' AND sql IS NOT NULL \
                 ORDER BY name",
            )?
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut deferred = Vec::new();
        for (name, sql) in indexes {
            if KEPT_INDEXES.contains(&name.as_str()) {
                continue;
            }
            conn.execute_batch(&format!("DROP INDEX \"{name}\""))?;
            deferred.push(sql);
        }
        let deferred = self.deferred.insert(deferred);
        tracing::debug!(
            inserted = self.inserted,
            indexes = deferred.len(),
            "bulk write: read-only indexes deferred to the commit"
        );
        Ok(())
    }

    /// Builds the deferred indexes again; called just before the commit.
    pub fn finish(&mut self, conn: &Connection) -> Result<(), SqliteError> {
        for sql in self.deferred.take().unwrap_or_default() {
            conn.execute_batch(&sql)?;
        }
        Ok(())
    }

    /// Whether this transaction dropped indexes that [`BulkWrites::finish`] must build.
    #[cfg(test)]
    pub fn deferring(&self) -> bool {
        self.deferred.as_ref().is_some_and(|d| !d.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, Transaction, TransactionBehavior};

    use super::*;

    fn migrated() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrations::migrate(&mut conn).unwrap();
        conn
    }

    fn schema(conn: &Connection) -> Vec<(String, String)> {
        conn.prepare("SELECT name, coalesce(sql, '') FROM sqlite_schema ORDER BY name")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn memory_indexes(conn: &Connection) -> Vec<String> {
        conn.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'memories' \
             ORDER BY name",
        )
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    /// Inserts `count` bare memory rows, counting each as `bulk` would.
    fn insert(tx: &Transaction<'_>, bulk: &mut BulkWrites, count: u64) {
        let mut statement = tx
            .prepare(
                "INSERT INTO memories (id, content, category, project, content_hash, source, \
                 importance, created_at, updated_at) \
                 VALUES (lower(hex(randomblob(16))), 'text', 'fact', '', 0, 'user', 3, ?1, ?1)",
            )
            .unwrap();
        for n in 0..count {
            statement.execute([n as i64]).unwrap();
            bulk.inserted(tx).unwrap();
        }
    }

    #[test]
    fn a_bulk_write_into_a_smaller_store_defers_the_read_indexes_and_builds_them_again() {
        let mut conn = migrated();
        let before = schema(&conn);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        let mut bulk = BulkWrites::default();
        insert(&tx, &mut bulk, BULK_MIN - 1);
        assert!(!bulk.deferring(), "below BULK_MIN nothing is deferred");
        insert(&tx, &mut bulk, 1);
        assert!(bulk.deferring());
        assert_eq!(
            memory_indexes(&tx),
            [
                "memories_by_content",
                "memories_by_topic",
                "sqlite_autoindex_memories_1"
            ],
            "only the indexes writes read stay while deferring"
        );
        insert(&tx, &mut bulk, 100);
        bulk.finish(&tx).unwrap();
        tx.commit().unwrap();
        assert_eq!(schema(&conn), before, "every index is back, as defined");
        let rows: i64 = conn
            .query_row(
                "SELECT count(*) FROM memories INDEXED BY memories_by_created WHERE created_at >= 0",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(
            rows,
            BULK_MIN as i64 + 100,
            "the rebuilt index holds every row"
        );
        let verdict: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(verdict, "ok");
    }

    #[test]
    fn a_store_larger_than_the_write_keeps_its_indexes() {
        let mut conn = migrated();
        let tx = conn.transaction().unwrap();
        let mut filling = BulkWrites::default();
        insert(&tx, &mut filling, BULK_MIN + 500);
        filling.finish(&tx).unwrap();
        tx.commit().unwrap();
        let tx = conn.transaction().unwrap();
        let mut bulk = BulkWrites::default();
        insert(&tx, &mut bulk, BULK_MIN);
        assert!(
            !bulk.deferring(),
            "{BULK_MIN} inserted into a store of more"
        );
        insert(&tx, &mut bulk, 499);
        assert!(!bulk.deferring());
        insert(&tx, &mut bulk, 1);
        assert!(
            bulk.deferring(),
            "as many inserted as held before: now it pays"
        );
    }

    #[test]
    fn a_rolled_back_bulk_write_leaves_the_schema_as_it_was() {
        let mut conn = migrated();
        let before = schema(&conn);
        let tx = conn.transaction().unwrap();
        let mut bulk = BulkWrites::default();
        insert(&tx, &mut bulk, BULK_MIN);
        assert!(bulk.deferring());
        drop(tx);
        assert_eq!(schema(&conn), before);
    }
}
