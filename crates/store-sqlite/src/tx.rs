//! The write side: an open SQLite transaction that already holds the write lock. It is the
//! backend's [`StoreTx`](cairn_core::store::StoreTx): each domain's file implements its
//! transaction trait for it (`memory`, `vectors`, `session`, `slot`).

use cairn_core::query::WordSink;
use cairn_core::{MemoryId, Result};
use rusqlite::Transaction;

use crate::{bulk, rows};

pub struct SqliteTx<'c, 'k> {
    pub(crate) tx: Transaction<'c>,
    pub(crate) words: WordSink<'k>,
    pub(crate) bulk: bulk::BulkWrites,
}

impl SqliteTx<'_, '_> {
    pub(crate) fn seq(&self, id: &MemoryId) -> Result<i64> {
        rows::seq_of(&self.tx, id)?
            .ok_or_else(|| cairn_core::Error::NotFound { id: id.to_string() })
    }
}
