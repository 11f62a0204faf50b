//! The PostgreSQL backend against the shared behavioural suite, each test in a fresh schema of
//! the server `CAIRN_TEST_POSTGRES` names (a URL; `.ci/run` starts a throwaway server and sets
//! it). Without it every test says it skipped; under `CAIRN_REQUIRE_POSTGRES=1` (CI) a missing
//! server fails instead.

use cairn_core::store::Store;
use cairn_store_postgres::testing::{fresh_store, test_server};

fn ready() -> bool {
    test_server().is_some()
}

/// A store in a schema of its own, new for every call.
fn fresh_schema() -> Box<dyn Store> {
    let server = test_server().expect("checked by ready()");
    let (store, _) = fresh_store(&server, "test").expect("a store in a fresh schema");
    Box::new(store)
}

cairn_core::store_behaviour_suite!(fresh_schema, ready = ready);
