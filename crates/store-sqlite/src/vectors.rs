//! Vectors for semantic search: the store's model, each memory's vector, what is pending, and
//! the exact nearest-neighbour scan.
//!
//! A vector is `dimensions` little-endian f32 in a BLOB beside its memory (`memory_vectors`), so
//! it is written, replaced and deleted in the same transactions as the memory itself. The scan
//! reads every vector under the filter and keeps the best `depth` in a bounded heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use cairn_core::embedding::{ModelIdentity, dot, embedding_text};
use cairn_core::search::SignalHit;
use cairn_core::store::{EmbeddingCounts, MemoryFilter, PendingEmbedding};
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::error::SqlResult;
use crate::filter::condition;
use crate::rows::{corrupt, millis, time};

pub fn model(conn: &Connection) -> Result<Option<ModelIdentity>> {
    conn.prepare_cached("SELECT name, dimensions, weights_sha256 FROM embedding_model")
        .sql()?
        .query_row([], |row| {
            Ok(ModelIdentity {
                name: row.get(0)?,
                dimensions: row.get::<_, i64>(1)? as usize,
                weights_sha256: row.get(2)?,
            })
        })
        .optional()
        .sql()
}

pub fn set_model(conn: &Connection, identity: &ModelIdentity) -> Result<bool> {
    let current = model(conn)?;
    if current.as_ref() == Some(identity) {
        return Ok(false);
    }
    if current.is_some() {
        clear(conn)?;
    }
    conn.prepare_cached(
        "INSERT OR REPLACE INTO embedding_model (singleton, name, dimensions, weights_sha256) \
         VALUES (1, ?1, ?2, ?3)",
    )
    .sql()?
    .execute((
        &identity.name,
        identity.dimensions as i64,
        &identity.weights_sha256,
    ))
    .sql()?;
    Ok(current.is_some())
}

pub fn clear(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM memory_vectors", []).sql()?;
    Ok(())
}

pub fn put(conn: &Connection, vectors: &[(MemoryId, Timestamp, Vec<f32>)]) -> Result<usize> {
    let mut insert = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO memory_vectors (memory_seq, vector) \
             SELECT seq, ?3 FROM memories WHERE id = ?1 AND updated_at = ?2",
        )
        .sql()?;
    let mut stored = 0;
    for (id, updated_at, vector) in vectors {
        stored += insert
            .execute((id.to_string(), millis(*updated_at), to_blob(vector)))
            .sql()?;
    }
    Ok(stored)
}

pub fn pending(conn: &Connection, limit: usize) -> Result<Vec<PendingEmbedding>> {
    conn.prepare_cached(
        "SELECT m.id, m.updated_at, m.title, m.content FROM memories m \
         WHERE m.deleted_at IS NULL \
           AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_seq = m.seq) \
         ORDER BY m.seq LIMIT ?1",
    )
    .sql()?
    .query_map([limit as i64], |row| {
        let id: String = row.get(0)?;
        let title: Option<String> = row.get(2)?;
        let content: String = row.get(3)?;
        Ok(PendingEmbedding {
            id: id.parse().map_err(corrupt)?,
            updated_at: time(row.get(1)?)?,
            text: embedding_text(title.as_deref(), &content),
        })
    })
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

pub fn counts(conn: &Connection) -> Result<EmbeddingCounts> {
    let embedded: i64 = conn
        .query_row("SELECT count(*) FROM memory_vectors", [], |row| row.get(0))
        .sql()?;
    let pending: i64 = conn
        .query_row(
            "SELECT count(*) FROM memories m WHERE m.deleted_at IS NULL \
             AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_seq = m.seq)",
            [],
            |row| row.get(0),
        )
        .sql()?;
    Ok(EmbeddingCounts {
        embedded: embedded as u64,
        pending: pending as u64,
    })
}

/// A candidate in the bounded heap: ordered by similarity (total order over f32).
struct Scored(f32, i64);

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

pub fn nearest(
    conn: &Connection,
    query: &[f32],
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
) -> Result<Vec<SignalHit>> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let cond = condition(filter, now);
    let sql = format!(
        "SELECT m.seq, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.memory_seq \
         WHERE {}",
        cond.sql
    );
    let mut statement = conn.prepare_cached(&sql).sql()?;
    let mut rows = statement.query(params_from_iter(cond.params)).sql()?;
    let mut best: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(depth + 1);
    let mut vector = Vec::with_capacity(query.len());
    while let Some(row) = rows.next().sql()? {
        let seq: i64 = row.get(0).sql()?;
        let blob = row.get_ref(1).sql()?.as_blob().map_err(corrupt).sql()?;
        from_blob(blob, &mut vector);
        if vector.len() != query.len() {
            continue;
        }
        let candidate = Scored(dot(query, &vector), seq);
        if best.len() < depth {
            best.push(Reverse(candidate));
        } else if best.peek().is_some_and(|Reverse(worst)| candidate > *worst) {
            best.pop();
            best.push(Reverse(candidate));
        }
    }
    drop(rows);
    let mut ranked: Vec<Scored> = best.into_iter().map(|Reverse(s)| s).collect();
    ranked.sort_by(|a, b| b.cmp(a));
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

fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8], out: &mut Vec<f32>) {
    out.clear();
    out.extend(
        blob.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    );
}
