//! MobileCLIP, Apple's small CLIP: words and pictures in one space like CLIP, with timm's FastViT
//! (MCi) as the image tower and OpenCLIP's text tower, run on candle's FastViT and OpenCLIP text
//! transformer.
//!
//! - [`config`]: the shape from `open_clip_config.json` and the weights, and every tensor it
//!   needs (timm's rules for FastViT's optional branches);
//! - [`network`]: the towers, loaded from an OpenCLIP directory after the file was checked to
//!   hold exactly those tensors, and core's `ClipModel` ([`MobileClipNetwork`]);
//! - `tiny` (feature `testing`): a tiny seeded MobileCLIP-shaped model for tests.
//!
//! A MobileCLIP directory is used wherever a CLIP one is (`images.clip_dir`); `crate::clip::family`
//! knows it by its `open_clip_config.json`.

pub mod config;
pub mod network;
#[cfg(feature = "testing")]
pub mod tiny;

pub use config::MobileClipShape;
pub use network::{
    ImageTower, MOBILECLIP_FILES, MobileClipNetwork, TextTower, check_mobileclip_dir,
};
