//! The exchange workload: moving a store through the real `cairn` binary.
//!
//! For each size: the synthetic corpus is imported once (the store to move); then, each timed
//! `runs` times with the median reported, `cairn export` writes it (memories and slots),
//! `cairn import` reads that export into a fresh store, `cairn import` reads the same memories
//! as plain records (`{"content", "title", "tags", "category", "created_at"}`, each validated,
//! redacted and deduplicated like `cairn store`), and `cairn backup` copies the database.
//! The round trip is checked: the fresh store's export must equal the first byte for byte.
//! Relations imported before their memories (one per two memories of a scope) are timed into
//! the deferred queue, and the import of the memories that applies them against the same import
//! into an empty store; every relation must end applied.
//! `cairn migrate-store` moves the store into a new SQLite file, or with `--store URL` into a
//! fresh schema of that PostgreSQL database and from there back into a new file (each move
//! checks itself; a failed check fails the benchmark). Embedding is off in every `cairn` process
//! it starts, installed model or not: this measures moving memories, not making vectors.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::json;

use cairn_store_postgres::testing::fresh_store;

use crate::measure::{median, run_child};
use crate::scale::write_corpus;

pub struct ExchangeOptions {
    pub sizes: Vec<u64>,
    pub runs: usize,
    pub cairn: PathBuf,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
    /// A PostgreSQL database to move the store into and back (fresh schemas).
    pub store: Option<String>,
}

/// Throughput of one step: memories per second (median of runs) and the process's peak RSS.
#[derive(Debug, Serialize)]
pub struct StepResult {
    pub seconds_median: f64,
    pub per_second_median: f64,
    pub peak_rss_mib: f64,
}

#[derive(Debug, Serialize)]
pub struct ExchangeResult {
    pub memories: u64,
    pub export: StepResult,
    pub import_export: StepResult,
    pub import_plain: StepResult,
    pub backup: StepResult,
    /// `cairn migrate-store` into a new SQLite file, or into PostgreSQL with `--store`.
    pub migrate: StepResult,
    /// `cairn migrate-store` from PostgreSQL back into a new SQLite file (with `--store`).
    pub migrate_back: Option<StepResult>,
    pub deferred: DeferredResult,
    pub export_bytes_per_memory: f64,
    /// The re-imported store exported the same bytes.
    pub round_trip_identical: bool,
}

/// Relations imported before their memories: kept in the deferred queue, then applied by the
/// import that brings the memories (every relation is checked applied, none left waiting).
#[derive(Debug, Serialize)]
pub struct DeferredResult {
    /// One relation per two memories of a scope.
    pub relations: u64,
    /// Relations kept per second by an import of the relations alone.
    pub defer_per_second: f64,
    /// The corpus imported into an empty store.
    pub import_alone: StepResult,
    /// The corpus imported into a store whose queue waits for it: the import applies it.
    pub import_applying: StepResult,
}

pub fn run(
    options: &ExchangeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<ExchangeResult>> {
    let workdir = options.workdir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&workdir)
        .with_context(|| format!("cannot create the work directory {}", workdir.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("cairn-bench-exchange-")
        .tempdir_in(workdir)?;
    let mut results = Vec::new();
    for &size in &options.sizes {
        // One directory per size, removed before the next.
        let dir = scratch.path().join(size.to_string());
        std::fs::create_dir_all(&dir)?;
        let cairn = |db: PathBuf| {
            let mut command = Command::new(&options.cairn);
            command.arg("--db").arg(db).arg("--quiet");
            command.env("CAIRN_EMBEDDING", "off");
            command
        };
        let file = |name: &str| dir.join(name);
        progress(&format!("{size}: generating and importing the corpus"));
        write_corpus(&file("corpus.jsonl"), size, options.seed)?;
        run_child(
            cairn(file("source.db"))
                .arg("import")
                .arg(file("corpus.jsonl")),
        )?;
        write_plain(&file("corpus.jsonl"), &file("plain.jsonl"))?;

        let mut step = |name: &str, make: &dyn Fn(usize) -> Command| -> Result<StepResult> {
            let mut seconds = Vec::new();
            let mut peak = 0;
            for attempt in 0..options.runs {
                progress(&format!("{size}: {name} {}/{}", attempt + 1, options.runs));
                let run = run_child(&mut make(attempt))?;
                seconds.push(run.wall.as_secs_f64());
                peak = peak.max(run.peak_rss_bytes);
            }
            let median = median(&mut seconds);
            Ok(StepResult {
                seconds_median: median,
                per_second_median: size as f64 / median,
                peak_rss_mib: peak as f64 / (1024.0 * 1024.0),
            })
        };
        let store = |kind: &str, attempt: usize| file(&format!("{kind}-{attempt}.db"));
        let export = step("export", &|_| {
            let mut command = cairn(file("source.db"));
            command.arg("export").arg(file("export.jsonl"));
            command
        })?;
        let import_export = step("import of the export", &|attempt| {
            let mut command = cairn(store("moved", attempt));
            command.arg("import").arg(file("export.jsonl"));
            command
        })?;
        let import_plain = step("import of plain records", &|attempt| {
            let mut command = cairn(store("plain", attempt));
            command.arg("import").arg(file("plain.jsonl"));
            command
        })?;
        // Relations imported before their memories wait in the deferred queue; the import of
        // the memories then applies them. Against the same memories into an empty queue.
        let pairs = write_relations(&file("corpus.jsonl"), &file("relations.jsonl"))?;
        let defer = step("import of relations before their memories", &|attempt| {
            let mut command = cairn(store("deferred", attempt));
            command.arg("import").arg(file("relations.jsonl"));
            command
        })?;
        let import_memories = step("import of the memories alone", &|attempt| {
            let mut command = cairn(store("memories", attempt));
            command.arg("import").arg(file("corpus.jsonl"));
            command
        })?;
        let import_applying = step("import of the memories, applying the queue", &|attempt| {
            let mut command = cairn(store("deferred", attempt));
            command.arg("import").arg(file("corpus.jsonl"));
            command
        })?;
        let applied = applied_relations(&options.cairn, &store("deferred", 0))?;
        anyhow::ensure!(
            applied == (pairs, 0),
            "the queue was not applied: {applied:?} (relations, still waiting) of {pairs}"
        );
        let backup = step("backup", &|attempt| {
            let mut command = cairn(file("source.db"));
            command.arg("backup").arg(store("backup", attempt));
            command
        })?;

        // Each move into a store of its own, made before the clock starts.
        let targets: Vec<String> = (0..options.runs)
            .map(|attempt| match &options.store {
                Some(server) => Ok(fresh_store(server, "move")?.1),
                None => Ok(format!("sqlite:{}", store("migrated", attempt).display())),
            })
            .collect::<Result<_>>()?;
        let migrate = step("migrate-store", &|attempt| {
            let mut command = cairn(file("source.db"));
            command.args(["migrate-store", "--to", &targets[attempt]]);
            command
        })?;
        let migrate_back = match options.store {
            Some(_) => Some(step("migrate-store back", &|attempt| {
                let mut command = cairn(file("unused.db"));
                let back = format!("sqlite:{}", store("back", attempt).display());
                command.args(["migrate-store", "--from", &targets[0], "--to", &back]);
                command
            })?),
            None => None,
        };

        progress(&format!("{size}: checking the round trip"));
        run_child(
            cairn(store("moved", 0))
                .arg("export")
                .arg(file("again.jsonl")),
        )?;
        let exported = std::fs::read(file("export.jsonl"))?;
        let round_trip_identical = std::fs::read(file("again.jsonl"))? == exported;
        std::fs::remove_dir_all(&dir)?;
        results.push(ExchangeResult {
            memories: size,
            export,
            import_export,
            import_plain,
            backup,
            migrate,
            migrate_back,
            deferred: DeferredResult {
                relations: pairs,
                defer_per_second: pairs as f64 / defer.seconds_median,
                import_alone: import_memories,
                import_applying,
            },
            export_bytes_per_memory: exported.len() as f64 / size as f64,
            round_trip_identical,
        });
    }
    Ok(results)
}

/// The corpus's memories as plain records, as a person or another tool would write them.
fn write_plain(corpus: &Path, plain: &Path) -> Result<()> {
    let mut out = BufWriter::new(File::create(plain)?);
    for line in BufReader::new(File::open(corpus)?).lines() {
        let record: serde_json::Value = serde_json::from_str(&line?)?;
        let field = |name: &str| record[name].clone();
        let plain = json!({
            "content": field("content"),
            "title": field("title"),
            "tags": field("tags"),
            "category": field("category"),
            "project": field("project"),
            "created_at": field("created_at"),
        });
        serde_json::to_writer(&mut out, &plain)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// A relation record for each two memories of one scope in `corpus`, in the export's form;
/// how many.
fn write_relations(corpus: &Path, relations: &Path) -> Result<u64> {
    let mut unpaired: std::collections::HashMap<String, serde_json::Value> = Default::default();
    let mut out = BufWriter::new(File::create(relations)?);
    let mut count = 0u64;
    for line in BufReader::new(File::open(corpus)?).lines() {
        let memory: serde_json::Value = serde_json::from_str(&line?)?;
        let scope = memory["project"].to_string();
        let Some(older) = unpaired.remove(&scope) else {
            unpaired.insert(scope, memory);
            continue;
        };
        count += 1;
        let relation = json!({
            "type": "relation",
            "id": format!("00000000-0000-4000-8000-{count:012x}"),
            "source": memory["id"],
            "target": older["id"],
            "project": memory["project"],
            "score": 0.5,
            "verdict": null,
            "history": [],
            "created_at": memory["created_at"],
            "updated_at": memory["created_at"],
        });
        serde_json::to_writer(&mut out, &relation)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(count)
}

/// How many relations `db` holds and how many still wait in its deferred queue.
fn applied_relations(cairn: &Path, db: &Path) -> Result<(u64, u64)> {
    let read = |args: &[&str]| -> Result<serde_json::Value> {
        let output = Command::new(cairn)
            .arg("--db")
            .arg(db)
            .args(args)
            .args(["--format", "json"])
            .output()?;
        anyhow::ensure!(output.status.success(), "cairn {args:?} failed");
        Ok(serde_json::from_slice(&output.stdout)?)
    };
    let stats = read(&["conflicts", "stats", "--all-projects"])?;
    let waiting = read(&["conflicts", "deferred", "--limit", "500"])?;
    let waiting = waiting["deferred"].as_array().map_or(0, Vec::len) as u64;
    Ok((stats["total"].as_u64().unwrap_or(0), waiting))
}

/// A plain table for people.
pub fn table(results: &[ExchangeResult]) -> String {
    let mut out = String::from(
        "memories  export/s  import export/s  import plain/s  backup/s  migrate/s  back/s  peak RSS MiB (export/import/plain/migrate)  bytes/memory  round trip\n",
    );
    for r in results {
        out.push_str(&format!(
            "{:>8}  {:>8.0}  {:>15.0}  {:>14.0}  {:>8.0}  {:>9.0}  {:>6}  {:>9.1} / {:.1} / {:.1} / {:.1}  {:>21.0}  {}\n",
            r.memories,
            r.export.per_second_median,
            r.import_export.per_second_median,
            r.import_plain.per_second_median,
            r.backup.per_second_median,
            r.migrate.per_second_median,
            r.migrate_back
                .as_ref()
                .map_or("-".into(), |b| format!("{:.0}", b.per_second_median)),
            r.export.peak_rss_mib,
            r.import_export.peak_rss_mib,
            r.import_plain.peak_rss_mib,
            r.migrate.peak_rss_mib,
            r.export_bytes_per_memory,
            if r.round_trip_identical {
                "identical"
            } else {
                "DIFFERENT"
            },
        ));
    }
    out.push_str(
        "\nmemories  relations  deferred/s  import alone/s  import applying the queue/s  ratio\n",
    );
    for r in results {
        let d = &r.deferred;
        out.push_str(&format!(
            "{:>8}  {:>9}  {:>10.0}  {:>14.0}  {:>27.0}  {:>5.2}\n",
            r.memories,
            d.relations,
            d.defer_per_second,
            d.import_alone.per_second_median,
            d.import_applying.per_second_median,
            d.import_applying.per_second_median / d.import_alone.per_second_median,
        ));
    }
    out
}
