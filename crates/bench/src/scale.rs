//! The scale workload: for each corpus size, bulk-import through the real `cairn` binary, then
//! time `cairn search` processes start to exit and in-process searches through the service.
//!
//! Embedding is off in every `cairn` process it starts, installed model or not: this measures
//! the store's own work (`cairn-bench hybrid` measures meaning).
//!
//! Import runs `cairn import FILE` into a fresh store `import_runs` times and reports the median
//! throughput and the peak RSS of the importing process; store size is the database file after
//! the import process exits. Searches use fixed mixes drawn from the corpus vocabulary, across
//! all projects: one to three words of middling frequency, one or two of the fifty commonest
//! words, a typo of a middling word, and a phrase from a stored memory. Each query is timed in
//! process twice — the first time this process runs it, before any `cairn search` process has,
//! and again after the processes ran it — and as a whole `cairn search` process in between.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use cairn_core::Api;
use cairn_core::ApiParts;
use cairn_core::config::Config;
use cairn_core::memory::MemoryFilter;
use cairn_core::search::SearchRequest;
use cairn_core::store::Store;
use cairn_core::testing::local;
use cairn_store_postgres::PostgresStore;
use cairn_store_postgres::testing::fresh_store;
use cairn_store_sqlite::SqliteStore;
use serde::Serialize;

use crate::corpus::{Corpus, Rng};
use crate::measure::{Percentiles, median, run_child};

pub struct ScaleOptions {
    pub sizes: Vec<u64>,
    /// A PostgreSQL database to measure instead of a SQLite file (each import in a fresh schema).
    pub store: Option<String>,
    pub import_runs: usize,
    pub search_runs: usize,
    pub cairn: PathBuf,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct ScaleResult {
    pub memories: u64,
    pub import_seconds_median: f64,
    pub import_per_second_median: f64,
    pub import_peak_rss_mib: f64,
    pub store_bytes: u64,
    pub store_bytes_per_memory: f64,
    pub corpus_bytes_per_memory: f64,
    /// One entry per kind of query: lexical, common (the commonest words), fuzzy (typos),
    /// phrase.
    pub searches: Vec<QueryKindResult>,
}

/// Latencies of one kind of query.
#[derive(Debug, Serialize)]
pub struct QueryKindResult {
    pub kind: &'static str,
    /// Whole `cairn search` processes, start to exit.
    pub cli: Percentiles,
    pub cli_peak_rss_mib: f64,
    /// Searches through the service in a long-lived process, each query's first run there
    /// (no process has run it before).
    pub in_process_first: Percentiles,
    /// The same searches again, after `cairn search` processes ran them.
    pub in_process_again: Percentiles,
    /// Share of queries that found at least one memory (a sanity check on the mix).
    pub queries_with_results: f64,
}

/// Writes `count` corpus memories as JSON Lines.
pub fn write_corpus(path: &Path, count: u64, seed: u64) -> Result<u64> {
    let corpus = Corpus::new(seed);
    let now = jiff::Timestamp::now();
    let mut out = BufWriter::new(
        File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
    );
    for index in 0..count {
        serde_json::to_writer(&mut out, &corpus.memory(seed, index, now))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

pub fn run(options: &ScaleOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<ScaleResult>> {
    let workdir = options.workdir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&workdir)
        .with_context(|| format!("cannot create the work directory {}", workdir.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("cairn-bench-")
        .tempdir_in(workdir)?;
    let corpus = Corpus::new(options.seed);
    let mut results = Vec::new();
    for &size in &options.sizes {
        let corpus_path = scratch.path().join(format!("corpus-{size}.jsonl"));
        progress(&format!("{size}: generating corpus"));
        let corpus_bytes = write_corpus(&corpus_path, size, options.seed)?;

        let mut seconds = Vec::new();
        let mut peak_rss = 0;
        let mut target = Target::Sqlite(PathBuf::new());
        for attempt in 0..options.import_runs {
            target = Target::new(options.store.as_deref(), scratch.path(), size, attempt)?;
            progress(&format!(
                "{size}: import run {}/{}",
                attempt + 1,
                options.import_runs
            ));
            let run = run_child(
                target
                    .command(&options.cairn)
                    .env("CAIRN_EMBEDDING", "off")
                    .args(["--quiet", "import"])
                    .arg(&corpus_path),
            )?;
            seconds.push(run.wall.as_secs_f64());
            peak_rss = peak_rss.max(run.peak_rss_bytes);
            if attempt + 1 < options.import_runs
                && let Target::Sqlite(db) = &target
            {
                std::fs::remove_file(db).ok();
            }
        }
        let import_seconds = median(&mut seconds);
        let store = target.open()?;
        let store_bytes = target.size_bytes()?;

        let mut rng = Rng::new(options.seed ^ 0x9e3779b9);
        // The commonest words from a generator of their own: the other mixes draw the same
        // queries as before that mix was added, so their figures compare across versions.
        let mut common = Rng::new(options.seed ^ 0xc0ffee);
        let n = options.search_runs;
        let mixes: [(&'static str, Vec<String>); 4] = [
            ("lexical", (0..n).map(|_| corpus.query(&mut rng)).collect()),
            (
                "common",
                (0..n).map(|_| corpus.common_query(&mut common)).collect(),
            ),
            (
                "fuzzy",
                (0..n).map(|_| corpus.typo_query(&mut rng)).collect(),
            ),
            (
                "phrase",
                (0..n)
                    .map(|_| corpus.phrase_query(options.seed, size, &mut rng))
                    .collect(),
            ),
        ];
        let api = Api::open(ApiParts::new(store), &Config::default());
        let request = |query: &str| SearchRequest::new(query, MemoryFilter::default(), 10);
        // Times each query through the service; how many found something.
        let in_process = |queries: &[String]| -> Result<(Percentiles, usize)> {
            let mut times = Vec::new();
            let mut found = 0;
            for query in queries {
                let start = Instant::now();
                let hits = api.search_request(&local(), &request(query))?.hits;
                times.push(start.elapsed());
                found += usize::from(!hits.is_empty());
            }
            Ok((Percentiles::of(&times), found))
        };
        let mut searches = Vec::new();
        for (kind, queries) in &mixes {
            progress(&format!(
                "{size}: {} {kind} searches, as processes and in process",
                queries.len()
            ));
            let (in_process_first, found) = in_process(queries)?;
            let mut cli = Vec::new();
            let mut cli_rss = Vec::new();
            for query in queries {
                let run = run_child(
                    target
                        .command(&options.cairn)
                        .env("CAIRN_EMBEDDING", "off")
                        .args([
                            "search",
                            "--all-projects",
                            "--limit",
                            "10",
                            "--format",
                            "json",
                            "--",
                            query,
                        ]),
                )?;
                cli.push(run.wall);
                cli_rss.push(mib(run.peak_rss_bytes));
            }
            let (in_process_again, _) = in_process(queries)?;
            searches.push(QueryKindResult {
                kind,
                cli: Percentiles::of(&cli),
                cli_peak_rss_mib: median(&mut cli_rss),
                in_process_first,
                in_process_again,
                queries_with_results: found as f64 / queries.len() as f64,
            });
        }

        results.push(ScaleResult {
            memories: size,
            import_seconds_median: import_seconds,
            import_per_second_median: size as f64 / import_seconds,
            import_peak_rss_mib: mib(peak_rss),
            store_bytes,
            store_bytes_per_memory: store_bytes as f64 / size as f64,
            corpus_bytes_per_memory: corpus_bytes as f64 / size as f64,
            searches,
        });
    }
    Ok(results)
}

/// The store one import is measured on: a SQLite file, or a fresh schema of a PostgreSQL
/// database (the URL carries the schema, so every `cairn` process lands in it).
pub(crate) enum Target {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Target {
    pub(crate) fn new(
        postgres: Option<&str>,
        scratch: &Path,
        size: u64,
        attempt: usize,
    ) -> Result<Self> {
        Ok(match postgres {
            None => Target::Sqlite(scratch.join(format!("store-{size}-{attempt}.db"))),
            // Created (and migrated) before the import, so the import measures only itself.
            Some(server) => Target::Postgres(fresh_store(server, "scale")?.1),
        })
    }

    /// `cairn` pointed at this store.
    pub(crate) fn command(&self, cairn: &Path) -> Command {
        let mut command = Command::new(cairn);
        match self {
            Target::Sqlite(db) => command.arg("--db").arg(db),
            Target::Postgres(url) => command.arg("--store").arg(url),
        };
        command
    }

    fn open(&self) -> Result<Box<dyn Store>> {
        Ok(match self {
            Target::Sqlite(db) => Box::new(SqliteStore::open(db)?),
            Target::Postgres(url) => Box::new(PostgresStore::open(url)?),
        })
    }

    fn size_bytes(&self) -> Result<u64> {
        Ok(match self {
            Target::Sqlite(db) => std::fs::metadata(db)?.len(),
            Target::Postgres(url) => PostgresStore::open(url)?.size_bytes()?,
        })
    }
}

/// Plain tables for people: ingest and size, then search latency per kind of query.
pub fn table(results: &[ScaleResult]) -> String {
    let mut out = String::new();
    out.push_str("memories  import/s  import s  import RSS MiB  store MiB  bytes/memory  json bytes/memory\n");
    for r in results {
        out.push_str(&format!(
            "{:>8}  {:>8.0}  {:>8.2}  {:>14.1}  {:>9.1}  {:>12.0}  {:>17.0}\n",
            r.memories,
            r.import_per_second_median,
            r.import_seconds_median,
            r.import_peak_rss_mib,
            mib(r.store_bytes),
            r.store_bytes_per_memory,
            r.corpus_bytes_per_memory,
        ));
    }
    out.push_str("\nmemories  query    in process, first p50/p95/p99 ms  again p50/p95/p99 ms        cli p50/p95/p99 ms      cli RSS MiB  found\n");
    for r in results {
        for k in &r.searches {
            out.push_str(&format!(
                "{:>8}  {:<7}  {:>7.3} /{:>7.3} /{:>7}         {:>7.3} /{:>7.3} /{:>7}  {:>6.2} /{:>6.2} /{:>6}  {:>11.1}  {:>4.0}%\n",
                r.memories,
                k.kind,
                k.in_process_first.p50_ms,
                k.in_process_first.p95_ms,
                k.in_process_first.p99(3),
                k.in_process_again.p50_ms,
                k.in_process_again.p95_ms,
                k.in_process_again.p99(3),
                k.cli.p50_ms,
                k.cli.p95_ms,
                k.cli.p99(2),
                k.cli_peak_rss_mib,
                k.queries_with_results * 100.0,
            ));
        }
    }
    out
}
