//! One error type for the whole domain.
//!
//! Every failure a user can cause names the *field* it concerns and, where a limit is involved,
//! the limit, so each entry point (CLI, MCP, HTTP) can show a message that says how to fix the
//! call. Storage failures are wrapped as [`Error::Storage`] so no backend type leaks through.

use std::fmt;

/// Result alias used across cairn's libraries.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the domain and its storage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Input failed validation; nothing was written.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },

    /// A value is larger than its configured limit; nothing was written. Like [`Error::Invalid`],
    /// but an HTTP client hears 413 for it.
    #[error("{field}: {message}")]
    TooLarge { field: String, message: String },

    /// Text that is not UTF-8 (a file, a body, an import line); nothing was read from it.
    #[error("{field}: {message}")]
    InvalidUtf8 { field: String, message: String },

    /// The disk holding `path` is full: the write did not happen, and what was stored before
    /// is kept. HTTP clients hear 507.
    #[error("disk full: {message}")]
    DiskFull { path: String, message: String },

    /// No visible memory has this id (it never existed, was forgotten, or has expired).
    #[error("id: no memory matches '{id}' (it may have been forgotten or have expired)")]
    NotFound { id: String },

    /// Something other than a memory (a slot, a session) does not exist.
    #[error("{field}: {message}")]
    Missing { field: String, message: String },

    /// The write would clash with what is stored (a slot that already exists); nothing was
    /// written.
    #[error("{field}: {message}")]
    Conflict { field: String, message: String },

    /// The target refuses changes (a read-only slot); nothing was written.
    #[error("{field}: {message}")]
    ReadOnly { field: String, message: String },

    /// The caller's access token does not reach what the request asks for (another project, a
    /// global write, the whole store); nothing was read or written. HTTP clients hear 403.
    #[error("{field}: {message}")]
    Forbidden { field: String, message: String },

    /// A short handle matched several memories.
    #[error("id: '{prefix}' matches {} memories ({}); give more characters", candidates.len(), candidates.join(", "))]
    AmbiguousHandle {
        prefix: String,
        candidates: Vec<String>,
    },

    /// One record of an import could not be used; the whole import was rolled back.
    #[error("{at}: {source}; nothing was imported")]
    ImportRecord {
        at: RecordAt,
        #[source]
        source: Box<Error>,
    },

    /// A configuration file or variable could not be used.
    #[error("config {origin}: {message}")]
    Config { origin: String, message: String },

    /// Another writer held the store's write lock for longer than the backend waits. Nothing was
    /// written; the same call may succeed later (a hook spools its event and records it then).
    #[error("storage: {message}")]
    Busy { message: String },

    /// The storage backend failed.
    #[error("storage: {message}")]
    Storage {
        message: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },

    /// A capability this installation lacks (e.g. semantic search without a model); `hint`
    /// says how to get it.
    #[error("{what} is not available: {hint}")]
    Unavailable { what: String, hint: String },

    /// The embedding model failed to load or to run.
    #[error("model: {message}")]
    Model { message: String },

    /// Reading input or writing output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Where an import record is: a line of JSON Lines, or an element of a JSON array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordAt {
    /// Counted from 1.
    Line(u64),
    /// Counted from 1.
    Element(u64),
}

impl fmt::Display for RecordAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordAt::Line(n) => write!(f, "line {n}"),
            RecordAt::Element(n) => write!(f, "element {n} of the array"),
        }
    }
}

impl Error {
    /// A validation error for `field`.
    pub fn invalid(field: impl Into<String>, message: impl fmt::Display) -> Self {
        Error::Invalid {
            field: field.into(),
            message: message.to_string(),
        }
    }

    /// A storage error carrying the backend's own error as its source.
    pub fn storage(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Storage {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// True when the same call may succeed if tried again later (see [`Error::Busy`]).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Busy { .. })
    }

    /// The field a validation error concerns, looking through import record wrappers.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::Invalid { field, .. }
            | Error::TooLarge { field, .. }
            | Error::InvalidUtf8 { field, .. }
            | Error::Missing { field, .. }
            | Error::Conflict { field, .. }
            | Error::ReadOnly { field, .. }
            | Error::Forbidden { field, .. } => Some(field),
            Error::NotFound { .. } | Error::AmbiguousHandle { .. } => Some("id"),
            Error::ImportRecord { source, .. } => source.field(),
            _ => None,
        }
    }
}
