//! The PostgreSQL backend against the shared behavioural suite, each test in a fresh schema of
//! the server `CAIRN_TEST_POSTGRES` names (a URL; `.ci/run` starts a throwaway server and sets
//! it). Without it every test says it skipped; under `CAIRN_REQUIRE_POSTGRES=1` (CI) a missing
//! server fails instead.

use std::sync::atomic::{AtomicUsize, Ordering};

use cairn_core::store::Store;
use cairn_store_postgres::PostgresStore;

/// The test server's URL, or `None` (after saying why) when there is none.
fn server() -> Option<String> {
    match std::env::var("CAIRN_TEST_POSTGRES") {
        Ok(url) => Some(url),
        Err(_) => {
            assert!(
                std::env::var_os("CAIRN_REQUIRE_POSTGRES").is_none(),
                "CAIRN_TEST_POSTGRES is not set; run .ci/run or see AGENTS.md"
            );
            eprintln!(
                "skipped: set CAIRN_TEST_POSTGRES to a PostgreSQL URL with pgvector and pg_trgm \
                 (.ci/postgres start starts one)"
            );
            None
        }
    }
}

fn ready() -> bool {
    server().is_some()
}

/// A store in a schema of its own, new for every call.
fn fresh_schema() -> Box<dyn Store> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let url = server().expect("checked by ready()");
    let schema = format!(
        "test_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        jiff::Timestamp::now().as_microsecond()
    );
    Box::new(PostgresStore::open_in_schema(&url, &schema).expect("a store in a fresh schema"))
}

cairn_core::store_behaviour_suite!(fresh_schema, ready = ready);
