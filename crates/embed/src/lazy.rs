//! A model that loads on first use.
//!
//! Most commands never embed anything; opening a store must not cost loading 90 MB of weights.
//! [`LazyEmbedder`] knows its identity at once (from config.json and the recorded weights hash)
//! and loads the network the first time a text is embedded.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cairn_core::embedding::{Embedder, ModelIdentity};
use cairn_core::{Error, Result};

use crate::sentence::{SentenceEmbedder, read_identity};

pub struct LazyEmbedder {
    dir: PathBuf,
    identity: ModelIdentity,
    loaded: OnceLock<std::result::Result<SentenceEmbedder, String>>,
}

impl LazyEmbedder {
    /// The model in `dir`, named `name`; fails now if its identity cannot be read.
    pub fn new(dir: &Path, name: &str) -> Result<Self> {
        Ok(LazyEmbedder {
            dir: dir.to_path_buf(),
            identity: read_identity(dir, name)?,
            loaded: OnceLock::new(),
        })
    }

    fn model(&self) -> Result<&SentenceEmbedder> {
        self.loaded
            .get_or_init(|| {
                SentenceEmbedder::load(&self.dir, &self.identity.name).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|message| Error::Model {
                message: message.clone(),
            })
    }
}

impl Embedder for LazyEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.model()?.embed(texts)
    }
}
