//! A memory as an export carries it: the [`Memory`] (every field, timestamps in RFC 3339,
//! `project` null for global) with its history. The stream around it — header, other kinds,
//! plain records — is the `exchange` domain's.

use serde::{Deserialize, Serialize};

use crate::memory::{Memory, Revision};

/// A memory and its previous states, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRecord {
    #[serde(flatten)]
    pub memory: Memory,
    #[serde(default)]
    pub revisions: Vec<Revision>,
}
