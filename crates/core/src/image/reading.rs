//! Looking at images after the write: how each looks (a perceptual hash, always; a look vector,
//! with a look model installed), what it means (a CLIP vector, with a CLIP model) and the text
//! it shows (OCR, with a reader installed), so the image is found by its look, its meaning and
//! its text.
//!
//! A write with an image never waits for a model: the image is stored *pending*, and
//! [`ImageReading::read_pending`] looks at the pending images later — at the end of the CLI
//! command that stored them (as it embeds what it wrote), or in the background worker of
//! `cairn serve` and `cairn mcp`. Each image is looked at once, whatever number of memories show
//! it: its id is its content, so the same picture stored again is already done. Its look hash
//! is recorded ([`crate::image::look`]), its look vector with the look model's name
//! ([`crate::image::look_vector`]) and its CLIP vector with the CLIP model's
//! ([`crate::image::clip`]); its text is recorded with the reader's name, and every
//! memory that shows the image takes the text into its searchable text (lexical and fuzzy at
//! once, semantic once the memory is embedded again); a memory that links an image already read
//! takes its text at once. How a backend does that is its own
//! ([`ImageTx::put_image_text`](crate::image::ImageTx::put_image_text)). An image stored while
//! no reader was installed is read once one is.
//!
//! The model runs outside any transaction; each image's look and text are written in their own
//! short one. A file that cannot be decoded is recorded with no look and no text (and logged),
//! so it is not tried again on every pass. A model that fails (a CLIP directory that lacks a
//! tensor, say) costs only its own work: it is dropped for the rest of the pass and named in
//! the report ([`ReadReport::failures`]), its images wait for it, and their looks, texts and
//! other vectors are recorded all the same.

use std::collections::HashSet;
use std::time::Instant;

use image::RgbImage;
use serde::Serialize;

use crate::config::ImagesConfig;
use crate::error::{Error, Result};
use crate::image::clip::ClipModel;
use crate::image::files::ImageDir;
use crate::image::inspect::decode_rgb;
use crate::image::look::LookHash;
use crate::image::look_vector::LookModel;
use crate::image::model::{Image, ImageId};
use crate::image::store::{ImageSpace, PendingWork};
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
    /// The OCR model that read the text, when one is installed.
    pub reader: Option<String>,
    /// Images whose text was read.
    pub read: u64,
    /// Of those, images that showed some text.
    pub with_text: u64,
    /// Images whose look was hashed.
    pub hashed: u64,
    /// The look model that made look vectors, when one is installed.
    pub look_model: Option<String>,
    /// Images whose look vector was made.
    pub look_vectors: u64,
    /// The CLIP model that made CLIP vectors, when one is installed.
    pub clip_model: Option<String>,
    /// Images whose CLIP vector was made.
    pub clip_vectors: u64,
    /// Models that failed, each with its error: each was dropped for the rest of the run, and
    /// the images keep waiting for its work (the rest of their work was recorded).
    pub failures: Vec<String>,
    pub seconds: f64,
}

impl ReadReport {
    /// Records that `model` failed with `error`.
    fn failed(&mut self, model: &str, error: &crate::error::Error) {
        self.failures.push(format!("{model}: {error}"));
    }
}

/// Looking at stored images after their write: how each looks, always (and its look vector with
/// a look model), and the text it shows when a reader is installed; over a store, its image
/// directory and the models.
pub struct ImageReading<'a> {
    store: &'a dyn Store,
    dir: Option<&'a ImageDir>,
    config: &'a ImagesConfig,
    reader: Option<&'a dyn TextReader>,
    look_model: Option<&'a dyn LookModel>,
    clip_model: Option<&'a dyn ClipModel>,
}

/// A model that gives images a vector in one of their spaces during a pass.
#[derive(Clone, Copy)]
enum SpaceModel<'m> {
    Look(&'m dyn LookModel),
    Clip(&'m dyn ClipModel),
}

impl<'m> SpaceModel<'m> {
    fn space(self) -> ImageSpace {
        match self {
            SpaceModel::Look(_) => ImageSpace::Look,
            SpaceModel::Clip(_) => ImageSpace::Clip,
        }
    }

    fn name(self) -> &'m str {
        match self {
            SpaceModel::Look(model) => model.name(),
            SpaceModel::Clip(model) => model.name(),
        }
    }

    fn vector_of(self, pixels: &RgbImage) -> Result<Vec<f32>> {
        match self {
            SpaceModel::Look(model) => model.look_vector(pixels),
            SpaceModel::Clip(model) => model.image_vector(pixels),
        }
    }
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
            look_model: None,
            clip_model: None,
        }
    }

    /// Makes look vectors with `model` too, when given.
    pub fn with_look_model(mut self, model: Option<&'a dyn LookModel>) -> Self {
        self.look_model = model;
        self
    }

    /// Makes CLIP vectors with `model` too, when given.
    pub fn with_clip_model(mut self, model: Option<&'a dyn ClipModel>) -> Self {
        self.clip_model = model;
        self
    }

    /// The vector spaces this pass fills, each by its model.
    fn spaces(&self) -> Vec<SpaceModel<'a>> {
        let look = self.look_model.map(SpaceModel::Look);
        let clip = self.clip_model.map(SpaceModel::Clip);
        look.into_iter().chain(clip).collect()
    }

    /// What a run reports before it did anything: the models it runs with.
    fn report(&self) -> ReadReport {
        ReadReport {
            reader: self.reader.map(|r| r.name().to_string()),
            read: 0,
            with_text: 0,
            hashed: 0,
            look_model: self.look_model.map(|m| m.name().to_string()),
            look_vectors: 0,
            clip_model: self.clip_model.map(|m| m.name().to_string()),
            clip_vectors: 0,
            failures: Vec::new(),
            seconds: 0.0,
        }
    }

    /// Looks at every pending image (those stored meanwhile too): hashes its look, and with a
    /// reader reads its text and makes it searchable. Each image is decoded once.
    pub fn read_pending(&self, progress: &mut dyn FnMut(ReadProgress)) -> Result<ReadReport> {
        let started = Instant::now();
        let mut report = self.report();
        let Some(dir) = self.dir else {
            return Ok(report);
        };
        // The models this pass still runs: one that fails is dropped for the rest of it.
        let mut models = Models {
            reader: self.reader,
            spaces: self.spaces(),
            failed: Vec::new(),
        };
        // The worker runs this after every write: with nothing pending, one read is all it costs.
        let mut batch = self
            .store
            .pending_images(BATCH, &models.pending_work(), None)?;
        if batch.is_empty() {
            return Ok(report);
        }
        let totals = self.store.image_totals(&models.pending_work())?;
        let mut total = totals.unhashed;
        if models.reader.is_some() {
            total = total.max(totals.unread);
        }
        for model in &models.spaces {
            total = total.max(match model.space() {
                ImageSpace::Look => totals.without_vector,
                ImageSpace::Clip => totals.without_clip_vector,
            });
        }
        progress(ReadProgress { done: 0, total });
        let mut done = 0;
        let mut last: Option<Image> = None;
        while !batch.is_empty() {
            let ids: Vec<ImageId> = batch.iter().map(|i| i.id.clone()).collect();
            // Per space, the images of the batch that already have a vector of its model.
            let mut vectored: Vec<HashSet<ImageId>> = Vec::new();
            for model in &models.spaces {
                let have = self
                    .store
                    .image_vectors_of(model.space(), &ids, model.name())?;
                vectored.push(have.into_iter().map(|(id, _)| id).collect());
            }
            for image in batch {
                let have: Vec<bool> = vectored.iter().map(|v| v.contains(&image.id)).collect();
                self.look_at(dir, &image, &mut models, &have, &mut report)?;
                done += 1;
                progress(ReadProgress {
                    done,
                    total: total.max(done),
                });
                last = Some(image);
            }
            models.drop_failed();
            batch = self
                .store
                .pending_images(BATCH, &models.pending_work(), last.as_ref())?;
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Looks at one stored image now, whether or not it is pending: hashes its look again, and
    /// does what it still lacks of the installed models' work (its text, its look and CLIP
    /// vectors). Returns the image as stored afterwards, and what was done.
    pub fn read_one(&self, id: &ImageId) -> Result<(Image, ReadReport)> {
        let started = Instant::now();
        let mut report = self.report();
        let dir = self
            .dir
            .ok_or_else(|| Error::invalid("image_ref", "this store keeps no images"))?;
        let missing = || Error::Missing {
            field: "image_ref".into(),
            message: format!("no stored image has the id {id}"),
        };
        let image = self.store.image(id)?.ok_or_else(missing)?;
        let mut models = Models {
            reader: self.reader,
            spaces: self.spaces(),
            failed: Vec::new(),
        };
        let mut have = Vec::new();
        for model in &models.spaces {
            let vectors = self.store.image_vectors_of(
                model.space(),
                std::slice::from_ref(id),
                model.name(),
            )?;
            have.push(!vectors.is_empty());
        }
        self.look_at(dir, &image, &mut models, &have, &mut report)?;
        report.seconds = started.elapsed().as_secs_f64();
        let image = self.store.image(id)?.ok_or_else(missing)?;
        Ok((image, report))
    }

    /// Looks at `image`: hashes its look; reads its text when a reader runs and it has none;
    /// makes its vector in each space of `models` where `have` says it has none. All of it is
    /// written in one short transaction; a model that fails is named in `report` and dropped
    /// from `models`.
    fn look_at(
        &self,
        dir: &ImageDir,
        image: &Image,
        models: &mut Models<'a>,
        have: &[bool],
        report: &mut ReadReport,
    ) -> Result<()> {
        let pixels = self.pixels(dir, image).inspect_err(|error| {
            tracing::warn!(image = %image.id, %error, "an image could not be decoded to look at");
        });
        let look = pixels.as_ref().ok().map(LookHash::of);
        let text = match (models.reader, &image.text) {
            (Some(model), None) => match &pixels {
                Ok(pixels) => match model.read(pixels) {
                    Ok(text) => Some(text),
                    Err(error) => {
                        report.failed(model.name(), &error);
                        models.reader = None;
                        None
                    }
                },
                Err(_) => Some(String::new()),
            },
            _ => None,
        };
        // Per space: `Some(None)` records that the file could not be decoded.
        let mut vectors = Vec::new();
        for (model, have) in models.spaces.iter().zip(have) {
            if *have || models.failed.contains(&model.space()) {
                continue;
            }
            let vector = match &pixels {
                Ok(pixels) => match model.vector_of(pixels) {
                    Ok(vector) => Some(vector),
                    Err(error) => {
                        report.failed(model.name(), &error);
                        models.failed.push(model.space());
                        continue;
                    }
                },
                Err(_) => None,
            };
            vectors.push((*model, vector));
        }
        self.store.write(&mut |tx| {
            tx.put_image_look(&image.id, look.as_ref())?;
            if let (Some(text), Some(model)) = (&text, self.reader) {
                tx.put_image_text(&image.id, text, model.name())?;
            }
            for (model, vector) in &vectors {
                tx.put_image_vector(model.space(), &image.id, model.name(), vector.as_deref())?;
            }
            Ok(())
        })?;
        for (model, vector) in &vectors {
            let made = u64::from(vector.is_some());
            match model.space() {
                ImageSpace::Look => report.look_vectors += made,
                ImageSpace::Clip => report.clip_vectors += made,
            }
        }
        report.hashed += u64::from(look.is_some());
        if let Some(text) = &text {
            report.read += 1;
            report.with_text += u64::from(!text.trim().is_empty());
        }
        Ok(())
    }

    fn pixels(&self, dir: &ImageDir, image: &Image) -> Result<RgbImage> {
        decode_rgb(&dir.read(image)?, image.format, self.config)
    }
}

/// The models a run still runs: one that fails is dropped for the rest of it (the reader at
/// once; a vector space once the batch it failed in is done).
struct Models<'m> {
    reader: Option<&'m dyn TextReader>,
    spaces: Vec<SpaceModel<'m>>,
    /// Spaces whose model failed during this batch.
    failed: Vec<ImageSpace>,
}

impl<'m> Models<'m> {
    /// What a pass with these models waits for.
    fn pending_work(&self) -> PendingWork<'m> {
        let name_in = |space| {
            self.spaces
                .iter()
                .find(|m| m.space() == space)
                .map(|m| m.name())
        };
        PendingWork {
            read_text: self.reader.is_some(),
            look_model: name_in(ImageSpace::Look),
            clip_model: name_in(ImageSpace::Clip),
        }
    }

    fn drop_failed(&mut self) {
        let failed = std::mem::take(&mut self.failed);
        self.spaces.retain(|model| !failed.contains(&model.space()));
    }
}
