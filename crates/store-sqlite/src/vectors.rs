//! Vectors for semantic search, per vector space: each space's model, each memory's vector in
//! it, what is pending, and the exact nearest-neighbour scan.
//!
//! A vector is `dimensions` little-endian f32 in a BLOB beside its memory (`memory_vectors`,
//! keyed by memory and space), so it is written, replaced and deleted in the same transactions
//! as the memory itself; its sentence vectors (core's `SentenceVectors`, one BLOB) sit in
//! `memory_sentence_vectors` (migration 0018) and go wherever it goes. Pending memories sit in
//! `embedding_queue` (per space; [`queue`]) until their vector is [`put`], numbered by the
//! vector clock (one clock for every space).
//! `vector_models` records each space's model (migration 0007). [`nearest`] asks the HNSW index (ann.rs) when the store has one and scans
//! exactly what it does not hold; the [`scan`] reads every vector under the filter and keeps the
//! best `depth` (core's `Nearest`).

use cairn_core::embedding::SentenceVectors;
use cairn_core::embedding::{EmbeddingCounts, MemoryVector, Nearest, PendingEmbedding};
use cairn_core::embedding::{ModelIdentity, embedding_text_with_images};
use cairn_core::embedding::{VectorIndexReport, VectorSpace, VectorStore, VectorTx};
use cairn_core::memory::SignalHit;
use cairn_core::memory::{MemoryFilter, Visibility};
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::SqliteStore;
use crate::ann::AnnIndex;
use crate::columns::{corrupt, millis, time};
use crate::error::SqlResult;
use crate::filter::{condition, visible_sql};
use crate::tx::SqliteTx;
use crate::vector_rows::{Scored, clock, dot_with_blob, from_blob, model, to_blob};

pub fn set_model(conn: &Connection, space: VectorSpace, identity: &ModelIdentity) -> Result<bool> {
    let current = model(conn, space)?;
    if current.as_ref() == Some(identity) {
        return Ok(false);
    }
    if current.is_some() {
        clear(conn, space)?;
    }
    conn.prepare_cached(
        "INSERT OR REPLACE INTO vector_models (space, name, dimensions, weights_sha256) \
         VALUES (?1, ?2, ?3, ?4)",
    )
    .sql()?
    .execute((
        space.as_str(),
        &identity.name,
        identity.dimensions as i64,
        &identity.weights_sha256,
    ))
    .sql()?;
    Ok(current.is_some())
}

/// Drops every vector of the space and queues every memory in it.
pub fn clear(conn: &Connection, space: VectorSpace) -> Result<()> {
    for table in ["memory_vectors", "memory_sentence_vectors"] {
        conn.prepare_cached(&format!("DELETE FROM {table} WHERE space = ?1"))
            .sql()?
            .execute([space.as_str()])
            .sql()?;
    }
    conn.prepare_cached(
        "INSERT OR IGNORE INTO embedding_queue (memory_seq, space) SELECT seq, ?1 FROM memories",
    )
    .sql()?
    .execute([space.as_str()])
    .sql()?;
    Ok(())
}

/// Stores the vectors of memories unchanged since they were read for embedding, each under the
/// next number of the vector clock (see ann.rs), with their sentence vectors (replacing the old
/// ones, or deleting them when there are none), and takes them off the queue.
pub fn put(conn: &Connection, space: VectorSpace, vectors: &[MemoryVector]) -> Result<usize> {
    let mut unchanged = conn
        .prepare_cached("SELECT seq FROM memories WHERE id = ?1 AND updated_at = ?2")
        .sql()?;
    let mut insert = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO memory_vectors (memory_seq, space, vector, written) \
             VALUES (?1, ?2, ?3, ?4)",
        )
        .sql()?;
    let (_, mut written) = clock(conn)?;
    let mut put_sentences = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO memory_sentence_vectors (memory_seq, space, vectors) \
             VALUES (?1, ?2, ?3)",
        )
        .sql()?;
    let mut drop_sentences = conn
        .prepare_cached("DELETE FROM memory_sentence_vectors WHERE memory_seq = ?1 AND space = ?2")
        .sql()?;
    let mut dequeue = conn
        .prepare_cached("DELETE FROM embedding_queue WHERE memory_seq = ?1 AND space = ?2")
        .sql()?;
    let mut stored = 0;
    for memory in vectors {
        let seq: Option<i64> = unchanged
            .query_row((memory.id.to_string(), millis(memory.updated_at)), |row| {
                row.get(0)
            })
            .optional()
            .sql()?;
        if let Some(seq) = seq {
            written += 1;
            insert
                .execute((seq, space.as_str(), to_blob(&memory.vector), written))
                .sql()?;
            match memory.sentences.is_empty() {
                true => drop_sentences.execute((seq, space.as_str())).sql()?,
                false => put_sentences
                    .execute((seq, space.as_str(), memory.sentences.as_bytes()))
                    .sql()?,
            };
            dequeue.execute((seq, space.as_str())).sql()?;
            stored += 1;
        }
    }
    conn.prepare_cached("UPDATE vector_clock SET last_write = ?1")
        .sql()?
        .execute([written])
        .sql()?;
    Ok(stored)
}

/// Which memories the queue embeds: every one not forgotten (an expired memory keeps its vector,
/// so a filter that shows expired memories finds it by meaning too).
const EMBEDDED: Visibility = Visibility {
    expired: true,
    forgotten: false,
};

pub fn pending(
    conn: &Connection,
    space: VectorSpace,
    limit: usize,
) -> Result<Vec<PendingEmbedding>> {
    conn.prepare_cached(&format!(
        "SELECT m.id, m.updated_at, m.title, m.content, m.image_text \
         FROM embedding_queue q JOIN memories m ON m.seq = q.memory_seq \
         WHERE q.space = ?2 AND {} ORDER BY q.memory_seq LIMIT ?1",
        visible_sql("m", EMBEDDED, "")
    ))
    .sql()?
    .query_map((limit as i64, space.as_str()), |row| {
        let id: String = row.get(0)?;
        let title: Option<String> = row.get(2)?;
        let content: String = row.get(3)?;
        let image_text: String = row.get(4)?;
        Ok(PendingEmbedding {
            id: id.parse().map_err(corrupt)?,
            updated_at: time(row.get(1)?)?,
            text: embedding_text_with_images(title.as_deref(), &content, &image_text),
        })
    })
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

pub fn counts(conn: &Connection, space: VectorSpace) -> Result<EmbeddingCounts> {
    let count = |sql: &str| -> Result<u64> {
        let n: i64 = conn
            .query_row(sql, [space.as_str()], |row| row.get(0))
            .sql()?;
        Ok(n as u64)
    };
    Ok(EmbeddingCounts {
        embedded: count("SELECT count(*) FROM memory_vectors WHERE space = ?1")?,
        pending: count(&format!(
            "SELECT count(*) FROM embedding_queue q JOIN memories m ON m.seq = q.memory_seq \
             WHERE q.space = ?1 AND {}",
            visible_sql("m", EMBEDDED, "")
        ))?,
    })
}

/// The `depth` memories under the filter nearest `query`: through the HNSW index and an exact
/// scan of the vectors it does not hold yet, or by one exact scan of everything when there is
/// no usable index.
pub fn nearest(
    conn: &Connection,
    ann: &AnnIndex,
    space: VectorSpace,
    query: &[f32],
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
) -> Result<Vec<SignalHit>> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let ranked = match ann.search(conn, query, filter, now, depth)? {
        Some(indexed) => {
            let mut hits = indexed.hits;
            hits.extend(scan(
                conn,
                space,
                query,
                filter,
                now,
                depth,
                Some(indexed.watermark),
            )?);
            hits
        }
        None => scan(conn, space, query, filter, now, depth, None)?,
    };
    ranked_hits(conn, ranked, depth)
}

/// The best `depth` candidates, best first, as hits with their memory ids.
pub fn ranked_hits(
    conn: &Connection,
    mut ranked: Vec<Scored>,
    depth: usize,
) -> Result<Vec<SignalHit>> {
    ranked.sort_by(|a, b| b.cmp(a));
    ranked.truncate(depth);
    let mut ids = conn
        .prepare_cached("SELECT id FROM memories WHERE seq = ?1")
        .sql()?;
    ranked
        .into_iter()
        .map(|Scored(similarity, seq)| {
            let id: String = ids.query_row([seq], |row| row.get(0)).sql()?;
            Ok(SignalHit {
                id: id.parse()?,
                raw: f64::from(similarity),
            })
        })
        .collect()
}

/// The exact scan: every vector under the filter (only those written after `after`, when
/// given), the best `depth`, best first.
pub fn scan(
    conn: &Connection,
    space: VectorSpace,
    query: &[f32],
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
    after: Option<i64>,
) -> Result<Vec<Scored>> {
    let cond = condition(filter, now);
    // The tail is read through the index on `written`, whatever the filter: left to itself the
    // planner would start from a project's memories and look each one up. A full scan is the
    // planner's to order.
    let (source, tail, after) = match after {
        Some(watermark) => (
            "memory_vectors v INDEXED BY memory_vectors_by_written",
            "v.written > ? AND ",
            Some(Value::Integer(watermark)),
        ),
        None => ("memory_vectors v", "", None),
    };
    let sql = format!(
        "SELECT m.seq, v.vector FROM {source} JOIN memories m ON m.seq = v.memory_seq \
         WHERE v.space = ? AND {tail}{}",
        cond.sql
    );
    let mut statement = conn.prepare_cached(&sql).sql()?;
    let params = std::iter::once(Value::Text(space.as_str().into()))
        .chain(after)
        .chain(cond.params);
    let mut rows = statement.query(params_from_iter(params)).sql()?;
    let mut best = Nearest::new(depth);
    while let Some(row) = rows.next().sql()? {
        let seq: i64 = row.get(0).sql()?;
        let blob = row.get_ref(1).sql()?.as_blob().map_err(corrupt).sql()?;
        if blob.len() == query.len() * 4 {
            best.offer(dot_with_blob(query, blob), seq);
        }
    }
    Ok(best
        .into_best()
        .into_iter()
        .map(|(similarity, seq)| Scored(similarity, seq))
        .collect())
}

pub fn vectors(
    conn: &Connection,
    space: VectorSpace,
    ids: &[MemoryId],
) -> Result<Vec<(MemoryId, Vec<f32>)>> {
    let found = blobs(conn, "memory_vectors", "vector", space, ids)?;
    Ok(found
        .into_iter()
        .map(|(id, blob)| (id, from_blob(&blob)))
        .collect())
}

pub fn sentence_vectors(
    conn: &Connection,
    space: VectorSpace,
    ids: &[MemoryId],
) -> Result<Vec<(MemoryId, SentenceVectors)>> {
    let found = blobs(conn, "memory_sentence_vectors", "vectors", space, ids)?;
    Ok(found
        .into_iter()
        .map(|(id, blob)| (id, SentenceVectors::from_bytes(blob)))
        .collect())
}

/// The BLOB `column` of `table` (keyed by memory and space) for those of `ids` that have a row
/// in the space, one indexed lookup each.
fn blobs(
    conn: &Connection,
    table: &str,
    column: &str,
    space: VectorSpace,
    ids: &[MemoryId],
) -> Result<Vec<(MemoryId, Vec<u8>)>> {
    let mut found = Vec::with_capacity(ids.len());
    let mut statement = conn
        .prepare_cached(&format!(
            "SELECT t.{column} FROM memories m JOIN {table} t ON t.memory_seq = m.seq \
             WHERE m.id = ?1 AND t.space = ?2"
        ))
        .sql()?;
    for id in ids {
        let blob: Option<Vec<u8>> = statement
            .query_row(rusqlite::params![id.to_string(), space.as_str()], |row| {
                row.get(0)
            })
            .optional()
            .sql()?;
        if let Some(blob) = blob {
            found.push((*id, blob));
        }
    }
    Ok(found)
}

impl VectorStore for SqliteStore {
    fn nearest_exact(
        &self,
        space: VectorSpace,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>> {
        let conn = self.reader();
        let ranked = scan(&conn, space, query, filter, now, depth, None)?;
        ranked_hits(&conn, ranked, depth)
    }

    fn embedding_model(&self, space: VectorSpace) -> Result<Option<ModelIdentity>> {
        model(&self.reader(), space)
    }

    fn pending_embeddings(
        &self,
        space: VectorSpace,
        limit: usize,
    ) -> Result<Vec<PendingEmbedding>> {
        pending(&self.reader(), space, limit)
    }

    fn embedding_counts(&self, space: VectorSpace) -> Result<EmbeddingCounts> {
        counts(&self.reader(), space)
    }

    fn vectors(&self, space: VectorSpace, ids: &[MemoryId]) -> Result<Vec<(MemoryId, Vec<f32>)>> {
        vectors(&self.reader(), space, ids)
    }

    fn sentence_vectors(
        &self,
        space: VectorSpace,
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, SentenceVectors)>> {
        sentence_vectors(&self.reader(), space, ids)
    }

    fn nearest(
        &self,
        space: VectorSpace,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>> {
        nearest(
            &self.reader(),
            self.ann(space),
            space,
            query,
            filter,
            now,
            depth,
        )
    }

    fn update_vector_index(
        &self,
        space: VectorSpace,
        rebuild: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        self.ann(space).update(&self.reader(), rebuild, progress)
    }

    fn vector_index_damage(&self, space: VectorSpace) -> Option<String> {
        self.ann(space).damage()
    }
}

impl VectorTx for SqliteTx<'_, '_> {
    fn set_embedding_model(&mut self, space: VectorSpace, model: &ModelIdentity) -> Result<bool> {
        set_model(&self.tx, space, model)
    }

    fn clear_embeddings(&mut self, space: VectorSpace) -> Result<()> {
        clear(&self.tx, space)
    }

    fn put_embeddings(&mut self, space: VectorSpace, vectors: &[MemoryVector]) -> Result<usize> {
        put(&self.tx, space, vectors)
    }
}
