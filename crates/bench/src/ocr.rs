//! OCR: how exactly and how fast cairn reads screenshots, and whether their text finds them.
//!
//! - **Accuracy**: screenshots drawn from known text ([`cairn_embed::render`]): terminals and
//!   dialogs, light and dark, 760×230 and a dense 1920×1080, read by the OCR model; the
//!   character error rate is the edit distance between what was read and the text drawn (both
//!   with whitespace runs as one space) over the drawn text's length.
//! - **Speed**: seconds per image, per size, the whole read (detection, recognition, order).
//! - **Finding**: the psql error screenshot among `others` other images, stored through the
//!   service with no words of their own and read by the service's reading queue, must come
//!   first for "connection refused 5432". The others are photos and small log, build and dialog
//!   screens whose lines share words with the query ("connection refused" on another port,
//!   5432 in another message), so only the screenshot showing all of it is the answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_core::image::{ImageSource, TextReader};
use cairn_core::memory::MemoryFilter;
use cairn_core::search::SearchRequest;
use cairn_core::testing::local;
use cairn_core::{NewMemory, ProjectName, Scope, Source};
use cairn_embed::ocr::{OcrModels, OcrReader};
use cairn_embed::render::{Fonts, Layout, Screen, Theme, psql_lines};
use serde::Serialize;

use crate::corpus::Rng;
use crate::images::{image_service, png};
use crate::measure::Percentiles;

/// The query the psql screenshot must be found by.
pub const QUERY: &str = "connection refused 5432";

pub struct OcrOptions {
    pub seed: u64,
    /// Other screenshots the psql one is hidden among.
    pub others: usize,
}

#[derive(Debug, Serialize)]
pub struct ScreenReport {
    pub screen: String,
    /// Characters drawn (whitespace runs as one).
    pub characters: usize,
    /// Edits between what was read and what was drawn.
    pub errors: usize,
    pub cer: f64,
    pub seconds: f64,
}

#[derive(Debug, Serialize)]
pub struct SizeTiming {
    pub width: u32,
    pub height: u32,
    pub read: Percentiles,
}

#[derive(Debug, Serialize)]
pub struct FindReport {
    pub query: &'static str,
    /// Images stored (memories; two may show the same picture).
    pub images: usize,
    /// Distinct pictures read.
    pub distinct: usize,
    /// The psql screenshot's rank (1 = first); `None` when not in the top 10.
    pub rank: Option<usize>,
    /// The reading queue's time per image over the whole set.
    pub read_seconds_per_image: f64,
}

#[derive(Debug, Serialize)]
pub struct OcrReport {
    pub screens: Vec<ScreenReport>,
    /// Over every screen: all errors over all characters.
    pub cer: f64,
    pub timing: Vec<SizeTiming>,
    pub find: FindReport,
}

/// One line of the kind a developer's screen shows; some share words with [`QUERY`].
fn screen_line(rng: &mut Rng) -> String {
    let n = 100 + rng.below(9900);
    let port = [6379, 8080, 443, 5433, 9200][rng.below(5)];
    match rng.below(12) {
        0 => format!("redis: connection refused on cache-{}:{port}", n % 7),
        1 => format!("request {n} refused: quota exceeded for project billing"),
        2 => format!("listening on 0.0.0.0:{port} (pid {n})"),
        3 => format!("GET /api/orders/{n} 200 {}ms", n % 300),
        4 => format!("warning: unused variable `conn` at src/db.rs:{}", n % 400),
        5 => format!(
            "test result: ok. {} passed; 0 failed; finished in {}.{}s",
            n % 90,
            n % 7,
            n % 10
        ),
        6 => format!("Compiling cairn-core v0.{}.{}", n % 5, n % 13),
        7 => format!("pg_dump: dumped 5432 rows from table audit_{}", n % 50),
        8 => format!(
            "connection pool size set to {} (max {})",
            n % 64,
            64 + n % 64
        ),
        9 => format!("ERROR: relation \"orders_{}\" does not exist", n % 90),
        10 => format!(
            "INFO worker-{} job {n} finished status=ok queue=mail",
            n % 16
        ),
        _ => format!("$ git commit -m \"fix flaky test {n}\""),
    }
}

/// A terminal or dialog with `lines` random lines.
pub fn random_screen(rng: &mut Rng, width: u32, height: u32, lines: usize) -> Screen {
    let layout = match rng.below(4) {
        0 => Layout::Dialog,
        _ => Layout::Terminal,
    };
    Screen {
        width,
        height,
        theme: if rng.chance(0.5) {
            Theme::Dark
        } else {
            Theme::Light
        },
        layout,
        text_px: if width > 1000 { 16.0 } else { 13.0 },
        lines: (0..lines).map(|_| screen_line(rng)).collect(),
    }
}

/// One of the images the psql screenshot hides among: a third are photos (no text), the rest
/// small screens of one or two lines (kept small so that reading 200 of them stays quick) that
/// may share words with [`QUERY`] but never show all of them.
fn haystack_screen(rng: &mut Rng) -> Option<Screen> {
    if rng.below(3) == 0 {
        return None;
    }
    let lines = 1 + rng.below(2);
    loop {
        let screen = random_screen(rng, 560, 60 + 20 * lines as u32, lines);
        // Words of the query, never all of them: only the psql screenshot answers it.
        let text = screen.text().to_lowercase();
        if !(text.contains("refused") && text.contains("5432")) {
            return Some(screen);
        }
    }
}

/// A stand-in for a photo: smooth colour gradients with soft blobs, no text.
pub fn photo(rng: &mut Rng) -> image::RgbImage {
    let (width, height) = (320, 200);
    let base = [
        rng.below(256) as f32,
        rng.below(256) as f32,
        rng.below(256) as f32,
    ];
    let blobs: Vec<(f32, f32, f32, [f32; 3])> = (0..5)
        .map(|_| {
            (
                rng.below(width) as f32,
                rng.below(height) as f32,
                20.0 + rng.below(60) as f32,
                [
                    rng.below(256) as f32,
                    rng.below(256) as f32,
                    rng.below(256) as f32,
                ],
            )
        })
        .collect();
    image::RgbImage::from_fn(width as u32, height as u32, |x, y| {
        let (x, y) = (x as f32, y as f32);
        let mut colour = [0f32; 3];
        for (channel, value) in colour.iter_mut().enumerate() {
            *value = base[channel] * (0.6 + 0.4 * x / width as f32);
        }
        for (bx, by, radius, tint) in &blobs {
            let weight = (-((x - bx).powi(2) + (y - by).powi(2)) / (radius * radius)).exp();
            for (channel, value) in colour.iter_mut().enumerate() {
                *value = *value * (1.0 - weight) + tint[channel] * weight;
            }
        }
        image::Rgb(colour.map(|v| v.clamp(0.0, 255.0) as u8))
    })
}

/// The screenshots whose reading is scored: every layout and theme at both sizes.
pub fn scored_screens(seed: u64) -> Vec<(String, Screen)> {
    let mut rng = Rng::new(seed);
    let mut screens = Vec::new();
    for (width, height) in [(760, 230), (1920, 1080)] {
        for layout in [Layout::Terminal, Layout::Dialog] {
            for theme in [Theme::Dark, Theme::Light] {
                let lines = match (layout, height > 500) {
                    (Layout::Terminal, true) => 44,
                    (Layout::Terminal, false) => 8,
                    (Layout::Dialog, true) => 20,
                    (Layout::Dialog, false) => 3,
                };
                let mut screen = random_screen(&mut rng, width, height, lines);
                (screen.layout, screen.theme) = (layout, theme);
                if layout == Layout::Terminal && width < 1000 {
                    screen.lines = psql_lines();
                }
                let name = format!(
                    "{} {} {width}×{height}",
                    match layout {
                        Layout::Terminal => "terminal",
                        Layout::Dialog => "dialog",
                    },
                    match theme {
                        Theme::Dark => "dark",
                        Theme::Light => "light",
                    }
                );
                screens.push((name, screen));
            }
        }
    }
    screens
}

/// Whitespace runs as one space, ends trimmed.
fn squeeze(text: &str) -> Vec<char> {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect()
}

/// Levenshtein distance between two character sequences.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// Characters drawn and edits to what was read.
pub fn errors(read: &str, truth: &str) -> (usize, usize) {
    let (read, truth) = (squeeze(read), squeeze(truth));
    (truth.len(), edit_distance(&read, &truth))
}

/// Reads the scored screens `repeats` times each (the first read of each is scored).
pub fn accuracy(
    ocr: &OcrModels,
    fonts: &Fonts,
    seed: u64,
    repeats: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<ScreenReport>, Vec<SizeTiming>)> {
    let mut reports = Vec::new();
    let mut times: Vec<((u32, u32), Vec<Duration>)> = Vec::new();
    for (name, screen) in scored_screens(seed) {
        progress(&format!("reading {name}"));
        let picture = screen.draw(fonts);
        let mut read = String::new();
        let mut taken = Vec::new();
        for _ in 0..repeats.max(1) {
            let started = Instant::now();
            read = ocr.read(&picture)?;
            taken.push(started.elapsed());
        }
        let (characters, errors) = errors(&read, &screen.text());
        let size = (screen.width, screen.height);
        match times.iter_mut().find(|(s, _)| *s == size) {
            Some((_, all)) => all.extend(&taken),
            None => times.push((size, taken.clone())),
        }
        reports.push(ScreenReport {
            screen: name,
            characters,
            errors,
            cer: errors as f64 / characters.max(1) as f64,
            seconds: taken[0].as_secs_f64(),
        });
    }
    let timing = times
        .into_iter()
        .map(|((width, height), all)| SizeTiming {
            width,
            height,
            read: Percentiles::of(&all),
        })
        .collect();
    Ok((reports, timing))
}

/// Stores the psql screenshot among `others` others (no words of their own), reads them all
/// through the service's queue and searches for [`QUERY`].
pub fn find(
    dir: &std::path::Path,
    reader: Arc<dyn TextReader>,
    fonts: &Fonts,
    options: &OcrOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FindReport> {
    let (api, _) = image_service(dir, "ocr", Some(reader), None, None)?;
    let scope = Scope::Project(ProjectName::new("bench-ocr")?);
    let mut rng = Rng::new(options.seed ^ 0x0c12);
    let target_at = rng.below(options.others + 1);
    let mut target = None;
    // Two small screens may draw the same text: the same picture, stored (and read) once.
    let mut distinct = std::collections::HashSet::new();
    progress(&format!("storing {} screenshots", options.others + 1));
    for index in 0..=options.others {
        let screen = match index == target_at {
            true => Some(Screen {
                width: 760,
                height: 230,
                theme: Theme::Dark,
                layout: Layout::Terminal,
                text_px: 13.0,
                lines: psql_lines(),
            }),
            false => haystack_screen(&mut rng),
        };
        let picture = match &screen {
            Some(screen) => screen.draw(fonts),
            None => photo(&mut rng),
        };
        let memory = NewMemory::new(String::new(), scope.clone(), Source::Mcp);
        let inline = ImageSource::Inline(STANDARD.encode(png(&picture)?));
        let outcome = api.write(&local(), memory, Some(&inline))?;
        if index == target_at {
            target = Some(outcome.memory.id);
        }
        if let Some(image) = outcome.image {
            distinct.insert(image.id);
        }
    }
    progress("reading every image's text");
    let started = Instant::now();
    let report = api.read_pending_images(&mut |_| {})?;
    let read_seconds = started.elapsed().as_secs_f64();
    if report.read as usize != distinct.len() {
        bail!(
            "the queue read {} of {} images",
            report.read,
            distinct.len()
        );
    }
    let hits = api
        .search_request(
            &local(),
            &SearchRequest::new(QUERY, MemoryFilter::default(), 10),
        )?
        .hits;
    let rank = hits
        .iter()
        .position(|hit| Some(hit.memory.id) == target)
        .map(|at| at + 1);
    Ok(FindReport {
        query: QUERY,
        images: options.others + 1,
        distinct: distinct.len(),
        rank,
        read_seconds_per_image: read_seconds / distinct.len().max(1) as f64,
    })
}

/// The whole OCR benchmark.
pub fn run(
    dir: &std::path::Path,
    ocr_dir: &std::path::Path,
    fonts: &Fonts,
    options: &OcrOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<OcrReport> {
    let models = OcrModels::load(ocr_dir)?;
    let (screens, timing) = accuracy(&models, fonts, options.seed, 3, progress)?;
    let (characters, errors) = screens
        .iter()
        .fold((0, 0), |(c, e), s| (c + s.characters, e + s.errors));
    let find = find(
        dir,
        Arc::new(OcrReader::new(ocr_dir)),
        fonts,
        options,
        progress,
    )?;
    Ok(OcrReport {
        screens,
        cer: errors as f64 / characters.max(1) as f64,
        timing,
        find,
    })
}

/// The report for people.
pub fn table(report: &OcrReport) -> String {
    let mut out = String::new();
    out.push_str("screen                      chars  errors    CER   seconds\n");
    for screen in &report.screens {
        out.push_str(&format!(
            "{:<26} {:>6} {:>7} {:>5.1}% {:>9.2}\n",
            screen.screen,
            screen.characters,
            screen.errors,
            screen.cer * 100.0,
            screen.seconds
        ));
    }
    out.push_str(&format!(
        "character error rate, all screens: {:.2}%\n",
        report.cer * 100.0
    ));
    for size in &report.timing {
        out.push_str(&format!(
            "read {}×{}  p50/p95/p99 {}\n",
            size.width,
            size.height,
            size.read.p50_p95_p99()
        ));
    }
    let find = &report.find;
    out.push_str(&format!(
        "\"{}\" among {} images ({} distinct): {} (queue read {:.2} s per image)\n",
        find.query,
        find.images,
        find.distinct,
        match find.rank {
            Some(rank) => format!("rank {rank}"),
            None => "not in the top 10".into(),
        },
        find.read_seconds_per_image
    ));
    out
}
