//! cairn-bench: the project's benchmark harness. It prints numbers; it asserts nothing.
//!
//! `agents` times hook events and context packing (see `agents.rs`). `scale` generates synthetic corpora of the given sizes, bulk-imports each through the real
//! `cairn` binary, and times searches both as whole `cairn search` processes (start to exit,
//! what an agent's shell call costs) and in-process through the service. `corpus` writes a
//! corpus as JSON Lines for other uses. Build in release mode:
//!
//! ```text
//! cargo build --release -p cairn-memory-cli -p cairn-bench
//! target/release/cairn-bench scale --sizes 10000,100000
//! ```

use cairn_bench::{
    agents, conflicts, cranfield, embedding, exchange, history, hybrid, locomo, scale, serve,
};

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use cairn_core::embedding::Embedder;
use cairn_store_sqlite::{AnnSettings, ScalarKind};
use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cairn-bench",
    about = "Benchmarks for cairn: throughput, latency percentiles, memory, store size"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Internal: runs a program and reports its wall time and peak RSS (see measure.rs).
    #[command(name = cairn_bench::measure::MEASURE_CHILD, hide = true)]
    MeasureChild {
        program: std::ffi::OsString,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Import throughput, store size and search latency at several corpus sizes.
    Scale {
        #[command(flatten)]
        run: CorpusRun,
        /// Imports per size (the median is reported).
        #[arg(long, default_value_t = 3)]
        import_runs: usize,
        /// `cairn search` processes per size (and as many in-process searches).
        #[arg(long, default_value_t = 50)]
        search_runs: usize,
        /// Measure a PostgreSQL database (each import in a fresh schema) instead of SQLite files.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
    },
    /// Moving a store: `cairn export`, `cairn import` of that export and of plain records,
    /// `cairn backup` (memories per second, medians), and the round trip checked byte for byte.
    Exchange {
        #[command(flatten)]
        run: CorpusRun,
        /// Runs of each step per size (the median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Move the store into this PostgreSQL database (fresh schemas) and back, instead of
        /// into a new SQLite file.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
    },
    /// `cairn serve` under load from wrk: search and store throughput, latency, errors, RSS.
    Serve {
        #[command(flatten)]
        run: CorpusRun,
        /// Concurrent connections.
        #[arg(long, default_value_t = 10)]
        connections: usize,
        /// wrk threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Seconds per load.
        #[arg(long, default_value_t = 15)]
        seconds: u64,
        /// Embed the corpus first and serve hybrid search (needs the model).
        #[arg(long)]
        semantic: bool,
        /// Serve a PostgreSQL database (a fresh schema per size) instead of a SQLite file.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// Servers on the one store; the connections are spread over them.
        #[arg(long, default_value_t = 1)]
        servers: usize,
    },
    /// Agent hooks and context: `cairn hook` processes (PostToolUse, SessionStart) start to
    /// exit, and `cairn context` as a process and in process.
    Agents {
        #[command(flatten)]
        run: CorpusRun,
        /// PostToolUse hook processes per size.
        #[arg(long, default_value_t = 1000)]
        events: usize,
        /// SessionStart hooks, `cairn context` processes and in-process contexts per size.
        #[arg(long, default_value_t = 50)]
        contexts: usize,
    },
    /// An agent's history imported (`cairn import --agent claude-code`): a generated Claude Code
    /// history of `sessions` transcripts, sessions/s and observations/s of a first import into
    /// a fresh store, peak RSS, and the same history imported again (adds nothing).
    History {
        /// Sessions in the generated history.
        #[arg(long, default_value_t = 2000)]
        sessions: usize,
        /// Turns per session (each a prompt, three tool calls and a closing message).
        #[arg(long, default_value_t = 10)]
        turns: usize,
        /// First imports into fresh stores; the median is reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[command(flatten)]
        run: ProcessRun,
    },
    /// Faults through the real binary: killed writers (CLI, HTTP, hooks), a full disk, a
    /// damaged database and a damaged vector index; prints what was acknowledged, what was
    /// found after, crashes, hangs and what the doctor detected.
    Faults {
        /// Rounds of each kind (disk-full rounds: at most 5).
        #[arg(long, default_value_t = 20)]
        rounds: usize,
        /// Only these kinds of rounds, comma-separated: kill, disk, database, index.
        #[arg(long, value_delimiter = ',')]
        kinds: Vec<String>,
        #[command(flatten)]
        run: ProcessRun,
    },
    /// Write a synthetic corpus as JSON Lines (the `cairn import` format).
    Corpus {
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Retrieval quality on LoCoMo-format conversations (recall_any@k, recall@10, MRR, nDCG@10).
    Locomo {
        /// A LoCoMo-format JSON file, e.g. ../shared/bench-data/locomo-dev.json.
        file: PathBuf,
        #[command(flatten)]
        retrieval: RetrievalArgs,
        /// Also write every question's ranking in every mode (50 deep, with raw scores) to this
        /// file as JSON Lines, for analysis outside the harness.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// The file's sessions are projects (codemem-global-dev.json): session n's turns are
        /// stored in project `session-n`, and each question is asked from its evidence's project
        /// over every project's memories (`cairn search --all-projects` run in that project).
        #[arg(long)]
        sessions_are_projects: bool,
        #[arg(long)]
        json: bool,
    },
    /// Embedding throughput and hybrid search latency (query embedding included), in process.
    Hybrid {
        /// Corpus sizes (memories), comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
        sizes: Vec<u64>,
        /// Memories embedded for real; the rest get blends of three of their vectors, with the
        /// sentence vectors of the first (see hybrid.rs).
        #[arg(long, default_value_t = 2000)]
        embed: u64,
        /// Standard deviation, per dimension, of Gaussian noise added to each blend (none by
        /// default; 0.025 is the noise of the blends measured before November 2026): the larger,
        /// the more the exact top 10 among blends is decided by noise, not by the real vectors.
        #[arg(long, default_value_t = hybrid::BLEND_NOISE)]
        blend_noise: f64,
        /// Stores with at least this many vectors get the HNSW index (0 forces it, to measure the
        /// crossover against the exact scan).
        #[arg(long, default_value_t = AnnSettings::default().min_vectors)]
        index_from: u64,
        /// Precision of the vectors inside the index.
        #[arg(long, value_enum, default_value_t = Quantization::I8)]
        quantization: Quantization,
        /// The index's search breadth (ef; default: the store's own: for SQLite's index 1,024,
        /// one per 250 vectors past 256,000 (4,000 at a million); 400 for PostgreSQL's).
        #[arg(long)]
        ef_search: Option<usize>,
        /// Also search the built index at these breadths (comma-separated), against the same
        /// exact top 10: recall and latency for each, from one build (at most 1,000 with
        /// --store: pgvector's limit).
        #[arg(long, value_delimiter = ',')]
        ef_sweep: Vec<usize>,
        /// The index's breadth while inserting (efConstruction): build time against recall.
        #[arg(long, default_value_t = AnnSettings::default().expansion_add)]
        ef_add: usize,
        /// The index's graph degree (M): links per vector, against build time and size.
        #[arg(long, default_value_t = AnnSettings::default().connectivity)]
        connectivity: usize,
        /// Searches per mode.
        #[arg(long, default_value_t = 100)]
        searches: usize,
        /// Measure a PostgreSQL database (a fresh schema per size; pgvector's HNSW index, built
        /// by the store with its own m and ef_construction; --index-from and --ef-search, at
        /// most 1,000, apply) instead of a SQLite file.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Directory for the scratch stores (default: the system temp dir).
        #[arg(long)]
        workdir: Option<PathBuf>,
        /// The cairn binary whose `cairn search --mode hybrid` process is measured on the
        /// finished store (default: the one beside this program; skipped with a notice when
        /// there is none).
        #[arg(long)]
        cairn: Option<PathBuf>,
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long)]
        json: bool,
    },
    /// Embedding throughput (every turn of a LoCoMo-format file embedded as the queue embeds a
    /// memory: headline and text, whole and sentence by sentence; all cores), one-question
    /// latency, and agreement with the f32 reference.
    Embed {
        /// A LoCoMo-format JSON file, e.g. ../shared/bench-data/locomo-dev.json.
        file: PathBuf,
        /// The model directory (default: where cairn finds it).
        #[arg(long)]
        model_dir: Option<PathBuf>,
        /// Passes over all the turns (the median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Questions embedded one at a time.
        #[arg(long, default_value_t = 200)]
        queries: usize,
        /// Threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Skip the f32 reference (and the agreement it measures).
        #[arg(long)]
        no_reference: bool,
        #[arg(long)]
        json: bool,
    },
    /// Conflict candidates: precision and recall over the labelled pairs (those the rules were
    /// chosen on and those written apart; with and without the model), the judgments real
    /// projects' rules raise (--codemem), and what detection adds to a write in a large project.
    Conflicts {
        #[command(flatten)]
        model: ModelArgs,
        /// Also measure the write overhead in a project of this many memories (0: skip).
        #[arg(long, default_value_t = 100_000)]
        overhead_size: u64,
        /// Writes timed each way for the overhead.
        #[arg(long, default_value_t = 300)]
        writes: usize,
        /// codemem's folder: count the judgments its rules raise, one store per repository
        /// and all in one project.
        #[arg(long)]
        codemem: Option<PathBuf>,
        /// Write every write's best neighbours with both texts here (JSON lines).
        #[arg(long)]
        dump: Option<PathBuf>,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// CLIP: loading, an image's vector, a query's vector (its own ids and the whole context),
    /// peak memory. A CLIP, SigLIP or MobileCLIP directory from CAIRN_CLIP_DIR or the cache;
    /// else ViT-B/32 on seeded weights (needs CAIRN_CLIP_DATA for CLIP's merges), SigLIP's base
    /// with --siglip (needs nothing) or MobileCLIP-S2 with --mobileclip (CAIRN_CLIP_DATA): the
    /// same arithmetic, so the same time.
    Clip {
        /// Pictures whose vectors are timed.
        #[arg(long, default_value_t = 20)]
        images: usize,
        /// Queries whose vectors are timed.
        #[arg(long, default_value_t = 36)]
        queries: usize,
        /// Without CAIRN_CLIP_DIR, time SigLIP's base architecture (google/siglip-base-patch16-224's
        /// shape) on seeded weights instead of CLIP's ViT-B/32.
        #[arg(long, conflicts_with = "mobileclip")]
        siglip: bool,
        /// Without CAIRN_CLIP_DIR, time MobileCLIP-S2's architecture on seeded weights (needs
        /// CAIRN_CLIP_DATA for CLIP's merges).
        #[arg(long)]
        mobileclip: bool,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Images: a write's time with a new screenshot sent inline (760×230 and 1920×1080), with
    /// one already stored, and without an image; thumbnails.
    Images {
        /// Writes timed per kind and size.
        #[arg(long, default_value_t = 200)]
        writes: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// OCR: character error rate on screenshots drawn from known text (terminal and dialog,
    /// light and dark, 760×230 and 1920×1080), seconds per image, and whether "connection
    /// refused 5432" finds the psql screenshot first among other screenshots. Needs the OCR
    /// model (`cairn model install ocr`) and the DejaVu fonts.
    Ocr {
        /// Other screenshots the psql one is hidden among.
        #[arg(long, default_value_t = 200)]
        others: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Look: whether image → image vision search finds rescaled, recoloured and re-encoded
    /// copies of a screenshot first among other screenshots and photos, the look hashes' bit
    /// distances, hashing time and search latency. Needs the DejaVu fonts.
    Look {
        /// Images stored (two thirds screenshots, a third photos).
        #[arg(long, default_value_t = 300)]
        others: usize,
        /// Screenshots whose copies are searched for.
        #[arg(long, default_value_t = 40)]
        originals: usize,
        /// Also time vision search over stores of these many small images (e.g. 10000,100000).
        #[arg(long, value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Give the --sizes stores' images look vectors of the real model's size (made by a
        /// cheap stand-in, so only the scan's cost is measured) and search them too.
        #[arg(long)]
        with_vectors: bool,
        /// Give the --sizes stores' images CLIP vectors (by a cheap stand-in) and search them
        /// with the words too.
        #[arg(long)]
        with_clip: bool,
        /// The size of those CLIP vectors: 512 as ViT-B/32's, 768 as SigLIP base's.
        #[arg(long, default_value_t = 512)]
        clip_dims: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Markdown files: a write's extra time when its project keeps files, `files init`, and
    /// `files sync` over a large workspace (unchanged and after one hand edit).
    Files {
        /// Memories in the project, all written out as units (over a year of day files).
        #[arg(long, default_value_t = 10_000)]
        units: u64,
        /// Writes timed each way (with and without files).
        #[arg(long, default_value_t = 300)]
        writes: usize,
        /// Syncs timed each way.
        #[arg(long, default_value_t = 5)]
        syncs: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        #[arg(long)]
        workdir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Retrieval quality on the Cranfield collection (MAP, nDCG@10, recall@100).
    Cranfield {
        /// The directory holding cran.all.1400, cran.qry and cranqrel.
        dir: PathBuf,
        #[command(flatten)]
        retrieval: RetrievalArgs,
        #[arg(long)]
        json: bool,
    },
}

/// Which embedding model the semantic modes use.
#[derive(clap::Args)]
struct ModelArgs {
    /// Skip the semantic and hybrid modes.
    #[arg(long)]
    no_semantic: bool,
    /// The model directory (default: where cairn finds it: CAIRN_MODEL_DIR, the Hugging Face
    /// cache).
    #[arg(long)]
    model_dir: Option<PathBuf>,
}

/// How a retrieval collection is searched: the model, the `[search]` settings and the backend.
#[derive(clap::Args)]
struct RetrievalArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// A cairn config file whose `[search]` section the searches use instead of the defaults
    /// (to measure a setting before choosing it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Load every collection into a fresh schema of this PostgreSQL database instead of an
    /// in-memory SQLite store (to compare the backends on the same data).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
}

impl RetrievalArgs {
    fn backend(&self) -> cairn_bench::collection::Backend {
        match &self.store {
            Some(url) => cairn_bench::collection::Backend::Postgres(url.clone()),
            None => cairn_bench::collection::Backend::Sqlite,
        }
    }

    fn search(&self) -> Result<cairn_core::config::SearchConfig> {
        Ok(match &self.config {
            None => Default::default(),
            Some(file) => {
                let sources = cairn_core::config::ConfigSources {
                    user_file: Some(file.clone()),
                    ..Default::default()
                };
                cairn_core::config::Config::load(&sources)?.search
            }
        })
    }
}

impl ModelArgs {
    fn embedder(&self) -> Result<Option<Arc<dyn Embedder>>> {
        if self.no_semantic {
            return Ok(None);
        }
        let configured = self
            .model_dir
            .clone()
            .or_else(|| std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from));
        match cairn_embed::locate(configured.as_deref(), cairn_embed::DEFAULT_MODEL)? {
            Some(location) => Ok(Some(Arc::new(cairn_embed::SentenceEmbedder::load(
                &location.dir,
                cairn_embed::DEFAULT_MODEL,
            )?))),
            None => {
                eprintln!(
                    "no embedding model installed: semantic and hybrid modes skipped (cairn model install)"
                );
                Ok(None)
            }
        }
    }
}

/// What every workload over generated corpora run through the `cairn` binary takes.
#[derive(Args)]
struct CorpusRun {
    /// Corpus sizes (memories), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
    sizes: Vec<u64>,
    #[command(flatten)]
    process: ProcessRun,
}

/// A corpus run is a process run over corpora of these sizes.
impl std::ops::Deref for CorpusRun {
    type Target = ProcessRun;

    fn deref(&self) -> &ProcessRun {
        &self.process
    }
}

/// A workload run through the real binary on scratch stores.
#[derive(Debug, clap::Args)]
struct ProcessRun {
    /// The cairn binary (default: the one beside this program).
    #[arg(long)]
    cairn: Option<PathBuf>,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Directory for the scratch files and stores (default: the system temp dir).
    #[arg(long)]
    workdir: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

impl ProcessRun {
    /// The cairn binary to run: `--cairn`, else the one beside this program.
    fn cairn(&self) -> Result<PathBuf> {
        match &self.cairn {
            Some(path) => Ok(path.clone()),
            None => sibling_cairn(),
        }
    }

    /// Prints the results as JSON with `--json`, else as the workload's table.
    fn print<T: serde::Serialize>(
        &self,
        results: &T,
        table: impl FnOnce() -> String,
    ) -> Result<()> {
        if self.json {
            println!("{}", serde_json::to_string_pretty(results)?);
        } else {
            print!("{}", table());
        }
        Ok(())
    }
}

/// A scratch directory in `workdir` (default: the system temp dir), deleted when dropped.
fn scratch_dir(workdir: Option<PathBuf>, prefix: &str) -> Result<tempfile::TempDir> {
    let base = workdir.unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&base)?;
    Ok(tempfile::Builder::new().prefix(prefix).tempdir_in(base)?)
}

fn sibling_cairn() -> Result<PathBuf> {
    let me = std::env::current_exe().context("cannot locate cairn-bench itself")?;
    let cairn = me.with_file_name("cairn");
    if !cairn.is_file() {
        bail!(
            "no cairn binary at {}; build it (cargo build --release -p cairn-memory-cli) or pass --cairn",
            cairn.display()
        );
    }
    Ok(cairn)
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::MeasureChild { program, args } => {
            cairn_bench::measure::measure_child(&program, &args)?;
        }
        Command::Scale {
            run,
            import_runs,
            search_runs,
            store,
        } => {
            let options = scale::ScaleOptions {
                sizes: run.sizes.clone(),
                store,
                import_runs: import_runs.max(1),
                search_runs: search_runs.max(1),
                cairn: run.cairn()?,
                seed: run.seed,
                workdir: run.workdir.clone(),
            };
            let results = scale::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&results, || scale::table(&results))?;
        }
        Command::Exchange { run, runs, store } => {
            let options = exchange::ExchangeOptions {
                store,
                sizes: run.sizes.clone(),
                runs: runs.max(1),
                cairn: run.cairn()?,
                seed: run.seed,
                workdir: run.workdir.clone(),
            };
            let results = exchange::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&results, || exchange::table(&results))?;
        }
        Command::Serve {
            run,
            connections,
            threads,
            seconds,
            semantic,
            store,
            servers,
        } => {
            let options = serve::ServeOptions {
                semantic,
                store,
                servers: servers.max(1),
                sizes: run.sizes.clone(),
                cairn: run.cairn()?,
                connections: connections.max(1),
                threads: threads.clamp(1, connections.max(1)),
                seconds: seconds.max(1),
                seed: run.seed,
                workdir: run.workdir.clone(),
            };
            let results = serve::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&results, || serve::table(&results, &options))?;
        }
        Command::Agents {
            run,
            events,
            contexts,
        } => {
            let options = agents::AgentsOptions {
                sizes: run.sizes.clone(),
                events: events.max(1),
                contexts: contexts.max(1),
                cairn: run.cairn()?,
                seed: run.seed,
                workdir: run.workdir.clone(),
            };
            let results = agents::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&results, || agents::table(&results))?;
        }
        Command::History {
            sessions,
            turns,
            runs,
            run,
        } => {
            let options = history::HistoryOptions {
                sessions: sessions.max(1),
                turns: turns.max(1),
                runs,
                cairn: run.cairn()?,
                seed: run.seed,
                workdir: run.workdir.clone(),
            };
            let result = history::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&result, || history::table(&result))?;
        }
        Command::Locomo {
            file,
            retrieval,
            dump,
            sessions_are_projects,
            json,
        } => {
            let mut dump = match dump {
                Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
                None => None,
            };
            let report = locomo::run(
                &file,
                match sessions_are_projects {
                    true => locomo::Sessions::Projects,
                    false => locomo::Sessions::Conversation,
                },
                retrieval.model.embedder()?,
                &retrieval.search()?,
                &retrieval.backend(),
                dump.as_mut().map(|w| w as &mut dyn std::io::Write),
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "LoCoMo: {} conversations, {} turns, {} questions ({} skipped without evidence, {} unmatched evidence ids)",
                    report.conversations,
                    report.turns,
                    report.questions,
                    report.skipped_questions_without_evidence,
                    report.unmatched_evidence_ids
                );
                if let Some(e) = &report.embedding {
                    println!(
                        "embedding: {} turns in {:.1} s ({:.0}/s) with {}",
                        e.memories, e.seconds, e.per_second, e.model
                    );
                }
                println!(
                    "{:<14} {:<16} {:>9} {:>6} {:>6} {:>6} {:>9} {:>6} {:>8}",
                    "mode",
                    "category",
                    "questions",
                    "R@1",
                    "R@5",
                    "R@10",
                    "recall@10",
                    "MRR",
                    "nDCG@10"
                );
                for mode in &report.modes {
                    let row = |name: &str, s: &cairn_bench::metrics::Summary| {
                        println!(
                            "{:<14} {name:<16} {:>9} {:>6.3} {:>6.3} {:>6.3} {:>9.3} {:>6.3} {:>8.3}",
                            mode.mode.name(),
                            s.queries,
                            s.mean.recall_any_1,
                            s.mean.recall_any_5,
                            s.mean.recall_any_10,
                            s.mean.recall_10,
                            s.mean.mrr,
                            s.mean.ndcg_10
                        )
                    };
                    for (name, summary) in &mode.by_category {
                        row(name, summary);
                    }
                    row("overall", &mode.overall);
                }
                let refused: Vec<String> = report
                    .modes
                    .iter()
                    .map(|m| format!("{} {}", m.mode.name(), m.refused))
                    .collect();
                println!(
                    "questions refused as invalid queries (counted as misses): {}",
                    refused.join(", ")
                );
                if report.modes.iter().any(|m| m.mode.name() == "hybrid") {
                    let shortfalls = report.fusion_shortfalls();
                    match shortfalls.is_empty() {
                        true => println!("fusion never worse than a signal alone: yes"),
                        false => println!(
                            "fusion never worse than a signal alone: no ({})",
                            shortfalls.join("; ")
                        ),
                    }
                }
            }
        }
        Command::Embed {
            file,
            model_dir,
            runs,
            queries,
            threads,
            no_reference,
            json,
        } => {
            let configured =
                model_dir.or_else(|| std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from));
            let Some(location) =
                cairn_embed::locate(configured.as_deref(), cairn_embed::DEFAULT_MODEL)?
            else {
                bail!("the embedding benchmark needs the model: cairn model install");
            };
            let (texts, questions) = locomo::texts(&file)?;
            let options = embedding::EmbeddingOptions {
                runs,
                queries,
                threads,
                reference: !no_reference,
            };
            let report = embedding::run(
                &location.dir,
                cairn_embed::DEFAULT_MODEL,
                &texts,
                &questions,
                &options,
                &mut |step| eprintln!("… {step}"),
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", embedding::table(&report));
            }
        }
        Command::Ocr {
            others,
            seed,
            workdir,
            json,
        } => {
            let configured = std::env::var_os("CAIRN_OCR_DIR").map(PathBuf::from);
            let Some(ocr_dir) = cairn_embed::ocr::locate_ocr(configured.as_deref())? else {
                anyhow::bail!("no OCR model is installed: run `cairn model install ocr`");
            };
            let Some(fonts) = cairn_embed::render::Fonts::find() else {
                anyhow::bail!(
                    "the DejaVu fonts are missing: install Debian's fonts-dejavu-core, or set \
                     CAIRN_FONT_DIR"
                );
            };
            let scratch = scratch_dir(workdir, "cairn-bench-ocr-")?;
            let options = cairn_bench::ocr::OcrOptions { seed, others };
            let report =
                cairn_bench::ocr::run(scratch.path(), &ocr_dir, &fonts, &options, &mut |step| {
                    eprintln!("… {step}")
                })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", cairn_bench::ocr::table(&report));
            }
        }
        Command::Look {
            others,
            originals,
            sizes,
            with_vectors,
            with_clip,
            clip_dims,
            seed,
            workdir,
            json,
        } => {
            let Some(fonts) = cairn_embed::render::Fonts::find() else {
                anyhow::bail!(
                    "the DejaVu fonts are missing: install Debian's fonts-dejavu-core, or set \
                     CAIRN_FONT_DIR"
                );
            };
            let scratch = scratch_dir(workdir, "cairn-bench-look-")?;
            let configured = std::env::var_os("CAIRN_LOOK_DIR").map(PathBuf::from);
            let look_model: Option<Arc<dyn cairn_core::image::LookModel>> =
                match cairn_embed::look::locate_look(configured.as_deref())? {
                    Some(dir) => Some(Arc::new(cairn_embed::look::LookNetwork::new(&dir))),
                    None => {
                        eprintln!(
                            "the look model is not installed (cairn model install look): \
                             measuring look hashes only"
                        );
                        None
                    }
                };
            let options = cairn_bench::look::LookOptions {
                seed,
                others,
                originals,
                look_model,
            };
            let report = cairn_bench::look::run(scratch.path(), &fonts, &options, &mut |step| {
                eprintln!("… {step}")
            })?;
            let mut scaled = Vec::new();
            for size in sizes {
                scaled.push(cairn_bench::look::scale(
                    scratch.path(),
                    size,
                    seed,
                    with_vectors,
                    with_clip.then_some(clip_dims),
                    &mut |step| eprintln!("… {step}"),
                )?);
            }
            if json {
                let both = serde_json::json!({"copies": report, "scale": scaled});
                println!("{}", serde_json::to_string_pretty(&both)?);
            } else {
                print!("{}", cairn_bench::look::table(&report));
                print!("{}", cairn_bench::look::scale_table(&scaled));
            }
        }
        Command::Clip {
            images,
            queries,
            siglip,
            mobileclip,
            seed,
            workdir,
            json,
        } => {
            let scratch = scratch_dir(workdir, "cairn-bench-clip-")?;
            let configured = std::env::var_os("CAIRN_CLIP_DIR").map(PathBuf::from);
            let clip_dir = cairn_embed::clip::locate_clip(configured.as_deref())?.map(|(d, _)| d);
            let merges = std::env::var_os("CAIRN_CLIP_DATA")
                .map(|d| PathBuf::from(d).join("bpe_simple_vocab_16e6.txt.gz"));
            let options = cairn_bench::clip::ClipOptions {
                images,
                queries,
                seed,
                siglip,
                mobileclip,
            };
            let cairn = sibling_cairn()
                .inspect_err(|error| eprintln!("{error}: timing the towers in this process only"))
                .ok();
            let report = cairn_bench::clip::run(
                scratch.path(),
                clip_dir,
                merges,
                cairn.as_deref(),
                &options,
                &mut |step| eprintln!("… {step}"),
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", cairn_bench::clip::table(&report));
            }
        }
        Command::Images {
            writes,
            seed,
            workdir,
            json,
        } => {
            let scratch = scratch_dir(workdir, "cairn-bench-images-")?;
            let options = cairn_bench::images::ImagesOptions {
                writes: writes.max(1),
                seed,
            };
            let report = cairn_bench::images::run(scratch.path(), &options, &mut |step| {
                eprintln!("… {step}")
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "store without an image      p50/p95/p99 {}",
                    report.store_without_image.p50_p95_p99()
                );
                for size in &report.sizes {
                    println!(
                        "{}×{} (PNG, mean {:.0} KiB)",
                        size.width,
                        size.height,
                        size.mean_bytes as f64 / 1024.0
                    );
                    println!(
                        "  store with a new image    p50/p95/p99 {}",
                        size.store_new_image.p50_p95_p99()
                    );
                    println!(
                        "  store with a stored image p50/p95/p99 {}",
                        size.store_same_image.p50_p95_p99()
                    );
                    println!(
                        "  thumbnail (made once)     p50/p95/p99 {}",
                        size.thumbnail.p50_p95_p99()
                    );
                }
            }
        }
        Command::Files {
            units,
            writes,
            syncs,
            seed,
            workdir,
            json,
        } => {
            let scratch = scratch_dir(workdir, "cairn-bench-files-")?;
            let options = cairn_bench::files::FilesOptions {
                units,
                writes: writes.max(1),
                syncs: syncs.max(1),
                seed,
            };
            let report = cairn_bench::files::run(scratch.path(), &options, &mut |step| {
                eprintln!("… {step}")
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "{} units in {} files ({:.1} MiB); files init {:.2} s",
                    report.units,
                    report.files,
                    report.bytes as f64 / (1024.0 * 1024.0),
                    report.init_seconds
                );
                println!(
                    "write with files     p50/p95/p99 {}",
                    report.write_with_files.p50_p95_p99()
                );
                println!(
                    "write without files  p50/p95/p99 {}",
                    report.write_without_files.p50_p95_p99()
                );
                println!("extra p50            {:.2} ms", report.extra_p50_ms);
                println!(
                    "sync, unchanged      p50/p95/p99 {}",
                    report.sync_unchanged.p50_p95_p99()
                );
                println!(
                    "sync, one hand edit  p50/p95/p99 {}",
                    report.sync_one_edit.p50_p95_p99()
                );
            }
        }
        Command::Conflicts {
            model,
            overhead_size,
            writes,
            codemem,
            dump,
            seed,
            workdir,
            json,
        } => {
            let scratch = scratch_dir(workdir, "cairn-bench-conflicts-")?;
            let mut rows = Vec::new();
            let embedder = model.embedder()?;
            let mut quality = Vec::new();
            for (set, pairs) in [
                ("chosen on", conflicts::pairs()?),
                ("written apart", conflicts::fresh_pairs()?),
            ] {
                quality.push(conflicts::quality(
                    set,
                    &pairs,
                    None,
                    scratch.path(),
                    &mut rows,
                )?);
                if let Some(embedder) = &embedder {
                    quality.push(conflicts::quality(
                        set,
                        &pairs,
                        Some(embedder.clone()),
                        scratch.path(),
                        &mut rows,
                    )?);
                }
            }
            let mut rules = Vec::new();
            if let Some(dir) = &codemem {
                let file = dir.join("codemem-projects-dev.json");
                for one_project in [false, true] {
                    rules.push(conflicts::rules(
                        &file,
                        one_project,
                        embedder.clone(),
                        scratch.path(),
                        &mut rows,
                    )?);
                }
            }
            if let Some(path) = &dump {
                let mut out = String::new();
                for row in &rows {
                    out += &serde_json::to_string(row)?;
                    out.push('\n');
                }
                std::fs::write(path, out)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            let mut overhead = Vec::new();
            if overhead_size > 0 {
                overhead.push(conflicts::overhead(
                    overhead_size,
                    writes.max(1),
                    seed,
                    scratch.path(),
                    &mut |step| eprintln!("… {step}"),
                )?);
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "quality": quality,
                        "rules": rules,
                        "overhead": overhead,
                    }))?
                );
            } else {
                print!("{}", conflicts::table(&quality, &rules, &overhead));
            }
        }
        Command::Cranfield {
            dir,
            retrieval,
            json,
        } => {
            let report = cranfield::run(
                &dir,
                retrieval.model.embedder()?,
                &retrieval.search()?,
                &retrieval.backend(),
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "Cranfield: {} documents, {} queries",
                    report.documents, report.queries
                );
                let rows = report.modes.iter().flat_map(|m| {
                    [
                        (format!("{} all pairs", m.mode.name()), &m.all_pairs),
                        (format!("{} graded 1-4", m.mode.name()), &m.graded),
                    ]
                });
                for (name, p) in rows {
                    println!(
                        "  {name:<27} MAP {:.4}  nDCG@10 {:.4}  recall@100 {:.4}  MRR {:.4}  ({} queries)",
                        p.map, p.ndcg_10, p.recall_100, p.summary.mean.mrr, p.summary.queries
                    );
                }
            }
        }
        Command::Hybrid {
            sizes,
            embed,
            blend_noise,
            index_from,
            quantization,
            ef_search,
            ef_sweep,
            ef_add,
            connectivity,
            searches,
            store,
            seed,
            workdir,
            cairn,
            model,
            json,
        } => {
            if let Some(wide) = ef_sweep.iter().find(|&&ef| ef > 1_000 && store.is_some()) {
                bail!(
                    "--ef-sweep {wide}: PostgreSQL's index searches at most 1,000 wide \
                     (pgvector's ef_search limit)"
                );
            }
            let Some(embedder) = model.embedder()? else {
                bail!("the hybrid benchmark needs the model: cairn model install");
            };
            let cairn = match cairn.map_or_else(sibling_cairn, Ok) {
                Ok(binary) => Some((binary, model.model_dir.clone())),
                Err(why) => {
                    eprintln!("search process not measured: {why}");
                    None
                }
            };
            let scratch = scratch_dir(workdir, "cairn-bench-")?;
            let mut results = Vec::new();
            for size in sizes {
                let options = hybrid::HybridOptions {
                    size,
                    embed: embed.min(size).max(1),
                    blend_noise,
                    ef_sweep: ef_sweep.clone(),
                    searches: searches.max(1),
                    seed,
                    ann: AnnSettings {
                        min_vectors: index_from,
                        quantization: quantization.kind(),
                        expansion_search: ef_search.unwrap_or(match store {
                            None => AnnSettings::default().expansion_search,
                            Some(_) => cairn_store_postgres::INDEX_EF_SEARCH,
                        }),
                        expansion_add: ef_add,
                        connectivity,
                        // A breadth given is used as given; the default grows with the index.
                        vectors_per_expansion: match ef_search {
                            Some(_) => 0,
                            None => AnnSettings::default().vectors_per_expansion,
                        },
                        ..AnnSettings::default()
                    },
                    postgres: store.clone(),
                    cairn: cairn.clone(),
                };
                results.push(hybrid::run(
                    scratch.path(),
                    &options,
                    embedder.clone(),
                    &mut |step| eprintln!("… {step}"),
                )?);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else {
                println!(
                    "{:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>20} {:>20} {:>20} {:>20} {:>20} {:>20} {:>20} {:>8} {:>18} {:>11}",
                    "memories",
                    "embed/s",
                    "index s",
                    "recall10",
                    "w/ ties",
                    "sim ratio",
                    "nearest p50/p99",
                    "exact scan p50/p99",
                    "in project p50/p99",
                    "query embed p50/p99",
                    "semantic p50/p99",
                    "hybrid p50/p99",
                    "lexical p50/p99",
                    "RSS MiB",
                    "search process p50",
                    "its RSS MiB"
                );
                for r in &results {
                    let pair = |p: &cairn_bench::measure::Percentiles| {
                        format!("{:.2} / {} ms", p.p50_ms, p.p99(2))
                    };
                    println!(
                        "{:>9} {:>8.0} {:>9} {:>9.3} {:>9.3} {:>9.4} {:>20} {:>20} {:>20} {:>20} {:>20} {:>20} {:>20} {:>8.0} {:>18} {:>11}",
                        r.memories,
                        r.embed_per_second,
                        r.index_build_seconds
                            .map_or("-".to_string(), |s| format!("{s:.1}")),
                        r.index_recall_at_10,
                        r.index_recall_at_10_ties,
                        r.index_similarity_ratio,
                        pair(&r.nearest),
                        pair(&r.exact_scan),
                        pair(&r.nearest_in_project),
                        pair(&r.query_embedding),
                        pair(&r.semantic),
                        pair(&r.hybrid),
                        pair(&r.lexical),
                        r.peak_rss_mib,
                        r.search_process
                            .as_ref()
                            .map_or("-".to_string(), |p| format!("{:.0} ms", p.wall.p50_ms)),
                        r.search_process
                            .as_ref()
                            .map_or("-".to_string(), |p| format!("{:.0}", p.peak_rss_mib)),
                    );
                }
                if results.iter().any(|r| !r.ef_sweep.is_empty()) {
                    println!(
                        "\n{:>9} {:>6} {:>9} {:>9} {:>9} {:>20}",
                        "memories", "ef", "recall10", "w/ ties", "sim ratio", "nearest p50/p99"
                    );
                    for r in &results {
                        for point in &r.ef_sweep {
                            println!(
                                "{:>9} {:>6} {:>9.3} {:>9.3} {:>9.4} {:>20}",
                                r.memories,
                                point.ef,
                                point.recall_at_10,
                                point.recall_at_10_ties,
                                point.similarity_ratio,
                                format!(
                                    "{:.2} / {} ms",
                                    point.nearest.p50_ms,
                                    point.nearest.p99(2)
                                )
                            );
                        }
                    }
                }
            }
        }
        Command::Faults { rounds, kinds, run } => {
            let model_dir =
                cairn_embed::locate(None, cairn_embed::DEFAULT_MODEL)?.map(|location| location.dir);
            let options = cairn_bench::faults::FaultsOptions {
                rounds: rounds.max(1),
                // Absolute: every process runs in a store's own directory.
                cairn: std::path::absolute(run.cairn()?)?,
                seed: run.seed,
                workdir: run.workdir.clone(),
                model_dir,
                kinds,
            };
            let results = cairn_bench::faults::run(&options, &mut |step| eprintln!("… {step}"))?;
            run.print(&results, || cairn_bench::faults::table(&results))?;
        }
        Command::Corpus { count, seed, out } => {
            let bytes = scale::write_corpus(&out, count, seed)?;
            eprintln!(
                "wrote {count} memories ({bytes} bytes) to {}",
                out.display()
            );
        }
    }
    Ok(())
}

/// Vector precision inside the HNSW index.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Quantization {
    F32,
    F16,
    I8,
}

impl Quantization {
    fn kind(self) -> ScalarKind {
        match self {
            Quantization::F32 => ScalarKind::F32,
            Quantization::F16 => ScalarKind::F16,
            Quantization::I8 => ScalarKind::I8,
        }
    }
}

#[cfg(test)]
mod tests {
    /// clap checks a command's definition only when the command is parsed, and only in debug
    /// builds: two options of one name (say, one flattened in from a shared struct) panic that
    /// command alone. This checks every command at once.
    #[test]
    fn every_command_is_well_formed() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
