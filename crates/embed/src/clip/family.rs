//! Which kind of model a CLIP directory holds: told by its `config.json`'s `model_type`, OpenAI's
//! CLIP (`"clip"`, or no type at all) or SigLIP (`"siglip"`); or, a directory in OpenCLIP's
//! layout (`open_clip_config.json` and no `config.json`), MobileCLIP. Each kind has its own
//! files, loader and calibration; everything past loading (the image space, vision search)
//! treats them alike, through core's `ClipModel`.

use std::path::Path;
use std::sync::Arc;

use cairn_core::Result;
use cairn_core::image::ClipModel;
use serde::Deserialize;

use super::config_file::{NamedConfig, read_text};
use super::network::{CLIP_FILES, ClipNetwork, check_openai_clip_dir};
use crate::mobileclip::{MOBILECLIP_FILES, MobileClipNetwork, check_mobileclip_dir};
use crate::siglip::{SIGLIP_FILES, SiglipNetwork, check_siglip_dir};

/// The kinds of model an image-and-words space can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipFamily {
    Clip,
    Siglip,
    MobileClip,
}

#[derive(Deserialize)]
struct ModelType {
    model_type: Option<String>,
}

impl ClipFamily {
    /// The kind of model in `dir`, by its `config.json`. A type cairn cannot run is an error
    /// that names it.
    pub fn of(dir: &Path) -> Result<ClipFamily> {
        let path = dir.join("config.json");
        if !path.exists() && dir.join("open_clip_config.json").exists() {
            return Ok(ClipFamily::MobileClip);
        }
        let (text, source) = read_text("CLIP", &path)?;
        let config = NamedConfig {
            kind: "CLIP",
            source: &source,
        };
        let read: ModelType = config.parse(&text)?;
        match read.model_type.as_deref() {
            None | Some("clip") => Ok(ClipFamily::Clip),
            Some("siglip") => Ok(ClipFamily::Siglip),
            Some(other) => Err(config.refused(format!(
                "model_type is {other:?}; cairn runs CLIP (\"clip\") and SigLIP (\"siglip\") models"
            ))),
        }
    }

    /// The files a directory of this kind holds.
    pub fn files(self) -> &'static [&'static str] {
        match self {
            ClipFamily::Clip => &CLIP_FILES,
            ClipFamily::Siglip => &SIGLIP_FILES,
            ClipFamily::MobileClip => &MOBILECLIP_FILES,
        }
    }

    /// The model `cairn model install` fetches for this kind.
    pub fn hub_model(self) -> &'static str {
        match self {
            ClipFamily::Clip => super::CLIP_MODEL,
            ClipFamily::Siglip => super::SIGLIP_MODEL,
            ClipFamily::MobileClip => super::MOBILECLIP_MODEL,
        }
    }

    /// The kind's name for people.
    pub fn label(self) -> &'static str {
        match self {
            ClipFamily::Clip => "CLIP",
            ClipFamily::Siglip => "SigLIP",
            ClipFamily::MobileClip => "MobileCLIP",
        }
    }

    /// The kind's `model_type`.
    pub fn model_type(self) -> &'static str {
        match self {
            ClipFamily::Clip => "clip",
            ClipFamily::Siglip => "siglip",
            ClipFamily::MobileClip => "mobileclip",
        }
    }
}

/// The model in `dir` as core's `ClipModel`, its towers loaded when first used; its vectors are
/// recorded under `name`. A directory of a kind cairn cannot run is reported when a tower is
/// first needed, like any directory that cannot be loaded.
pub fn open_clip_model(dir: &Path, name: &str) -> Arc<dyn ClipModel> {
    match ClipFamily::of(dir) {
        Ok(ClipFamily::Siglip) => Arc::new(SiglipNetwork::open(dir, name)),
        Ok(ClipFamily::MobileClip) => Arc::new(MobileClipNetwork::open(dir, name)),
        _ => Arc::new(ClipNetwork::open(dir, name)),
    }
}

/// Checks a model directory of either kind without building its towers: its config, its
/// tokenizer's files, and every tensor in its weights (what `cairn model install clip` and
/// `cairn model status` check).
pub fn check_clip_dir(dir: &Path) -> Result<()> {
    match ClipFamily::of(dir)? {
        ClipFamily::Clip => check_openai_clip_dir(dir),
        ClipFamily::Siglip => check_siglip_dir(dir),
        ClipFamily::MobileClip => check_mobileclip_dir(dir),
    }
}
