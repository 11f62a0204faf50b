//! A SigLIP model's shape, read from the `config.json` of a Hugging Face `SiglipModel`
//! directory, and the tensors that shape needs.
//!
//! A field the file leaves out takes Hugging Face's default (`google/siglip-base-patch16-224`'s:
//! both towers 768 wide, 12 layers, 12 heads; a text context of 64 ids from a vocabulary of
//! 32,000, padded with id 1; 224-pixel images in 16-pixel patches). What candle's SigLIP cannot
//! run is refused by name: another model type (SigLIP 2's `siglip2` among them), an activation
//! other than `gelu_pytorch_tanh`, towers of different widths (SigLIP's space is the towers'
//! own width, with no projection between), a vision tower without its pooling head.
//!
//! [`SiglipShape::tensors`] lists every tensor the towers read, with its shape, so the loader
//! can check the file before building anything, as it does for CLIP.

use std::path::Path;

use cairn_core::Result;
use candle_transformers::models::siglip;
use serde::Deserialize;

use crate::clip::config::{TowerShape, check_divisions, encoder_tensors, layer_norm_tensors};
use crate::clip::config_file::{NamedConfig, read_text};

/// The activation SigLIP's towers use (and the only one cairn's reference checks).
const ACTIVATION: &str = "gelu_pytorch_tanh";

/// A SigLIP model's shape.
#[derive(Debug, Clone)]
pub struct SiglipShape {
    pub text: TowerShape,
    pub vision: TowerShape,
    /// Ids in the text vocabulary.
    pub vocabulary: usize,
    /// The text context: every text is padded (or cut) to this many ids, because the text
    /// tower reads its last position.
    pub positions: usize,
    /// The id texts are padded with.
    pub pad_id: u32,
    /// The side of the square image the image tower reads, and of its patches.
    pub image_side: usize,
    pub patch: usize,
    pub channels: usize,
    /// The same shape as candle's SigLIP takes it.
    candle: siglip::Config,
}

#[derive(Deserialize)]
struct ConfigFile {
    model_type: Option<String>,
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
    pad_token_id: u32,
    /// The width of the text head's output (newer configs; the towers' width when absent).
    projection_size: Option<usize>,
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
    vision_use_head: bool,
}

impl Default for TextConfigFile {
    fn default() -> Self {
        TextConfigFile {
            vocab_size: 32_000,
            hidden_size: 768,
            intermediate_size: 3072,
            num_hidden_layers: 12,
            num_attention_heads: 12,
            max_position_embeddings: 64,
            hidden_act: ACTIVATION.into(),
            layer_norm_eps: 1e-6,
            pad_token_id: 1,
            projection_size: None,
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
            patch_size: 16,
            num_channels: 3,
            hidden_act: ACTIVATION.into(),
            layer_norm_eps: 1e-6,
            vision_use_head: true,
        }
    }
}

impl SiglipShape {
    /// Reads `config.json` at `path`.
    pub fn read(path: &Path) -> Result<Self> {
        let (text, source) = read_text("SigLIP", path)?;
        Self::parse(&text, &source)
    }

    /// Reads a `config.json`'s text (`source` names it in errors).
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let config = NamedConfig {
            kind: "SigLIP",
            source,
        };
        let file: ConfigFile = config.parse(text)?;
        if let Some(kind) = file.model_type.as_deref().filter(|k| *k != "siglip") {
            return Err(config.refused(format!(
                "model_type is {kind:?}; cairn runs SigLIP models (model_type \"siglip\")"
            )));
        }
        let (text, vision) = (&file.text_config, &file.vision_config);
        config.require_each(
            &[
                ("text_config.hidden_act", &text.hidden_act),
                ("vision_config.hidden_act", &vision.hidden_act),
            ],
            ACTIVATION,
            "SigLIP's",
        )?;
        if text.hidden_size != vision.hidden_size {
            return Err(config.refused(format!(
                "text_config.hidden_size {} differs from vision_config.hidden_size {}; \
                     SigLIP's towers meet in a space of their own width",
                text.hidden_size, vision.hidden_size
            )));
        }
        if let Some(size) = text.projection_size.filter(|s| *s != text.hidden_size) {
            return Err(config.refused(format!(
                "text_config.projection_size {size} differs from its hidden_size {}; \
                     only a head of the tower's own width is supported",
                text.hidden_size
            )));
        }
        if !vision.vision_use_head {
            return Err(config.refused(
                "vision_config.vision_use_head is false; the image tower needs its pooling head",
            ));
        }
        if text.max_position_embeddings < 2 {
            return Err(config.refused(
                "text_config.max_position_embeddings must hold at least a word and the end",
            ));
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
        let activation = candle_nn::Activation::GeluPytorchTanh;
        let candle = siglip::Config {
            text_config: siglip::TextConfig {
                vocab_size: text.vocab_size,
                hidden_size: text.hidden_size,
                intermediate_size: text.intermediate_size,
                num_hidden_layers: text.num_hidden_layers,
                num_attention_heads: text.num_attention_heads,
                max_position_embeddings: text.max_position_embeddings,
                hidden_act: activation,
                layer_norm_eps: text.layer_norm_eps,
                pad_token_id: text.pad_token_id,
                // Not read by the towers.
                bos_token_id: 0,
                eos_token_id: 0,
            },
            vision_config: siglip::VisionConfig {
                hidden_size: vision.hidden_size,
                intermediate_size: vision.intermediate_size,
                num_hidden_layers: vision.num_hidden_layers,
                num_attention_heads: vision.num_attention_heads,
                num_channels: vision.num_channels,
                image_size: vision.image_size,
                patch_size: vision.patch_size,
                hidden_act: activation,
                layer_norm_eps: vision.layer_norm_eps,
            },
        };
        Ok(SiglipShape {
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
            pad_id: text.pad_token_id,
            image_side: vision.image_size,
            patch: vision.patch_size,
            channels: vision.num_channels,
            candle,
        })
    }

    /// The width of the space both towers map into.
    pub fn dimensions(&self) -> usize {
        self.text.width
    }

    /// Every tensor the towers read, by its name in a Hugging Face `SiglipModel` checkpoint,
    /// with its shape, and the two numbers of its calibration (`logit_scale`, `logit_bias`).
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
        add("text_model.head.weight".into(), &[text.width, text.width]);
        add("text_model.head.bias".into(), &[text.width]);
        let patches = (self.image_side / self.patch).pow(2);
        add(
            "vision_model.embeddings.patch_embedding.weight".into(),
            &[vision.width, self.channels, self.patch, self.patch],
        );
        add(
            "vision_model.embeddings.patch_embedding.bias".into(),
            &[vision.width],
        );
        add(
            "vision_model.embeddings.position_embedding.weight".into(),
            &[patches, vision.width],
        );
        encoder_tensors("vision_model.encoder", vision, &mut add);
        layer_norm_tensors("vision_model.post_layernorm", vision.width, &mut add);
        let head = "vision_model.head";
        add(format!("{head}.probe"), &[1, 1, vision.width]);
        add(
            format!("{head}.attention.in_proj_weight"),
            &[3 * vision.width, vision.width],
        );
        add(
            format!("{head}.attention.in_proj_bias"),
            &[3 * vision.width],
        );
        add(
            format!("{head}.attention.out_proj.weight"),
            &[vision.width, vision.width],
        );
        add(format!("{head}.attention.out_proj.bias"), &[vision.width]);
        layer_norm_tensors(&format!("{head}.layernorm"), vision.width, &mut add);
        add(
            format!("{head}.mlp.fc1.weight"),
            &[vision.feed_forward, vision.width],
        );
        add(format!("{head}.mlp.fc1.bias"), &[vision.feed_forward]);
        add(
            format!("{head}.mlp.fc2.weight"),
            &[vision.width, vision.feed_forward],
        );
        add(format!("{head}.mlp.fc2.bias"), &[vision.width]);
        add("logit_scale".into(), &[1]);
        add("logit_bias".into(), &[1]);
        tensors
    }

    /// The same shape as candle's SigLIP takes it.
    pub fn candle_config(&self) -> &siglip::Config {
        &self.candle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_config_is_siglip_base_and_its_tensors_number_as_hugging_faces() {
        let shape = SiglipShape::parse("{}", "config.json").unwrap();
        assert_eq!((shape.text.width, shape.vision.width), (768, 768));
        assert_eq!((shape.positions, shape.pad_id), (64, 1));
        assert_eq!((shape.image_side, shape.patch), (224, 16));
        let tensors = shape.tensors();
        let count = |prefix: &str| -> f64 {
            tensors
                .iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, s)| s.iter().product::<usize>() as f64)
                .sum()
        };
        // google/siglip-base-patch16-224 is listed at 203M parameters, and timm lists its
        // image tower (vit_base_patch16_siglip_224, pooling head included) at 92.9M.
        assert_eq!((count("") / 1e6).round(), 203.0);
        assert_eq!((count("vision_model.") / 1e5).round(), 929.0);
    }

    #[test]
    fn what_the_towers_cannot_run_is_refused_by_field() {
        let cases = [
            (r#"{"model_type": "siglip2"}"#, "model_type"),
            (r#"{"model_type": "clip"}"#, "model_type"),
            (
                r#"{"text_config": {"hidden_act": "gelu"}}"#,
                "text_config.hidden_act",
            ),
            (
                r#"{"text_config": {"hidden_size": 512}}"#,
                "text_config.hidden_size 512",
            ),
            (
                r#"{"text_config": {"projection_size": 512}}"#,
                "text_config.projection_size",
            ),
            (
                r#"{"vision_config": {"vision_use_head": false}}"#,
                "vision_use_head",
            ),
            (
                r#"{"text_config": {"hidden_size": 100}, "vision_config": {"hidden_size": 100}}"#,
                "text_config.hidden_size 100 is not a multiple",
            ),
            (r#"{"vision_config": {"patch_size": 30}}"#, "patch_size"),
            ("not json", "config.json"),
        ];
        for (text, named) in cases {
            let err = SiglipShape::parse(text, "config.json")
                .unwrap_err()
                .to_string();
            assert!(err.contains(named), "{text}: {err}");
        }
    }
}
