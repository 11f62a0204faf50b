//! Reading the text in images (OCR), after the write, so the text makes the image findable.
//!
//! A write with an image never waits for a model: the image is stored *unread*, and
//! [`ImageReading::read_pending`] reads the unread images later — at the end of the CLI command
//! that stored them (as it embeds what it wrote), or in the background worker of `cairn serve`
//! and `cairn mcp`. Each image is read once, whatever number of memories show it: its id is its
//! content, so the same picture stored again is already read. Its text is recorded with the
//! reader's name, and every memory that shows the image takes the text into its searchable text
//! (lexical and fuzzy at once, semantic once the memory is embedded again); a memory that links
//! an image already read takes its text at once. How a backend does that is its own
//! ([`ImageTx::put_image_text`](crate::image::ImageTx::put_image_text)).
//!
//! The model runs outside any transaction; each text is written in its own short one. A file
//! that cannot be read or decoded is recorded with no text (and logged), so it is not tried
//! again on every pass; a model that fails leaves the image unread for the next pass.

use std::time::Instant;

use image::RgbImage;
use serde::Serialize;

use crate::config::ImagesConfig;
use crate::error::{Error, Result};
use crate::image::files::ImageDir;
use crate::image::inspect::decode_rgb;
use crate::image::model::Image;
use crate::store::Store;

/// A model that reads the text in an image.
pub trait TextReader: Send + Sync {
    /// The model's name, recorded with every text it reads.
    fn name(&self) -> &str;

    /// The text `image` shows, lines in reading order separated by newlines (empty for none).
    fn read(&self, image: &RgbImage) -> Result<String>;
}

/// What to tell a user who has no OCR model and wants images read.
pub const HOW_TO_ENABLE: &str = "no OCR model is installed; run `cairn model install ocr` (about 31 MB, once) so the \
     text in images is searchable";

/// How many unread images one read of the store takes.
const BATCH: usize = 16;

/// How far a reading run has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadProgress {
    pub done: u64,
    /// Unread when the run started.
    pub total: u64,
}

/// What a reading run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadReport {
    pub reader: String,
    /// Images read.
    pub read: u64,
    /// Of those, images that showed some text.
    pub with_text: u64,
    pub seconds: f64,
}

/// Reading images' text, over a store, its image directory and the reader when one is
/// installed.
pub struct ImageReading<'a> {
    store: &'a dyn Store,
    dir: Option<&'a ImageDir>,
    config: &'a ImagesConfig,
    reader: Option<&'a dyn TextReader>,
}

impl<'a> ImageReading<'a> {
    pub fn new(
        store: &'a dyn Store,
        dir: Option<&'a ImageDir>,
        config: &'a ImagesConfig,
        reader: Option<&'a dyn TextReader>,
    ) -> Self {
        ImageReading {
            store,
            dir,
            config,
            reader,
        }
    }

    /// Reads every unread image (those stored meanwhile too) and makes its text searchable.
    pub fn read_pending(&self, progress: &mut dyn FnMut(ReadProgress)) -> Result<ReadReport> {
        let reader = self.reader.ok_or_else(|| Error::Model {
            message: HOW_TO_ENABLE.into(),
        })?;
        let started = Instant::now();
        let mut report = ReadReport {
            reader: reader.name().to_string(),
            read: 0,
            with_text: 0,
            seconds: 0.0,
        };
        let Some(dir) = self.dir else {
            return Ok(report);
        };
        let total = self.store.image_totals()?.unread;
        progress(ReadProgress { done: 0, total });
        loop {
            let batch = self.store.unread_images(BATCH)?;
            if batch.is_empty() {
                break;
            }
            for image in batch {
                let text = match self.pixels(dir, &image) {
                    Ok(pixels) => reader.read(&pixels)?,
                    Err(error) => {
                        tracing::warn!(image = %image.id, %error, "an image could not be read for its text");
                        String::new()
                    }
                };
                self.store
                    .write(&mut |tx| tx.put_image_text(&image.id, &text, reader.name()))?;
                report.read += 1;
                report.with_text += u64::from(!text.trim().is_empty());
                progress(ReadProgress {
                    done: report.read,
                    total: total.max(report.read),
                });
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    fn pixels(&self, dir: &ImageDir, image: &Image) -> Result<RgbImage> {
        decode_rgb(&dir.read(image)?, image.format, self.config)
    }
}
