//! The planner's statistics after a bulk write.
//!
//! PostgreSQL plans every search from what `ANALYZE` last sampled of each table. Autovacuum
//! samples a table again once a tenth of it has changed, but only on its next round (a minute
//! apart by default), and a store filled by one import has never been sampled at all: until
//! then its searches are planned blind, and a keyword search right after a 100,000-memory
//! import was several times slower than the same search a minute later. So a write transaction
//! that inserted many memories samples the tables it grew as soon as it has committed, by
//! autovacuum's own rule (a tenth of what the planner last counted), before the caller moves on
//! to searching. Ordinary writes never reach [`ANALYZE_MIN_INSERTS`].
//!
//! The write has committed by then: a sampling that fails is logged, never reported as a failed
//! write, and autovacuum will sample on its own later.

use crate::error::SqlResult;
use crate::sql::{CachedClient, Sql};
use cairn_core::Result;

/// A transaction samples the tables only after inserting this many memories.
pub const ANALYZE_MIN_INSERTS: u64 = 1_000;

/// The tables that grow with each memory inserted, and that searches read.
const GROWN_TABLES: &str = "memories, memory_tags, tags, memory_revisions, vocabulary, \
                            embedding_queue";

/// What one write transaction added, counted as it runs.
#[derive(Debug, Default)]
pub struct Growth {
    memories: u64,
}

impl Growth {
    pub fn memory_inserted(&mut self) {
        self.memories += 1;
    }

    /// After the commit: samples the grown tables when the planner's count of memories is
    /// stale by autovacuum's rule.
    pub fn refresh_statistics(&self, client: &mut CachedClient) {
        if self.memories < ANALYZE_MIN_INSERTS {
            return;
        }
        if let Err(error) = self.analyse_when_stale(client) {
            tracing::warn!(%error, "could not refresh the planner's statistics after a bulk write");
        }
    }

    fn analyse_when_stale(&self, client: &mut CachedClient) -> Result<()> {
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
            "sampling the tables a bulk write grew"
        );
        client
            .batch_execute(&format!("ANALYZE {GROWN_TABLES}"))
            .sql()
    }
}
