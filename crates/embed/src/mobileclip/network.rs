//! MobileCLIP's two towers on candle, loaded from an OpenCLIP directory
//! (`open_clip_config.json`, `open_clip_model.safetensors`, `tokenizer.json`).
//!
//! Loading reads the shape ([`MobileClipShape`]) and checks the file against every tensor it
//! needs — present and of its shape — and that the file holds nothing else but batch-norm
//! counters: candle's FastViT builds an optional branch only where its tensors are, so a file of
//! another structure (a reparameterized checkpoint, a missing branch) is refused by name instead
//! of computing something else.
//!
//! - **Text** is CLIP's tokenizer (`clip::tokenizer`, checked against OpenAI's ids) on the
//!   merges the directory's `tokenizer.json` holds, framed to 77 ids and padded with 0 as
//!   OpenCLIP does: the tower attends both ways, so the padding is read, and it pools at the
//!   end-of-text token.
//! - **Images**: the shorter side scaled to the tower's side (bilinear unless the config says
//!   bicubic), the centre cropped, channels `(x / 255 − mean) / std` (MobileCLIP: 0 and 1).

use std::collections::HashSet;
use std::path::Path;

use cairn_core::image::MatchScale;
use cairn_core::image::look_vector::normalised;
use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};
use candle_nn::Func;
use candle_transformers::models::fastvit;
use candle_transformers::models::openclip::text_model::OpenClipTextTransformer;
use image::RgbImage;
use image::imageops::FilterType;
use serde::Deserialize;

use super::config::MobileClipShape;
use crate::clip::preprocess::centre_crop;
use crate::clip::tokenizer::{CONTEXT, ClipTokenizer, merges_for_vocabulary};
use crate::clip::towers::{About, Tower, TowerPair};
use crate::weights::{Weights, builder};

/// The files a MobileCLIP (OpenCLIP) directory holds.
pub const MOBILECLIP_FILES: [&str; 3] = [
    "open_clip_config.json",
    "open_clip_model.safetensors",
    "tokenizer.json",
];

fn mobileclip_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("MobileCLIP model {what}: {err}"),
    }
}

/// MobileCLIP's text tower, loaded.
pub struct TextTower {
    tokenizer: ClipTokenizer,
    transformer: OpenClipTextTransformer,
    /// Width × shared space.
    projection: Tensor,
}

/// MobileCLIP's image tower, loaded.
pub struct ImageTower {
    shape: MobileClipShape,
    trunk: Func<'static>,
}

impl TextTower {
    /// The ids the tower reads for `text`: `<|startoftext|>`, its ids, `<|endoftext|>`, zeros
    /// to 77.
    pub fn ids(&self, text: &str) -> [u32; CONTEXT] {
        self.tokenizer.framed(text)
    }

    /// The vector of a framed text (unit length).
    pub fn vector_of_ids(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let run = || {
            Tensor::from_slice(ids, (1, ids.len()), &Device::Cpu)?
                .apply(&self.transformer)?
                .matmul(&self.projection)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(
            run().map_err(|e| mobileclip_error("text tower", e))?,
        ))
    }
}

impl Tower<str> for TextTower {
    /// Loads the text tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let tokenizer = tokenizer_of(dir, &shape)?;
        let built = (|| {
            let builder = builder(weights);
            Ok::<_, candle_core::Error>((
                OpenClipTextTransformer::new(builder.pp("text"), &shape.text_config())?,
                builder.get((shape.text.width, shape.embed), "text.text_projection")?,
            ))
        })();
        let (transformer, projection) = built.map_err(|e| mobileclip_error("text tower", e))?;
        Ok(TextTower {
            tokenizer,
            transformer,
            projection,
        })
    }

    /// The vector of `text` (unit length).
    fn vector(&self, text: &str) -> Result<Vec<f32>> {
        self.vector_of_ids(&self.ids(text))
    }
}

impl ImageTower {
    /// The model's shape.
    pub fn shape(&self) -> &MobileClipShape {
        &self.shape
    }

    /// `image` as the tower reads it: 3 × side², channels first.
    pub fn preprocess(&self, image: &RgbImage) -> Vec<f32> {
        let preprocess = &self.shape.preprocess;
        let filter = match preprocess.bicubic {
            true => FilterType::CatmullRom,
            false => FilterType::Triangle,
        };
        let side = self.shape.image.side as u32;
        centre_crop(image, side, filter, preprocess.mean, preprocess.std)
    }

    /// The vector of preprocessed pixels: channels first, `3 × side × side` (unit length).
    pub fn vector_of_pixels(&self, pixels: &[f32]) -> Result<Vec<f32>> {
        let side = self.shape.image.side;
        let run = || {
            Tensor::from_slice(pixels, (1, 3, side, side), &Device::Cpu)?
                .apply(&self.trunk)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        Ok(normalised(
            run().map_err(|e| mobileclip_error("image tower", e))?,
        ))
    }
}

impl Tower<RgbImage> for ImageTower {
    /// Loads the image tower of the model in `dir`, checking every tensor of both first.
    fn load(dir: &Path) -> Result<Self> {
        let (shape, weights) = open_checked(dir)?;
        let trunk = fastvit::fastvit(
            &shape.fastvit_config(),
            shape.embed,
            builder(weights).pp("visual.trunk"),
        )
        .map_err(|e| mobileclip_error("image tower", e))?;
        Ok(ImageTower { shape, trunk })
    }

    /// The vector of `image` (unit length).
    fn vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.vector_of_pixels(&self.preprocess(image))
    }
}

/// Checks a MobileCLIP directory without building its towers: its config, its tokenizer's
/// merges, and every tensor in its weights.
pub fn check_mobileclip_dir(dir: &Path) -> Result<()> {
    let (shape, _) = open_checked(dir)?;
    tokenizer_of(dir, &shape).map(|_| ())
}

/// The shape and weights of the model in `dir`, every tensor checked, and nothing else in the
/// file but batch-norm counters.
fn open_checked(dir: &Path) -> Result<(MobileClipShape, Weights)> {
    let file = dir.join("open_clip_model.safetensors");
    let source = file.display().to_string();
    let weights = Weights::open(&file).map_err(|e| mobileclip_error(&source, e))?;
    let shape = MobileClipShape::read(dir, &weights)?;
    if shape.text.context != CONTEXT {
        return Err(mobileclip_error(
            "open_clip_config.json",
            format!(
                "model_cfg.text_cfg.context_length is {}; CLIP's tokenizer frames {CONTEXT} ids",
                shape.text.context
            ),
        ));
    }
    let expected = shape.tensors();
    weights
        .check(&expected)
        .map_err(|e| mobileclip_error(&source, e))?;
    let known: HashSet<&str> = expected.iter().map(|(name, _)| name.as_str()).collect();
    let mut extra: Vec<&str> = weights
        .names()
        .filter(|name| !name.ends_with(".num_batches_tracked") && !known.contains(name))
        .collect();
    extra.sort_unstable();
    if let Some(first) = extra.first() {
        return Err(mobileclip_error(
            &source,
            format!(
                "holds {} tensor(s) the model does not have, {first} first: another structure \
                 (a reparameterized checkpoint?) than timm's MCi towers",
                extra.len()
            ),
        ));
    }
    Ok((shape, weights))
}

#[derive(Deserialize)]
struct TokenizerFile {
    model: TokenizerModel,
}

#[derive(Deserialize)]
struct TokenizerModel {
    merges: Vec<Merge>,
}

/// A merge as `tokenizer.json` writes it: `"a b"`, or `["a", "b"]` in newer files.
#[derive(Deserialize)]
#[serde(untagged)]
enum Merge {
    Line(String),
    Pair([String; 2]),
}

/// CLIP's tokenizer on the merges of the model's `tokenizer.json`, as many as its vocabulary
/// holds.
fn tokenizer_of(dir: &Path, shape: &MobileClipShape) -> Result<ClipTokenizer> {
    let file = dir.join("tokenizer.json");
    let source = file.display().to_string();
    let text = std::fs::read_to_string(&file).map_err(|e| mobileclip_error(&source, e))?;
    let read: TokenizerFile =
        serde_json::from_str(&text).map_err(|e| mobileclip_error(&source, e))?;
    let mut merges = String::from("#version: 0.2\n");
    for merge in read.model.merges {
        match merge {
            Merge::Line(line) => merges.push_str(&line),
            Merge::Pair([first, second]) => {
                merges.push_str(&first);
                merges.push(' ');
                merges.push_str(&second);
            }
        }
        merges.push('\n');
    }
    let count = merges_for_vocabulary(shape.text.vocabulary).ok_or_else(|| {
        mobileclip_error(
            "open_clip_config.json",
            format!(
                "model_cfg.text_cfg.vocab_size {} is smaller than the 514 byte and special symbols",
                shape.text.vocabulary
            ),
        )
    })?;
    ClipTokenizer::from_merges(&merges, &source, count)
}

/// A MobileCLIP model as core's `ClipModel`: its towers, each loaded on first use. It was
/// trained as CLIP was (a softmax over a batch), so its cosines read on CLIP's scale.
pub type MobileClipNetwork = TowerPair<TextTower, ImageTower>;

impl MobileClipNetwork {
    /// The model in `dir`, its vectors recorded under `name`.
    pub fn open(dir: &Path, name: &str) -> Self {
        TowerPair::new(dir, name, |dir| About {
            dimensions: Weights::open(&dir.join("open_clip_model.safetensors"))
                .ok()
                .and_then(|weights| MobileClipShape::read(dir, &weights).ok())
                .map_or(0, |shape| shape.embed),
            scale: MatchScale::CLIP,
        })
    }
}
