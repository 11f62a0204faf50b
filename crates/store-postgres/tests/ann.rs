//! pgvector's HNSW index, beyond the suite's vector-index behaviours
//! ([`cairn_core::vector_index_suite!`], run here too): searches walk it (PostgreSQL's own
//! statistics say so), and a model of other dimensions drops it while its vectors are stored
//! and found.
//!
//! Vectors are seeded pseudo-random unit vectors written through the store's own API, so queries
//! can be aimed at exact stored vectors. Each test runs in a fresh schema of the server
//! `CAIRN_TEST_POSTGRES` names; they are ignored unless asked for (`--include-ignored`).

use std::time::{Duration, Instant};

use cairn_core::Memory;
use cairn_core::memory::MemoryFilter;
use cairn_core::testing::{AnnFixture, AnnStores, seeded_unit_vector};
use cairn_store_postgres::PostgresStore;
use cairn_store_postgres::testing::{fresh_store, test_server};

const MIN_VECTORS: u64 = 200;

cairn_core::vector_index_suite!(
    stores,
    ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"
);

/// Two handles on a store in a fresh schema, as two servers of one database would have, and
/// the schema's URL.
fn stores() -> AnnStores {
    let server = test_server();
    let (store, url) = fresh_store(&server, "ann").expect("a store in a fresh schema");
    // At these sizes the planner rightly prefers sorting the whole space to walking the
    // index; the reader is told not to sort, so that the index path is what is tested.
    let reader = open(&format!("{url}%20-c%20enable_sort%3Doff"));
    AnnStores {
        writer: Box::new(store.with_index_min_vectors(MIN_VECTORS)),
        reader: Box::new(reader),
        min_vectors: MIN_VECTORS,
        keep: Box::new(url),
    }
}

fn open(url: &str) -> PostgresStore {
    PostgresStore::open(url)
        .expect("open the store")
        .with_index_min_vectors(MIN_VECTORS)
}

/// How many times PostgreSQL has walked an HNSW index of the fixture's schema. Statistics
/// reach the shared counters when the searching connection goes idle, so this waits (up to
/// 30 s) for the count to pass `above`.
fn index_scans_after(f: &AnnFixture, above: i64) -> i64 {
    let url = f.keep.downcast_ref::<String>().expect("the schema's URL");
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let scans: i64 = client
            .query_one(
                "SELECT coalesce(sum(idx_scan), 0)::bigint FROM pg_stat_user_indexes \
                 WHERE schemaname = current_schema() \
                 AND indexrelname LIKE 'memory_vectors_hnsw_%'",
                &[],
            )
            .unwrap()
            .get(0);
        if scans > above || Instant::now() > deadline {
            return scans;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn searches_walk_the_index() {
    let mut f = AnnFixture::new(stores());
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");

    let before = index_scans_after(&f, -1);
    let recall = f.recall(30);
    assert!(recall >= 0.95, "recall@10 against the exact scan: {recall}");
    let after = index_scans_after(&f, before);
    assert!(
        after > before,
        "searches walk the index ({before} → {after})"
    );
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_model_of_other_dimensions_drops_the_index_and_its_vectors_are_stored_and_found() {
    let mut f = AnnFixture::new(stores());
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");

    // Every memory is pending again under the new model; a few get vectors of 8 dimensions,
    // which the old index (typed with 32) would refuse.
    let written: Vec<(Memory, Vec<f32>)> = f.memories[..5]
        .iter()
        .enumerate()
        .map(|(i, (memory, _))| (memory.clone(), seeded_unit_vector(500 + i as u64, 8)))
        .collect();
    for (memory, vector) in &written {
        f.put(memory, vector.clone());
    }
    assert!(
        f.update(f.reader.as_ref(), false).is_none(),
        "five vectors: no index"
    );
    for (memory, vector) in &written {
        assert_eq!(f.nearest(vector, &MemoryFilter::default())[0], memory.id);
    }
}
