//! For tests and benchmarks that need a PostgreSQL server (feature `testing`): the server
//! `CAIRN_TEST_POSTGRES` names, and fresh schemas on it, one per store.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{PostgresError, PostgresStore};

/// The test server's URL (`CAIRN_TEST_POSTGRES`: a PostgreSQL server with pgvector and
/// pg_trgm; `.ci/postgres start` starts one). The tests that call it are
/// `#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]`: they run when asked for, and
/// fail saying so when asked for without one.
pub fn test_server() -> String {
    cairn_core::testing::provided(
        "CAIRN_TEST_POSTGRES",
        "a PostgreSQL server with pgvector and pg_trgm (.ci/postgres start starts one)",
    )
}

/// A schema name no other store of this process or another has used: `<prefix>_<pid>_<n>_<µs>`.
pub fn fresh_schema_name(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        jiff::Timestamp::now().as_microsecond()
    )
}

/// A new, empty store in a fresh schema of `server`, and the URL that reaches it from another
/// process (see [`url_in_schema`](crate::url_in_schema)).
pub fn fresh_store(server: &str, prefix: &str) -> Result<(PostgresStore, String), PostgresError> {
    let schema = fresh_schema_name(prefix);
    let store = PostgresStore::open_in_schema(server, &schema)?;
    Ok((store, crate::url_in_schema(server, &schema)))
}

/// A server that offers TLS (`CAIRN_TEST_POSTGRES_TLS`) and the PEM file of the authority that
/// signed its certificate (`CAIRN_TEST_POSTGRES_TLS_ROOT`); `.ci/postgres start-tls BIN DIR`
/// starts one, its authority in `DIR/ca.pem`.
pub fn tls_test_server() -> (String, std::path::PathBuf) {
    let what = "a PostgreSQL server that offers TLS (.ci/postgres start-tls BIN DIR starts one)";
    let url = cairn_core::testing::provided("CAIRN_TEST_POSTGRES_TLS", what);
    let root = cairn_core::testing::provided("CAIRN_TEST_POSTGRES_TLS_ROOT", what);
    (url, root.into())
}

/// Whether a connection to `url`, made as every connection of a store is made, is encrypted
/// (the server's `pg_stat_ssl` says). It needs nothing of the server but a connection, so the
/// tests of `sslmode` run against servers without cairn's extensions.
pub fn connection_encrypted(url: &str) -> Result<bool, PostgresError> {
    let mut client = crate::pool::Server::from_url(url)?.connect()?;
    let row = client.query_one(
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        &[],
    )?;
    Ok(row.get(0))
}
