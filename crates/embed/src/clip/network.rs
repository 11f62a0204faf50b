//! CLIP's two towers on candle, loaded from a Hugging Face `CLIPModel` directory
//! (`config.json`, `model.safetensors`, `merges.txt`).
//!
//! Loading reads the shape from `config.json` ([`ClipShape`]), then checks every tensor the
//! towers read against the weights file's header — present, and of the shape the config says —
//! and only then builds candle's towers from the memory-mapped file. A missing or misshapen
//! tensor is an error that names it (and how many more are wrong).
//!
//! The text tower is causal: the output at the end-of-text token depends only on the ids up to
//! it, so a text runs with just those ids (a short query costs a fraction of a full context of
//! 77) and gives the same vector.

use std::collections::HashMap;
use std::path::Path;

use cairn_core::image::ClipModel;
use cairn_core::image::look_vector::normalised;
use cairn_core::{Error, Result};
use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::clip::ClipModel as Towers;
use image::RgbImage;

use super::config::ClipShape;
use super::preprocess::preprocess;
use super::tokenizer::{ClipTokenizer, merges_for_vocabulary};
use crate::lazy::LoadOnce;

/// The files a CLIP model directory holds.
pub const CLIP_FILES: [&str; 3] = ["config.json", "model.safetensors", "merges.txt"];

fn clip_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("CLIP model {what}: {err}"),
    }
}

/// A loaded CLIP model: its shape, tokenizer and towers.
pub struct ClipWeights {
    shape: ClipShape,
    tokenizer: ClipTokenizer,
    towers: Towers,
}

impl ClipWeights {
    /// Loads the model in `dir`, checking every tensor first.
    pub fn load(dir: &Path) -> Result<Self> {
        let (shape, tokenizer, tensors) = open_checked(dir)?;
        let source = dir.join("model.safetensors").display().to_string();
        let builder = VarBuilder::from_backend(Box::new(tensors), DType::F32, Device::Cpu);
        let towers =
            Towers::new(builder, &shape.candle_config()).map_err(|e| clip_error(&source, e))?;
        Ok(ClipWeights {
            shape,
            tokenizer,
            towers,
        })
    }

    pub fn shape(&self) -> &ClipShape {
        &self.shape
    }

    /// The text tower's vector of `text` (unit length).
    pub fn text_vector(&self, text: &str) -> Result<Vec<f32>> {
        let framed = self.tokenizer.framed(text);
        let end = self.tokenizer.end_of_text(&framed);
        self.text_vector_of_ids(&framed[..=end])
    }

    /// The text tower's vector of `ids`, framed and ending with `<|endoftext|>` (unit length).
    pub fn text_vector_of_ids(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let run = || {
            let ids = Tensor::from_slice(ids, (1, ids.len()), &Device::Cpu)?;
            self.towers
                .get_text_features(&ids)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(run().map_err(|e| clip_error("text tower", e))?))
    }

    /// The image tower's vector of `image` (unit length).
    pub fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.image_vector_of_pixels(&preprocess(image, self.shape.image_side as u32))
    }

    /// The image tower's vector of preprocessed pixels: channels first, `channels × side ×
    /// side` (unit length).
    pub fn image_vector_of_pixels(&self, pixels: &[f32]) -> Result<Vec<f32>> {
        let side = self.shape.image_side;
        let run = || {
            let pixels =
                Tensor::from_slice(pixels, (1, self.shape.channels, side, side), &Device::Cpu)?;
            self.towers
                .get_image_features(&pixels)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(run().map_err(|e| clip_error("image tower", e))?))
    }
}

/// Checks a CLIP directory without building its towers: its config, its merges, and every
/// tensor in its weights (what `cairn model install clip` checks before it keeps a download).
pub fn check_clip_dir(dir: &Path) -> Result<()> {
    open_checked(dir).map(|_| ())
}

/// The shape, tokenizer and mapped weights of the model in `dir`, every tensor checked.
fn open_checked(dir: &Path) -> Result<(ClipShape, ClipTokenizer, MmapedSafetensors)> {
    let shape = ClipShape::read(&dir.join("config.json"))?;
    let merges = merges_for_vocabulary(shape.vocabulary).ok_or_else(|| {
        clip_error(
            "config.json",
            format!(
                "text_config.vocab_size {} is smaller than the 514 byte and special symbols",
                shape.vocabulary
            ),
        )
    })?;
    let tokenizer = ClipTokenizer::open_with(&dir.join("merges.txt"), merges)?;
    let file = dir.join("model.safetensors");
    let source = file.display().to_string();
    // Safety: the file is mapped read-only; cairn does not write model files while running.
    let tensors = unsafe { MmapedSafetensors::new(&file) }.map_err(|e| clip_error(&source, e))?;
    check_tensors(&shape, &tensors, &source)?;
    Ok((shape, tokenizer, tensors))
}

/// Checks that the weights hold every tensor `shape` needs, each of its shape.
fn check_tensors(shape: &ClipShape, tensors: &MmapedSafetensors, source: &str) -> Result<()> {
    let held: HashMap<String, Vec<usize>> = tensors
        .tensors()
        .into_iter()
        .map(|(name, view)| (name, view.shape().to_vec()))
        .collect();
    let mut wrong = Vec::new();
    for (name, expected) in shape.tensors() {
        match held.get(&name) {
            None => wrong.push(format!("{name} is missing")),
            Some(found) if *found != expected => {
                wrong.push(format!("{name} is {found:?}, the config says {expected:?}"))
            }
            Some(_) => {}
        }
    }
    match wrong.split_first() {
        None => Ok(()),
        Some((first, [])) => Err(clip_error(source, first)),
        Some((first, rest)) => Err(clip_error(
            source,
            format!(
                "{first} (and {} more tensors are missing or misshapen)",
                rest.len()
            ),
        )),
    }
}

/// A CLIP model as core's [`ClipModel`], loaded on first use; its vectors are recorded under
/// `name`.
pub struct ClipNetwork {
    name: String,
    dimensions: usize,
    loaded: LoadOnce<ClipWeights>,
}

impl ClipNetwork {
    /// The model in `dir` (its shape read now, its weights when first used).
    pub fn new(dir: &Path, name: &str) -> Result<Self> {
        let shape = ClipShape::read(&dir.join("config.json"))?;
        Ok(ClipNetwork {
            name: name.to_string(),
            dimensions: shape.projection,
            loaded: LoadOnce::new(dir),
        })
    }

    fn weights(&self) -> Result<&ClipWeights> {
        self.loaded.get(ClipWeights::load)
    }
}

impl ClipModel for ClipNetwork {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.weights()?.image_vector(image)
    }

    fn text_vector(&self, text: &str) -> Result<Vec<f32>> {
        self.weights()?.text_vector(text)
    }
}
