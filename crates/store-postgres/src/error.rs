//! Errors of the PostgreSQL backend, converted to [`cairn_core::Error`] at the trait boundary.

/// What can go wrong in the PostgreSQL store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PostgresError {
    #[error("cannot connect to PostgreSQL at {location}: {source}")]
    Connect {
        location: String,
        #[source]
        source: postgres::Error,
    },

    #[error(
        "the PostgreSQL server at {location} sent a certificate that is not trusted ({source}); \
         name the certificate of its authority with `sslrootcert=PATH` in the URL, or use \
         `sslmode=require` to encrypt without checking who the server is"
    )]
    UntrustedCertificate {
        location: String,
        #[source]
        source: postgres::Error,
    },

    /// The URL's TLS settings cannot be used.
    #[error("{0}")]
    Tls(String),

    #[error("{0} is not a PostgreSQL URL (postgres://user[:password]@host[:port]/database)")]
    BadUrl(String),

    #[error(
        "the database has cairn schema version {found}, newer than this cairn understands \
         ({known}); upgrade cairn"
    )]
    SchemaTooNew { found: i64, known: i64 },

    #[error(
        "the PostgreSQL extension `{extension}` is missing and this user may not create it: {source}; \
         ask the database's owner to run `CREATE EXTENSION {extension};` once"
    )]
    MissingExtension {
        extension: &'static str,
        #[source]
        source: postgres::Error,
    },

    #[error("a stored row is unreadable ({0}); the database may be damaged")]
    CorruptRow(String),

    #[error(transparent)]
    Sql(#[from] postgres::Error),
}

/// SQLSTATE `lock_not_available`: the write lock was not had within the lock timeout.
const LOCK_NOT_AVAILABLE: &str = "55P03";

impl From<PostgresError> for cairn_core::Error {
    fn from(error: PostgresError) -> Self {
        match &error {
            PostgresError::Sql(e) if e.code().map(|c| c.code()) == Some(LOCK_NOT_AVAILABLE) => {
                cairn_core::Error::Busy {
                    message: "another cairn kept the PostgreSQL store's write lock for too long; \
                              try again"
                        .into(),
                }
            }
            other => cairn_core::Error::storage(other.to_string(), error),
        }
    }
}

/// `.sql()?` turns a postgres result into a domain result in one step.
pub(crate) trait SqlResult<T> {
    fn sql(self) -> cairn_core::Result<T>;
}

impl<T> SqlResult<T> for Result<T, postgres::Error> {
    fn sql(self) -> cairn_core::Result<T> {
        self.map_err(|e| PostgresError::from(e).into())
    }
}

impl<T> SqlResult<T> for Result<T, PostgresError> {
    fn sql(self) -> cairn_core::Result<T> {
        self.map_err(Into::into)
    }
}

/// A stored value that does not parse as the domain type it should be.
pub(crate) fn corrupt(what: impl std::fmt::Display) -> cairn_core::Error {
    PostgresError::CorruptRow(what.to_string()).into()
}
