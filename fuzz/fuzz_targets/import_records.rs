//! Any bytes as an import into a real (in-memory) SQLite store: imported whole, or refused
//! whole (nothing stored) — never a panic. What was imported imports again as nothing new.
#![no_main]

use cairn_core::config::Config;
use cairn_core::{MemoryService, Scope, ServiceParts};
use cairn_store_sqlite::SqliteStore;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let store = SqliteStore::open_in_memory().expect("an in-memory store");
    let service = MemoryService::new(ServiceParts::new(Box::new(store)), &Config::default());
    let import = |service: &MemoryService| {
        service.import(&mut std::io::BufReader::new(data), Scope::Global, &mut |_| {})
    };
    match import(&service) {
        Ok(_) => {
            let again = import(&service).expect("what imported once imports again");
            assert_eq!(again.memories.created, 0, "importing twice adds nothing");
        }
        Err(_) => {
            let stats = service.stats().expect("stats");
            assert_eq!(
                stats.memories + stats.forgotten + stats.expired,
                0,
                "a refused import stores nothing"
            );
        }
    }
});
