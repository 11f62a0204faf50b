//! The write side: an open PostgreSQL transaction that already holds the store's write lock. It
//! is the backend's [`StoreTx`](cairn_core::store::StoreTx): each domain's file implements its
//! transaction trait for it.

use crate::bulk::Growth;
use crate::sql::CachedTx;
use cairn_core::{MemoryId, Result};

use cairn_core::query::WordSink;

pub struct PostgresTx<'c, 'k> {
    pub(crate) tx: CachedTx<'c>,
    pub(crate) words: WordSink<'k>,
    /// What the transaction added, for what it settles after its commit (`bulk`).
    pub(crate) growth: Growth,
}

impl PostgresTx<'_, '_> {
    /// The internal row key of memory `id`; an error naming it when there is none.
    pub(crate) fn seq(&mut self, id: &MemoryId) -> Result<i64> {
        crate::rows::seq_of(&mut self.tx, id)?
            .ok_or_else(|| cairn_core::Error::NotFound { id: id.to_string() })
    }
}
