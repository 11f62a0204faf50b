//! CLIP's two towers on candle, loaded from a Hugging Face `CLIPModel` directory
//! (`config.json`, `model.safetensors`, `merges.txt`).
//!
//! Loading reads the shape from `config.json` ([`ClipShape`]), then checks every tensor the
//! towers read against the weights file's header — present, and of the shape the config says —
//! and only then builds candle's towers, each tensor read from the file with a plain read
//! (`weights.rs`: mapped, its pages would stay resident beside candle's copy until the load
//! ended, 1.2 GB at the peak for ViT-B/32 instead of 0.6). A missing or misshapen tensor is an
//! error that names it (and how many more are wrong). Weights are `F32`, as Hugging Face's CLIP
//! checkpoints are.
//!
//! The text tower is causal: the output at the end-of-text token depends only on the ids up to
//! it, so a text runs with just those ids (a short query costs a fraction of a full context of
//! 77) and gives the same vector.

use std::path::Path;

use cairn_core::image::MatchScale;
use cairn_core::image::look_vector::normalised;
use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};
use candle_nn::{Linear, Module, linear_no_bias};
use candle_transformers::models::clip::text_model::ClipTextTransformer;
use candle_transformers::models::clip::vision_model::ClipVisionTransformer;
use image::RgbImage;

use super::config::ClipShape;
use super::preprocess::preprocess;
use super::tokenizer::{ClipTokenizer, merges_for_vocabulary};
use super::towers::{About, Tower, TowerPair};
use crate::weights::{Weights, builder};

/// The files a CLIP model directory holds.
pub const CLIP_FILES: [&str; 3] = ["config.json", "model.safetensors", "merges.txt"];

fn clip_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("CLIP model {what}: {err}"),
    }
}

/// CLIP's text tower, loaded: the tokenizer, the transformer and its projection.
pub struct TextTower {
    tokenizer: ClipTokenizer,
    transformer: ClipTextTransformer,
    projection: Linear,
}

/// CLIP's image tower, loaded: the transformer and its projection.
pub struct ImageTower {
    side: usize,
    channels: usize,
    transformer: ClipVisionTransformer,
    projection: Linear,
}

impl TextTower {
    /// The vector of `ids`, framed and ending with `<|endoftext|>` (unit length).
    pub fn vector_of_ids(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let ids = Tensor::from_slice(ids, (1, ids.len()), &Device::Cpu);
        tower_vector(ids, &self.transformer, &self.projection, "text tower")
    }
}

impl ImageTower {
    /// The vector of preprocessed pixels: channels first, `channels × side × side` (unit
    /// length).
    pub fn vector_of_pixels(&self, pixels: &[f32]) -> Result<Vec<f32>> {
        let dims = (1, self.channels, self.side, self.side);
        let pixels = Tensor::from_slice(pixels, dims, &Device::Cpu);
        tower_vector(pixels, &self.transformer, &self.projection, "image tower")
    }
}

/// `input` through a tower's transformer and its projection, as a unit vector.
fn tower_vector(
    input: candle_core::Result<Tensor>,
    transformer: &impl Module,
    projection: &Linear,
    tower: &str,
) -> Result<Vec<f32>> {
    let run = || {
        input?
            .apply(transformer)?
            .apply(projection)?
            .flatten_all()?
            .to_vec1::<f32>()
    };
    Ok(normalised(run().map_err(|e| clip_error(tower, e))?))
}

/// A loaded CLIP model: its shape and both towers.
pub struct ClipWeights {
    shape: ClipShape,
    text: TextTower,
    image: ImageTower,
}

impl ClipWeights {
    /// Loads the model in `dir`, checking every tensor first.
    pub fn load(dir: &Path) -> Result<Self> {
        Ok(ClipWeights {
            shape: ClipShape::read(&dir.join("config.json"))?,
            text: TextTower::load(dir)?,
            image: ImageTower::load(dir)?,
        })
    }

    pub fn shape(&self) -> &ClipShape {
        &self.shape
    }

    /// The text tower's vector of `text` (unit length).
    pub fn text_vector(&self, text: &str) -> Result<Vec<f32>> {
        self.text.vector(text)
    }

    /// The text tower's vector of `ids`, framed and ending with `<|endoftext|>` (unit length).
    pub fn text_vector_of_ids(&self, ids: &[u32]) -> Result<Vec<f32>> {
        self.text.vector_of_ids(ids)
    }

    /// The image tower's vector of `image` (unit length).
    pub fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.image.vector(image)
    }

    /// The image tower's vector of preprocessed pixels: channels first, `channels × side ×
    /// side` (unit length).
    pub fn image_vector_of_pixels(&self, pixels: &[f32]) -> Result<Vec<f32>> {
        self.image.vector_of_pixels(pixels)
    }
}

/// Checks an OpenAI CLIP directory without building its towers: its config, its merges, and
/// every tensor in its weights (`family::check_clip_dir` sends CLIP directories here).
pub fn check_openai_clip_dir(dir: &Path) -> Result<()> {
    let (shape, _) = open_checked(dir)?;
    tokenizer_of(dir, &shape).map(|_| ())
}

/// The shape and weights of the model in `dir`, every tensor checked.
fn open_checked(dir: &Path) -> Result<(ClipShape, Weights)> {
    let shape = ClipShape::read(&dir.join("config.json"))?;
    let file = dir.join("model.safetensors");
    let source = file.display().to_string();
    let weights = Weights::open(&file).map_err(|e| clip_error(&source, e))?;
    weights
        .check(&shape.tensors())
        .map_err(|e| clip_error(&source, e))?;
    Ok((shape, weights))
}

/// The tokenizer of the model in `dir`: as many merges of its `merges.txt` as its vocabulary
/// holds.
fn tokenizer_of(dir: &Path, shape: &ClipShape) -> Result<ClipTokenizer> {
    let merges = merges_for_vocabulary(shape.vocabulary).ok_or_else(|| {
        clip_error(
            "config.json",
            format!(
                "text_config.vocab_size {} is smaller than the 514 byte and special symbols",
                shape.vocabulary
            ),
        )
    })?;
    ClipTokenizer::open_with(&dir.join("merges.txt"), merges)
}

/// A CLIP model as core's `ClipModel`: its towers, each loaded on first use.
pub type ClipNetwork = TowerPair<TextTower, ImageTower>;

impl ClipNetwork {
    /// The model in `dir`, its vectors recorded under `name`, read on CLIP's scale.
    pub fn open(dir: &Path, name: &str) -> Self {
        TowerPair::new(dir, name, |dir| About {
            dimensions: ClipShape::read(&dir.join("config.json")).map_or(0, |s| s.projection),
            scale: MatchScale::CLIP,
        })
    }
}

impl Tower<str> for TextTower {
    /// Loads the text tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let tokenizer = tokenizer_of(dir, &shape)?;
        let config = shape.candle_config();
        let built = (|| {
            let builder = builder(weights);
            Ok::<_, candle_core::Error>((
                ClipTextTransformer::new(builder.pp("text_model"), &config.text_config)?,
                linear_no_bias(
                    shape.text.width,
                    shape.projection,
                    builder.pp("text_projection"),
                )?,
            ))
        })();
        let (transformer, projection) = built.map_err(|e| clip_error("text tower", e))?;
        Ok(TextTower {
            tokenizer,
            transformer,
            projection,
        })
    }

    /// The vector of `text` (unit length).
    fn vector(&self, text: &str) -> Result<Vec<f32>> {
        let framed = self.tokenizer.framed(text);
        let end = self.tokenizer.end_of_text(&framed);
        self.vector_of_ids(&framed[..=end])
    }
}

impl Tower<RgbImage> for ImageTower {
    /// Loads the image tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let config = shape.candle_config();
        let built = (|| {
            let builder = builder(weights);
            Ok::<_, candle_core::Error>((
                ClipVisionTransformer::new(builder.pp("vision_model"), &config.vision_config)?,
                linear_no_bias(
                    shape.vision.width,
                    shape.projection,
                    builder.pp("visual_projection"),
                )?,
            ))
        })();
        let (transformer, projection) = built.map_err(|e| clip_error("image tower", e))?;
        Ok(ImageTower {
            side: shape.image_side,
            channels: shape.channels,
            transformer,
            projection,
        })
    }

    /// The vector of `image` (unit length).
    fn vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.vector_of_pixels(&preprocess(image, self.side as u32))
    }
}
