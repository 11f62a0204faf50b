//! Reading a model's configuration file, for every kind of the CLIP family (CLIP's and SigLIP's
//! `config.json`, MobileCLIP's `open_clip_config.json`): the file's text, parsed as JSON into the
//! kind's own view of it, and every refusal naming the kind and the file, so a user reads
//! "SigLIP model …/config.json: vision_config.hidden_act is …" whichever kind it is.

use std::path::Path;

use cairn_core::{Error, Result};
use serde::de::DeserializeOwned;

/// One configuration file of one kind of model, as errors name it.
pub struct NamedConfig<'a> {
    /// The kind, for people: `CLIP`, `SigLIP`, `MobileCLIP`.
    pub kind: &'static str,
    /// The file (or what else the text came from).
    pub source: &'a str,
}

impl NamedConfig<'_> {
    /// The refusal of this file for `what`.
    pub fn refused(&self, what: impl std::fmt::Display) -> Error {
        Error::Model {
            message: format!("{} model {}: {what}", self.kind, self.source),
        }
    }

    /// `text` parsed as this file's JSON.
    pub fn parse<T: DeserializeOwned>(&self, text: &str) -> Result<T> {
        serde_json::from_str(text).map_err(|e| self.refused(e))
    }

    /// Refuses the first of `fields` (name, value) whose value is not `expected`, saying what
    /// is supported.
    pub fn require_each(&self, fields: &[(&str, &str)], expected: &str, why: &str) -> Result<()> {
        match fields.iter().find(|(_, value)| *value != expected) {
            Some((field, value)) => Err(self.refused(format!(
                "{field} is {value:?}; only {expected:?} ({why}) is supported"
            ))),
            None => Ok(()),
        }
    }
}

/// The text of the file at `path`, and its name for errors; a file that cannot be read is
/// refused as a `kind` model's.
pub fn read_text(kind: &'static str, path: &Path) -> Result<(String, String)> {
    let source = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        NamedConfig {
            kind,
            source: &source,
        }
        .refused(e)
    })?;
    Ok((text, source))
}
