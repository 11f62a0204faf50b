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
    write_seeded_mobileclip(dir, "fastvit_mci1", &tiny_shape(), TINY_MERGES, 11, 0.5)
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

/// The `open_clip_config.json` of a model of `shape` whose image tower is timm's `family`
/// (`fastvit_mci2` …), in OpenCLIP's layout.
pub fn open_clip_config(shape: &MobileClipShape, family: &str) -> String {
    let (text, preprocess) = (shape.text, &shape.preprocess);
    serde_json::json!({
        "model_cfg": {
            "embed_dim": shape.embed,
            "vision_cfg": {
                "timm_model_name": family, "timm_model_pretrained": false, "timm_pool": "avg",
                "timm_proj": null, "image_size": shape.image.side
            },
            "text_cfg": {
                "context_length": text.context, "vocab_size": text.vocabulary,
                "width": text.width, "heads": text.heads, "layers": text.layers,
                "no_causal_mask": true
            },
            "custom_text": true
        },
        "preprocess_cfg": {
            "mean": preprocess.mean, "std": preprocess.std,
            "interpolation": if preprocess.bicubic { "bicubic" } else { "bilinear" },
            "resize_mode": "shortest"
        }
    })
    .to_string()
}

/// Writes a MobileCLIP directory into `dir` (which must exist): the `open_clip_config.json` of
/// `shape` with timm's `family`, the merges of `merges` (a merges file's text) as its
/// `tokenizer.json`, and every tensor of `shape` drawn uniformly from ±`scale` by a SplitMix64
/// sequence from `seed` (`clip::tiny`'s; batch-norm variances near 1).
pub fn write_seeded_mobileclip(
    dir: &Path,
    family: &str,
    shape: &MobileClipShape,
    merges: &str,
    seed: u64,
    scale: f32,
) -> Result<()> {
    std::fs::write(
        dir.join("open_clip_config.json"),
        open_clip_config(shape, family),
    )?;
    let merges: Vec<&str> = merges.lines().skip(1).filter(|l| !l.is_empty()).collect();
    let tokenizer = serde_json::json!({"model": {"type": "BPE", "merges": merges}});
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string())?;
    let tensors = seeded_tensors(&shape.tensors(), seed, scale)?;
    save_tensors(&tensors, &dir.join("open_clip_model.safetensors"))
}
