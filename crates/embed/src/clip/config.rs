//! A CLIP model's shape, read from the `config.json` of a Hugging Face `CLIPModel` directory,
//! and the tensors that shape needs.
//!
//! A field the file leaves out takes Hugging Face's default (ViT-B/32's: text 512 wide, 12
//! layers, 8 heads; image 768 wide, 12 layers, 12 heads, 224 pixels in 32-pixel patches;
//! projection 512), as Hugging Face itself reads the file. What candle's CLIP towers cannot run
//! is refused by name: another model type (SigLIP, …), an activation other than `quick_gelu`,
//! a layer-norm epsilon other than 1e-5, a text context shorter than CLIP's 77 ids.
//!
//! [`ClipShape::tensors`] lists every tensor the towers read, with its shape: the loader checks
//! the weights file against it before building anything, because candle's CLIP quietly makes a
//! random `class_embedding` when the file has none — a model that loads and then finds nothing.

use std::path::Path;

use cairn_core::Result;
use candle_transformers::models::clip::ClipConfig;
use candle_transformers::models::clip::text_model::{Activation, ClipTextConfig};
use candle_transformers::models::clip::vision_model::ClipVisionConfig;
use serde::Deserialize;

use super::tokenizer::CONTEXT;
use crate::clip::config_file::{NamedConfig, read_text};

/// The layer-norm epsilon candle's CLIP towers use (Hugging Face's default).
const LAYER_NORM_EPS: f64 = 1e-5;

/// One tower's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TowerShape {
    /// The width of its hidden states.
    pub width: usize,
    /// The width of its feed-forward layers.
    pub feed_forward: usize,
    pub layers: usize,
    pub heads: usize,
}

/// A CLIP model's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipShape {
    pub text: TowerShape,
    pub vision: TowerShape,
    /// Ids in the text vocabulary.
    pub vocabulary: usize,
    /// Positions the text tower has (at least [`CONTEXT`]).
    pub positions: usize,
    /// The side of the square image the image tower reads, and of its patches.
    pub image_side: usize,
    pub patch: usize,
    pub channels: usize,
    /// The width of the shared space both towers project into.
    pub projection: usize,
}

#[derive(Deserialize)]
struct ConfigFile {
    model_type: Option<String>,
    #[serde(default = "defaults::projection")]
    projection_dim: usize,
    #[serde(default)]
    text_config: TextConfigFile,
    #[serde(default)]
    vision_config: VisionConfigFile,
}

#[derive(Deserialize)]
#[serde(default)]
struct TextConfigFile {
    vocab_size: usize,
    hidden_size: usize,
    intermediate_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    max_position_embeddings: usize,
    hidden_act: String,
    layer_norm_eps: f64,
}

#[derive(Deserialize)]
#[serde(default)]
struct VisionConfigFile {
    hidden_size: usize,
    intermediate_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    image_size: usize,
    patch_size: usize,
    num_channels: usize,
    hidden_act: String,
    layer_norm_eps: f64,
}

/// Hugging Face's defaults for `CLIPConfig`.
mod defaults {
    pub fn projection() -> usize {
        512
    }
}

impl Default for TextConfigFile {
    fn default() -> Self {
        TextConfigFile {
            vocab_size: 49_408,
            hidden_size: 512,
            intermediate_size: 2048,
            num_hidden_layers: 12,
            num_attention_heads: 8,
            max_position_embeddings: 77,
            hidden_act: "quick_gelu".into(),
            layer_norm_eps: LAYER_NORM_EPS,
        }
    }
}

impl Default for VisionConfigFile {
    fn default() -> Self {
        VisionConfigFile {
            hidden_size: 768,
            intermediate_size: 3072,
            num_hidden_layers: 12,
            num_attention_heads: 12,
            image_size: 224,
            patch_size: 32,
            num_channels: 3,
            hidden_act: "quick_gelu".into(),
            layer_norm_eps: LAYER_NORM_EPS,
        }
    }
}

impl ClipShape {
    /// Reads `config.json` at `path`.
    pub fn read(path: &Path) -> Result<Self> {
        let (text, source) = read_text("CLIP", path)?;
        Self::parse(&text, &source)
    }

    /// Reads a `config.json`'s text (`source` names it in errors).
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let config = NamedConfig {
            kind: "CLIP",
            source,
        };
        let file: ConfigFile = config.parse(text)?;
        if let Some(kind) = file.model_type.as_deref().filter(|k| *k != "clip") {
            return Err(config.refused(format!(
                "model_type is {kind:?}; cairn runs CLIP (\"clip\") and SigLIP (\"siglip\") models"
            )));
        }
        let (text, vision) = (&file.text_config, &file.vision_config);
        config.require_each(
            &[
                ("text_config.hidden_act", &text.hidden_act),
                ("vision_config.hidden_act", &vision.hidden_act),
            ],
            "quick_gelu",
            "OpenAI's CLIP",
        )?;
        for (field, eps) in [
            ("text_config.layer_norm_eps", text.layer_norm_eps),
            ("vision_config.layer_norm_eps", vision.layer_norm_eps),
        ] {
            if (eps - LAYER_NORM_EPS).abs() > 1e-12 {
                return Err(config.refused(format!(
                    "{field} is {eps}; only {LAYER_NORM_EPS} is supported"
                )));
            }
        }
        if text.max_position_embeddings < CONTEXT {
            return Err(config.refused(format!(
                "text_config.max_position_embeddings is {}; CLIP's tokenizer frames {CONTEXT} ids",
                text.max_position_embeddings
            )));
        }
        let towers = [
            ("text_config", text.hidden_size, text.num_attention_heads),
            (
                "vision_config",
                vision.hidden_size,
                vision.num_attention_heads,
            ),
        ];
        check_divisions(towers, vision.image_size, vision.patch_size)
            .map_err(|what| config.refused(what))?;
        Ok(ClipShape {
            text: TowerShape {
                width: text.hidden_size,
                feed_forward: text.intermediate_size,
                layers: text.num_hidden_layers,
                heads: text.num_attention_heads,
            },
            vision: TowerShape {
                width: vision.hidden_size,
                feed_forward: vision.intermediate_size,
                layers: vision.num_hidden_layers,
                heads: vision.num_attention_heads,
            },
            vocabulary: text.vocab_size,
            positions: text.max_position_embeddings,
            image_side: vision.image_size,
            patch: vision.patch_size,
            channels: vision.num_channels,
            projection: file.projection_dim,
        })
    }

    /// Every tensor the towers read, by its name in a Hugging Face `CLIPModel` checkpoint, with
    /// its shape. (`logit_scale` and the position-id buffers some checkpoints carry are not read.)
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let mut tensors = Vec::new();
        let mut add = |name: String, shape: &[usize]| tensors.push((name, shape.to_vec()));
        let (text, vision) = (self.text, self.vision);
        add(
            "text_model.embeddings.token_embedding.weight".into(),
            &[self.vocabulary, text.width],
        );
        add(
            "text_model.embeddings.position_embedding.weight".into(),
            &[self.positions, text.width],
        );
        encoder_tensors("text_model.encoder", text, &mut add);
        layer_norm_tensors("text_model.final_layer_norm", text.width, &mut add);
        let patches = (self.image_side / self.patch).pow(2);
        add(
            "vision_model.embeddings.class_embedding".into(),
            &[vision.width],
        );
        add(
            "vision_model.embeddings.patch_embedding.weight".into(),
            &[vision.width, self.channels, self.patch, self.patch],
        );
        add(
            "vision_model.embeddings.position_embedding.weight".into(),
            &[patches + 1, vision.width],
        );
        layer_norm_tensors("vision_model.pre_layrnorm", vision.width, &mut add);
        encoder_tensors("vision_model.encoder", vision, &mut add);
        layer_norm_tensors("vision_model.post_layernorm", vision.width, &mut add);
        add(
            "visual_projection.weight".into(),
            &[self.projection, vision.width],
        );
        add(
            "text_projection.weight".into(),
            &[self.projection, text.width],
        );
        tensors
    }

    /// The same shape as candle's CLIP takes it.
    pub fn candle_config(&self) -> ClipConfig {
        ClipConfig {
            text_config: ClipTextConfig {
                vocab_size: self.vocabulary,
                embed_dim: self.text.width,
                activation: Activation::QuickGelu,
                intermediate_size: self.text.feed_forward,
                max_position_embeddings: self.positions,
                pad_with: None,
                num_hidden_layers: self.text.layers,
                num_attention_heads: self.text.heads,
                projection_dim: self.projection,
            },
            vision_config: ClipVisionConfig {
                embed_dim: self.vision.width,
                activation: Activation::QuickGelu,
                intermediate_size: self.vision.feed_forward,
                num_hidden_layers: self.vision.layers,
                num_attention_heads: self.vision.heads,
                projection_dim: self.projection,
                num_channels: self.channels,
                image_size: self.image_side,
                patch_size: self.patch,
            },
            logit_scale_init_value: 2.6592,
            image_size: self.image_side,
        }
    }
}

/// Checks what both kinds' towers need of a shape: each tower's width (`(config section, width,
/// heads)`) divides among its attention heads, and the image side among its patches. The error
/// names the field.
pub(crate) fn check_divisions(
    towers: [(&str, usize, usize); 2],
    image_side: usize,
    patch: usize,
) -> std::result::Result<(), String> {
    for (tower, width, heads) in towers {
        if heads == 0 || !width.is_multiple_of(heads) {
            return Err(format!(
                "{tower}.hidden_size {width} is not a multiple of its {heads} attention heads"
            ));
        }
    }
    if patch == 0 || !image_side.is_multiple_of(patch) {
        return Err(format!(
            "vision_config.image_size {image_side} is not a multiple of its patch_size {patch}"
        ));
    }
    Ok(())
}

/// The tensors of one tower's transformer layers.
pub(crate) fn encoder_tensors(
    prefix: &str,
    tower: TowerShape,
    add: &mut impl FnMut(String, &[usize]),
) {
    let (width, feed_forward) = (tower.width, tower.feed_forward);
    for layer in 0..tower.layers {
        let at = format!("{prefix}.layers.{layer}");
        for projection in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            add(
                format!("{at}.self_attn.{projection}.weight"),
                &[width, width],
            );
            add(format!("{at}.self_attn.{projection}.bias"), &[width]);
        }
        layer_norm_tensors(&format!("{at}.layer_norm1"), width, add);
        add(format!("{at}.mlp.fc1.weight"), &[feed_forward, width]);
        add(format!("{at}.mlp.fc1.bias"), &[feed_forward]);
        add(format!("{at}.mlp.fc2.weight"), &[width, feed_forward]);
        add(format!("{at}.mlp.fc2.bias"), &[width]);
        layer_norm_tensors(&format!("{at}.layer_norm2"), width, add);
    }
}

pub(crate) fn layer_norm_tensors(
    prefix: &str,
    width: usize,
    add: &mut impl FnMut(String, &[usize]),
) {
    add(format!("{prefix}.weight"), &[width]);
    add(format!("{prefix}.bias"), &[width]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_config_is_vit_b_32_and_its_tensors_number_as_hugging_faces() {
        let shape = ClipShape::parse("{}", "config.json").unwrap();
        assert_eq!(shape.text.width, 512);
        assert_eq!(shape.vision.width, 768);
        assert_eq!(
            (shape.image_side, shape.patch, shape.projection),
            (224, 32, 512)
        );
        let tensors = shape.tensors();
        // 12 layers × 16 tensors per tower, plus embeddings, norms and projections.
        assert_eq!(tensors.len(), 2 * 12 * 16 + 4 + 7 + 2);
        let parameters: usize = tensors
            .iter()
            .map(|(_, s)| s.iter().product::<usize>())
            .sum();
        // openai/clip-vit-base-patch32 has 151,277,313 parameters, one of them logit_scale.
        assert_eq!(parameters, 151_277_312);
    }

    #[test]
    fn what_the_towers_cannot_run_is_refused_by_field() {
        let cases = [
            (r#"{"model_type": "siglip2"}"#, "model_type is \"siglip2\""),
            (
                r#"{"text_config": {"hidden_act": "gelu"}}"#,
                "text_config.hidden_act",
            ),
            (
                r#"{"vision_config": {"layer_norm_eps": 1e-6}}"#,
                "vision_config.layer_norm_eps",
            ),
            (
                r#"{"text_config": {"max_position_embeddings": 16}}"#,
                "max_position_embeddings",
            ),
            (
                r#"{"vision_config": {"hidden_size": 100}}"#,
                "vision_config.hidden_size",
            ),
            (r#"{"vision_config": {"patch_size": 30}}"#, "patch_size"),
            ("not json", "config.json"),
        ];
        for (text, named) in cases {
            let err = ClipShape::parse(text, "config.json")
                .unwrap_err()
                .to_string();
            assert!(err.contains(named), "{text}: {err}");
        }
    }
}
