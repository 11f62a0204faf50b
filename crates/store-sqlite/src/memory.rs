//! The memory domain's storage: [`MemoryStore`] over the read side (`read`) and [`MemoryTx`]
//! over an open write transaction (`tx`), with the full-text rows kept by `rows`.

use cairn_core::memory::{
    ListQuery, MemoryFilter, MemoryStore, MemoryTx, PruneRule, SignalHit, StoreStats, TagCount,
    Visibility,
};
use cairn_core::query::Match;
use cairn_core::{Memory, MemoryId, Result, Revision, Scope, TopicKey};
use jiff::Timestamp;

use crate::SqliteStore;
use crate::columns::{millis, project_column};
use crate::error::SqlResult;
use crate::filter::visible_sql;
use crate::read;
use crate::rows::{self, MEMORY_COLUMNS};
use crate::tx::SqliteTx;

impl MemoryStore for SqliteStore {
    fn get(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        read::get(&self.reader(), ids)
    }

    fn ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        read::ids_with_prefix(&self.reader(), prefix, limit)
    }

    fn list(&self, query: &ListQuery, now: Timestamp) -> Result<Vec<Memory>> {
        read::list(&self.reader(), query, now)
    }

    fn count(&self, filter: &MemoryFilter, now: Timestamp) -> Result<u64> {
        read::count(&self.reader(), filter, now)
    }

    fn lexical(
        &self,
        expression: &Match,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
        window: usize,
    ) -> Result<Vec<SignalHit>> {
        read::lexical(&self.reader(), expression, filter, now, depth, window)
    }

    fn match_count(&self, expression: &Match, cap: u64) -> Result<u64> {
        read::match_count(&self.reader(), expression, cap)
    }

    fn similar_words(&self, word: &str, limit: usize) -> Result<Vec<String>> {
        Ok(rows::similar_words(&self.reader(), word, limit)?)
    }

    fn revisions(&self, id: &MemoryId) -> Result<Vec<Revision>> {
        read::revisions(&self.reader(), id)
    }

    fn prunable(&self, rule: PruneRule) -> Result<Vec<Memory>> {
        read::prunable(&self.reader(), rule)
    }

    fn stats(&self, now: Timestamp) -> Result<StoreStats> {
        read::stats(&self.reader(), now)
    }

    fn tag_counts(&self, filter: &MemoryFilter, now: Timestamp) -> Result<Vec<TagCount>> {
        read::tag_counts(&self.reader(), filter, now)
    }
}

impl MemoryTx for SqliteTx<'_, '_> {
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
        let live = visible_sql("m", Visibility::VISIBLE, "?3");
        // Named, because to serve the ORDER BY the planner otherwise walks every memory of the
        // project by `memories_by_project_updated`: every write would cost the project's size.
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m INDEXED BY memories_by_topic \
             WHERE m.project = ?1 AND m.topic_key = ?2 \
             AND {live} \
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
        let live = visible_sql("m", Visibility::VISIBLE, "?3");
        // Named for the same reason as in `find_by_topic` (`memories_by_project_created`).
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m INDEXED BY memories_by_content \
             WHERE m.project = ?1 AND m.content_hash = ?2 \
             AND {live} \
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
        self.bulk.inserted(&self.tx)?;
        Ok(())
    }

    fn stored_ids(&mut self, ids: &[MemoryId]) -> Result<Vec<MemoryId>> {
        // In process, a lookup per id costs what one statement for all would.
        let mut stored = self
            .tx
            .prepare_cached("SELECT 1 FROM memories WHERE id = ?1")
            .sql()?;
        let mut found = Vec::new();
        for id in ids {
            if stored.exists([id.to_string()]).sql()? {
                found.push(*id);
            }
        }
        Ok(found)
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

    fn clear_revisions(&mut self, id: &MemoryId) -> Result<()> {
        let seq = self.seq(id)?;
        self.tx
            .prepare_cached("DELETE FROM memory_revisions WHERE memory_seq = ?1")
            .sql()?
            .execute([seq])
            .sql()?;
        Ok(())
    }

    fn add_revision(&mut self, id: &MemoryId, revision: &Revision) -> Result<()> {
        let seq = self.seq(id)?;
        Ok(rows::insert_revision(&self.tx, seq, revision)?)
    }

    fn prunable(&mut self, rule: PruneRule) -> Result<Vec<Memory>> {
        crate::read::prunable(&self.tx, rule)
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
            crate::relation::delete_relations_of(&self.tx, id)?;
            self.tx
                .prepare_cached("DELETE FROM memories WHERE seq = ?1")
                .sql()?
                .execute([seq])
                .sql()?;
            rows::drop_unused_tags(&self.tx, &tag_ids)?;
        }
        Ok(())
    }
}
