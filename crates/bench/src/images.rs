//! What keeping an image costs a write: `store` with a new screenshot sent inline (base64
//! decoded, header read and capped, hashed, the record and link committed, the file written and
//! fsynced), with a picture already stored (one more reference), and without an image, as a
//! baseline; plus the thumbnail a viewer asks for once per image.
//!
//! Screenshots are synthetic: rows of glyph-sized blocks on a dark or light background, which
//! compress like text on screen (PNG size is what the write pays for). Each timed write gets a
//! picture no earlier write stored. Conflict detection is off: the difference measured is the
//! image's alone.

use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_core::config::Config;
use cairn_core::image::{ClipModel, ImageDir, ImageSource, LookModel, TextReader};
use cairn_core::testing::local;
use cairn_core::{Api, ApiParts, NewMemory, ProjectName, Scope, Source};
use cairn_store_sqlite::SqliteStore;
use serde::Serialize;

use crate::measure::Percentiles;

pub struct ImagesOptions {
    /// Writes timed per kind.
    pub writes: usize,
    pub seed: u64,
}

#[derive(Debug, Serialize)]
pub struct SizeReport {
    pub width: u32,
    pub height: u32,
    /// Mean PNG size of the screenshots written.
    pub mean_bytes: u64,
    pub store_new_image: Percentiles,
    pub store_same_image: Percentiles,
    pub thumbnail: Percentiles,
}

#[derive(Debug, Serialize)]
pub struct ImagesReport {
    pub store_without_image: Percentiles,
    pub sizes: Vec<SizeReport>,
}

/// The screen sizes measured: a terminal crop and a full HD screen.
pub const SIZES: [(u32, u32); 2] = [(760, 230), (1920, 1080)];

/// A service over a new store `NAME.db` in `dir` that keeps images (in `NAME.db-images`), reads
/// their text with `reader` and makes look vectors with `look_model` when given, and detects no
/// conflicts (the image benchmarks time images alone).
/// Where the images of benchmark store `name` in `dir` are kept.
fn image_dir(dir: &Path, name: &str) -> ImageDir {
    ImageDir::new(dir.join(format!("{name}.db-images")))
}

pub fn image_service(
    dir: &Path,
    name: &str,
    reader: Option<Arc<dyn TextReader>>,
    look_model: Option<Arc<dyn LookModel>>,
    clip_model: Option<Arc<dyn ClipModel>>,
) -> Result<(Api, Config)> {
    let mut config = Config::default();
    config.conflicts.detect = false;
    config.images.ocr = reader.is_some();
    let store = SqliteStore::open(&dir.join(format!("{name}.db")))?;
    let parts = ApiParts {
        images: Some(image_dir(dir, name)),
        reader,
        look_model,
        clip_model,
        ..ApiParts::new(Box::new(store))
    };
    Ok((Api::open(parts, &config), config))
}

pub fn run(
    dir: &Path,
    options: &ImagesOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ImagesReport> {
    let (api, config) = image_service(dir, "images", None, None, None)?;
    let scope = Scope::Project(ProjectName::new("bench-images")?);
    let new = |index: usize, what: &str| {
        NewMemory::new(
            format!(
                "screenshot {index} of the {what} failure, seed {}",
                options.seed
            ),
            scope.clone(),
            Source::Mcp,
        )
    };
    progress(&format!("{} writes without an image", options.writes));
    let mut plain = Vec::new();
    for index in 0..options.writes {
        let memory = new(index, "plain");
        let started = Instant::now();
        api.write(&local(), memory, None)?;
        plain.push(started.elapsed());
    }
    let mut sizes = Vec::new();
    for (width, height) in SIZES {
        progress(&format!(
            "{width}×{height}: rendering {} screenshots",
            options.writes
        ));
        let pngs: Vec<Vec<u8>> = (0..options.writes)
            .map(|index| screenshot(width, height, options.seed ^ index as u64))
            .collect::<Result<_>>()?;
        let mean_bytes = pngs.iter().map(|png| png.len() as u64).sum::<u64>() / pngs.len() as u64;
        let shots: Vec<String> = pngs.iter().map(|png| STANDARD.encode(png)).collect();
        progress(&format!(
            "{width}×{height}: {} writes with a new image",
            options.writes
        ));
        let (mut fresh, mut again, mut thumbs) = (Vec::new(), Vec::new(), Vec::new());
        let mut stored = Vec::new();
        for (index, shot) in shots.iter().enumerate() {
            let memory = new(index, &format!("{width}x{height}"));
            let source = ImageSource::Inline(shot.clone());
            let started = Instant::now();
            let outcome = api.write(&local(), memory, Some(&source))?;
            fresh.push(started.elapsed());
            stored.push(outcome.image.expect("a write with an image names it"));
        }
        progress(&format!(
            "{width}×{height}: the same images again, and thumbnails"
        ));
        for (index, shot) in shots.iter().enumerate() {
            let memory = new(index, &format!("{width}x{height} repeated"));
            let source = ImageSource::Inline(shot.clone());
            let started = Instant::now();
            api.write(&local(), memory, Some(&source))?;
            again.push(started.elapsed());
        }
        let images_dir = image_dir(dir, "images");
        for image in &stored {
            let started = Instant::now();
            images_dir.thumbnail(image, &config.images)?;
            thumbs.push(started.elapsed());
        }
        sizes.push(SizeReport {
            width,
            height,
            mean_bytes,
            store_new_image: Percentiles::of(&fresh),
            store_same_image: Percentiles::of(&again),
            thumbnail: Percentiles::of(&thumbs),
        });
    }
    Ok(ImagesReport {
        store_without_image: Percentiles::of(&plain),
        sizes,
    })
}

/// A synthetic screenshot: a title bar, then lines of glyph-sized blocks of varying lengths,
/// light on dark or dark on light (by seed), as a PNG.
pub fn screenshot(width: u32, height: u32, seed: u64) -> Result<Vec<u8>> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let dark = seed.is_multiple_of(2);
    let (background, ink) = match dark {
        true => ([24u8, 26, 33], [220u8, 223, 228]),
        false => ([250u8, 250, 250], [30u8, 30, 30]),
    };
    let mut picture = image::RgbImage::from_pixel(width, height, image::Rgb(background));
    for y in 0..height.min(24) {
        for x in 0..width {
            picture.put_pixel(x, y, image::Rgb([60, 64, 72]));
        }
    }
    let (glyph_w, glyph_h, line_h) = (8u32, 12u32, 18u32);
    let mut top = 32;
    while top + glyph_h < height {
        let words = 2 + next() % 12;
        let mut left = 8;
        for _ in 0..words {
            let letters = 1 + (next() % 9) as u32;
            for _ in 0..letters {
                if left + glyph_w >= width {
                    break;
                }
                let shape = next();
                for dy in 0..glyph_h {
                    for dx in 0..glyph_w - 2 {
                        if (shape >> ((dy * 5 + dx) % 64)) & 1 == 1 {
                            picture.put_pixel(left + dx, top + dy, image::Rgb(ink));
                        }
                    }
                }
                left += glyph_w;
            }
            left += glyph_w;
        }
        top += line_h;
    }
    png(&picture)
}

/// `picture` encoded as PNG, as a screenshot arrives.
pub fn png(picture: &image::RgbImage) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    picture.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)?;
    Ok(bytes)
}
