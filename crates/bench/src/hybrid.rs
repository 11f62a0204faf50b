//! Semantic cost at scale: embedding throughput, the HNSW index (build time, recall against the
//! exact scan, latency of both), and hybrid search latency with the query's embedding included,
//! in process (as the server runs it), with the peak RSS of the whole run.
//!
//! Embedding a whole synthetic corpus with the real model takes long on two cores (about 45
//! memories/s: the generated texts are long), so `--embed N` embeds the first N memories for
//! real and gives every other memory a blend of three of those N vectors (`main + ½ other + ¼
//! third`), normalised: every vector is distinct (N³ combinations) and lies among real
//! embeddings, so the graph has real structure to search and the index's recall means something
//! (plain copies would make clusters of near-ties in which any order is as good). A blend keeps
//! the sentence vectors of its first memory, so that semantic search's re-scoring by sentences
//! (`search::semantic`) reads as much per memory as in a store of real texts. What the rankings
//! return for the synthetic texts means nothing and is not reported.
//!
//! Until November 2026 a blend was two vectors plus Gaussian noise of 0.025 per dimension. That
//! noise does not lie among real embeddings: real MiniLM vectors keep 1.7% of their variance
//! in their last 128 principal components, such blends 8.6% (three-vector blends 1.7%; an SVD
//! in numpy of LoCoMo's turn vectors and 20,000 blends of 2,000 of them, not kept here), and at
//! a million the exact top 10 was decided largely by that noise, which no graph's
//! neighbourhoods follow: recall@10 at a search breadth of 1,024 was 0.56 on those blends and
//! 0.90 on three-vector ones (same index settings; raising the graph's degree to 32, or keeping
//! f32 in the index, gave 0.56 and 0.57 on the old blends). `--blend-noise 0.025` adds the
//! noise again.
//!
//! The index is measured against the exact scan three ways: recall@10 (the exact top 10's ids),
//! recall@10 with near ties counted (ann-benchmarks' definition: a returned neighbour within
//! [`TIE`] of the exact 10th's similarity is correct), and the similarity ratio (how close what
//! it returns is, on average). `--ef-sweep` searches the one built index at other breadths.
//!
//! The in-process figures share one process with the import, the embedding and the index build,
//! so its peak RSS is the benchmark's, not a searcher's. A search process is measured apart: the
//! real `cairn search --mode hybrid` run on the finished store, one process per query (model
//! loaded, index mapped, answer printed), with its wall time and peak RSS.
//!
//! With `--store postgres://…` the same run measures a fresh schema of that PostgreSQL database
//! (pgvector's HNSW index, built by the store's own `update_vector_index`) instead of a SQLite
//! file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use cairn_core::config::{Config, Limits};
use cairn_core::embedding::{Embedder, MemoryVector, SentenceVectors};
use cairn_core::embedding::{VectorSpace, VectorStore};
use cairn_core::memory::MemoryFilter;
use cairn_core::memory::SignalHit;
use cairn_core::search::{SearchMode, SearchRequest};
use cairn_core::store::Store;
use cairn_core::testing::local;
use cairn_core::{Api, ApiParts, ProjectName, ScopeFilter};
use cairn_store_postgres::PostgresStore;
use cairn_store_sqlite::{AnnSettings, SqliteStore};
use jiff::Timestamp;
use serde::Serialize;

/// The space the benchmark's vectors live in.
const TEXT: VectorSpace = VectorSpace::Text;

use crate::corpus::{Corpus, Rng};
use crate::measure::{Percentiles, run_child};
use crate::scale::Target;

#[derive(Debug, Serialize)]
pub struct HybridResult {
    pub memories: u64,
    pub embedded_for_real: u64,
    pub embed_per_second: f64,
    /// Building the HNSW index; `None` when the store is below the index threshold.
    pub index_build_seconds: Option<f64>,
    /// Share of the exact top 10 that the store's nearest-neighbour search returns.
    pub index_recall_at_10: f64,
    /// The same with near ties counted, as ann-benchmarks counts recall: a returned neighbour is
    /// correct when its similarity is within [`TIE`] of the exact 10th's or above. Where the
    /// exact top 10 is decided by differences smaller than that (noisy blends at 1M), this says
    /// whether the index still returns neighbours as close.
    pub index_recall_at_10_ties: f64,
    /// Summed similarity of the returned top 10 over that of the exact top 10: how much worse
    /// what the index misses is than what it returns instead (1 means misses are exact ties).
    pub index_similarity_ratio: f64,
    /// The index searched again at other breadths (`--ef-sweep`), against the same exact top 10.
    pub ef_sweep: Vec<EfPoint>,
    /// The store's nearest-neighbour search (through the index when there is one), query
    /// vectors given.
    pub nearest: Percentiles,
    /// The exact scan alone, for the crossover.
    pub exact_scan: Percentiles,
    /// The store's nearest-neighbour search within one project and the global memories (about a
    /// fifth of the store), as `cairn search` inside a project asks.
    pub nearest_in_project: Percentiles,
    pub query_embedding: Percentiles,
    pub semantic: Percentiles,
    pub hybrid: Percentiles,
    pub lexical: Percentiles,
    /// Peak RSS of this whole benchmark process (import, embedding and index build included).
    pub peak_rss_mib: f64,
    /// `cairn search --mode hybrid` as its own process, start to exit; `None` without `--cairn`.
    pub search_process: Option<SearchProcess>,
}

/// The index's accuracy and speed at one search breadth (ef).
#[derive(Debug, Serialize)]
pub struct EfPoint {
    pub ef: usize,
    pub recall_at_10: f64,
    pub recall_at_10_ties: f64,
    pub similarity_ratio: f64,
    pub nearest: Percentiles,
}

/// What the index returns against the exact top 10, summed over queries.
#[derive(Default)]
struct IndexAccuracy {
    queries: usize,
    found: usize,
    found_or_tied: usize,
    returned_similarity: f64,
    exact_similarity: f64,
}

impl IndexAccuracy {
    fn add(&mut self, exact: &[SignalHit], returned: &[SignalHit]) {
        self.queries += 1;
        self.found += exact
            .iter()
            .filter(|e| returned.iter().any(|hit| hit.id == e.id))
            .count();
        if let Some(tenth) = exact.last() {
            self.found_or_tied += returned
                .iter()
                .filter(|hit| hit.raw >= tenth.raw - TIE)
                .count();
        }
        self.returned_similarity += returned.iter().map(|hit| hit.raw).sum::<f64>();
        self.exact_similarity += exact.iter().map(|hit| hit.raw).sum::<f64>();
    }

    fn recall(&self) -> f64 {
        self.found as f64 / (self.queries * 10).max(1) as f64
    }

    fn recall_with_ties(&self) -> f64 {
        self.found_or_tied as f64 / (self.queries * 10).max(1) as f64
    }

    fn similarity_ratio(&self) -> f64 {
        self.returned_similarity / self.exact_similarity.max(f64::MIN_POSITIVE)
    }
}

/// The real binary answering one hybrid search per process on the finished store.
#[derive(Debug, Serialize)]
pub struct SearchProcess {
    pub wall: Percentiles,
    /// The largest peak RSS of those processes.
    pub peak_rss_mib: f64,
}

/// Weight of the second real vector in a blend.
const BLEND: f32 = 0.5;
/// Weight of the third real vector in a blend.
const BLEND_THIRD: f32 = 0.25;
/// Per-dimension Gaussian noise added to a blend by default: none (see the module comment).
pub const BLEND_NOISE: f64 = 0.0;
/// How much less similar than the exact 10th neighbour a returned one may be and still count in
/// [`HybridResult::index_recall_at_10_ties`]: ann-benchmarks' epsilon (1e-3 of distance).
pub const TIE: f64 = 1e-3;

/// One run's workload.
pub struct HybridOptions {
    /// Memories in the corpus.
    pub size: u64,
    /// Memories embedded for real.
    pub embed: u64,
    /// Per-dimension standard deviation of the noise in each blend ([`BLEND_NOISE`]).
    pub blend_noise: f64,
    /// Other search breadths (ef) to measure the built index at, against the same exact scan.
    pub ef_sweep: Vec<usize>,
    /// Searches per mode.
    pub searches: usize,
    pub seed: u64,
    pub ann: AnnSettings,
    /// A PostgreSQL server to measure (a fresh schema per size) instead of a SQLite file.
    pub postgres: Option<String>,
    /// The `cairn` binary whose search process is measured, with the model directory it is
    /// given (`None`: it finds the model itself).
    pub cairn: Option<(PathBuf, Option<PathBuf>)>,
}

pub fn run(
    dir: &Path,
    options: &HybridOptions,
    embedder: Arc<dyn Embedder>,
    progress: &mut dyn FnMut(&str),
) -> Result<HybridResult> {
    let HybridOptions {
        size,
        embed,
        blend_noise,
        ef_sweep: ref breadths,
        searches,
        seed,
        ref ann,
        ref postgres,
        ref cairn,
    } = *options;
    let target = match postgres {
        None => Target::Sqlite(dir.join(format!("hybrid-{size}.db"))),
        Some(server) => Target::new(Some(server), dir, size, 0)?,
    };
    let corpus_path = dir.join(format!("hybrid-{size}.jsonl"));
    progress(&format!("{size}: generating and importing the corpus"));
    crate::scale::write_corpus(&corpus_path, size, seed)?;
    let limits = Limits::default();
    let open = || Measured::open(&target, ann);
    let config = Config {
        limits,
        ..Config::default()
    };
    let parts = ApiParts {
        embedder: Some(embedder.clone()),
        ..ApiParts::new(open()?.into_store())
    };
    let api = Api::open(parts, &config);
    let mut input = std::io::BufReader::new(std::fs::File::open(&corpus_path)?);
    api.import(&local(), &mut input, &mut |_| {})?;

    progress(&format!("{size}: embedding {embed} memories for real"));
    let measured = open()?;
    let direct = measured.store();
    let sample = direct.pending_embeddings(TEXT, embed as usize)?;
    let texts: Vec<&str> = sample.iter().map(|p| p.text.as_str()).collect();
    let started = Instant::now();
    let passages = embedder.embed_passages(&texts)?;
    let embed_seconds = started.elapsed().as_secs_f64();
    let sentences: Vec<SentenceVectors> = passages
        .iter()
        .map(|passage| SentenceVectors::encode(&passage.sentences))
        .collect();
    let vectors: Vec<Vec<f32>> = passages.into_iter().map(|p| p.vector).collect();
    direct.write(&mut |tx| {
        tx.set_embedding_model(TEXT, embedder.identity())?;
        Ok(())
    })?;
    progress(&format!(
        "{size}: giving the other memories blends of those vectors"
    ));
    let mut noise = Rng::new(seed ^ 0xc0b1e5);
    let mut first = true;
    loop {
        let pending = direct.pending_embeddings(TEXT, 10_000)?;
        if pending.is_empty() {
            break;
        }
        // A blend keeps the sentence vectors of the memory it starts from, so that re-scoring
        // by sentences reads as much per memory as in a store of real texts.
        let rows: Vec<MemoryVector> = pending
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let original = &vectors[i % vectors.len()];
                let vector = match first && i < vectors.len() {
                    true => original.clone(),
                    false => {
                        let other = &vectors[noise.below(vectors.len())];
                        let third = &vectors[noise.below(vectors.len())];
                        blended([original, other, third], blend_noise, &mut noise)
                    }
                };
                MemoryVector {
                    id: p.id,
                    updated_at: p.updated_at,
                    vector,
                    sentences: sentences[i % vectors.len()].clone(),
                }
            })
            .collect();
        first = false;
        direct.write(&mut |tx| tx.put_embeddings(TEXT, &rows).map(|_| ()))?;
    }
    progress(&format!("{size}: building the vector index"));
    let started = Instant::now();
    let index = direct.update_vector_index(TEXT, false, &mut |_, _| {})?;
    let index_build_seconds = index.map(|_| started.elapsed().as_secs_f64());

    progress(&format!("{size}: {searches} searches per mode"));
    let corpus = Corpus::new(seed);
    let mut rng = Rng::new(seed ^ 0x5eed);
    let queries: Vec<String> = (0..searches).map(|_| corpus.query(&mut rng)).collect();
    let time = |mode: SearchMode| -> Result<Percentiles> {
        let mut samples = Vec::new();
        for query in &queries {
            let request = SearchRequest {
                mode: Some(mode),
                ..SearchRequest::new(query.clone(), MemoryFilter::default(), 10)
            };
            let start = Instant::now();
            api.search_request(&local(), &request)?;
            samples.push(start.elapsed());
        }
        Ok(Percentiles::of(&samples))
    };
    let mut embedding = Vec::new();
    let mut query_vectors = Vec::new();
    for query in &queries {
        let start = Instant::now();
        query_vectors.extend(embedder.embed(&[query.as_str()])?);
        embedding.push(start.elapsed());
    }
    progress(&format!("{size}: the index against the exact scan"));
    let filter = MemoryFilter::default();
    let now = jiff::Timestamp::now();
    let in_project = MemoryFilter::in_scope(ScopeFilter::ProjectAndGlobal(ProjectName::new(
        corpus.a_project(),
    )?));
    let (mut through_store, mut exact_scan) = (Vec::new(), Vec::new());
    let mut accuracy = IndexAccuracy::default();
    let mut exacts = Vec::with_capacity(query_vectors.len());
    let mut project_samples = Vec::new();
    for vector in &query_vectors {
        let start = Instant::now();
        direct.nearest(TEXT, vector, &in_project, now, 10)?;
        project_samples.push(start.elapsed());
        let start = Instant::now();
        let hits = direct.nearest(TEXT, vector, &filter, now, 10)?;
        through_store.push(start.elapsed());
        let start = Instant::now();
        let exact = measured.nearest_exact(vector, &filter, now, 10)?;
        exact_scan.push(start.elapsed());
        accuracy.add(&exact, &hits);
        exacts.push(exact);
    }
    let mut ef_sweep = Vec::new();
    for &ef in breadths {
        progress(&format!("{size}: the index at ef {ef}"));
        let swept = Measured::open(
            &target,
            &AnnSettings {
                expansion_search: ef,
                vectors_per_expansion: 0,
                ..ann.clone()
            },
        )?;
        let (mut accuracy, mut samples) = (IndexAccuracy::default(), Vec::new());
        for (vector, exact) in query_vectors.iter().zip(&exacts) {
            let start = Instant::now();
            let hits = swept.store().nearest(TEXT, vector, &filter, now, 10)?;
            samples.push(start.elapsed());
            accuracy.add(exact, &hits);
        }
        ef_sweep.push(EfPoint {
            ef,
            recall_at_10: accuracy.recall(),
            recall_at_10_ties: accuracy.recall_with_ties(),
            similarity_ratio: accuracy.similarity_ratio(),
            nearest: Percentiles::of(&samples),
        });
    }
    Ok(HybridResult {
        memories: size,
        embedded_for_real: vectors.len() as u64,
        embed_per_second: vectors.len() as f64 / embed_seconds.max(f64::MIN_POSITIVE),
        index_build_seconds,
        index_recall_at_10: accuracy.recall(),
        index_recall_at_10_ties: accuracy.recall_with_ties(),
        index_similarity_ratio: accuracy.similarity_ratio(),
        ef_sweep,
        nearest: Percentiles::of(&through_store),
        exact_scan: Percentiles::of(&exact_scan),
        nearest_in_project: Percentiles::of(&project_samples),
        query_embedding: Percentiles::of(&embedding),
        semantic: time(SearchMode::Semantic)?,
        hybrid: time(SearchMode::Hybrid)?,
        lexical: time(SearchMode::Lexical)?,
        peak_rss_mib: crate::measure::own_peak_rss_bytes() as f64 / MIB,
        search_process: match cairn {
            None => None,
            Some((binary, model_dir)) => {
                progress(&format!("{size}: hybrid search as its own process"));
                let queries = &queries[..queries.len().min(SEARCH_PROCESSES)];
                Some(search_processes(
                    binary,
                    model_dir.as_deref(),
                    &target,
                    dir,
                    queries,
                )?)
            }
        },
    })
}

/// Searches run as their own process (each loads the model: a few are enough).
const SEARCH_PROCESSES: usize = 10;
const MIB: f64 = 1024.0 * 1024.0;

/// Runs `cairn --db DB search --mode hybrid QUERY` (or `--store URL`) once per query, with a
/// scratch home.
fn search_processes(
    binary: &Path,
    model_dir: Option<&Path>,
    target: &Target,
    dir: &Path,
    queries: &[String],
) -> Result<SearchProcess> {
    let home = dir.join("search-home");
    std::fs::create_dir_all(&home)?;
    let (mut walls, mut peak) = (Vec::new(), 0);
    for query in queries {
        let mut command = target.command(binary);
        command
            .env("CAIRN_HOME", &home)
            .args(["search", "--mode", "hybrid", "--limit", "10", query]);
        if let Some(model_dir) = model_dir {
            command.env("CAIRN_MODEL_DIR", model_dir);
        }
        let run = run_child(&mut command)?;
        walls.push(run.wall);
        peak = peak.max(run.peak_rss_bytes);
    }
    Ok(SearchProcess {
        wall: Percentiles::of(&walls),
        peak_rss_mib: peak as f64 / MIB,
    })
}

/// `main + BLEND × other + BLEND_THIRD × third`, plus Gaussian noise of `noise` per dimension,
/// normalised.
fn blended([main, other, third]: [&[f32]; 3], noise: f64, rng: &mut Rng) -> Vec<f32> {
    let mixed: Vec<f32> = (0..main.len())
        .map(|i| {
            let jitter = match noise > 0.0 {
                true => (rng.gaussian() * noise) as f32,
                false => 0.0,
            };
            main[i] + BLEND * other[i] + BLEND_THIRD * third[i] + jitter
        })
        .collect();
    let norm = mixed.iter().map(|x| x * x).sum::<f32>().sqrt();
    mixed.into_iter().map(|x| x / norm).collect()
}

/// A handle on the measured store, with its exact scan (the reference for the index's recall).
enum Measured {
    Sqlite(SqliteStore),
    Postgres(PostgresStore),
}

impl Measured {
    /// A new handle on the target, with the index settings (for PostgreSQL the size from which
    /// a space is indexed and the search breadth, at most pgvector's 1,000).
    fn open(target: &Target, ann: &AnnSettings) -> Result<Self> {
        Ok(match target {
            Target::Sqlite(db) => {
                Measured::Sqlite(SqliteStore::open(db)?.with_ann_settings(ann.clone()))
            }
            Target::Postgres(url) => Measured::Postgres(
                PostgresStore::open(url)?
                    .with_index_min_vectors(ann.min_vectors)
                    .with_index_search_breadth(ann.expansion_search),
            ),
        })
    }

    fn store(&self) -> &dyn Store {
        match self {
            Measured::Sqlite(store) => store,
            Measured::Postgres(store) => store,
        }
    }

    fn into_store(self) -> Box<dyn Store> {
        match self {
            Measured::Sqlite(store) => Box::new(store),
            Measured::Postgres(store) => Box::new(store),
        }
    }

    fn nearest_exact(
        &self,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> cairn_core::Result<Vec<SignalHit>> {
        match self {
            Measured::Sqlite(store) => store.nearest_exact(TEXT, query, filter, now, depth),
            Measured::Postgres(store) => store.nearest_exact(TEXT, query, filter, now, depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_core::MemoryId;

    #[test]
    fn a_blend_is_the_three_vectors_weighted_and_normalised() {
        let (main, other, third) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        let mut rng = Rng::new(7);
        let blend = blended([&main, &other, &third], 0.0, &mut rng);
        let norm = (1.0f32 + 0.25 + 0.0625).sqrt();
        for (got, want) in blend.iter().zip([1.0 / norm, 0.5 / norm, 0.25 / norm]) {
            assert!((got - want).abs() < 1e-6, "{blend:?}");
        }
        // Noise, when asked for, moves the blend off that point but keeps it a unit vector.
        let noisy = blended([&main, &other, &third], 0.025, &mut rng);
        assert!(noisy.iter().zip(&blend).any(|(a, b)| (a - b).abs() > 1e-4));
        let length = noisy.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-5, "{length}");
    }

    #[test]
    fn a_near_tie_counts_only_in_the_recall_with_ties() {
        let hit = |raw: f64| SignalHit {
            id: MemoryId::generate(),
            raw,
        };
        let exact: Vec<SignalHit> = (0..10).map(|i| hit(0.9 - 0.01 * i as f64)).collect();
        let tenth = exact[9].raw;
        let mut returned = exact[..8].to_vec();
        returned.push(hit(tenth - TIE / 2.0)); // not the exact 9th or 10th, but as close
        returned.push(hit(tenth - 10.0 * TIE)); // clearly further
        let mut accuracy = IndexAccuracy::default();
        accuracy.add(&exact, &returned);
        assert_eq!(accuracy.recall(), 0.8);
        assert_eq!(accuracy.recall_with_ties(), 0.9);
        assert!(accuracy.similarity_ratio() < 1.0);
    }
}
