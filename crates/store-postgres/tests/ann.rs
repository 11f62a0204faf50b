//! The HNSW index in PostgreSQL (pgvector): built once a space holds enough vectors, in agreement
//! with the exact scan, walked by searches, never a way back for forgotten or changed memories,
//! never hiding a match of a selective filter, shared by every server of the store, and dropped
//! when a model of other dimensions replaces the space's model.
//!
//! Vectors are seeded pseudo-random unit vectors written through the store's own API, so queries
//! can be aimed at exact stored vectors. Each test runs in a fresh schema of the server
//! `CAIRN_TEST_POSTGRES` names; they are ignored unless asked for (`--include-ignored`).

use std::time::{Duration, Instant};

use cairn_core::config::Config;
use cairn_core::embedding::{MemoryVector, ModelIdentity, VectorSpace, VectorStore};
use cairn_core::memory::{MemoryFilter, SignalHit, Visibility};
use cairn_core::store::Store;
use cairn_core::tag::Tag;
use cairn_core::testing::{project, seeded_unit_vector};
use cairn_core::{Api, ApiParts, IdRef, Memory, MemoryId, MemoryPatch, NewMemory, Source};
use cairn_store_postgres::PostgresStore;
use cairn_store_postgres::testing::{fresh_store, test_server};
use jiff::Timestamp;

const TEXT: VectorSpace = VectorSpace::Text;
const DIMENSIONS: usize = 32;
const MIN_VECTORS: u64 = 200;

fn identity(dimensions: usize) -> ModelIdentity {
    ModelIdentity {
        name: format!("seeded-unit-vectors-{dimensions}"),
        dimensions,
        weights_sha256: "0".repeat(64),
    }
}

fn unit(seed: u64) -> Vec<f32> {
    seeded_unit_vector(seed, DIMENSIONS)
}

fn ids(hits: cairn_core::Result<Vec<SignalHit>>) -> Vec<MemoryId> {
    hits.expect("nearest")
        .into_iter()
        .map(|hit| hit.id)
        .collect()
}

/// A store in a fresh schema, written through a service and read through a second handle, as
/// two servers of one database would.
struct Fixture {
    url: String,
    api: Api,
    reader: PostgresStore,
    memories: Vec<(Memory, Vec<f32>)>,
}

impl Fixture {
    fn new() -> Self {
        let server = test_server();
        let (store, url) = fresh_store(&server, "ann").expect("a store in a fresh schema");
        let api = Api::open(
            ApiParts::new(Box::new(store.with_index_min_vectors(MIN_VECTORS))),
            &Config::default(),
        );
        // At these sizes the planner rightly prefers sorting the whole space to walking the
        // index; the reader is told not to sort, so that the index path is what is tested.
        let reader = open(&format!("{url}%20-c%20enable_sort%3Doff"));
        Fixture {
            reader,
            url,
            api,
            memories: Vec::new(),
        }
    }

    /// Stores `n` more memories with vectors; returns their positions.
    fn add(&mut self, n: usize, tags: &[&str]) -> std::ops::Range<usize> {
        let start = self.memories.len();
        for i in start..start + n {
            let mut new =
                NewMemory::new(format!("memory number {i}"), project("acme"), Source::Cli);
            new.tags = tags.iter().map(|t| t.to_string()).collect();
            let memory = self
                .api
                .write(&cairn_core::testing::local(), new, None)
                .expect("store")
                .memory;
            let vector = unit(i as u64);
            put(&self.reader, &memory, vector.clone());
            self.memories.push((memory, vector));
        }
        start..start + n
    }

    /// The store's own top 10: through the index when there is one.
    fn nearest(&self, query: &[f32], filter: &MemoryFilter) -> Vec<MemoryId> {
        ids(self
            .reader
            .nearest(TEXT, query, filter, Timestamp::now(), 10))
    }

    fn exact(&self, query: &[f32], filter: &MemoryFilter) -> Vec<MemoryId> {
        ids(self
            .reader
            .nearest_exact(TEXT, query, filter, Timestamp::now(), 10))
    }

    /// The share of the exact top 10 that the store's own search returns, over `queries` fresh
    /// random queries.
    fn recall(&self, queries: u64) -> f64 {
        let mut found = 0;
        for seed in 0..queries {
            let query = unit(1_000_000 + seed);
            let exact = self.exact(&query, &MemoryFilter::default());
            let got = self.nearest(&query, &MemoryFilter::default());
            found += exact.iter().filter(|id| got.contains(id)).count();
        }
        found as f64 / (queries * 10) as f64
    }

    /// How many times PostgreSQL has walked an HNSW index of the schema. Statistics reach the
    /// shared counters when the searching connection goes idle, so this waits (up to 30 s) for
    /// the count to pass `above`.
    fn index_scans_after(&self, above: i64) -> i64 {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
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
}

fn open(url: &str) -> PostgresStore {
    PostgresStore::open(url)
        .expect("open the store")
        .with_index_min_vectors(MIN_VECTORS)
}

fn put(store: &PostgresStore, memory: &Memory, vector: Vec<f32>) {
    let dimensions = vector.len();
    store
        .write(&mut |tx| {
            tx.set_embedding_model(TEXT, &identity(dimensions))?;
            assert_eq!(
                tx.put_embeddings(
                    TEXT,
                    &[MemoryVector::whole(
                        memory.id,
                        memory.updated_at,
                        vector.clone()
                    )],
                )?,
                1
            );
            Ok(())
        })
        .unwrap();
}

fn update(store: &PostgresStore, rebuild: bool) -> Option<(u64, u64, bool)> {
    store
        .update_vector_index(TEXT, rebuild, &mut |_, _| {})
        .expect("update the index")
        .map(|report| (report.indexed, report.added, report.rebuilt))
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn the_index_is_built_once_the_space_is_large_enough_walked_and_agrees_with_the_exact_scan() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize - 1, &[]);
    assert_eq!(update(&f.reader, false), None, "too small for an index");

    f.add(1, &[]);
    assert_eq!(
        update(&f.reader, false),
        Some((MIN_VECTORS, MIN_VECTORS, true)),
        "built"
    );
    let other = open(&f.url);
    assert_eq!(
        update(&other, false),
        Some((MIN_VECTORS, 0, false)),
        "another server finds it built"
    );

    let before = f.index_scans_after(-1);
    let recall = f.recall(30);
    assert!(recall >= 0.95, "recall@10 against the exact scan: {recall}");
    let after = f.index_scans_after(before);
    assert!(
        after > before,
        "searches walk the index ({before} → {after})"
    );

    for (memory, vector) in f.memories.iter().step_by(17) {
        let hits = f
            .reader
            .nearest(TEXT, vector, &MemoryFilter::default(), Timestamp::now(), 3)
            .unwrap();
        assert_eq!(
            hits[0].id, memory.id,
            "a stored vector finds its memory first"
        );
        assert!(
            (hits[0].raw - 1.0).abs() < 1e-5,
            "scored by cairn from the stored vector: {}",
            hits[0].raw
        );
    }
    assert_eq!(
        update(&f.reader, true),
        Some((MIN_VECTORS, MIN_VECTORS, true)),
        "rebuilt when asked"
    );
    assert!(f.recall(10) >= 0.95);
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn forgotten_purged_and_changed_memories_never_come_back_through_the_index() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    update(&f.reader, false).expect("an index");
    let (forgotten, forgotten_vector) = f.memories[3].clone();
    let (purged, purged_vector) = f.memories[4].clone();
    let (changed, old_vector) = f.memories[5].clone();

    f.api
        .forget(
            &cairn_core::testing::local(),
            &forgotten.id.to_string(),
            false,
        )
        .unwrap();
    f.api
        .forget(&cairn_core::testing::local(), &purged.id.to_string(), true)
        .unwrap();
    let patch = MemoryPatch {
        content: Some("memory number five, rewritten".into()),
        ..MemoryPatch::default()
    };
    let changed = f
        .api
        .patch(
            &cairn_core::testing::local(),
            &IdRef::Full(changed.id),
            patch,
        )
        .unwrap()
        .memory;

    let everything = MemoryFilter {
        visibility: Visibility {
            forgotten: true,
            ..Visibility::VISIBLE
        },
        ..MemoryFilter::default()
    };
    assert!(
        !f.nearest(&forgotten_vector, &MemoryFilter::default())
            .contains(&forgotten.id)
    );
    assert_eq!(f.nearest(&forgotten_vector, &everything)[0], forgotten.id);
    assert!(!f.nearest(&purged_vector, &everything).contains(&purged.id));
    assert!(
        !f.nearest(&old_vector, &everything).contains(&changed.id),
        "a changed memory's old vector is no longer its own"
    );

    let new_vector = unit(777);
    put(&f.reader, &changed, new_vector.clone());
    assert_eq!(
        f.nearest(&new_vector, &MemoryFilter::default())[0],
        changed.id
    );
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_selective_filter_gets_every_match_it_allows() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize * 2, &[]);
    let rare = f.add(4, &["rare"]);
    update(&f.reader, false).expect("an index");

    let filter = MemoryFilter {
        tags_all: vec![Tag::new("rare").unwrap()],
        ..MemoryFilter::default()
    };
    let query = unit(99);
    let mut found = f.nearest(&query, &filter);
    let mut expected: Vec<MemoryId> = f.memories[rare].iter().map(|(m, _)| m.id).collect();
    assert_eq!(found, f.exact(&query, &filter), "in the exact order");
    found.sort();
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_model_of_other_dimensions_drops_the_index_and_its_vectors_are_stored_and_found() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    update(&f.reader, false).expect("an index");

    // Every memory is pending again under the new model; a few get vectors of 8 dimensions,
    // which the old index (typed with 32) would refuse.
    let written: Vec<(Memory, Vec<f32>)> = f.memories[..5]
        .iter()
        .enumerate()
        .map(|(i, (memory, _))| (memory.clone(), seeded_unit_vector(500 + i as u64, 8)))
        .collect();
    for (memory, vector) in &written {
        put(&f.reader, memory, vector.clone());
    }
    assert_eq!(update(&f.reader, false), None, "five vectors: no index");
    for (memory, vector) in &written {
        assert_eq!(f.nearest(vector, &MemoryFilter::default())[0], memory.id);
    }
}
