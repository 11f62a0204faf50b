//! For tests and benchmarks that need a PostgreSQL server (feature `testing`): the server
//! `CAIRN_TEST_POSTGRES` names, and fresh schemas on it, one per store.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{PostgresError, PostgresStore};

/// The test server's URL, or `None` after saying how to provide one. Under
/// `CAIRN_REQUIRE_POSTGRES=1` (CI) a missing server is a failure instead.
pub fn test_server() -> Option<String> {
    let url = std::env::var("CAIRN_TEST_POSTGRES").ok();
    if url.is_none() {
        assert!(
            !cairn_core::testing::required("CAIRN_REQUIRE_POSTGRES"),
            "CAIRN_TEST_POSTGRES is not set; run .ci/run or see AGENTS.md"
        );
        eprintln!(
            "skipped: set CAIRN_TEST_POSTGRES to a PostgreSQL URL with pgvector and pg_trgm \
             (.ci/postgres start starts one)"
        );
    }
    url
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

/// A server that offers TLS and the PEM file of the authority that signed its certificate
/// (`CAIRN_TEST_POSTGRES_TLS`, `CAIRN_TEST_POSTGRES_TLS_ROOT`), or `None` after saying how to
/// provide them. Under `CAIRN_REQUIRE_POSTGRES=1` (CI) a missing server is a failure instead.
pub fn tls_test_server() -> Option<(String, std::path::PathBuf)> {
    let url = std::env::var("CAIRN_TEST_POSTGRES_TLS").ok();
    let root = std::env::var_os("CAIRN_TEST_POSTGRES_TLS_ROOT");
    if url.is_none() || root.is_none() {
        assert!(
            !cairn_core::testing::required("CAIRN_REQUIRE_POSTGRES"),
            "CAIRN_TEST_POSTGRES_TLS or CAIRN_TEST_POSTGRES_TLS_ROOT is not set; run .ci/run"
        );
        eprintln!(
            "skipped: set CAIRN_TEST_POSTGRES_TLS to a PostgreSQL URL that offers TLS and \
             CAIRN_TEST_POSTGRES_TLS_ROOT to its authority's certificate (.ci/postgres \
             start-tls BIN DIR starts one, DIR/ca.pem)"
        );
    }
    url.zip(root.map(Into::into))
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
