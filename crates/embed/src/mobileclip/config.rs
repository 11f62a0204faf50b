//! A MobileCLIP model's shape: its `open_clip_config.json` (OpenCLIP's layout) names the image
//! tower's family and gives the text tower and the preprocessing; the image tower's widths and
//! depths are read from the weights themselves, so MCi0, MCi1 and MCi2 load without a table of
//! their sizes.
//!
//! The image tower is timm's FastViT of the MCi family (`fastvit_mci0`, `…1`, `…2`): a MobileOne
//! stem, three stages of RepMixer blocks and one of attention blocks (with a conditional
//! positional encoding), patch embeddings with squeeze-excitation in the last two, a final
//! MobileOne convolution with squeeze-excitation, and its classifier head as the projection.
//! Which of a MobileOne block's branches exist (a scale branch for kernels over 1, an identity
//! batch norm where the block keeps its shape) follows timm's rules: [`MobileClipShape::tensors`]
//! lists every tensor they make, because candle's FastViT builds an optional branch only when its
//! tensors are there, so a file lacking one would load and compute something else.
//!
//! The text tower is OpenCLIP's, attending both ways (`no_causal_mask`, as MobileCLIP's S0–S2
//! and B were trained), pooled at the end-of-text token and projected by a matrix.

use std::path::Path;

use cairn_core::Result;
use candle_transformers::models::fastvit;
use candle_transformers::models::openclip::text_model;
use serde::Deserialize;

use crate::clip::config_file::{NamedConfig, read_text};
use crate::weights::Weights;

/// The image tower families cairn runs (timm's names).
const FAMILIES: [&str; 3] = ["fastvit_mci0", "fastvit_mci1", "fastvit_mci2"];

/// Width of an attention head in FastViT's attention blocks.
const HEAD_WIDTH: usize = 32;

/// A MobileCLIP model's shape.
#[derive(Debug, Clone)]
pub struct MobileClipShape {
    /// The shared space's width.
    pub embed: usize,
    pub image: FastVitShape,
    pub text: TextShape,
    pub preprocess: Preprocess,
}

/// The image tower's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastVitShape {
    /// The square side it reads.
    pub side: usize,
    /// The stem's width; stage `i` is `width << i` wide.
    pub width: usize,
    /// Blocks per stage.
    pub blocks: [usize; 4],
    /// The blocks' feed-forward widening.
    pub expansion: usize,
}

/// The text tower's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextShape {
    pub vocabulary: usize,
    pub context: usize,
    pub width: usize,
    pub heads: usize,
    pub layers: usize,
}

/// How a picture becomes the tower's input: its shorter side scaled to the side (`bicubic` or
/// bilinear), the centre cropped, each channel `(x / 255 − mean) / std`.
#[derive(Debug, Clone, PartialEq)]
pub struct Preprocess {
    pub mean: [f32; 3],
    pub std: [f32; 3],
    pub bicubic: bool,
}

#[derive(Deserialize)]
struct ConfigFile {
    model_cfg: ModelConfig,
    #[serde(default)]
    preprocess_cfg: PreprocessConfig,
}

#[derive(Deserialize)]
struct ModelConfig {
    embed_dim: usize,
    vision_cfg: VisionConfig,
    text_cfg: TextConfig,
}

#[derive(Deserialize)]
struct VisionConfig {
    timm_model_name: Option<String>,
    #[serde(default = "defaults::pool")]
    timm_pool: String,
    timm_proj: Option<String>,
    image_size: usize,
}

#[derive(Deserialize)]
struct TextConfig {
    #[serde(default = "defaults::context")]
    context_length: usize,
    #[serde(default = "defaults::vocabulary")]
    vocab_size: usize,
    #[serde(default = "defaults::width")]
    width: usize,
    #[serde(default = "defaults::heads")]
    heads: usize,
    #[serde(default = "defaults::layers")]
    layers: usize,
    #[serde(default)]
    no_causal_mask: bool,
    #[serde(default = "defaults::mlp_ratio")]
    mlp_ratio: f64,
}

#[derive(Deserialize)]
#[serde(default)]
struct PreprocessConfig {
    mean: [f32; 3],
    std: [f32; 3],
    interpolation: String,
    resize_mode: String,
}

/// OpenCLIP's defaults, and MobileCLIP's preprocessing.
mod defaults {
    pub fn pool() -> String {
        "avg".into()
    }
    pub fn context() -> usize {
        77
    }
    pub fn vocabulary() -> usize {
        49_408
    }
    pub fn width() -> usize {
        512
    }
    pub fn heads() -> usize {
        8
    }
    pub fn layers() -> usize {
        12
    }
    pub fn mlp_ratio() -> f64 {
        4.0
    }
}

impl Default for PreprocessConfig {
    fn default() -> Self {
        PreprocessConfig {
            mean: [0.0; 3],
            std: [1.0; 3],
            interpolation: "bilinear".into(),
            resize_mode: "shortest".into(),
        }
    }
}

impl MobileClipShape {
    /// Reads `open_clip_config.json` in `dir`, and the image tower's sizes from `weights`.
    pub fn read(dir: &Path, weights: &Weights) -> Result<Self> {
        let path = dir.join("open_clip_config.json");
        let (text, source) = read_text("MobileCLIP", &path)?;
        Self::parse(&text, &source, weights)
    }

    /// Reads a config's text (`source` names it in errors) and the image tower's sizes from
    /// `weights`.
    pub fn parse(text: &str, source: &str, weights: &Weights) -> Result<Self> {
        let config = NamedConfig {
            kind: "MobileCLIP",
            source,
        };
        let file: ConfigFile = config.parse(text)?;
        let (vision, text) = (&file.model_cfg.vision_cfg, &file.model_cfg.text_cfg);
        let family = vision.timm_model_name.as_deref().unwrap_or("none");
        if !FAMILIES.contains(&family) {
            return Err(config.refused(format!(
                "model_cfg.vision_cfg.timm_model_name is {family:?}; cairn runs MobileCLIP's \
                     FastViT towers ({})",
                FAMILIES.join(", ")
            )));
        }
        if vision.timm_pool != "avg" || vision.timm_proj.as_deref().is_some_and(|p| p != "none") {
            return Err(config.refused(
                "model_cfg.vision_cfg must pool by average with no extra projection (timm_pool \
                 \"avg\", timm_proj null), as MobileCLIP does",
            ));
        }
        if !text.no_causal_mask {
            return Err(config.refused(
                "model_cfg.text_cfg.no_causal_mask is false; cairn runs MobileCLIP's text towers, \
                 which attend both ways",
            ));
        }
        if text.heads == 0 || !text.width.is_multiple_of(text.heads) || text.mlp_ratio != 4.0 {
            return Err(config.refused(format!(
                "model_cfg.text_cfg: width {} over {} heads with mlp_ratio {} is not a text \
                     tower cairn runs (heads must divide the width; mlp_ratio 4)",
                text.width, text.heads, text.mlp_ratio
            )));
        }
        let preprocess = &file.preprocess_cfg;
        if preprocess.resize_mode != "shortest" {
            return Err(config.refused(format!(
                "preprocess_cfg.resize_mode is {:?}; only \"shortest\" is supported",
                preprocess.resize_mode
            )));
        }
        let bicubic = match preprocess.interpolation.as_str() {
            "bilinear" => false,
            "bicubic" => true,
            other => {
                return Err(config.refused(format!(
                    "preprocess_cfg.interpolation is {other:?}; \"bilinear\" or \"bicubic\""
                )));
            }
        };
        let image = FastVitShape::of(weights, vision.image_size).map_err(|e| config.refused(e))?;
        Ok(MobileClipShape {
            embed: file.model_cfg.embed_dim,
            image,
            text: TextShape {
                vocabulary: text.vocab_size,
                context: text.context_length,
                width: text.width,
                heads: text.heads,
                layers: text.layers,
            },
            preprocess: Preprocess {
                mean: preprocess.mean,
                std: preprocess.std,
                bicubic,
            },
        })
    }

    /// Every tensor the towers read, by its name in an OpenCLIP checkpoint, with its shape;
    /// `logit_scale` too, which every such checkpoint holds.
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let mut tensors = Vec::new();
        let mut add = |name: String, shape: &[usize]| tensors.push((name, shape.to_vec()));
        self.image.tensors("visual.trunk", self.embed, &mut add);
        let text = self.text;
        let (w, ff) = (text.width, 4 * text.width);
        add("text.token_embedding.weight".into(), &[text.vocabulary, w]);
        add("text.positional_embedding".into(), &[text.context, w]);
        for layer in 0..text.layers {
            let at = format!("text.transformer.resblocks.{layer}");
            add(format!("{at}.ln_1.weight"), &[w]);
            add(format!("{at}.ln_1.bias"), &[w]);
            add(format!("{at}.attn.in_proj_weight"), &[3 * w, w]);
            add(format!("{at}.attn.in_proj_bias"), &[3 * w]);
            add(format!("{at}.attn.out_proj.weight"), &[w, w]);
            add(format!("{at}.attn.out_proj.bias"), &[w]);
            add(format!("{at}.ln_2.weight"), &[w]);
            add(format!("{at}.ln_2.bias"), &[w]);
            add(format!("{at}.mlp.c_fc.weight"), &[ff, w]);
            add(format!("{at}.mlp.c_fc.bias"), &[ff]);
            add(format!("{at}.mlp.c_proj.weight"), &[w, ff]);
            add(format!("{at}.mlp.c_proj.bias"), &[w]);
        }
        add("text.ln_final.weight".into(), &[w]);
        add("text.ln_final.bias".into(), &[w]);
        add("text.text_projection".into(), &[w, self.embed]);
        add("logit_scale".into(), &[]);
        tensors
    }

    /// The image tower as candle's FastViT takes it.
    pub fn fastvit_config(&self) -> fastvit::Config {
        fastvit::Config {
            exp_ratio: self.image.expansion,
            in_channels: self.image.width,
            blocks: self.image.blocks,
            attn: true,
            lkc_use_act: true,
        }
    }

    /// The text tower as candle's OpenCLIP text transformer takes it.
    pub fn text_config(&self) -> text_model::Config {
        text_model::Config {
            vocab_size: self.text.vocabulary,
            embed_dim: self.text.width,
            intermediate_size: 4 * self.text.width,
            max_position_embeddings: self.text.context,
            pad_with: None,
            num_hidden_layers: self.text.layers,
            num_attention_heads: self.text.heads,
            projection_dim: self.embed,
        }
    }
}

impl FastVitShape {
    /// The tower's sizes, read from the weights under `visual.trunk`.
    fn of(weights: &Weights, side: usize) -> std::result::Result<Self, String> {
        let trunk = "visual.trunk";
        let stem = format!("{trunk}.stem.0.conv_kxk.0.conv.weight");
        let width = *weights
            .shape_of(&stem)
            .and_then(|s| s.first())
            .ok_or_else(|| format!("the weights have no {stem}: not a FastViT image tower"))?;
        let mut blocks = [0; 4];
        for (stage, count) in blocks.iter_mut().enumerate() {
            while weights
                .shape_of(&format!(
                    "{trunk}.stages.{stage}.blocks.{count}.mlp.fc1.weight"
                ))
                .is_some()
            {
                *count += 1;
            }
            if *count == 0 {
                return Err(format!("the weights have no block in stage {stage}"));
            }
        }
        let first = format!("{trunk}.stages.0.blocks.0.mlp.fc1.weight");
        let widened = weights.shape_of(&first).map_or(0, |s| s[0]);
        if width == 0 || !widened.is_multiple_of(width) || !(8 * width).is_multiple_of(HEAD_WIDTH) {
            return Err(format!(
                "a stem {width} wide with blocks widening to {widened} is not a FastViT MCi tower"
            ));
        }
        Ok(FastVitShape {
            side,
            width,
            blocks,
            expansion: widened / width,
        })
    }

    /// Every tensor of the tower under `at`, its head projecting to `embed`.
    fn tensors(&self, at: &str, embed: usize, add: &mut impl FnMut(String, &[usize])) {
        let c = self.width;
        mobile_one(&format!("{at}.stem.0"), 3, c, 3, 1, false, add);
        mobile_one(&format!("{at}.stem.1"), c, c, 3, c, false, add);
        mobile_one(&format!("{at}.stem.2"), c, c, 1, 1, true, add);
        for stage in 0..4 {
            let dim = c << stage;
            let at = format!("{at}.stages.{stage}");
            if stage > 0 {
                // Patch embedding: large and small depthwise-grouped kernels, stride 2.
                let down = format!("{at}.downsample.proj");
                for (kernel, name) in [(7, "large_conv"), (3, "small_conv")] {
                    conv_norm(&format!("{down}.0.{name}"), dim, 1, kernel, add);
                }
                if stage >= 2 {
                    squeeze_excite(&format!("{down}.0.se"), dim, dim / 4, add);
                }
                mobile_one(&format!("{down}.1"), dim, dim, 1, 1, true, add);
            }
            if stage == 3 {
                add(format!("{at}.pos_emb.pos_enc.weight"), &[dim, 1, 7, 7]);
                add(format!("{at}.pos_emb.pos_enc.bias"), &[dim]);
            }
            for block in 0..self.blocks[stage] {
                let at = format!("{at}.blocks.{block}");
                if stage == 3 {
                    batch_norm(&format!("{at}.norm"), dim, add);
                    add(format!("{at}.token_mixer.qkv.weight"), &[3 * dim, dim]);
                    add(format!("{at}.token_mixer.proj.weight"), &[dim, dim]);
                    add(format!("{at}.token_mixer.proj.bias"), &[dim]);
                    add(format!("{at}.layer_scale_1.gamma"), &[dim, 1, 1]);
                    add(format!("{at}.layer_scale_2.gamma"), &[dim, 1, 1]);
                } else {
                    let mixer = format!("{at}.token_mixer");
                    batch_norm(&format!("{mixer}.norm.identity"), dim, add);
                    mobile_one(&format!("{mixer}.mixer"), dim, dim, 3, dim, true, add);
                    add(format!("{mixer}.layer_scale.gamma"), &[dim, 1, 1]);
                    add(format!("{at}.layer_scale.gamma"), &[dim, 1, 1]);
                }
                let hidden = dim * self.expansion;
                conv_norm(&format!("{at}.mlp.conv"), dim, 1, 7, add);
                add(format!("{at}.mlp.fc1.weight"), &[hidden, dim, 1, 1]);
                add(format!("{at}.mlp.fc1.bias"), &[hidden]);
                add(format!("{at}.mlp.fc2.weight"), &[dim, hidden, 1, 1]);
                add(format!("{at}.mlp.fc2.bias"), &[dim]);
            }
        }
        let (last, out) = (8 * c, 16 * c);
        mobile_one(&format!("{at}.final_conv"), last, out, 3, last, false, add);
        squeeze_excite(&format!("{at}.final_conv.se"), out, out / 16, add);
        add(format!("{at}.head.fc.weight"), &[embed, out]);
        add(format!("{at}.head.fc.bias"), &[embed]);
    }
}

/// A batch norm's four tensors.
fn batch_norm(at: &str, channels: usize, add: &mut impl FnMut(String, &[usize])) {
    for name in ["weight", "bias", "running_mean", "running_var"] {
        add(format!("{at}.{name}"), &[channels]);
    }
}

/// A convolution without bias and its batch norm; `per_group` input channels a filter sees.
fn conv_norm(
    at: &str,
    out: usize,
    per_group: usize,
    kernel: usize,
    add: &mut impl FnMut(String, &[usize]),
) {
    add(
        format!("{at}.conv.weight"),
        &[out, per_group, kernel, kernel],
    );
    batch_norm(&format!("{at}.bn"), out, add);
}

/// A MobileOne block of one branch: its `kernel` convolution, a 1×1 scale branch when the
/// kernel is larger, and an identity batch norm when it keeps its shape (`identity`).
fn mobile_one(
    at: &str,
    input: usize,
    out: usize,
    kernel: usize,
    groups: usize,
    identity: bool,
    add: &mut impl FnMut(String, &[usize]),
) {
    let per_group = input / groups;
    conv_norm(&format!("{at}.conv_kxk.0"), out, per_group, kernel, add);
    if kernel > 1 {
        conv_norm(&format!("{at}.conv_scale"), out, per_group, 1, add);
    }
    if identity {
        batch_norm(&format!("{at}.identity"), out, add);
    }
}

/// A squeeze-excitation: two 1×1 convolutions with biases, through `hidden` channels.
fn squeeze_excite(
    at: &str,
    channels: usize,
    hidden: usize,
    add: &mut impl FnMut(String, &[usize]),
) {
    add(format!("{at}.fc1.weight"), &[hidden, channels, 1, 1]);
    add(format!("{at}.fc1.bias"), &[hidden]);
    add(format!("{at}.fc2.weight"), &[channels, hidden, 1, 1]);
    add(format!("{at}.fc2.bias"), &[channels]);
}
