//! How vectors sit in their tables, for the exact scan (`vectors`) and the HNSW index (`ann`)
//! alike: a vector as little-endian f32 in a BLOB (read in place for a dot product), a scored
//! candidate, each space's model record, the embedding queue a changed memory joins, and the
//! vector clock that numbers vector writes. A leaf: it uses neither of its readers.

use cairn_core::Result;
use cairn_core::embedding::{ModelIdentity, VectorSpace};
use rusqlite::{Connection, OptionalExtension};

use crate::error::{SqlResult, SqliteError};

pub fn model(conn: &Connection, space: VectorSpace) -> Result<Option<ModelIdentity>> {
    conn.prepare_cached(
        "SELECT name, dimensions, weights_sha256 FROM vector_models WHERE space = ?1",
    )
    .sql()?
    .query_row([space.as_str()], |row| {
        Ok(ModelIdentity {
            name: row.get(0)?,
            dimensions: row.get::<_, i64>(1)? as usize,
            weights_sha256: row.get(2)?,
        })
    })
    .optional()
    .sql()
}

/// Makes the memory at `seq` pending in the spaces made from its text: its vector there (if
/// any) goes, and it joins that queue.
pub fn queue(conn: &Connection, seq: i64) -> Result<(), SqliteError> {
    let space = VectorSpace::Text.as_str();
    conn.prepare_cached("DELETE FROM memory_vectors WHERE memory_seq = ?1 AND space = ?2")?
        .execute((seq, space))?;
    conn.prepare_cached(
        "DELETE FROM memory_sentence_vectors WHERE memory_seq = ?1 AND space = ?2",
    )?
    .execute((seq, space))?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO embedding_queue (memory_seq, space) VALUES (?1, ?2)",
    )?
    .execute((seq, space))?;
    Ok(())
}

/// This store's key and the number of its last vector write.
pub fn clock(conn: &Connection) -> Result<(String, i64)> {
    conn.prepare_cached("SELECT store_key, last_write FROM vector_clock")
        .sql()?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))
        .sql()
}

/// A candidate: its similarity and memory `seq`, ordered by similarity (a total order over
/// f32; ties by the older memory).
pub struct Scored(pub f32, pub i64);

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

pub fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn from_blob(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The dot product of `query` with a vector as stored, read in place.
pub fn dot_with_blob(query: &[f32], blob: &[u8]) -> f32 {
    query
        .iter()
        .zip(blob.chunks_exact(4))
        .map(|(q, b)| q * f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .sum()
}
