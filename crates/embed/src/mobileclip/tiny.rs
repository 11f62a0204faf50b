//! A tiny seeded MobileCLIP-shaped model, for tests: no MobileCLIP weights can be had where
//! cairn is built, so the loader and the towers are checked on this one, against vectors timm
//! and OpenCLIP themselves computed from the same file (`tests/mobileclip_reference.py`).
//!
//! [`write_tiny_mobileclip`] writes a complete OpenCLIP directory: `open_clip_config.json`
//! (timm's `fastvit_mci1` family, 64-pixel images, a shared space of 8, a text tower 8 wide with
//! two layers and two heads), `tokenizer.json` (the tiny CLIP's six merges, so a vocabulary of
//! 520 ids) and `open_clip_model.safetensors`: every tensor [`MobileClipShape::tensors`] names
//! for a FastViT 8 wide at the stem (stages 8, 16, 32, 64 wide, one block each: the narrowest
//! whose squeeze-excitations timm and candle size alike), from a fixed seed.

use std::path::Path;

use cairn_core::Result;

use super::config::{FastVitShape, MobileClipShape, Preprocess, TextShape};
use crate::clip::tiny::{TINY_MERGES, save_tensors, seeded_tensors};

/// The tiny model's `open_clip_config.json`.
pub const TINY_CONFIG: &str = r#"{
  "model_cfg": {
    "embed_dim": 8,
    "vision_cfg": {
      "timm_model_name": "fastvit_mci1", "timm_model_pretrained": false, "timm_pool": "avg",
      "timm_proj": null, "image_size": 64
    },
    "text_cfg": {
      "context_length": 77, "vocab_size": 520, "width": 8, "heads": 2, "layers": 2,
      "no_causal_mask": true
    },
    "custom_text": true
  },
  "preprocess_cfg": {
    "mean": [0.0, 0.0, 0.0], "std": [1.0, 1.0, 1.0], "interpolation": "bilinear",
    "resize_mode": "shortest"
  }
}
"#;

/// The tiny model's shape (what its config and weights say).
pub fn tiny_shape() -> MobileClipShape {
    MobileClipShape {
        embed: 8,
        image: FastVitShape {
            side: 64,
            width: 8,
            blocks: [1, 1, 1, 1],
            expansion: 3,
        },
        text: TextShape {
            vocabulary: 520,
            context: 77,
            width: 8,
            heads: 2,
            layers: 2,
        },
        preprocess: Preprocess {
            mean: [0.0; 3],
            std: [1.0; 3],
            bicubic: false,
        },
    }
}

/// Writes the tiny model into `dir` (which must exist).
pub fn write_tiny_mobileclip(dir: &Path) -> Result<()> {
    write_seeded_mobileclip(dir, TINY_CONFIG, &tiny_shape(), TINY_MERGES, 11, 0.5)
}

/// MobileCLIP-S2's shape (`apple/MobileCLIP-S2-OpenCLIP`: timm's `fastvit_mci2`, 256-pixel
/// images, OpenCLIP's base text tower), for timing it on seeded weights.
pub fn s2_shape() -> MobileClipShape {
    MobileClipShape {
        embed: 512,
        image: FastVitShape {
            side: 256,
            width: 80,
            blocks: [4, 12, 24, 4],
            expansion: 3,
        },
        text: TextShape {
            vocabulary: 49_408,
            context: 77,
            width: 512,
            heads: 8,
            layers: 12,
        },
        preprocess: Preprocess {
            mean: [0.0; 3],
            std: [1.0; 3],
            bicubic: false,
        },
    }
}

/// MobileCLIP-S2's `open_clip_config.json`, as OpenCLIP writes it.
pub const S2_CONFIG: &str = r#"{
  "model_cfg": {
    "embed_dim": 512,
    "vision_cfg": {
      "timm_model_name": "fastvit_mci2", "timm_model_pretrained": false, "timm_pool": "avg",
      "timm_proj": null, "timm_drop": 0.0, "timm_drop_path": 0.0, "image_size": 256
    },
    "text_cfg": {
      "context_length": 77, "vocab_size": 49408, "width": 512, "heads": 8, "layers": 12,
      "no_causal_mask": true
    },
    "custom_text": true
  },
  "preprocess_cfg": {
    "mean": [0.0, 0.0, 0.0], "std": [1.0, 1.0, 1.0], "interpolation": "bilinear",
    "resize_mode": "shortest"
  }
}
"#;

/// Writes a MobileCLIP directory into `dir` (which must exist): `config` as its
/// `open_clip_config.json`, the merges of `merges` (a merges file's text) as its
/// `tokenizer.json`, and every tensor of `shape` drawn uniformly from ±`scale` by a SplitMix64
/// sequence from `seed` (`clip::tiny`'s; batch-norm variances near 1).
pub fn write_seeded_mobileclip(
    dir: &Path,
    config: &str,
    shape: &MobileClipShape,
    merges: &str,
    seed: u64,
    scale: f32,
) -> Result<()> {
    std::fs::write(dir.join("open_clip_config.json"), config)?;
    let merges: Vec<&str> = merges.lines().skip(1).filter(|l| !l.is_empty()).collect();
    let tokenizer = serde_json::json!({"model": {"type": "BPE", "merges": merges}});
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string())?;
    let tensors = seeded_tensors(&shape.tensors(), seed, scale)?;
    save_tensors(&tensors, &dir.join("open_clip_model.safetensors"))
}
