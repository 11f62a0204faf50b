//! The `memory_add` contract (MCP `memory_add`, `POST /v1/memories/add`, `cairn add`): text in,
//! one of three answers out — `created` (with the unit's file when the project keeps files),
//! `duplicate` (nothing written; the memory that already holds the text), or `failed` (with
//! the reason; nothing written). A write refused for its input is an answer, not an error, so
//! a client switches on `action` alone.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::memory::{Category, Memory};

/// A memory to add: the text, and optionally what kind of knowledge it is.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddInput {
    /// The memory: one complete piece of knowledge (required, not blank).
    #[serde(default)]
    pub text: String,
    /// preference, fact, decision, entity, other (or bugfix, discovery, pattern, config);
    /// `other` when omitted.
    #[serde(default)]
    pub category: Option<String>,
}

/// What `memory_add` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum AddOutcome {
    Created(AddedUnit),
    Duplicate { existing: AddedUnit },
    Failed { error: AddError },
}

/// A memory as `memory_add` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedUnit {
    pub memory_id: String,
    /// `UNIT` when the memory is a unit of the project's markdown files, else `MEMORY`.
    pub kind: &'static str,
    /// The unit's file, relative to the project's root; `null` without files.
    pub path: Option<String>,
    pub category: Category,
    pub text: String,
}

impl AddedUnit {
    pub(crate) fn of(memory: &Memory, path: Option<String>) -> Self {
        AddedUnit {
            memory_id: memory.id.to_string(),
            kind: if path.is_some() { "UNIT" } else { "MEMORY" },
            path,
            category: memory.category,
            text: memory.content.clone(),
        }
    }
}

/// Why an add wrote nothing: a code a client can switch on (`text_required`, `invalid`, `too_large`), the
/// field, and a message for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AddError {
    pub code: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl AddError {
    pub(crate) fn text_required() -> Self {
        AddError {
            code: "text_required",
            field: Some("text".into()),
            message: "text is required: the memory to add, not blank".into(),
        }
    }

    /// The answer for a refused input; `None` for errors that are not about the input.
    pub(crate) fn from_error(error: &Error) -> Option<Self> {
        match error {
            Error::Invalid { field, message } => Some(AddError {
                code: "invalid",
                field: Some(field.clone()),
                message: message.clone(),
            }),
            Error::TooLarge { field, message } => Some(AddError {
                code: "too_large",
                field: Some(field.clone()),
                message: message.clone(),
            }),
            _ => None,
        }
    }
}
