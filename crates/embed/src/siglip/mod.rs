//! SigLIP, CLIP's kin trained with a sigmoid loss: the same use (words and pictures in one
//! space, "a red error banner" finds the screenshot), other towers, tokenizer, preprocessing and
//! calibration, run on candle's SigLIP.
//!
//! - [`config`]: a model's shape from its `config.json`, and every tensor that shape needs;
//! - [`network`]: the towers, loaded from a Hugging Face `SiglipModel` directory after every
//!   tensor was checked, the image preprocessing, and core's `ClipModel` ([`SiglipNetwork`]),
//!   whose match scale is the model's own calibration;
//! - `tiny` (feature `testing`): a tiny seeded SigLIP-shaped model for tests.
//!
//! A SigLIP directory is used wherever a CLIP one is (`images.clip_dir`); `crate::clip::family`
//! tells them apart by `config.json`'s `model_type`.

pub mod config;
pub mod network;
#[cfg(feature = "testing")]
pub mod tiny;

pub use config::SiglipShape;
pub use network::{
    ImageTower, SIGLIP_FILES, SiglipNetwork, TextTower, check_siglip_dir, match_scale_of,
    preprocess,
};
