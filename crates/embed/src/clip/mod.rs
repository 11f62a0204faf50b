//! CLIP, for searching images by meaning ("a red error banner" finds the screenshot): a text
//! tower and an image tower that map both into one space, run on candle.
//!
//! - [`tokenizer`]: CLIP's byte-level BPE, checked against the reference tokenizer's ids;
//! - [`mod@preprocess`]: the pixels the image tower reads, checked against the reference's;
//! - [`config`]: a model's shape from its `config.json`, and every tensor that shape needs;
//! - [`network`]: the towers, loaded from a Hugging Face `CLIPModel` directory after every
//!   tensor was checked ([`ClipWeights`]), and core's `ClipModel` ([`ClipNetwork`]);
//! - `tiny` (feature `testing`): a tiny seeded CLIP-shaped model for tests;
//! - [`towers`]: a model's two towers as core's `ClipModel`, each loaded on first use (CLIP's
//!   and SigLIP's alike);
//! - [`family`]: CLIP or SigLIP (`crate::siglip`), by `config.json`'s `model_type`; a
//!   directory of either kind serves as the CLIP model ([`open_clip_model`]);
//! - [`locate_clip`]: where the model is (a directory named in config, else the Hugging Face
//!   cache, where `cairn model install clip` or `siglip` puts it).

pub mod config;
pub mod config_file;
pub mod family;
pub mod network;
pub mod preprocess;
#[cfg(feature = "testing")]
pub mod tiny;
pub mod tokenizer;
pub mod towers;

use std::path::{Path, PathBuf};

use cairn_core::{Error, Result};

pub use config::ClipShape;
pub use family::{ClipFamily, check_clip_dir, open_clip_model};
pub use network::{CLIP_FILES, ClipNetwork, ClipWeights};
pub use preprocess::{IMAGE_SIDE, preprocess};
pub use tokenizer::{CONTEXT, ClipTokenizer};
pub use towers::{Tower, TowerPair};

use crate::install::{Installed, Progress, install_from_hub};
use crate::locate::{hub_cache, hub_snapshot, missing_file};

/// The CLIP model `cairn model install clip` fetches from the Hugging Face hub, and the name
/// its vectors are recorded under when found in the cache.
pub const CLIP_MODEL: &str = "openai/clip-vit-base-patch32";

/// The SigLIP model `cairn model install siglip` fetches, likewise.
pub const SIGLIP_MODEL: &str = "google/siglip-base-patch16-224";

/// The MobileCLIP model `cairn model install mobileclip` fetches, likewise.
pub const MOBILECLIP_MODEL: &str = "apple/MobileCLIP-S2-OpenCLIP";

/// Installs the hub model of `family` ([`CLIP_MODEL`], about 605 MB, [`SIGLIP_MODEL`], about
/// 813 MB, or [`MOBILECLIP_MODEL`]) into the Hugging Face cache `cache` from the hub at `endpoint`. No package registry
/// carries CLIP-family weights, so there is no fallback: where the hub cannot be reached, the
/// error says so, and a directory from elsewhere can be named with `images.clip_dir`. The
/// download is checked like a load (config, tokenizer files, every tensor) before it is kept.
pub fn install_clip(
    cache: &Path,
    endpoint: &str,
    family: ClipFamily,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    let model = family.hub_model();
    install_from_hub(
        cache,
        endpoint,
        model,
        family.files(),
        Some(check_clip_dir),
        progress,
    )
    .map_err(|err| Error::Model {
        message: format!(
            "{err}. {} weights come only from the Hugging Face hub ({model}); where it cannot be \
             reached, copy a {} directory ({}) here and set images.clip_dir or CAIRN_CLIP_DIR to it",
            family.label(),
            family.label(),
            family.files().join(", ")
        ),
    })
}

/// Finds a CLIP model: a directory named in config (`[images] clip_dir` or `CAIRN_CLIP_DIR`) —
/// which must then hold a CLIP or SigLIP model, with the files of its kind — else
/// [`CLIP_MODEL`] in the Hugging Face cache, else [`SIGLIP_MODEL`], else [`MOBILECLIP_MODEL`] there. Returns the directory
/// and the name its vectors are recorded under (the directory's own name for a configured one,
/// as `clip/<name>`).
pub fn locate_clip(configured: Option<&Path>) -> Result<Option<(PathBuf, String)>> {
    if let Some(dir) = configured {
        // A kind cairn cannot run is reported when the model is used, not here: every command
        // locates the model, and most never use it.
        let family = ClipFamily::of(dir).unwrap_or(ClipFamily::Clip);
        let files = family.files();
        if let Some(missing) = missing_file(dir, files) {
            return Err(Error::Config {
                origin: "images.clip_dir".into(),
                message: format!(
                    "{} has no {missing}; a CLIP directory holds {} (Hugging Face's CLIPModel \
                     layout), a SigLIP one {} (SiglipModel), a MobileCLIP one {} (OpenCLIP's)",
                    dir.display(),
                    ClipFamily::Clip.files().join(", "),
                    ClipFamily::Siglip.files().join(", "),
                    ClipFamily::MobileClip.files().join(", ")
                ),
            });
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into());
        return Ok(Some((dir.to_path_buf(), format!("clip/{name}"))));
    }
    let cache = hub_cache();
    Ok(
        [ClipFamily::Clip, ClipFamily::Siglip, ClipFamily::MobileClip]
            .into_iter()
            .find_map(|family| {
                let model = family.hub_model();
                hub_snapshot(&cache, model, family.files()).map(|dir| (dir, model.to_string()))
            }),
    )
}
