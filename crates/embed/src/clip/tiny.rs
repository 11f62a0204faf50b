//! A tiny CLIP-shaped model with seeded weights, for tests: no CLIP weights can be had where
//! cairn is built, so the loader and the towers are checked on this one (against vectors an
//! independent implementation computed from the same file), and the code paths that use a CLIP
//! model run on it.
//!
//! [`write_tiny_clip`] writes a complete Hugging Face `CLIPModel` directory: `config.json`
//! (text 8 wide, image 12 wide, two layers each, 32-pixel images in 16-pixel patches, a shared
//! space of 6), `merges.txt` (six merges, so a vocabulary of 520 ids) and `model.safetensors`
//! (every tensor [`ClipShape::tensors`] names, from a fixed seed: the same bytes every time).
//! [`write_seeded_clip`] writes any shape the same way — the benchmark times ViT-B/32's
//! architecture on seeded weights.

use std::collections::HashMap;
use std::path::Path;

use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};

use super::config::ClipShape;

/// The tiny model's `config.json`.
pub const TINY_CONFIG: &str = r#"{
  "model_type": "clip",
  "projection_dim": 6,
  "text_config": {
    "vocab_size": 520, "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2,
    "num_attention_heads": 2, "max_position_embeddings": 77
  },
  "vision_config": {
    "hidden_size": 12, "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 3,
    "image_size": 32, "patch_size": 16
  }
}
"#;

/// The tiny model's merges: "a cat", "red error" and "a dog" become a few symbols each.
pub const TINY_MERGES: &str = "#version: 0.2\nc a\nca t</w>\nr e\nre d</w>\no r</w>\nd o\n";

/// Writes the tiny model into `dir` (which must exist).
pub fn write_tiny_clip(dir: &Path) -> Result<()> {
    // A seed under which words and pictures land both near and far from one another, so tests
    // see images the clip signal lists and images it leaves out.
    write_seeded_clip(dir, TINY_CONFIG, TINY_MERGES, 42, 0.5)
}

/// Writes a CLIP directory of the shape `config` says into `dir` (which must exist), with
/// `merges`, and weights drawn uniformly from ±`scale` (layer-norm scales from 1 ± 0.2) by a
/// SplitMix64 sequence from `seed`.
pub fn write_seeded_clip(
    dir: &Path,
    config: &str,
    merges: &str,
    seed: u64,
    scale: f32,
) -> Result<()> {
    std::fs::write(dir.join("config.json"), config)?;
    std::fs::write(dir.join("merges.txt"), merges)?;
    let shape = ClipShape::parse(config, "the seeded CLIP config")?;
    let tensors = seeded_tensors(&shape.tensors(), seed, scale)?;
    save_tensors(&tensors, &dir.join("model.safetensors"))
}

/// Tensors of the given names and shapes, drawn uniformly from ±`scale` (norm scales and
/// batch-norm variances from 1 ± 0.2) by a SplitMix64 sequence from `seed`, in the order given:
/// the same values every time.
pub(crate) fn seeded_tensors(
    shapes: &[(String, Vec<usize>)],
    mut seed: u64,
    scale: f32,
) -> Result<HashMap<String, Tensor>> {
    let mut tensors = HashMap::new();
    for (name, dims) in shapes {
        let count: usize = dims.iter().product();
        // Layer and batch norms' scales, and batch norms' variances, near 1.
        let is_norm_scale = [
            "norm.weight",
            "layer_norm1.weight",
            "layer_norm2.weight",
            "layrnorm.weight",
            "ln_1.weight",
            "ln_2.weight",
            "ln_final.weight",
            "bn.weight",
            "identity.weight",
            "running_var",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix));
        let values: Vec<f32> = (0..count)
            .map(|_| {
                let r = uniform(&mut seed);
                if is_norm_scale {
                    1.0 + 0.2 * r
                } else {
                    scale * r
                }
            })
            .collect();
        let tensor =
            Tensor::from_vec(values, dims.as_slice(), &Device::Cpu).map_err(|e| Error::Model {
                message: format!("seeded tensor {name}: {e}"),
            })?;
        tensors.insert(name.clone(), tensor);
    }
    Ok(tensors)
}

/// Writes `tensors` as a safetensors file.
pub(crate) fn save_tensors(tensors: &HashMap<String, Tensor>, file: &Path) -> Result<()> {
    candle_core::safetensors::save(tensors, file).map_err(|e| Error::Model {
        message: format!("{}: {e}", file.display()),
    })
}

/// The next number of a SplitMix64 sequence, as a uniform value in [-1, 1).
fn uniform(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}
