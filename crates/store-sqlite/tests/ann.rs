//! The HNSW index beside the database: built once the store is large enough, in agreement with
//! the exact scan, extended with what is written later, never a way back for forgotten, purged or
//! changed memories, shared between handles (processes) through its file, and ignored — then
//! rebuilt — when damaged or left behind by another database.
//!
//! Vectors here are seeded pseudo-random unit vectors written through the store's own API, so
//! that queries can be aimed at exact stored vectors; the model plays no part in the index.

use cairn_core::config::Config;
use cairn_core::embedding::{
    MemoryVector, ModelIdentity, VectorIndexReport, VectorSpace, VectorStore,
};
use cairn_core::exchange::ExchangeStore;
use cairn_core::memory::{MemoryFilter, SignalHit, Visibility};
use cairn_core::store::Store;
use cairn_core::tag::Tag;
use cairn_core::testing::{project, seeded_unit_vector};
use cairn_core::{Api, ApiParts, IdRef, Memory, MemoryId, MemoryPatch, NewMemory, Source};
use cairn_store_sqlite::{AnnSettings, SqliteStore};
use jiff::Timestamp;
use tempfile::TempDir;

/// The space every vector of these tests lives in.
const TEXT: VectorSpace = VectorSpace::Text;

const DIMENSIONS: usize = 32;
const MIN_VECTORS: u64 = 100;
const TAIL_LIMIT: u64 = 20;

fn identity() -> ModelIdentity {
    ModelIdentity {
        name: "seeded-unit-vectors".into(),
        dimensions: DIMENSIONS,
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

/// What an update did: (indexed, added, unindexed, rebuilt).
fn counts(report: &VectorIndexReport) -> (u64, u64, u64, bool) {
    (
        report.indexed,
        report.added,
        report.unindexed,
        report.rebuilt,
    )
}

/// A database in a temporary directory, written through a service and read through a second
/// handle, as two processes would.
struct Fixture {
    dir: TempDir,
    api: Api,
    reader: SqliteStore,
    memories: Vec<(Memory, Vec<f32>)>,
}

fn settings() -> AnnSettings {
    AnnSettings {
        min_vectors: MIN_VECTORS,
        tail_limit: TAIL_LIMIT,
        ..AnnSettings::default()
    }
}

fn open(dir: &TempDir) -> SqliteStore {
    SqliteStore::open(&dir.path().join("cairn.db"))
        .expect("open the store")
        .with_ann_settings(settings())
}

impl Fixture {
    fn new() -> Self {
        let dir = TempDir::new().unwrap();
        let api = Api::open(ApiParts::new(Box::new(open(&dir))), &Config::default());
        let reader = open(&dir);
        Fixture {
            dir,
            api,
            reader,
            memories: Vec::new(),
        }
    }

    fn index_file(&self) -> std::path::PathBuf {
        self.dir.path().join("cairn.db.hnsw")
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
            self.put(&memory, vector.clone());
            self.memories.push((memory, vector));
        }
        start..start + n
    }

    fn put(&self, memory: &Memory, vector: Vec<f32>) {
        self.reader
            .write(&mut |tx| {
                tx.set_embedding_model(TEXT, &identity())?;
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

    fn update(&self, store: &SqliteStore, rebuild: bool) -> Option<VectorIndexReport> {
        store
            .update_vector_index(TEXT, rebuild, &mut |_, _| {})
            .expect("update the index")
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

    /// The share of the exact top 10 that the store's own search returns, over `queries`
    /// fresh random queries.
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
}

#[test]
fn the_index_is_built_once_the_store_is_large_enough_and_agrees_with_the_exact_scan() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize - 1, &[]);
    assert_eq!(f.update(&f.reader, false), None, "too small for an index");
    assert!(!f.index_file().exists());

    f.add(1, &[]);
    let report = f.update(&f.reader, false).expect("an index");
    assert!(report.rebuilt);
    assert_eq!((report.indexed, report.added), (MIN_VECTORS, MIN_VECTORS));
    assert!(f.index_file().exists(), "persisted beside the database");

    let recall = f.recall(30);
    assert!(recall >= 0.95, "recall@10 against the exact scan: {recall}");
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
            "scored exactly: {}",
            hits[0].raw
        );
    }
}

#[test]
fn vectors_written_after_the_index_are_scanned_until_the_tail_is_long_enough_to_add() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");

    let late = f.add(5, &[]);
    for i in late.clone() {
        let (memory, vector) = &f.memories[i];
        assert_eq!(f.nearest(vector, &MemoryFilter::default())[0], memory.id);
    }
    let report = f.update(&f.reader, false).unwrap();
    assert_eq!(
        counts(&report),
        (MIN_VECTORS, 0, 5, false),
        "a short tail stays out of the index"
    );

    f.add(TAIL_LIMIT as usize, &[]);
    let report = f.update(&f.reader, false).unwrap();
    assert_eq!(
        counts(&report),
        (MIN_VECTORS + 5 + TAIL_LIMIT, 5 + TAIL_LIMIT, 0, false),
        "the tail is added, the index kept"
    );
    assert!(f.recall(30) >= 0.95);
}

#[test]
fn forgotten_purged_and_changed_memories_never_come_back_through_the_index() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");
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
    f.put(&changed, new_vector.clone());
    assert_eq!(
        f.nearest(&new_vector, &MemoryFilter::default())[0],
        changed.id
    );
    assert!(!f.nearest(&old_vector, &everything).contains(&changed.id));
}

#[test]
fn another_handle_opens_the_saved_index_and_follows_its_updates() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");

    let other = open(&f.dir);
    let report = f.update(&other, false).unwrap();
    assert_eq!(
        (report.indexed, report.rebuilt),
        (MIN_VECTORS, false),
        "opened, not rebuilt"
    );

    f.add(TAIL_LIMIT as usize, &[]);
    f.update(&f.reader, false).unwrap();
    let report = f.update(&other, false).unwrap();
    assert_eq!(
        (report.indexed, report.unindexed, report.rebuilt),
        (MIN_VECTORS + TAIL_LIMIT, 0, false),
        "the other handle sees the extended file"
    );
}

#[test]
fn a_damaged_index_file_is_ignored_then_rebuilt() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");
    std::fs::write(f.index_file(), b"not an index").unwrap();

    let fresh = open(&f.dir);
    let query = unit(4242);
    let found = ids(fresh.nearest(TEXT, &query, &MemoryFilter::default(), Timestamp::now(), 10));
    assert_eq!(
        found,
        f.exact(&query, &MemoryFilter::default()),
        "the exact scan answers"
    );
    let report = f.update(&fresh, false).unwrap();
    assert!(report.rebuilt);
    assert_eq!(report.indexed, MIN_VECTORS);
}

/// A tiny seeded generator, so every run damages the same bytes.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn damage_that_keeps_the_files_size_never_crashes_a_search_and_is_rebuilt() {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");
    let mut random = Seeded(0x9e37_79b9_7f4a_7c15);
    let size = std::fs::metadata(f.index_file()).unwrap().len();
    for round in 0..60 {
        // A few bytes changed in place: the size, the metadata and the name stay.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(f.index_file())
            .unwrap();
        for _ in 0..1 + round % 4 {
            file.seek(SeekFrom::Start(random.next() % size)).unwrap();
            file.write_all(&[random.next() as u8 | 1]).unwrap();
        }
        drop(file);
        assert_eq!(std::fs::metadata(f.index_file()).unwrap().len(), size);

        let fresh = open(&f.dir);
        let query = unit(10_000 + round);
        let found =
            ids(fresh.nearest(TEXT, &query, &MemoryFilter::default(), Timestamp::now(), 10));
        let exact = f.exact(&query, &MemoryFilter::default());
        assert_eq!(found, exact, "round {round}: the exact scan answers");
        let damage = fresh
            .vector_index_damage(TEXT)
            .expect("the damage is known");
        assert!(damage.contains("damaged"), "round {round}: {damage}");
        let report = f.update(&fresh, false).unwrap();
        assert!(report.rebuilt, "round {round}: rebuilt by the next update");
        assert_eq!(fresh.vector_index_damage(TEXT), None);
        assert_eq!(
            std::fs::metadata(f.index_file()).unwrap().len(),
            size,
            "the same vectors, the same size"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(f.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_database_copied_back_beside_a_newer_index_never_hides_new_memories() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(&f.reader, false).expect("an index");
    let copy = f.dir.path().join("copy.db");
    f.reader.backup(&copy).unwrap();
    // The index moves on past the copy: its watermark is ahead of the copy's vectors.
    f.add(TAIL_LIMIT as usize, &[]);
    f.update(&f.reader, false).unwrap();
    let Fixture {
        dir, api, reader, ..
    } = f;
    drop((api, reader));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(dir.path().join(format!("cairn.db{suffix}")));
    }
    std::fs::rename(&copy, dir.path().join("cairn.db")).unwrap();

    // New memories in the copied-back database take vector numbers the index already used.
    let again = Fixture {
        api: Api::open(ApiParts::new(Box::new(open(&dir))), &Config::default()),
        reader: open(&dir),
        dir,
        memories: Vec::new(),
    };
    for i in 0..5 {
        let new = NewMemory::new(format!("after the copy, {i}"), project("acme"), Source::Cli);
        let memory = again
            .api
            .write(&cairn_core::testing::local(), new, None)
            .expect("store")
            .memory;
        let vector = unit(90_000 + i);
        again.put(&memory, vector.clone());
        assert_eq!(
            again.nearest(&vector, &MemoryFilter::default())[0],
            memory.id,
            "a memory written after the copy came back is found"
        );
    }
    let damage = again.reader.vector_index_damage(TEXT).expect("known");
    assert!(damage.contains("older than the index"), "{damage}");
    let report = again.update(&again.reader, false).unwrap();
    assert!(report.rebuilt);
    assert_eq!(report.indexed, MIN_VECTORS + 5);
}

#[test]
fn an_index_left_by_another_database_at_the_same_path_is_not_used() {
    let mut first = Fixture::new();
    first.add(MIN_VECTORS as usize, &[]);
    first.update(&first.reader, false).expect("an index");
    let saved = std::fs::read(first.index_file()).unwrap();
    let saved_meta = std::fs::read(first.dir.path().join("cairn.db.hnsw.json")).unwrap();

    let mut second = Fixture::new();
    // The second database holds other vectors under the same memory numbers.
    for i in 0..MIN_VECTORS as usize {
        let memory = second
            .api
            .write(
                &cairn_core::testing::local(),
                NewMemory::new(format!("other {i}"), project("acme"), Source::Cli),
                None,
            )
            .unwrap()
            .memory;
        let vector = unit(50_000 + i as u64);
        second.put(&memory, vector.clone());
        second.memories.push((memory, vector));
    }
    std::fs::write(second.index_file(), saved).unwrap();
    std::fs::write(second.dir.path().join("cairn.db.hnsw.json"), saved_meta).unwrap();

    let (memory, vector) = &second.memories[10];
    assert_eq!(
        second.nearest(vector, &MemoryFilter::default())[0],
        memory.id
    );
    assert!(second.recall(20) >= 0.999, "the exact scan answers");
    let report = second.update(&second.reader, false).unwrap();
    assert!(report.rebuilt, "the foreign index is replaced");
}

#[test]
fn a_selective_filter_gets_every_match_it_allows() {
    let mut f = Fixture::new();
    f.add(MIN_VECTORS as usize * 3, &[]);
    let rare = f.add(4, &["rare"]);
    f.add(TAIL_LIMIT as usize, &[]);
    f.update(&f.reader, true).expect("an index");

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
