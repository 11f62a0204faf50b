//! Look: whether image → image vision search finds a copy's original, and how far apart looks
//! are.
//!
//! `others` images (a third photos, the rest terminal and dialog screenshots of 2–12 random
//! lines at 760×230 and 1280×720, light and dark) are stored through the service with no words
//! of their own, and their looks hashed by the service's own after-write pass. For `originals`
//! of the screenshots, three copies are made that a user would call "the same screenshot": half
//! the size, recoloured (a warm tint), and re-encoded as JPEG. Each copy, sent inline, must find
//! its original first; the photos must rank below every screenshot. Reported: the rank of each
//! original (recall@1, worst rank), the bit distances of copies, of different screenshots and
//! of screenshots to photos, the hashing time per image, and the search's latency. With the look
//! model installed its vectors are made by the same pass and searched too, and the report adds
//! its time per image and the cosines of copies, of different screenshots and of photos.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_core::image::look_vector::cosine;
use cairn_core::image::{
    ClipModel, ImageId, ImageSource, LookHash, LookModel, QueryImage, QueryPicture,
    SAME_SCREEN_BITS, VisionQuery, look::LOOK_BITS,
};
use cairn_core::memory::MemoryFilter;
use cairn_core::testing::local;
use cairn_core::{NewMemory, ProjectName, Scope, Source};
use cairn_embed::render::Fonts;
use image::RgbImage;
use serde::Serialize;

use crate::corpus::Rng;
use crate::images::{image_service, png};
use crate::measure::Percentiles;
use crate::ocr::{photo, random_screen};

pub struct LookOptions {
    pub seed: u64,
    /// Images stored (screenshots and photos).
    pub others: usize,
    /// Screenshots whose copies are searched for.
    pub originals: usize,
    /// The look model, when installed: look vectors are made and searched too.
    pub look_model: Option<Arc<dyn LookModel>>,
}

/// Cosines between look vectors, over pairs of one kind.
#[derive(Debug, Serialize)]
pub struct Cosines {
    pub pairs: usize,
    pub min: f32,
    pub median: f32,
    pub max: f32,
}

impl Cosines {
    fn of(mut values: Vec<f32>) -> Self {
        values.sort_by(f32::total_cmp);
        Cosines {
            pairs: values.len(),
            min: values.first().copied().unwrap_or(0.0),
            median: values.get(values.len() / 2).copied().unwrap_or(0.0),
            max: values.last().copied().unwrap_or(0.0),
        }
    }
}

/// What the look model adds: its time per image and how alike it finds each kind of pair.
#[derive(Debug, Serialize)]
pub struct LookModelReport {
    pub model: String,
    /// Time per look vector (decoded picture in, vector out), 760×230 screenshots.
    pub ms_per_small_image: f64,
    /// The same for 1280×720 screenshots.
    pub ms_per_large_image: f64,
    /// The after-write pass per image with the model (decode, hash and vector).
    pub pass_ms_per_image: f64,
    /// A copy against its original.
    pub copies: Cosines,
    pub screens: Cosines,
    pub photos: Cosines,
}

/// Bit distances between look hashes, over pairs of one kind.
#[derive(Debug, Serialize)]
pub struct Distances {
    pub pairs: usize,
    pub min: u32,
    pub median: u32,
    pub max: u32,
    /// Pairs at most [`SAME_SCREEN_BITS`] apart: folded as the same screen.
    pub same_screen: usize,
}

impl Distances {
    fn of(mut bits: Vec<u32>) -> Self {
        bits.sort_unstable();
        Distances {
            pairs: bits.len(),
            same_screen: bits.iter().filter(|b| **b <= SAME_SCREEN_BITS).count(),
            min: bits.first().copied().unwrap_or(0),
            median: bits.get(bits.len() / 2).copied().unwrap_or(0),
            max: bits.last().copied().unwrap_or(0),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct CopyKind {
    pub copy: &'static str,
    pub searches: usize,
    /// Searches whose first hit was the original.
    pub first: usize,
    /// Searches whose first hit was the original or had it among its copies (folded as the
    /// same screen: a sparse screen can hash alike another).
    pub first_or_folded: usize,
    /// The worst rank of an original (`None`: one was not among the hits).
    pub worst_rank: Option<usize>,
    pub distance: Distances,
}

#[derive(Debug, Serialize)]
pub struct LookReport {
    pub images: usize,
    pub copies: Vec<CopyKind>,
    /// Between different screenshots.
    pub screens: Distances,
    /// Between a screenshot and a photo.
    pub photos: Distances,
    /// Searches in which a photo ranked above a screenshot.
    pub photo_above_screen: usize,
    /// The after-write pass's time per image (decode and hash), in milliseconds.
    pub hash_ms_per_image: f64,
    /// Image → image search over the whole store, the query's decoding included (and, with
    /// the look model, its look vector).
    pub search: Percentiles,
    pub look_model: Option<LookModelReport>,
}

/// What the searches for one kind of copy found.
struct CopySearches {
    copy: &'static str,
    ranks: Vec<Option<usize>>,
    /// The rank of the hit that is the original or holds it as a copy.
    group_ranks: Vec<Option<usize>>,
    distances: Vec<u32>,
}

impl CopySearches {
    fn report(self) -> CopyKind {
        CopyKind {
            copy: self.copy,
            searches: self.ranks.len(),
            first: self.ranks.iter().filter(|r| **r == Some(1)).count(),
            first_or_folded: self.group_ranks.iter().filter(|r| **r == Some(1)).count(),
            worst_rank: self
                .ranks
                .iter()
                .try_fold(0, |worst, rank| rank.map(|r| worst.max(r))),
            distance: Distances::of(self.distances),
        }
    }
}

/// The copies a user would call the same screenshot.
fn copies(original: &RgbImage) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let (width, height) = original.dimensions();
    let half = image::imageops::resize(
        original,
        width / 2,
        height / 2,
        image::imageops::FilterType::Triangle,
    );
    let mut tinted = original.clone();
    for pixel in tinted.pixels_mut() {
        let [r, g, b] = pixel.0;
        pixel.0 = [
            (r as f32 * 0.9 + 25.0).min(255.0) as u8,
            (g as f32 * 0.8 + 15.0).min(255.0) as u8,
            (b as f32 * 0.6) as u8,
        ];
    }
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 70).encode_image(original)?;
    Ok(vec![
        ("half size", png(&half)?),
        ("recoloured", png(&tinted)?),
        ("JPEG q70", jpeg),
    ])
}

/// The whole look benchmark.
pub fn run(
    dir: &std::path::Path,
    fonts: &Fonts,
    options: &LookOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<LookReport> {
    let (api, config) = image_service(dir, "look", None, options.look_model.clone(), None)?;
    let scope = Scope::Project(ProjectName::new("bench-look")?);
    let mut rng = Rng::new(options.seed);
    progress(&format!("storing {} images", options.others));
    // (id, picture, is a screenshot)
    let mut stored: Vec<(ImageId, RgbImage, bool)> = Vec::new();
    for _ in 0..options.others {
        let screenshot = rng.below(3) != 0;
        let picture = if screenshot {
            let (width, height) = if rng.chance(0.5) {
                (760, 230)
            } else {
                (1280, 720)
            };
            let lines = 2 + rng.below(11);
            random_screen(&mut rng, width, height, lines).draw(fonts)
        } else {
            photo(&mut rng)
        };
        let memory = NewMemory::new(String::new(), scope.clone(), Source::Mcp);
        let outcome = api.write(
            &local(),
            memory,
            Some(&ImageSource::Inline(STANDARD.encode(png(&picture)?))),
        )?;
        if let Some(image) = outcome.image
            && !stored.iter().any(|(id, _, _)| *id == image.id)
        {
            stored.push((image.id, picture, screenshot));
        }
    }
    progress("hashing every image's look (and making its look vector, with the model)");
    let started = Instant::now();
    let hashed = api.read_pending_images(&mut |_| {})?.hashed;
    let pass_ms = started.elapsed().as_secs_f64() * 1e3 / hashed.max(1) as f64;
    // The hash alone, timed apart from any model.
    let started = Instant::now();
    for (_, picture, _) in &stored {
        LookHash::of(picture);
    }
    let hash_ms = started.elapsed().as_secs_f64() * 1e3 / stored.len().max(1) as f64;

    let looks: Vec<LookHash> = stored.iter().map(|(_, p, _)| LookHash::of(p)).collect();
    let (mut screens, mut photos) = (Vec::new(), Vec::new());
    for i in 0..stored.len() {
        for j in i + 1..stored.len() {
            let bits = looks[i].distance(&looks[j]);
            match (stored[i].2, stored[j].2) {
                (true, true) => screens.push(bits),
                (true, false) | (false, true) => photos.push(bits),
                _ => {}
            }
        }
    }

    progress(&format!(
        "searching for copies of {} screenshots",
        options.originals
    ));
    let originals: Vec<usize> = (0..stored.len())
        .filter(|i| stored[*i].2)
        .take(options.originals)
        .collect();
    // Per kind of copy: the original's rank in each search, and the bits between them.
    let mut kinds: Vec<CopySearches> = Vec::new();
    let mut latencies: Vec<Duration> = Vec::new();
    let mut photo_above_screen = 0;
    for &index in &originals {
        let (id, picture, _) = &stored[index];
        for (copy, bytes) in copies(picture)? {
            let started = Instant::now();
            let picture = QueryPicture::Source(ImageSource::Inline(STANDARD.encode(&bytes)));
            let query = VisionQuery {
                text: None,
                image: Some(api.query_image(&local(), &picture)?),
                filter: MemoryFilter::default(),
                limit: 50,
                mode: None,
            };
            let hits = api.vision_query(&local(), &query)?.hits;
            latencies.push(started.elapsed());
            let rank = hits.iter().position(|h| h.image.id == *id).map(|at| at + 1);
            let group_rank = hits
                .iter()
                .position(|h| h.image.id == *id || h.copies.contains(id))
                .map(|at| at + 1);
            let is_photo = |hit_id: &ImageId| {
                stored
                    .iter()
                    .any(|(stored_id, _, screenshot)| stored_id == hit_id && !screenshot)
            };
            let first_photo = hits.iter().position(|h| is_photo(&h.image.id));
            let last_screen = hits.iter().rposition(|h| !is_photo(&h.image.id));
            if let (Some(photo), Some(screen)) = (first_photo, last_screen)
                && photo < screen
            {
                photo_above_screen += 1;
            }
            let look = QueryImage::of(&bytes, &config.images)?.look;
            let bits = look.distance(&looks[index]);
            let at = match kinds.iter().position(|k| k.copy == copy) {
                Some(at) => at,
                None => {
                    kinds.push(CopySearches {
                        copy,
                        ranks: Vec::new(),
                        group_ranks: Vec::new(),
                        distances: Vec::new(),
                    });
                    kinds.len() - 1
                }
            };
            kinds[at].ranks.push(rank);
            kinds[at].group_ranks.push(group_rank);
            kinds[at].distances.push(bits);
        }
    }
    let copies = kinds.into_iter().map(CopySearches::report).collect();
    let look_model = match &options.look_model {
        Some(model) => Some(model_report(model.as_ref(), &stored, &originals, pass_ms)?),
        None => None,
    };
    Ok(LookReport {
        images: stored.len(),
        copies,
        screens: Distances::of(screens),
        photos: Distances::of(photos),
        photo_above_screen,
        hash_ms_per_image: hash_ms,
        search: Percentiles::of(&latencies),
        look_model,
    })
}

/// How the look model sees the stored images and the originals' copies, and its time per
/// image (each stored picture looked at again, timed by size).
fn model_report(
    model: &dyn LookModel,
    stored: &[(ImageId, RgbImage, bool)],
    originals: &[usize],
    pass_ms: f64,
) -> Result<LookModelReport> {
    let (mut small, mut large) = (Vec::new(), Vec::new());
    let mut vectors = Vec::with_capacity(stored.len());
    for (_, picture, _) in stored {
        let started = Instant::now();
        vectors.push(model.look_vector(picture)?);
        let took = started.elapsed();
        match picture.width() {
            760 => small.push(took),
            1280 => large.push(took),
            _ => {}
        }
    }
    let (mut screens, mut photos) = (Vec::new(), Vec::new());
    for i in 0..stored.len() {
        for j in i + 1..stored.len() {
            let similarity = cosine(&vectors[i], &vectors[j]);
            match (stored[i].2, stored[j].2) {
                (true, true) => screens.push(similarity),
                (true, false) | (false, true) => photos.push(similarity),
                _ => {}
            }
        }
    }
    let mut copies_alike = Vec::new();
    for &index in originals {
        for (_, bytes) in copies(&stored[index].1)? {
            let copy = image::load_from_memory(&bytes)?.to_rgb8();
            copies_alike.push(cosine(&vectors[index], &model.look_vector(&copy)?));
        }
    }
    let median_ms = |times: &[Duration]| Percentiles::of(times).p50_ms;
    Ok(LookModelReport {
        model: model.name().to_string(),
        ms_per_small_image: median_ms(&small),
        ms_per_large_image: median_ms(&large),
        pass_ms_per_image: pass_ms,
        copies: Cosines::of(copies_alike),
        screens: Cosines::of(screens),
        photos: Cosines::of(photos),
    })
}

/// The report for people.
pub fn table(report: &LookReport) -> String {
    let mut out = format!(
        "{} distinct images; look hashed in {:.1} ms per image\n",
        report.images, report.hash_ms_per_image
    );
    out.push_str(&format!(
        "look hashes have {LOOK_BITS} bits; at most {SAME_SCREEN_BITS} apart is the same screen\n"
    ));
    out.push_str(
        "copy          searches  original first  (or folded in it)  worst rank  bits min/median/max\n",
    );
    for kind in &report.copies {
        out.push_str(&format!(
            "{:<13} {:>8} {:>15} {:>18} {:>11} {:>8}/{}/{}\n",
            kind.copy,
            kind.searches,
            kind.first,
            kind.first_or_folded,
            kind.worst_rank
                .map_or_else(|| "missing".into(), |r| r.to_string()),
            kind.distance.min,
            kind.distance.median,
            kind.distance.max
        ));
    }
    for (what, d) in [
        ("different screenshots", &report.screens),
        ("screenshot vs photo", &report.photos),
    ] {
        out.push_str(&format!(
            "{what:<22} bits min/median/max {}/{}/{} over {} pairs; {} of them the same screen\n",
            d.min, d.median, d.max, d.pairs, d.same_screen
        ));
    }
    out.push_str(&format!(
        "searches with a photo above a screenshot: {}\n",
        report.photo_above_screen
    ));
    out.push_str(&format!(
        "image → image search p50/p95/p99 {}\n",
        report.search.p50_p95_p99()
    ));
    match &report.look_model {
        Some(m) => {
            out.push_str(&format!(
                "look model {}: {:.0} ms per 760×230 image, {:.0} ms per 1280×720 (p50); \
                 after-write pass {:.0} ms per image\n",
                m.model, m.ms_per_small_image, m.ms_per_large_image, m.pass_ms_per_image
            ));
            for (what, c) in [
                ("copy vs original", &m.copies),
                ("different screenshots", &m.screens),
                ("screenshot vs photo", &m.photos),
            ] {
                out.push_str(&format!(
                    "{what:<22} cosine min/median/max {:.3}/{:.3}/{:.3} over {} pairs\n",
                    c.min, c.median, c.max, c.pairs
                ));
            }
        }
        None => out.push_str("look model not installed: look hashes only\n"),
    }
    out
}

/// Vision search over a large store: `size` small drawn screens (bars of random lengths and
/// colours, 160×90), each stored through the service with a caption of a few words, their looks
/// hashed by the service's pass; then image → image and text → image searches are timed.
#[derive(Debug, Serialize)]
pub struct ScaleReport {
    pub images: usize,
    /// Whether every image had a look vector (of [`ProjectedColours`]) and the searches by
    /// picture scanned them too.
    pub with_vectors: bool,
    /// The size of the CLIP vector every image had (of [`ProjectedColours`]: 512 numbers as
    /// ViT-B/32's, 768 as SigLIP base's), which the searches by words scanned too; `None`
    /// without.
    pub clip_dimensions: Option<usize>,
    /// A write with a new image, through the service (the look is not computed in it).
    pub store: Percentiles,
    pub hash_ms_per_image: f64,
    /// The after-write pass with nothing pending (the worker runs it after every write).
    pub idle_pass: Percentiles,
    pub search_by_image: Percentiles,
    pub search_by_text: Percentiles,
}

/// A small screen: `rows` bars from the left, lengths and colours from `rng`.
fn small_screen(rng: &mut Rng) -> RgbImage {
    let paper = [
        rng.below(256) as u8,
        rng.below(256) as u8,
        rng.below(256) as u8,
    ];
    let ink = paper.map(|c| c.wrapping_add(128));
    let rows = 3 + rng.below(8);
    let lengths: Vec<u32> = (0..rows).map(|_| 20 + rng.below(130) as u32).collect();
    RgbImage::from_fn(160, 90, |x, y| {
        let row = (y * rows as u32 / 90) as usize;
        let in_bar = (y * rows as u32 % 90) * 2 < 90 && x > 4 && x < lengths[row];
        image::Rgb(if in_bar { ink } else { paper })
    })
}

const CAPTION_WORDS: [&str; 12] = [
    "login",
    "deploy",
    "error",
    "dashboard",
    "settings",
    "build",
    "timeout",
    "database",
    "banner",
    "dialog",
    "terminal",
    "chart",
];

/// A stand-in image model for timing vector scans at scale, where running the real one on
/// every image would take hours: each image's 8×8 grid of mean colours (192 numbers) projected
/// by a fixed pseudo-random matrix to the real model's size (1,280 numbers as a look model, 512
/// as CLIP ViT-B/32; a text's vector is its words' colours, hashed). What it finds alike means
/// nothing; what a search costs with vectors of that size is what is measured.
pub struct ProjectedColours {
    name: String,
    dimensions: usize,
    projection: Vec<f32>,
}

impl ProjectedColours {
    const GRID: usize = 8;
    const INPUTS: usize = Self::GRID * Self::GRID * 3;

    pub fn new(seed: u64, dimensions: usize) -> Self {
        let mut rng = Rng::new(seed);
        let projection = (0..Self::INPUTS * dimensions)
            .map(|_| rng.below(2001) as f32 / 1000.0 - 1.0)
            .collect();
        ProjectedColours {
            name: format!("bench/projected-colours-{dimensions}"),
            dimensions,
            projection,
        }
    }

    fn project(&self, inputs: &[f32]) -> Vec<f32> {
        let vector = self
            .projection
            .chunks_exact(Self::INPUTS)
            .map(|row| row.iter().zip(inputs).map(|(w, x)| w * x).sum())
            .collect();
        cairn_core::image::look_vector::normalised(vector)
    }
}

impl LookModel for ProjectedColours {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn look_vector(&self, image: &RgbImage) -> cairn_core::Result<Vec<f32>> {
        let grid = Self::GRID as u32;
        let small =
            image::imageops::resize(image, grid, grid, image::imageops::FilterType::Triangle);
        let inputs: Vec<f32> = small
            .pixels()
            .flat_map(|p| p.0.map(|c| f32::from(c) / 255.0 - 0.5))
            .collect();
        Ok(self.project(&inputs))
    }
}

impl ClipModel for ProjectedColours {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn image_vector(&self, image: &RgbImage) -> cairn_core::Result<Vec<f32>> {
        self.look_vector(image)
    }

    fn text_vector(&self, text: &str) -> cairn_core::Result<Vec<f32>> {
        let mut rng = Rng::new(text.bytes().fold(7, |h, b| h * 31 + u64::from(b)));
        let inputs: Vec<f32> = (0..Self::INPUTS)
            .map(|_| rng.below(1001) as f32 / 1000.0 - 0.5)
            .collect();
        Ok(self.project(&inputs))
    }
}

pub fn scale(
    dir: &std::path::Path,
    size: usize,
    seed: u64,
    with_vectors: bool,
    clip_dimensions: Option<usize>,
    progress: &mut dyn FnMut(&str),
) -> Result<ScaleReport> {
    let stand_in: Option<Arc<dyn LookModel>> = match with_vectors {
        true => Some(Arc::new(ProjectedColours::new(seed, 1280))),
        false => None,
    };
    let clip_stand_in: Option<Arc<dyn ClipModel>> = clip_dimensions
        .map(|dimensions| Arc::new(ProjectedColours::new(seed, dimensions)) as Arc<dyn ClipModel>);
    let name = format!("look-{size}");
    let (api, _) = image_service(dir, &name, None, stand_in, clip_stand_in)?;
    let scope = Scope::Project(ProjectName::new("bench-look")?);
    let mut rng = Rng::new(seed);
    let mut writes = Vec::with_capacity(size);
    let mut probes = Vec::new();
    for n in 0..size {
        if n % 10_000 == 0 {
            progress(&format!("stored {n} of {size} images"));
        }
        let picture = small_screen(&mut rng);
        let words: Vec<&str> = (0..3).map(|_| CAPTION_WORDS[rng.below(12)]).collect();
        let caption = format!("screen {n}: {}", words.join(" "));
        let inline = STANDARD.encode(png(&picture)?);
        let started = Instant::now();
        let memory = NewMemory::new(caption, scope.clone(), Source::Mcp);
        api.write(&local(), memory, Some(&ImageSource::Inline(inline)))?;
        writes.push(started.elapsed());
        if probes.len() < 50 && rng.below(size / 50 + 1) == 0 {
            // A copy of this screen, rescaled: what an image → image search would be given.
            probes.push(png(&image::imageops::resize(
                &picture,
                240,
                135,
                image::imageops::FilterType::Triangle,
            ))?);
        }
    }
    progress("hashing every image's look");
    let started = Instant::now();
    let hashed = api.read_pending_images(&mut |_| {})?.hashed;
    let hash_ms = started.elapsed().as_secs_f64() * 1e3 / hashed.max(1) as f64;
    // What the server's worker pays after every write once every image is done.
    let mut idle = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        api.read_pending_images(&mut |_| {})?;
        idle.push(started.elapsed());
    }
    progress("searching");
    let mut by_image = Vec::new();
    for probe in &probes {
        let started = Instant::now();
        let picture = QueryPicture::Source(ImageSource::Inline(STANDARD.encode(probe)));
        let query = VisionQuery {
            text: None,
            image: Some(api.query_image(&local(), &picture)?),
            filter: MemoryFilter::default(),
            limit: 10,
            mode: None,
        };
        api.vision_query(&local(), &query)?;
        by_image.push(started.elapsed());
    }
    let mut by_text = Vec::new();
    for n in 0..50 {
        let words = format!(
            "{} {}",
            CAPTION_WORDS[n % 12],
            CAPTION_WORDS[(n * 5 + 1) % 12]
        );
        let started = Instant::now();
        let query = VisionQuery {
            text: Some(words),
            image: None,
            filter: MemoryFilter::default(),
            limit: 10,
            mode: None,
        };
        api.vision_query(&local(), &query)?;
        by_text.push(started.elapsed());
    }
    Ok(ScaleReport {
        images: size,
        with_vectors,
        clip_dimensions,
        store: Percentiles::of(&writes),
        hash_ms_per_image: hash_ms,
        idle_pass: Percentiles::of(&idle),
        search_by_image: Percentiles::of(&by_image),
        search_by_text: Percentiles::of(&by_text),
    })
}

/// The scale reports for people.
pub fn scale_table(reports: &[ScaleReport]) -> String {
    let mut out = String::new();
    for report in reports {
        out.push_str(&format!(
            "{} images{}{}: store p50/p95/p99 {}; looked at in {:.2} ms per image\n  \
             pass with nothing pending p50/p95/p99 {}\n  \
             image → image p50/p95/p99 {}\n  text → image p50/p95/p99 {}\n",
            report.images,
            match report.with_vectors {
                true => " with 1,280-number look vectors (a stand-in model)",
                false => "",
            },
            match report.clip_dimensions {
                Some(dimensions) =>
                    format!(" with {dimensions}-number CLIP vectors (a stand-in model)"),
                None => String::new(),
            },
            report.store.p50_p95_p99(),
            report.hash_ms_per_image,
            report.idle_pass.p50_p95_p99(),
            report.search_by_image.p50_p95_p99(),
            report.search_by_text.p50_p95_p99(),
        ));
    }
    out
}
