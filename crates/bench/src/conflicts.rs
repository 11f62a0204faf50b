//! Conflict candidates: how well a write finds the memories it contradicts or refines, and what
//! finding them costs a write.
//!
//! **Quality** runs over the labelled pairs in `crates/bench/data/conflict-pairs.jsonl`
//! (written for cairn: coding-agent facts, each pair an older and a newer memory of one of four
//! kinds: `contradicts` and `refines` should be found; `compatible` and `unrelated` (sharing
//! words, not meaning) should not), over a background of 80 other facts of the same kind of
//! project on other subjects (`conflict-background.txt`). The background is stored in one
//! project through the service; then, pair by pair, the older memory is stored, the newer one
//! is stored the same way and its reported candidates are read, and both are purged again, so
//! every pair meets the same store and no pair meets another (several pairs state the same
//! facts: a compatible pair's older memory may well contradict another pair's). A write's
//! candidate is a true positive when it is the pair's older memory and the pair should be
//! found; any other candidate — the older memory of a pair that should not be found, or a
//! background memory — is a false positive. Recall is over the pairs that should be found. Besides the figures at
//! the shipped thresholds, the same writes are scored with no floor (the best 3 neighbours and
//! their scores, read through a second connection), which gives the whole precision/recall
//! curve the thresholds were chosen from. Without a model detection is by words alone.
//!
//! The pairs above are where the rules were chosen; `conflict-pairs-fresh.jsonl` was written
//! apart and runs the same way. **Rules** (`--codemem DIR`) stores the real projects' rules
//! of codemem's development file one by one, as an agent's writes with the model, one project
//! per repository and then all in one: they contradict nothing, so every pending judgment
//! they raise is noise, reported per 100 memories.
//!
//! **Cost** (`--overhead-size`): a store of that many synthetic memories, all in one project
//! (the worst case: detection looks only in the memory's own scope), then writes of new
//! synthetic memories, in alternating blocks of 50, by a service that detects and one that
//! does not (each a long-lived process's connection); the difference of their medians is what
//! detection adds to a write (no model: by words).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use cairn_core::api::Caller;
use cairn_core::config::Config;
use cairn_core::embedding::{Embedder, VectorSpace, VectorStore};
use cairn_core::relation::{Detector, Neighbour};
use cairn_core::store::Store;
use cairn_core::testing::local;
use cairn_core::{Api, ApiParts, MemoryId, NewMemory, ProjectName, Scope, Source};
use cairn_store_sqlite::SqliteStore;
use serde::{Deserialize, Serialize};

use crate::corpus::Corpus;
use crate::measure::Percentiles;

/// The labelled pairs, kept in the repository: the thresholds were chosen on these.
pub const PAIRS: &str = include_str!("../data/conflict-pairs.jsonl");
/// Pairs written apart, after the first set and before the disagreement rules were chosen,
/// for what those rules were not tuned on: the same subject with other values, with the
/// other polarity, and near misses that share a domain or a rule's form.
pub const FRESH_PAIRS: &str = include_str!("../data/conflict-pairs-fresh.jsonl");
/// Facts on other subjects every pair is detected among, one a line.
pub const BACKGROUND: &str = include_str!("../data/conflict-background.txt");

/// One labelled pair.
#[derive(Debug, Clone, Deserialize)]
pub struct Pair {
    pub kind: String,
    pub older: String,
    pub newer: String,
}

impl Pair {
    /// Whether a write of `newer` should report `older`.
    pub fn should_be_found(&self) -> bool {
        matches!(self.kind.as_str(), "contradicts" | "refines")
    }
}

/// The pairs the thresholds were chosen on.
pub fn pairs() -> Result<Vec<Pair>> {
    pairs_of(PAIRS, "conflict-pairs.jsonl")
}

/// The pairs written apart.
pub fn fresh_pairs() -> Result<Vec<Pair>> {
    pairs_of(FRESH_PAIRS, "conflict-pairs-fresh.jsonl")
}

fn pairs_of(text: &str, file: &str) -> Result<Vec<Pair>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(n, line)| {
            serde_json::from_str(line).with_context(|| format!("{file} line {}", n + 1))
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct QualityReport {
    /// Which pairs: `chosen on` (the thresholds were) or `written apart`.
    pub set: String,
    /// `words` (no model) or `words+meaning`.
    pub detection: String,
    pub pairs: usize,
    pub should_be_found: usize,
    /// At the shipped thresholds.
    pub precision: f64,
    pub recall: f64,
    pub true_positives: usize,
    pub false_positives: usize,
    /// Per kind: how many pairs, and in how many the write reported the older memory.
    pub by_kind: BTreeMap<String, (usize, usize)>,
    /// With no floor: (threshold, precision, recall) for thresholds 0.10, 0.15, … 0.80.
    pub curve: Vec<(f64, f64, f64)>,
    /// Write latency of the newer memories, detection (and, with a model, embedding) included.
    pub write: Percentiles,
    /// Per pair: its kind and the best neighbours with no floor, for looking into misses.
    pub neighbours: Vec<(String, Vec<Seen>)>,
}

/// A neighbour of a pair's newer memory, as the dump shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Seen {
    pub score: f64,
    pub lexical: f64,
    pub semantic: Option<f64>,
    /// Whether it is the pair's older memory.
    pub partner: bool,
}

fn project_name() -> ProjectName {
    ProjectName::new("bench-conflicts").expect("a valid project name")
}

fn project() -> Scope {
    Scope::Project(project_name())
}

/// Runs the labelled pairs through a store in `dir`, with `embedder` when given.
pub fn quality(
    set: &str,
    pairs: &[Pair],
    embedder: Option<Arc<dyn Embedder>>,
    dir: &Path,
    dump: &mut Vec<DumpRow>,
) -> Result<QualityReport> {
    let path = dir.join(format!(
        "conflicts-{}-{}.db",
        set.replace(' ', "-"),
        match embedder {
            Some(_) => "meaning",
            None => "words",
        }
    ));
    let with_model = embedder.is_some();
    let (api, reader) = service_and_reader(&path, embedder)?;
    for fact in BACKGROUND.lines().filter(|l| !l.trim().is_empty()) {
        api.write(&local(), NewMemory::new(fact, project(), Source::Cli), None)?;
    }
    if with_model {
        api.embed_pending(&mut |_| {})?;
    }
    let mut older = Vec::with_capacity(pairs.len());
    let mut reported: Vec<Vec<MemoryId>> = Vec::new();
    let mut scored: Vec<Vec<Neighbour>> = Vec::new();
    let mut writes = Vec::new();
    for pair in pairs {
        let first = api.write(
            &local(),
            NewMemory::new(&pair.older, project(), Source::Cli),
            None,
        )?;
        older.push(first.memory.id);
        let started = Instant::now();
        let outcome = api.write(
            &local(),
            NewMemory::new(&pair.newer, project(), Source::Cli),
            None,
        )?;
        writes.push(started.elapsed());
        if outcome.status != cairn_core::WriteStatus::Created {
            bail!(
                "the newer memory of a pair was not created: {:?}",
                pair.newer
            );
        }
        reported.push(outcome.candidates.iter().map(|c| c.id).collect());
        let vector = stored_vector(&reader, outcome.memory.id, with_model)?;
        // The curve keeps a write's best few of these.
        let neighbours =
            floorless(&reader).candidates(&outcome.memory, vector.as_deref(), &HashSet::new())?;
        scored.push(neighbours);
        let run = format!(
            "{set}, {}",
            if with_model { "words+meaning" } else { "words" }
        );
        dump.extend(dumped(
            &reader,
            &outcome,
            vector.as_deref(),
            (&run, &pair.kind),
            Some(first.memory.id),
        )?);
        api.forget(&local(), &outcome.memory.id.to_string(), true)?;
        api.forget(&local(), &first.memory.id.to_string(), true)?;
    }

    let judge = |found: &[Vec<MemoryId>]| {
        let (mut tp, mut fp) = (0, 0);
        for ((pair, partner), candidates) in pairs.iter().zip(&older).zip(found) {
            for id in candidates {
                if id == partner && pair.should_be_found() {
                    tp += 1;
                } else {
                    fp += 1;
                }
            }
        }
        (tp, fp)
    };
    let should = pairs.iter().filter(|p| p.should_be_found()).count();
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let (tp, fp) = judge(&reported);
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for ((pair, partner), candidates) in pairs.iter().zip(&older).zip(&reported) {
        let entry = by_kind.entry(pair.kind.clone()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(candidates.contains(partner));
    }
    let curve = (2..=16)
        .map(|step| {
            let threshold = f64::from(step) * 0.05;
            let above: Vec<Vec<MemoryId>> = scored
                .iter()
                .map(|s| {
                    s.iter()
                        .take(Config::default().conflicts.max_candidates)
                        .filter(|n| n.score >= threshold)
                        .map(|n| n.memory.id)
                        .collect()
                })
                .collect();
            let (tp, fp) = judge(&above);
            (threshold, ratio(tp, tp + fp), ratio(tp, should))
        })
        .collect();
    Ok(QualityReport {
        set: set.into(),
        detection: if with_model { "words+meaning" } else { "words" }.into(),
        pairs: pairs.len(),
        should_be_found: should,
        precision: ratio(tp, tp + fp),
        recall: ratio(tp, should),
        true_positives: tp,
        false_positives: fp,
        by_kind,
        curve,
        write: Percentiles::of(&writes),
        neighbours: pairs
            .iter()
            .zip(&older)
            .zip(&scored)
            .map(|((pair, partner), found)| {
                let marked = found
                    .iter()
                    .map(|n| Seen {
                        score: n.score,
                        lexical: n.lexical,
                        semantic: n.semantic,
                        partner: n.memory.id == *partner,
                    })
                    .collect();
                (pair.kind.clone(), marked)
            })
            .collect(),
    })
}

/// How many judgments rules that do not contradict each other raise: real projects'
/// instruction files (codemem), stored one rule at a time as an agent would.
#[derive(Debug, Clone, Serialize)]
pub struct RulesReport {
    pub file: String,
    /// `one per repository` or `all in one project`.
    pub stores: String,
    pub detection: String,
    pub memories: usize,
    /// Pending judgments the writes recorded.
    pub judgments: usize,
    pub per_100_memories: f64,
    pub write: Percentiles,
    /// The highest-scoring judgments: (score, newer, older).
    pub worst: Vec<(f64, String, String)>,
}

/// A scored neighbour with both texts, for `--dump`.
#[derive(Debug, Clone, Serialize)]
pub struct DumpRow {
    /// Which set and detection, or which codemem store.
    pub run: String,
    /// The pair's kind, or `rules` for codemem's writes.
    pub kind: String,
    pub newer: String,
    pub older: String,
    pub score: f64,
    pub lexical: f64,
    pub semantic: Option<f64>,
    /// Whether the write reported it.
    pub reported: bool,
    /// Whether it is the pair's older memory.
    pub partner: bool,
}

/// Stores every rule of `path` (a codemem file) in order, one project per repository or all
/// in one, each through the service as an agent's write, and counts the pending judgments.
pub fn rules(
    path: &Path,
    one_project: bool,
    embedder: Option<Arc<dyn Embedder>>,
    dir: &Path,
    dump: &mut Vec<DumpRow>,
) -> Result<RulesReport> {
    let groups = crate::locomo::sessions_texts(path)?;
    let with_model = embedder.is_some();
    let db = dir.join(format!(
        "rules-{}-{}.db",
        usize::from(one_project),
        usize::from(with_model)
    ));
    let (api, reader) = service_and_reader(&db, embedder)?;
    let (mut memories, mut judgments) = (0, 0);
    let mut writes = Vec::new();
    let mut worst = Vec::new();
    for (index, group) in groups.iter().enumerate() {
        let name = match one_project {
            true => "all-rules".to_string(),
            false => format!("repository-{}", index + 1),
        };
        let scope = Scope::Project(ProjectName::new(&name)?);
        for rule in group {
            let started = Instant::now();
            let outcome = api.write(
                &local(),
                NewMemory::new(rule, scope.clone(), Source::Cli),
                None,
            )?;
            writes.push(started.elapsed());
            if outcome.status != cairn_core::WriteStatus::Created {
                continue;
            }
            memories += 1;
            judgments += outcome.candidates.len();
            let texts: HashMap<MemoryId, String> = (&reader as &dyn Store)
                .get(&outcome.candidates.iter().map(|c| c.id).collect::<Vec<_>>())?
                .into_iter()
                .map(|m| (m.id, m.content))
                .collect();
            for c in &outcome.candidates {
                worst.push((c.score, rule.clone(), texts[&c.id].clone()));
            }
            let vector = stored_vector(&reader, outcome.memory.id, with_model)?;
            dump.extend(dumped(
                &reader,
                &outcome,
                vector.as_deref(),
                (&format!("codemem, {name}"), "rules"),
                None,
            )?);
        }
    }
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    worst.truncate(5);
    Ok(RulesReport {
        file: path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        stores: match one_project {
            true => "all in one project",
            false => "one per repository",
        }
        .into(),
        detection: if with_model { "words+meaning" } else { "words" }.into(),
        memories,
        judgments,
        per_100_memories: 100.0 * judgments as f64 / memories.max(1) as f64,
        write: Percentiles::of(&writes),
        worst,
    })
}

/// A service writing to `path` and a second connection reading what it committed. With
/// `embedder` the model is recorded first, so every write embeds itself (as a warm server's
/// would).
fn service_and_reader(
    path: &Path,
    embedder: Option<Arc<dyn Embedder>>,
) -> Result<(Api, SqliteStore)> {
    let with_model = embedder.is_some();
    let api = Api::open(
        ApiParts {
            embedder,
            ..ApiParts::new(Box::new(SqliteStore::open(path)?))
        },
        &Config::default(),
    );
    let reader = SqliteStore::open(path)?;
    if with_model {
        api.embed_pending(&mut |_| {})?;
    }
    Ok((api, reader))
}

/// The text vector a written memory was stored with, when a model is in use.
fn stored_vector(reader: &SqliteStore, id: MemoryId, with_model: bool) -> Result<Option<Vec<f32>>> {
    if !with_model {
        return Ok(None);
    }
    Ok(reader
        .vectors(VectorSpace::Text, &[id])?
        .pop()
        .map(|(_, v)| v))
}

/// The best neighbours of a written memory with both texts, for `--dump`: `(run, kind)`
/// label them; `partner` is the pair's older memory, if any.
fn dumped(
    reader: &SqliteStore,
    outcome: &cairn_core::WriteOutcome,
    vector: Option<&[f32]>,
    (run, kind): (&str, &str),
    partner: Option<MemoryId>,
) -> Result<Vec<DumpRow>> {
    let reported: HashSet<MemoryId> = outcome.candidates.iter().map(|c| c.id).collect();
    Ok(floorless(reader)
        .neighbours(&outcome.memory, vector, &HashSet::new())?
        .into_iter()
        .take(DUMP_DEPTH)
        .map(|n| DumpRow {
            run: run.to_string(),
            kind: kind.to_string(),
            newer: outcome.memory.content.clone(),
            older: n.memory.content.clone(),
            score: n.score,
            lexical: n.lexical,
            semantic: n.semantic,
            reported: reported.contains(&n.memory.id),
            partner: Some(n.memory.id) == partner,
        })
        .collect())
}

/// Neighbours dumped per write.
const DUMP_DEPTH: usize = 5;

/// A detector that reads every neighbour, for the curve and the dump.
fn floorless(reader: &SqliteStore) -> Detector<'_> {
    Detector {
        store: reader as &dyn Store,
        now: jiff::Timestamp::now(),
        max: 10,
        floor: Some(0.0),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OverheadReport {
    pub memories: u64,
    pub writes: usize,
    pub with_detection: Percentiles,
    pub without_detection: Percentiles,
    /// Median with minus median without, in milliseconds.
    pub extra_p50_ms: f64,
    /// Candidates reported per write with detection, on average.
    pub candidates_per_write: f64,
}

/// What detection adds to a write in a store of `size` memories of one project (no model).
pub fn overhead(
    size: u64,
    writes: usize,
    seed: u64,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<OverheadReport> {
    let path = dir.join(format!("overhead-{size}.db"));
    let corpus = Corpus::new(seed);
    let scope = project();
    let now = jiff::Timestamp::now();
    progress(&format!("{size}: importing one project's memories"));
    let mut jsonl = Vec::new();
    for index in 0..size {
        let mut record = corpus.memory(seed, index, now);
        record.memory.scope = scope.clone();
        serde_json::to_writer(&mut jsonl, &record)?;
        jsonl.push(b'\n');
    }
    let detecting = Api::open(
        ApiParts::new(Box::new(SqliteStore::open(&path)?)),
        &Config::default(),
    );
    // The import's plain records land in the caller's project.
    let user = Caller {
        default_project: Some(project_name()),
        ..local()
    };
    detecting.import(&user, &mut std::io::Cursor::new(jsonl), &mut |_| {})?;
    let mut off = Config::default();
    off.conflicts.detect = false;
    let plain = Api::open(ApiParts::new(Box::new(SqliteStore::open(&path)?)), &off);
    progress(&format!("{size}: {writes} writes each way"));
    let (mut with, mut without) = (Vec::<Duration>::new(), Vec::<Duration>::new());
    let mut candidates = 0usize;
    // In alternating blocks, so both see the same machine, and each runs as a long-lived
    // process does (a block's first write finds the page cache stale: the other connection
    // wrote). Each write is a memory not stored before.
    let fresh = |index: u64| corpus.memory(seed ^ 0x5eed, index, now).memory.content;
    let block = 50;
    let mut written = 0u64;
    while with.len() < writes {
        for _ in 0..block.min(writes - with.len()) {
            let started = Instant::now();
            let new = NewMemory::new(fresh(written), scope.clone(), Source::Cli);
            let outcome = detecting.write(&user, new, None)?;
            with.push(started.elapsed());
            candidates += outcome.candidates.len();
            written += 1;
        }
        for _ in 0..block.min(writes - without.len()) {
            let started = Instant::now();
            let new = NewMemory::new(fresh(written), scope.clone(), Source::Cli);
            plain.write(&user, new, None)?;
            without.push(started.elapsed());
            written += 1;
        }
    }
    let (w, wo) = (Percentiles::of(&with), Percentiles::of(&without));
    Ok(OverheadReport {
        memories: size,
        writes,
        extra_p50_ms: w.p50_ms - wo.p50_ms,
        with_detection: w,
        without_detection: wo,
        candidates_per_write: candidates as f64 / writes as f64,
    })
}

pub fn table(
    quality: &[QualityReport],
    rules: &[RulesReport],
    overhead: &[OverheadReport],
) -> String {
    let mut out = String::new();
    for q in quality {
        out += &format!(
            "conflict candidates, pairs {}, detection by {} ({} pairs, {} to be found)\n  shipped thresholds: precision {:.3}, recall {:.3} ({} true, {} false positives)\n",
            q.set,
            q.detection,
            q.pairs,
            q.should_be_found,
            q.precision,
            q.recall,
            q.true_positives,
            q.false_positives
        );
        for (kind, (pairs, found)) in &q.by_kind {
            out += &format!("  {kind:<12} {found:>3} of {pairs:>3} reported the older memory\n");
        }
        out += "  threshold  precision  recall\n";
        for (threshold, precision, recall) in &q.curve {
            out += &format!("  {threshold:>9.2}  {precision:>9.3}  {recall:>6.3}\n");
        }
        out += &format!(
            "  write p50 {:.2} ms, p95 {:.2} ms\n\n",
            q.write.p50_ms, q.write.p95_ms
        );
    }
    for r in rules {
        out += &format!(
            "judgments raised by rules that do not contradict ({}, {}, detection by {})\n  {} memories, {} pending judgments: {:.1} per 100 memories; write p50 {:.2} ms\n",
            r.file,
            r.stores,
            r.detection,
            r.memories,
            r.judgments,
            r.per_100_memories,
            r.write.p50_ms
        );
        for (score, newer, older) in &r.worst {
            out += &format!("  {score:.2}  {} | {}\n", clip(newer), clip(older));
        }
        out += "\n";
    }
    for o in overhead {
        out += &format!(
            "write overhead at {} memories in one project ({} writes each way, no model)\n  with detection    p50 {:.3} ms  p95 {:.3} ms\n  without           p50 {:.3} ms  p95 {:.3} ms\n  extra p50 {:.3} ms; {:.2} candidates per write\n",
            o.memories,
            o.writes,
            o.with_detection.p50_ms,
            o.with_detection.p95_ms,
            o.without_detection.p50_ms,
            o.without_detection.p95_ms,
            o.extra_p50_ms,
            o.candidates_per_write
        );
    }
    out
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
