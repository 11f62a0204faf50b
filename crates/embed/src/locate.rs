//! Where a model is on this machine.
//!
//! In order: a directory named in config (`[embedding] model_dir`) or `CAIRN_MODEL_DIR`; the
//! Hugging Face cache (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`),
//! where `cairn model install` puts models and other Hugging Face tools may already have; else
//! nothing, and cairn searches without semantics.

use std::path::{Path, PathBuf};

use cairn_core::{Error, Result};

use crate::MODEL_FILES;

/// Where a model was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSource {
    /// A directory named in config or the environment.
    Configured,
    /// The Hugging Face cache.
    HuggingFaceCache,
}

/// A directory holding a complete model.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModelLocation {
    pub dir: PathBuf,
    pub source: ModelSource,
}

/// Finds the model `repo` (e.g. `sentence-transformers/all-MiniLM-L6-v2`). A configured
/// directory that lacks a model file is an error, not a reason to look elsewhere: the user
/// asked for that model.
pub fn locate(configured: Option<&Path>, repo: &str) -> Result<Option<ModelLocation>> {
    if let Some(dir) = configured {
        if let Some(missing) = missing_file(dir, &MODEL_FILES) {
            return Err(Error::Config {
                origin: "embedding.model_dir".into(),
                message: format!(
                    "{} has no {missing}; a model directory holds {}",
                    dir.display(),
                    MODEL_FILES.join(", ")
                ),
            });
        }
        return Ok(Some(ModelLocation {
            dir: dir.to_path_buf(),
            source: ModelSource::Configured,
        }));
    }
    Ok(
        hub_snapshot(&hub_cache(), repo, &MODEL_FILES).map(|dir| ModelLocation {
            dir,
            source: ModelSource::HuggingFaceCache,
        }),
    )
}

/// The first of `files` that `dir` lacks.
pub fn missing_file<'f>(dir: &Path, files: &[&'f str]) -> Option<&'f str> {
    files.iter().copied().find(|file| !dir.join(file).is_file())
}

/// The Hugging Face hub cache directory.
pub fn hub_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("HF_HUB_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(home) = std::env::var_os("HF_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join("hub");
    }
    dirs::home_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join(".cache/huggingface/hub")
}

/// The cache folder of a hub repository: `models--{org}--{name}`.
pub fn repo_folder(cache: &Path, repo: &str) -> PathBuf {
    cache.join(format!("models--{}", repo.replace('/', "--")))
}

/// The complete snapshot of `repo` in the cache (one that holds every one of `files`): the one
/// `refs/main` names, else the newest complete one.
pub fn hub_snapshot(cache: &Path, repo: &str, files: &[&str]) -> Option<PathBuf> {
    let folder = repo_folder(cache, repo);
    let snapshots = folder.join("snapshots");
    if let Ok(revision) = std::fs::read_to_string(folder.join("refs/main")) {
        let dir = snapshots.join(revision.trim());
        if missing_file(&dir, files).is_none() {
            return Some(dir);
        }
    }
    let mut complete: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|dir| missing_file(dir, files).is_none())
        .map(|dir| {
            let modified = std::fs::metadata(&dir)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (modified, dir)
        })
        .collect();
    complete.sort();
    complete.pop().map(|(_, dir)| dir)
}
