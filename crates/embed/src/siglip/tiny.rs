//! A tiny SigLIP-shaped model with seeded weights, for tests: no SigLIP weights can be had
//! where cairn is built, so the loader and the towers are checked on this one, against vectors
//! an independent implementation computed from the same file (as for CLIP, `clip::tiny`).
//!
//! [`write_tiny_siglip`] writes a complete Hugging Face `SiglipModel` directory:
//! `config.json` (both towers 8 wide, two layers, a text context of 16 ids, 32-pixel images in
//! 16-pixel patches), `tokenizer.json` (a SentencePiece unigram vocabulary of 24 pieces in
//! Hugging Face's format, ending each text with `</s>` as SigLIP's does) and
//! `model.safetensors` (every tensor [`SiglipShape::tensors`] names, from a fixed seed, and a
//! calibration of scale 10 and bias −2).

use std::path::Path;

use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};

use super::config::SiglipShape;
use crate::clip::tiny::{save_tensors, seeded_tensors};

/// The tiny model's `config.json`.
pub const TINY_CONFIG: &str = r#"{
  "model_type": "siglip",
  "text_config": {
    "vocab_size": 24, "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2,
    "num_attention_heads": 2, "max_position_embeddings": 16
  },
  "vision_config": {
    "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
    "image_size": 32, "patch_size": 16
  }
}
"#;

/// The tiny model's calibration: `logit_scale` (its logarithm, as checkpoints keep it) and
/// `logit_bias`.
pub const TINY_LOGIT_SCALE: f32 = std::f32::consts::LN_10;
pub const TINY_LOGIT_BIAS: f32 = -2.0;

/// The tiny tokenizer's pieces and their log-probabilities: whole words for "a cat", "red
/// error" and "a dog", single letters for the rest. Ids 0–2 are `<pad>`, `</s>` and `<unk>`.
const TINY_PIECES: [(&str, f64); 24] = [
    ("<pad>", 0.0),
    ("</s>", 0.0),
    ("<unk>", 0.0),
    ("▁a", -2.0),
    ("▁cat", -3.0),
    ("▁red", -3.0),
    ("▁error", -3.5),
    ("▁dog", -3.0),
    ("▁", -4.0),
    ("a", -5.0),
    ("c", -5.0),
    ("t", -5.0),
    ("r", -5.0),
    ("e", -5.0),
    ("o", -5.0),
    ("d", -5.0),
    ("g", -5.0),
    ("s", -5.0),
    ("n", -5.0),
    ("l", -5.0),
    ("i", -5.0),
    ("p", -5.0),
    ("!", -5.0),
    ("▁c", -4.5),
];

/// The tiny tokenizer in Hugging Face's `tokenizer.json` format.
pub fn tiny_tokenizer_json() -> String {
    let pieces: Vec<(String, f64)> = TINY_PIECES
        .iter()
        .map(|(piece, score)| (piece.to_string(), *score))
        .collect();
    tokenizer_json(&pieces)
}

/// A SentencePiece unigram tokenizer of `pieces` (ids 0–2 must be `<pad>`, `</s>` and `<unk>`)
/// in Hugging Face's `tokenizer.json` format, lower-casing, ending each text with `</s>`.
pub fn tokenizer_json(pieces: &[(String, f64)]) -> String {
    let special = |id: usize, content: &str| {
        serde_json::json!({
            "id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true
        })
    };
    let metaspace = serde_json::json!({
        "type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true
    });
    serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "<pad>"), special(1, "</s>"), special(2, "<unk>")],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}}
            ],
            "pair": [
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}}
            ],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}
        },
        "decoder": metaspace,
        "model": {
            "type": "Unigram",
            "unk_id": 2,
            "vocab": pieces.iter().map(|(piece, score)| serde_json::json!([piece, score])).collect::<Vec<_>>(),
            "byte_fallback": false
        }
    })
    .to_string()
}

/// Writes the tiny model into `dir` (which must exist).
pub fn write_tiny_siglip(dir: &Path) -> Result<()> {
    write_seeded_siglip(dir, TINY_CONFIG, &tiny_tokenizer_json(), 7, 0.5)
}

/// Writes a SigLIP directory of the shape `config` says into `dir` (which must exist), with the
/// tokenizer `tokenizer` (a `tokenizer.json`), weights drawn uniformly from ±`scale` by a
/// SplitMix64 sequence from `seed` (`clip::tiny`'s), and the tiny model's calibration. The
/// benchmark times SigLIP's base architecture this way.
pub fn write_seeded_siglip(
    dir: &Path,
    config: &str,
    tokenizer: &str,
    seed: u64,
    scale: f32,
) -> Result<()> {
    std::fs::write(dir.join("config.json"), config)?;
    std::fs::write(dir.join("tokenizer.json"), tokenizer)?;
    let shape = SiglipShape::parse(config, "the seeded SigLIP config")?;
    let learned: Vec<_> = shape
        .tensors()
        .into_iter()
        .filter(|(name, _)| !name.starts_with("logit_"))
        .collect();
    let mut tensors = seeded_tensors(&learned, seed, scale)?;
    for (name, value) in [
        ("logit_scale", TINY_LOGIT_SCALE),
        ("logit_bias", TINY_LOGIT_BIAS),
    ] {
        let tensor = Tensor::new(&[value], &Device::Cpu).map_err(|e| Error::Model {
            message: format!("tiny SigLIP {name}: {e}"),
        })?;
        tensors.insert(name.into(), tensor);
    }
    save_tensors(&tensors, &dir.join("model.safetensors"))
}
