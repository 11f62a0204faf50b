//! The memory domain's storage: [`MemoryStore`] (reads on a pooled connection) and
//! [`MemoryTx`] (writes inside the open transaction), with rows kept by `rows`.

use cairn_core::memory::{
    ListQuery, MemoryFilter, MemoryRecord, MemoryStore, MemoryTx, NamedCount, PruneRule,
    STATS_DAYS, SignalHit, SortKey, SortOrder, StoreStats, TagCount, Visibility,
};
use cairn_core::query::Match;
use cairn_core::{Memory, MemoryId, Result, Revision, Scope, Tag, TopicKey};
use jiff::Timestamp;

use crate::PostgresStore;
use crate::columns::{get, millis, project_column};
use crate::error::{SqlResult, corrupt};
use crate::filter::{condition, expired_sql, visible_sql};
use crate::params::Params;
use crate::rows::{self, MEMORY_COLUMNS, query_memories};
use crate::sql::Sql;
use crate::text::{bm25_score, newest_matches, tsquery};
use crate::tx::PostgresTx;
use crate::written::RevisionColumns;

fn get_memories(client: &mut impl Sql, ids: &[MemoryId]) -> Result<Vec<Memory>> {
    let mut params = Params::default();
    let ids: Vec<String> = ids.iter().map(MemoryId::to_string).collect();
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY({})",
        params.bind(ids)
    );
    query_memories(client, &sql, &params)
}

fn list(client: &mut impl Sql, query: &ListQuery, now: Timestamp) -> Result<Vec<Memory>> {
    let direction = match query.order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    let order = match query.sort {
        SortKey::Created => format!("m.created_at {direction}, m.seq {direction}"),
        SortKey::Updated => format!("m.updated_at {direction}, m.seq {direction}"),
        SortKey::Expires => {
            format!("m.expires_at IS NULL, m.expires_at {direction}, m.seq {direction}")
        }
        // lower() under the "C" collation folds ASCII letters only, and "C" compares bytes:
        // SQLite's NOCASE order.
        SortKey::Content => {
            format!("lower(m.content COLLATE \"C\") COLLATE \"C\" {direction}, m.seq {direction}")
        }
    };
    let mut params = Params::default();
    let cond = condition(&query.filter, now, &mut params);
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {cond} ORDER BY {order} LIMIT {} OFFSET {}",
        params.bind(query.limit as i64),
        params.bind(query.offset as i64)
    );
    query_memories(client, &sql, &params)
}

fn count(client: &mut impl Sql, filter: &MemoryFilter, now: Timestamp) -> Result<u64> {
    let mut params = Params::default();
    let cond = condition(filter, now, &mut params);
    let sql = format!("SELECT count(*) FROM memories m WHERE {cond}");
    let n: i64 = client.query_one(&sql, &params.refs()).sql()?.get(0);
    Ok(n as u64)
}

fn lexical(
    client: &mut impl Sql,
    expression: &Match,
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
    window: usize,
) -> Result<Vec<SignalHit>> {
    if depth == 0 || window == 0 {
        return Ok(Vec::new());
    }
    let mut params = Params::default();
    let query = tsquery(&mut params, expression);
    let cond = condition(filter, now, &mut params);
    let (mut with, score) = bm25_score(&mut params, expression);
    // The `window` most recently written matches, when there are more: rank only those. The
    // matches are read once, whole, and filtered as `m`.
    let matches = match window {
        usize::MAX => format!("SELECT * FROM memories WHERE fts @@ ({query})"),
        window => {
            let (newest_with, newest) = newest_matches(&query, &params.bind(window as i64));
            with = format!("{with}, {newest_with}");
            newest
        }
    };
    let sql = format!(
        "{with} SELECT m.id, {score} AS score FROM ({matches}) m WHERE {cond} \
         ORDER BY score DESC, m.seq DESC LIMIT {}",
        params.bind(depth as i64)
    );
    client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| {
            let id: String = get(row, 0)?;
            Ok(SignalHit {
                id: id.parse().map_err(corrupt)?,
                raw: get(row, 1)?,
            })
        })
        .collect()
}

fn match_count(client: &mut impl Sql, expression: &Match, cap: u64) -> Result<u64> {
    let mut params = Params::default();
    let query = tsquery(&mut params, expression);
    // The matches are planned without the cap, then read only up to it: planned with it, a
    // word the statistics think merely rare (one in no document, a typo) gets a scan of the
    // whole table that hopes to meet a match early (162 ms against 3 at 100,000 memories).
    let sql = format!(
        "WITH matched AS MATERIALIZED (SELECT 1 FROM memories WHERE fts @@ ({query})) \
         SELECT count(*) FROM (SELECT 1 FROM matched LIMIT {}) capped",
        params.bind(cap.min(i64::MAX as u64) as i64)
    );
    let n: i64 = client.query_one(&sql, &params.refs()).sql()?.get(0);
    Ok(n as u64)
}

fn revisions(client: &mut impl Sql, id: &MemoryId) -> Result<Vec<Revision>> {
    match rows::seq_of(client, id)? {
        Some(seq) => rows::revisions_of(client, seq),
        None => Ok(Vec::new()),
    }
}

fn prunable(client: &mut impl Sql, rule: PruneRule) -> Result<Vec<Memory>> {
    let (condition, order, at) = match rule {
        PruneRule::Expired(at) => (expired_sql("m", "$1"), "m.expires_at", at),
        PruneRule::CreatedBefore(at) => ("m.created_at < $1".to_string(), "m.created_at", at),
    };
    let mut params = Params::default();
    params.bind(millis(at));
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {condition} ORDER BY {order}, m.seq"
    );
    query_memories(client, &sql, &params)
}

fn named_counts(client: &mut impl Sql, sql: &str, now: i64) -> Result<Vec<NamedCount>> {
    client
        .query(sql, &[&now])
        .sql()?
        .iter()
        .map(|row| {
            Ok(NamedCount {
                name: get(row, 0)?,
                count: get::<i64>(row, 1)? as u64,
            })
        })
        .collect()
}

fn stats(client: &mut impl Sql, now: Timestamp) -> Result<StoreStats> {
    let now = millis(now);
    let visible = visible_sql("memories", Visibility::VISIBLE, "$1");
    let expired = expired_sql("memories", "$1");
    let totals = client
        .query_one(
            &format!(
                "SELECT (SELECT count(*) FROM memories WHERE {visible}), \
                 (SELECT count(*) FROM memories WHERE deleted_at IS NOT NULL), \
                 (SELECT count(*) FROM memories WHERE deleted_at IS NULL AND {expired}), \
                 (SELECT count(*) FROM memory_revisions), (SELECT count(*) FROM tags), \
                 (SELECT min(created_at) FROM memories WHERE {visible}), \
                 (SELECT max(created_at) FROM memories WHERE {visible}), \
                 pg_total_relation_size('memories')"
            ),
            &[&now],
        )
        .sql()?;
    let to_time = |ms: Option<i64>| ms.and_then(|ms| Timestamp::from_millisecond(ms).ok());
    let mut by_day = named_counts(
        client,
        &format!(
            "SELECT to_char(to_timestamp(created_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD'), \
             count(*) FROM memories WHERE {visible} GROUP BY 1 ORDER BY 1 DESC LIMIT {STATS_DAYS}"
        ),
        now,
    )?;
    by_day.reverse();
    Ok(StoreStats {
        memories: get::<i64>(&totals, 0)? as u64,
        forgotten: get::<i64>(&totals, 1)? as u64,
        expired: get::<i64>(&totals, 2)? as u64,
        revisions: get::<i64>(&totals, 3)? as u64,
        tags: get::<i64>(&totals, 4)? as u64,
        by_category: named_counts(
            client,
            &format!(
                "SELECT category, count(*) FROM memories WHERE {visible} GROUP BY category \
                 ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_project: named_counts(
            client,
            &format!(
                "SELECT CASE project WHEN '' THEN 'global' ELSE project END, count(*) \
                 FROM memories WHERE {visible} GROUP BY project ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_agent: named_counts(
            client,
            &format!(
                "SELECT coalesce(entered_by, 'unknown'), count(*) FROM memories \
                 WHERE {visible} GROUP BY 1 ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_day,
        oldest: to_time(get(&totals, 5)?),
        newest: to_time(get(&totals, 6)?),
        size_bytes: Some(crate::size_bytes(client)?),
    })
}

fn tag_counts(
    client: &mut impl Sql,
    filter: &MemoryFilter,
    now: Timestamp,
) -> Result<Vec<TagCount>> {
    let mut params = Params::default();
    let cond = condition(filter, now, &mut params);
    let sql = format!(
        "SELECT t.name, count(*) FROM memory_tags mt JOIN tags t ON t.id = mt.tag_id \
         JOIN memories m ON m.seq = mt.memory_seq WHERE {cond} GROUP BY t.name \
         ORDER BY 2 DESC, 1"
    );
    client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| {
            Ok(TagCount {
                tag: Tag::new(&get::<String>(row, 0)?)?,
                count: get::<i64>(row, 1)? as u64,
            })
        })
        .collect()
}

impl MemoryStore for PostgresStore {
    fn get(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        get_memories(&mut *self.reader()?, ids)
    }

    fn ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        // Ids hold only [0-9a-f-], all below '~', so [prefix, prefix~) is exactly the prefix
        // range (the column sorts bytewise).
        let upper = format!("{prefix}~");
        self.reader()?
            .query(
                "SELECT id FROM memories WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3",
                &[&prefix, &upper, &(limit as i64)],
            )
            .sql()?
            .iter()
            .map(|row| get::<String>(row, 0)?.parse().map_err(corrupt))
            .collect()
    }

    fn list(&self, query: &ListQuery, now: Timestamp) -> Result<Vec<Memory>> {
        list(&mut *self.reader()?, query, now)
    }

    fn count(&self, filter: &MemoryFilter, now: Timestamp) -> Result<u64> {
        count(&mut *self.reader()?, filter, now)
    }

    fn lexical(
        &self,
        expression: &Match,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
        window: usize,
    ) -> Result<Vec<SignalHit>> {
        lexical(&mut *self.reader()?, expression, filter, now, depth, window)
    }

    fn match_count(&self, expression: &Match, cap: u64) -> Result<u64> {
        match_count(&mut *self.reader()?, expression, cap)
    }

    fn similar_words(&self, word: &str, limit: usize) -> Result<Vec<String>> {
        crate::text::similar_words(&mut *self.reader()?, word, limit).sql()
    }

    fn revisions(&self, id: &MemoryId) -> Result<Vec<Revision>> {
        revisions(&mut *self.reader()?, id)
    }

    fn prunable(&self, rule: PruneRule) -> Result<Vec<Memory>> {
        prunable(&mut *self.reader()?, rule)
    }

    fn stats(&self, now: Timestamp) -> Result<StoreStats> {
        stats(&mut *self.reader()?, now)
    }

    fn tag_counts(&self, filter: &MemoryFilter, now: Timestamp) -> Result<Vec<TagCount>> {
        tag_counts(&mut *self.reader()?, filter, now)
    }
}

impl MemoryTx for PostgresTx<'_, '_> {
    fn get(&mut self, id: &MemoryId) -> Result<Option<Memory>> {
        Ok(get_memories(&mut self.tx, std::slice::from_ref(id))?.pop())
    }

    fn find_by_topic(
        &mut self,
        scope: &Scope,
        topic: &TopicKey,
        now: Timestamp,
    ) -> Result<Option<Memory>> {
        let live = visible_sql("m", Visibility::VISIBLE, "$3");
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m \
             WHERE m.project = $1 AND m.topic_key = $2 AND {live} \
             ORDER BY m.updated_at DESC LIMIT 1"
        );
        let mut params = Params::default();
        params.bind(project_column(scope));
        params.bind(topic.as_str().to_string());
        params.bind(millis(now));
        Ok(query_memories(&mut self.tx, &sql, &params)?.pop())
    }

    fn find_by_content_hash(
        &mut self,
        scope: &Scope,
        hash: i64,
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let live = visible_sql("m", Visibility::VISIBLE, "$3");
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m \
             WHERE m.project = $1 AND m.content_hash = $2 AND {live} ORDER BY m.created_at"
        );
        let mut params = Params::default();
        params.bind(project_column(scope));
        params.bind(hash);
        params.bind(millis(now));
        query_memories(&mut self.tx, &sql, &params)
    }

    fn insert(&mut self, memory: &Memory) -> Result<()> {
        rows::insert_memory(&mut self.tx, memory, &mut self.words)?;
        self.growth.memories_inserted(1);
        Ok(())
    }

    fn stored_ids(&mut self, ids: &[MemoryId]) -> Result<Vec<MemoryId>> {
        let ids: Vec<String> = ids.iter().map(MemoryId::to_string).collect();
        self.tx
            .query("SELECT id FROM memories WHERE id = ANY($1)", &[&ids])
            .sql()?
            .iter()
            .map(|row| get::<String>(row, 0)?.parse().map_err(corrupt))
            .collect()
    }

    fn insert_many(&mut self, records: &[MemoryRecord]) -> Result<()> {
        let memories: Vec<&Memory> = records.iter().map(|r| &r.memory).collect();
        let seqs = rows::insert_memories(&mut self.tx, &memories, &mut self.words)?;
        let mut revisions = RevisionColumns::default();
        for (record, seq) in records.iter().zip(seqs) {
            for revision in &record.revisions {
                revisions.push(seq, revision);
            }
        }
        if !revisions.is_empty() {
            rows::insert_revisions(&mut self.tx, revisions)?;
        }
        self.growth.memories_inserted(records.len() as u64);
        Ok(())
    }

    fn replace(&mut self, memory: &Memory) -> Result<()> {
        if rows::update_memory(&mut self.tx, memory, &mut self.words)? {
            Ok(())
        } else {
            Err(cairn_core::Error::NotFound {
                id: memory.id.to_string(),
            })
        }
    }

    fn revisions(&mut self, id: &MemoryId) -> Result<Vec<Revision>> {
        let seq = self.seq(id)?;
        rows::revisions_of(&mut self.tx, seq)
    }

    fn clear_revisions(&mut self, id: &MemoryId) -> Result<()> {
        let seq = self.seq(id)?;
        self.tx
            .execute(
                "DELETE FROM memory_revisions WHERE memory_seq = $1",
                &[&seq],
            )
            .sql()?;
        Ok(())
    }

    fn add_revision(&mut self, id: &MemoryId, revision: &Revision) -> Result<()> {
        let seq = self.seq(id)?;
        rows::insert_revision(&mut self.tx, seq, revision)
    }

    fn prunable(&mut self, rule: PruneRule) -> Result<Vec<Memory>> {
        prunable(&mut self.tx, rule)
    }

    fn purge(&mut self, ids: &[MemoryId]) -> Result<()> {
        for id in ids {
            let Some(seq) = rows::seq_of(&mut self.tx, id)? else {
                continue;
            };
            // Links, revisions, vectors and the queue go by ON DELETE CASCADE.
            let tag_ids: Vec<i64> = self
                .tx
                .query(
                    "SELECT tag_id FROM memory_tags WHERE memory_seq = $1",
                    &[&seq],
                )
                .sql()?
                .iter()
                .map(|row| row.get(0))
                .collect();
            crate::relation::delete_relations_of(&mut self.tx, id)?;
            self.tx
                .execute("DELETE FROM memories WHERE seq = $1", &[&seq])
                .sql()?;
            rows::drop_unused_tags(&mut self.tx, &tag_ids)?;
        }
        Ok(())
    }
}
