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
        "{path} is not a cairn database: {why}. Nothing was written to it. If it should hold \
         your memories, `cairn doctor` says what can be recovered and `cairn restore BACKUP` \
         brings a backup back; to start a new store, move the file away"
    )]
    NotADatabase { path: PathBuf, why: String },

    #[error(
        "the database has schema version {found}, newer than this cairn understands ({known}); \
         upgrade cairn"
    )]
    SchemaTooNew { found: u32, known: u32 },

    #[error(
        "upgrading the database {path} failed at step {step} of the schema ({name}): {source}; \
         nothing of that step was kept{}",
        backup.as_ref().map_or(String::new(), |b| format!(
            ", and the database as it was is at {} (cairn restore {} goes back to it)",
            b.display(),
            b.display()
        ))
    )]
    Migration {
        path: PathBuf,
        step: u32,
        name: &'static str,
        backup: Option<PathBuf>,
        #[source]
        source: Box<rusqlite::Error>,
    },

    #[error("the database {path} is read-only ({why}); cairn can read it but not change it")]
    ReadOnly { path: PathBuf, why: String },

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
            SqliteError::Sql(e) if is_corrupt(e) => cairn_core::Error::storage(
                format!(
                    "the database is damaged ({e}); `cairn doctor` says what is wrong, and \
                     `cairn doctor --repair` recovers what can be read into a new file"
                ),
                error,
            ),
            SqliteError::ReadOnly { .. } => cairn_core::Error::ReadOnly {
                field: "database".into(),
                message: error.to_string(),
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

/// True when SQLite found the file damaged.
pub(crate) fn is_corrupt(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// True for a write the disk had no room for (SQLite's "full", or an I/O error, which a full
/// disk causes when the shared-memory file cannot grow).
pub(crate) fn may_be_disk_full(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
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
