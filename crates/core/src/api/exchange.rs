//! The inputs of export and import over the network: `GET /v1/export` takes an
//! [`ExportInput`] as its query; `POST /v1/import` takes the stream itself.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::exchange::ExportOptions;

/// Query of `GET /v1/export`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ExportInput {
    /// Also export sessions and their observations (what agents did).
    pub sessions: bool,
}

impl ExportInput {
    pub fn options(&self) -> ExportOptions {
        ExportOptions {
            sessions: self.sessions,
        }
    }
}
