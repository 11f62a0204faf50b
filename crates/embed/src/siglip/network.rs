//! SigLIP's two towers on candle, loaded from a Hugging Face `SiglipModel` directory
//! (`config.json`, `model.safetensors`, `tokenizer.json`).
//!
//! As for CLIP, loading reads the shape from `config.json` ([`SiglipShape`]) and checks every
//! tensor against the weights file's header before building anything; a missing or misshapen
//! tensor is an error that names it.
//!
//! How SigLIP differs from CLIP, and what that asks of the code:
//! - **Text** is tokenized by the model's own SentencePiece vocabulary (`tokenizer.json`, run
//!   by Hugging Face's `tokenizers`), ends with `</s>`, and is padded to the whole context
//!   (64 ids) with the pad id: the tower is not causal and reads its *last* position, so a text
//!   is always run at full length, as it was trained. A longer text is cut to the context.
//! - **Images** are scaled to the tower's square whole (no crop; bicubic, as Hugging Face's
//!   SigLIP processor resamples) and each channel mapped from 0–255 to −1…1.
//! - **Calibration**: the model was trained to say how likely words describe a picture,
//!   `sigmoid(exp(logit_scale) × cosine + logit_bias)`; the two numbers are read from the
//!   checkpoint and make the model's [`MatchScale`].

use std::path::Path;

use cairn_core::image::MatchScale;
use cairn_core::image::look_vector::normalised;
use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};
use candle_transformers::models::siglip::{TextModel, VisionModel};
use image::RgbImage;
use image::imageops::FilterType;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::config::SiglipShape;
use crate::clip::towers::{About, Tower, TowerPair};
use crate::weights::{Weights, builder};

/// The files a SigLIP model directory holds.
pub const SIGLIP_FILES: [&str; 3] = ["config.json", "model.safetensors", "tokenizer.json"];

fn siglip_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("SigLIP model {what}: {err}"),
    }
}

/// `image` as a SigLIP image tower of input side `side` reads it: scaled whole to the square
/// (bicubic), each channel from 0–255 to −1…1, channels first (3 × `side`²).
pub fn preprocess(image: &RgbImage, side: u32) -> Vec<f32> {
    let scaled = image::imageops::resize(image, side, side, FilterType::CatmullRom);
    let area = (side * side) as usize;
    let mut planes = vec![0.0; 3 * area];
    for (at, pixel) in scaled.pixels().enumerate() {
        for channel in 0..3 {
            planes[channel * area + at] = f32::from(pixel[channel]) / 127.5 - 1.0;
        }
    }
    planes
}

/// SigLIP's text tower, loaded: the tokenizer (cutting and padding to the context) and the
/// transformer with its head.
pub struct TextTower {
    tokenizer: Tokenizer,
    model: TextModel,
}

/// SigLIP's image tower, loaded: the transformer with its attention-pooling head.
pub struct ImageTower {
    side: usize,
    channels: usize,
    model: VisionModel,
}

impl TextTower {
    /// The ids the tower reads for `text`: its pieces, `</s>`, then padding to the context.
    pub fn ids(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| siglip_error("tokenizer", e))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// The vector of `ids`, a whole context (unit length).
    pub fn vector_of_ids(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let run = || {
            Tensor::from_slice(ids, (1, ids.len()), &Device::Cpu)?
                .apply(&self.model)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(
            run().map_err(|e| siglip_error("text tower", e))?,
        ))
    }
}

impl ImageTower {
    /// The vector of preprocessed pixels: channels first, `channels × side × side` (unit
    /// length).
    pub fn vector_of_pixels(&self, pixels: &[f32]) -> Result<Vec<f32>> {
        let dims = (1, self.channels, self.side, self.side);
        let run = || {
            Tensor::from_slice(pixels, dims, &Device::Cpu)?
                .apply(&self.model)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(
            run().map_err(|e| siglip_error("image tower", e))?,
        ))
    }
}

/// Checks a SigLIP directory without building its towers: its config, its tokenizer, and every
/// tensor in its weights.
pub fn check_siglip_dir(dir: &Path) -> Result<()> {
    let (shape, _) = open_checked(dir)?;
    tokenizer_of(dir, &shape).map(|_| ())
}

/// The model's calibration ([`MatchScale::from_sigmoid`]) from the checkpoint in `dir`.
pub fn match_scale_of(dir: &Path) -> Result<MatchScale> {
    let file = dir.join("model.safetensors");
    let source = file.display().to_string();
    let weights = Weights::open(&file).map_err(|e| siglip_error(&source, e))?;
    let read = |name: &str| {
        weights
            .read(name, &[1])
            .map(|v| f64::from(v[0]))
            .map_err(|e| siglip_error(&source, e))
    };
    Ok(MatchScale::from_sigmoid(
        read("logit_scale")?.exp(),
        read("logit_bias")?,
    ))
}

/// The shape and weights of the model in `dir`, every tensor checked.
fn open_checked(dir: &Path) -> Result<(SiglipShape, Weights)> {
    let shape = SiglipShape::read(&dir.join("config.json"))?;
    let file = dir.join("model.safetensors");
    let source = file.display().to_string();
    let weights = Weights::open(&file).map_err(|e| siglip_error(&source, e))?;
    weights
        .check(&shape.tensors())
        .map_err(|e| siglip_error(&source, e))?;
    Ok((shape, weights))
}

/// The tokenizer of the model in `dir`, set to cut and pad every text to the context.
fn tokenizer_of(dir: &Path, shape: &SiglipShape) -> Result<Tokenizer> {
    let file = dir.join("tokenizer.json");
    let source = file.display().to_string();
    let mut tokenizer = Tokenizer::from_file(&file).map_err(|e| siglip_error(&source, e))?;
    let pad_token = tokenizer.id_to_token(shape.pad_id).ok_or_else(|| {
        siglip_error(
            &source,
            format!(
                "has no piece of id {} (config.json's text_config.pad_token_id)",
                shape.pad_id
            ),
        )
    })?;
    if tokenizer.get_vocab_size(true) > shape.vocabulary {
        return Err(siglip_error(
            &source,
            format!(
                "has {} pieces, more than text_config.vocab_size {}",
                tokenizer.get_vocab_size(true),
                shape.vocabulary
            ),
        ));
    }
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: shape.positions,
            ..TruncationParams::default()
        }))
        .map_err(|e| siglip_error(&source, e))?;
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::Fixed(shape.positions),
        pad_id: shape.pad_id,
        pad_token,
        ..PaddingParams::default()
    }));
    Ok(tokenizer)
}

/// A SigLIP model as core's `ClipModel`: its towers, each loaded on first use, its cosines
/// read on its own calibration.
pub type SiglipNetwork = TowerPair<TextTower, ImageTower>;

impl SiglipNetwork {
    /// The model in `dir`, its vectors recorded under `name`.
    pub fn open(dir: &Path, name: &str) -> Self {
        TowerPair::new(dir, name, |dir| About {
            dimensions: SiglipShape::read(&dir.join("config.json")).map_or(0, |s| s.dimensions()),
            // A checkpoint without its calibration does not load either; nothing is read on
            // this scale then.
            scale: match_scale_of(dir).unwrap_or(MatchScale::CLIP),
        })
    }
}

impl Tower<str> for TextTower {
    /// Loads the text tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let tokenizer = tokenizer_of(dir, &shape)?;
        let model = TextModel::new(
            &shape.candle_config().text_config,
            builder(weights).pp("text_model"),
        )
        .map_err(|e| siglip_error("text tower", e))?;
        Ok(TextTower { tokenizer, model })
    }

    /// The vector of `text` (unit length).
    fn vector(&self, text: &str) -> Result<Vec<f32>> {
        self.vector_of_ids(&self.ids(text)?)
    }
}

impl Tower<RgbImage> for ImageTower {
    /// Loads the image tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let config = &shape.candle_config().vision_config;
        let model = VisionModel::new(config, true, builder(weights).pp("vision_model"))
            .map_err(|e| siglip_error("image tower", e))?;
        Ok(ImageTower {
            side: shape.image_side,
            channels: shape.channels,
            model,
        })
    }

    /// The vector of `image` (unit length).
    fn vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.vector_of_pixels(&preprocess(image, self.side as u32))
    }
}
