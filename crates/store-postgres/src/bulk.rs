//! After a bulk write: what the searches that follow need settled at once.
//!
//! PostgreSQL plans every search from what `ANALYZE` last sampled of each table. Autovacuum
//! samples a table again once a tenth of it has changed, but only on its next round (a minute
//! apart by default), and a store filled by one import has never been sampled at all: until
//! then its searches are planned blind. And the GIN indexes (the text index, the vocabulary's
//! trigrams) take new entries into a pending list, up to 4 MB, that every search reads through
//! whole until a vacuum moves it into the index: 3 ms per word looked up instead of 0.03 after
//! a 100,000-memory import. So a write transaction that inserted many memories, by
//! autovacuum's own rule (at least [`BULK_MIN_INSERTS`], and a tenth of what the planner last
//! counted), samples the tables it grew and empties both pending lists as soon as it has
//! committed, before the caller moves on to searching. Ordinary writes never reach the
//! threshold.
//!
//! The write has committed by then: a step that fails is logged, never reported as a failed
//! write, and autovacuum will do the same on its own later.

use crate::error::SqlResult;
use crate::sql::{CachedClient, Sql};
use cairn_core::Result;

/// A transaction settles the tables only after inserting this many memories.
pub const BULK_MIN_INSERTS: u64 = 1_000;

/// The tables that grow with each memory inserted, and that searches read.
const GROWN_TABLES: &str = "memories, memory_tags, tags, memory_revisions, vocabulary, \
                            embedding_queue";

/// What one write transaction added, counted as it runs.
#[derive(Debug, Default)]
pub struct Growth {
    memories: u64,
}

impl Growth {
    pub fn memories_inserted(&mut self, count: u64) {
        self.memories += count;
    }

    /// After the commit: samples the grown tables and empties the GIN indexes' pending lists,
    /// when the planner's count of memories is stale by autovacuum's rule.
    pub fn settle(&self, client: &mut CachedClient) {
        if self.memories < BULK_MIN_INSERTS {
            return;
        }
        if let Err(error) = self.settle_when_stale(client) {
            tracing::warn!(%error, "could not settle the tables after a bulk write");
        }
    }

    fn settle_when_stale(&self, client: &mut CachedClient) -> Result<()> {
        // -1 (0 before PostgreSQL 14) when the table was never sampled.
        let counted: f32 = client
            .query_one(
                "SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass",
                &[],
            )
            .sql()?
            .get(0);
        if counted > 0.0 && (self.memories as f64) < f64::from(counted) / 10.0 {
            return Ok(());
        }
        tracing::debug!(
            inserted = self.memories,
            counted,
            "settling the tables a bulk write grew"
        );
        client
            .batch_execute(&format!(
                "ANALYZE {GROWN_TABLES}; \
                 SELECT gin_clean_pending_list('memories_fts'::regclass); \
                 SELECT gin_clean_pending_list('vocabulary_trigrams'::regclass)"
            ))
            .sql()
    }
}
