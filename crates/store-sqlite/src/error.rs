//! Errors of the SQLite backend, converted to [`cairn_core::Error`] at the trait boundary.

use std::path::PathBuf;

/// What can go wrong in the embedded store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqliteError {
    #[error("cannot open the database at {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    #[error(
        "the database has schema version {found}, newer than this cairn understands ({known}); \
         upgrade cairn"
    )]
    SchemaTooNew { found: u32, known: u32 },

    #[error("a stored row is unreadable ({0}); the database may be damaged")]
    CorruptRow(String),

    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

impl From<SqliteError> for cairn_core::Error {
    fn from(error: SqliteError) -> Self {
        match &error {
            SqliteError::Sql(e) if is_busy(e) => cairn_core::Error::Busy {
                message: "the database stayed locked by another cairn process for too long; \
                          try again"
                    .into(),
            },
            other => cairn_core::Error::storage(other.to_string(), error),
        }
    }
}

/// True for SQLite's "busy"/"locked" conditions.
pub(crate) fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// `.sql()?` turns a rusqlite result into a domain result in one step.
pub(crate) trait SqlResult<T> {
    fn sql(self) -> cairn_core::Result<T>;
}

impl<T> SqlResult<T> for rusqlite::Result<T> {
    fn sql(self) -> cairn_core::Result<T> {
        self.map_err(|e| SqliteError::from(e).into())
    }
}
