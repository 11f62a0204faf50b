//! [`StoreTx`] over an open SQLite transaction that already holds the write lock.

use cairn_core::embedding::ModelIdentity;
use cairn_core::session::{Observation, Session, SessionKey};
use cairn_core::slot::{Slot, SlotLabel};
use cairn_core::store::StoreTx;
use cairn_core::{Memory, MemoryId, Result, Revision, Scope, TopicKey};
use jiff::Timestamp;
use rusqlite::Transaction;

use crate::error::SqlResult;
use crate::read;
use crate::rows::{self, MEMORY_COLUMNS, millis, project_column};
use crate::sessions;
use crate::slots;
use crate::vectors;

pub struct SqliteTx<'c, 'k> {
    pub(crate) tx: Transaction<'c>,
    pub(crate) words: rows::WordSink<'k>,
}

impl SqliteTx<'_, '_> {
    fn seq(&self, id: &MemoryId) -> Result<i64> {
        rows::seq_of(&self.tx, id)?
            .ok_or_else(|| cairn_core::Error::NotFound { id: id.to_string() })
    }
}

impl StoreTx for SqliteTx<'_, '_> {
    fn get(&mut self, id: &MemoryId) -> Result<Option<Memory>> {
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ?1");
        Ok(read::query_memories(&self.tx, &sql, [id.to_string()])?.pop())
    }

    fn find_by_topic(
        &mut self,
        scope: &Scope,
        topic: &TopicKey,
        now: Timestamp,
    ) -> Result<Option<Memory>> {
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.project = ?1 AND m.topic_key = ?2 \
             AND m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?3) \
             ORDER BY m.updated_at DESC LIMIT 1"
        );
        let params = rusqlite::params![project_column(scope), topic.as_str(), millis(now)];
        Ok(read::query_memories(&self.tx, &sql, params)?.pop())
    }

    fn find_by_content_hash(
        &mut self,
        scope: &Scope,
        hash: i64,
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.project = ?1 AND m.content_hash = ?2 \
             AND m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?3) \
             ORDER BY m.created_at"
        );
        read::query_memories(
            &self.tx,
            &sql,
            rusqlite::params![project_column(scope), hash, millis(now)],
        )
    }

    fn insert(&mut self, memory: &Memory) -> Result<()> {
        rows::insert_memory(&self.tx, memory, &mut self.words)?;
        Ok(())
    }

    fn replace(&mut self, memory: &Memory) -> Result<()> {
        if rows::update_memory(&self.tx, memory, &mut self.words)? {
            Ok(())
        } else {
            Err(cairn_core::Error::NotFound {
                id: memory.id.to_string(),
            })
        }
    }

    fn revisions(&mut self, id: &MemoryId) -> Result<Vec<Revision>> {
        let seq = self.seq(id)?;
        Ok(rows::revisions_of(&self.tx, seq)?)
    }

    fn add_revision(&mut self, id: &MemoryId, revision: &Revision) -> Result<()> {
        let seq = self.seq(id)?;
        Ok(rows::insert_revision(&self.tx, seq, revision)?)
    }

    fn expired(&mut self, before: Timestamp) -> Result<Vec<Memory>> {
        crate::read::expired(&self.tx, before)
    }

    fn purge(&mut self, ids: &[MemoryId]) -> Result<()> {
        for id in ids {
            let Some(indexed) = rows::indexed_text(&self.tx, id)? else {
                continue;
            };
            let seq = indexed.seq;
            let tag_ids: Vec<i64> = self
                .tx
                .prepare_cached("SELECT tag_id FROM memory_tags WHERE memory_seq = ?1")
                .sql()?
                .query_map([seq], |row| row.get(0))
                .sql()?
                .collect::<Result<_, _>>()
                .sql()?;
            // Links and revisions go by ON DELETE CASCADE; the index entry explicitly.
            rows::unindex_text(&self.tx, &indexed)?;
            self.tx
                .prepare_cached("DELETE FROM memories WHERE seq = ?1")
                .sql()?
                .execute([seq])
                .sql()?;
            rows::drop_unused_tags(&self.tx, &tag_ids)?;
        }
        Ok(())
    }

    fn set_embedding_model(&mut self, model: &ModelIdentity) -> Result<bool> {
        vectors::set_model(&self.tx, model)
    }

    fn clear_embeddings(&mut self) -> Result<()> {
        vectors::clear(&self.tx)
    }

    fn put_embeddings(&mut self, vectors: &[(MemoryId, Timestamp, Vec<f32>)]) -> Result<usize> {
        vectors::put(&self.tx, vectors)
    }

    fn session(&mut self, key: &SessionKey) -> Result<Option<Session>> {
        sessions::session(&self.tx, key)
    }

    fn put_session(&mut self, session: &Session) -> Result<()> {
        sessions::put_session(&self.tx, session)
    }

    fn add_observation(&mut self, key: &SessionKey, observation: &Observation) -> Result<bool> {
        sessions::add_observation(&self.tx, key, observation)
    }

    fn observations(&mut self, key: &SessionKey) -> Result<Vec<Observation>> {
        sessions::observations(&self.tx, key, Timestamp::MIN)
    }

    fn prune_observations(&mut self, before: Timestamp) -> Result<u64> {
        sessions::prune_observations(&self.tx, before)
    }

    fn slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>> {
        slots::slot(&self.tx, scope, label)
    }

    fn put_slot(&mut self, slot: &Slot) -> Result<()> {
        slots::put_slot(&self.tx, slot)
    }

    fn delete_slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<bool> {
        slots::delete_slot(&self.tx, scope, label)
    }

    fn seeded_slots(&mut self, scope: &Scope) -> Result<Vec<SlotLabel>> {
        slots::seeded_slots(&self.tx, scope)
    }

    fn mark_slot_seeded(&mut self, scope: &Scope, label: &SlotLabel) -> Result<()> {
        slots::mark_slot_seeded(&self.tx, scope, label)
    }
}
