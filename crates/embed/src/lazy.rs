//! Models that load on first use.
//!
//! Most commands never embed anything or look at an image; opening a store must not cost
//! loading 90 MB of weights. [`LoadOnce`] holds a model directory and loads its weights the first
//! time they are needed (the OCR reader and the look model use it too). [`LazyEmbedder`] knows
//! its identity at once (from config.json and the recorded weights hash) and loads the network
//! the first time a text is embedded.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cairn_core::embedding::{Embedder, ModelIdentity, Passage};
use cairn_core::{Error, Result};

use crate::sentence::{SentenceEmbedder, read_identity};

/// A model's weights in `dir`, loaded the first time they are asked for. A load that fails is
/// remembered: every later use reports the same error instead of loading again.
pub(crate) struct LoadOnce<T> {
    dir: PathBuf,
    loaded: OnceLock<std::result::Result<T, String>>,
}

impl<T> LoadOnce<T> {
    pub(crate) fn new(dir: &Path) -> Self {
        LoadOnce {
            dir: dir.to_path_buf(),
            loaded: OnceLock::new(),
        }
    }

    /// The weights, loaded by `load` from the directory on the first call.
    pub(crate) fn get(&self, load: impl FnOnce(&Path) -> Result<T>) -> Result<&T> {
        self.loaded
            .get_or_init(|| {
                load(&self.dir).map_err(|error| match error {
                    // Kept as its message: it is a model error again below.
                    Error::Model { message } => message,
                    other => other.to_string(),
                })
            })
            .as_ref()
            .map_err(|message| Error::Model {
                message: message.clone(),
            })
    }
}

pub struct LazyEmbedder {
    identity: ModelIdentity,
    loaded: LoadOnce<SentenceEmbedder>,
}

impl LazyEmbedder {
    /// The model in `dir`, named `name`; fails now if its identity cannot be read.
    pub fn new(dir: &Path, name: &str) -> Result<Self> {
        Ok(LazyEmbedder {
            identity: read_identity(dir, name)?,
            loaded: LoadOnce::new(dir),
        })
    }

    fn model(&self) -> Result<&SentenceEmbedder> {
        self.loaded
            .get(|dir| SentenceEmbedder::load(dir, &self.identity.name))
    }
}

impl Embedder for LazyEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.model()?.embed(texts)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Passage>> {
        self.model()?.embed_passages(texts)
    }
}
