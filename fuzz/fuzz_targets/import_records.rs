//! Any bytes as an import into a real (in-memory) SQLite store, through the front door every
//! entry point uses: imported whole, or refused whole (nothing stored) — never a panic. What
//! was imported imports again as nothing new.
#![no_main]

use cairn_core::api::{Api, Caller};
use cairn_core::config::Config;
use cairn_core::{ApiParts, Source};
use cairn_store_sqlite::SqliteStore;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let store = SqliteStore::open_in_memory().expect("an in-memory store");
    let api = Api::open(ApiParts::new(Box::new(store)), &Config::default());
    let caller = Caller::local(Source::Import);
    let import = |api: &Api| api.import(&caller, &mut std::io::BufReader::new(data), &mut |_| {});
    match import(&api) {
        Ok(_) => {
            let again = import(&api).expect("what imported once imports again");
            assert_eq!(again.memories.created, 0, "importing twice adds nothing");
        }
        Err(_) => {
            let stats = api.stats(&caller).expect("stats");
            assert_eq!(
                stats.memories + stats.forgotten + stats.expired,
                0,
                "a refused import stores nothing"
            );
        }
    }
});
