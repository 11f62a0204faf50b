//! The HNSW file beside the database, beyond the suite's vector-index behaviours
//! ([`cairn_core::vector_index_suite!`], run here too): a short tail of later vectors scanned
//! until it is worth adding, the file persisted and followed by another handle (another
//! process), and ignored — then rebuilt — when damaged, left behind by another database or
//! older than the database beside it.
//!
//! Vectors are seeded pseudo-random unit vectors written through the store's own API, so that
//! queries can be aimed at exact stored vectors; the model plays no part in the index.

use std::path::{Path, PathBuf};

use cairn_core::embedding::{VectorIndexReport, VectorStore};
use cairn_core::memory::MemoryFilter;
use cairn_core::testing::ann::{TEXT, ids, unit};
use cairn_core::testing::{AnnFixture, AnnStores, local, project};
use cairn_core::{NewMemory, Source};
use cairn_store_sqlite::{AnnSettings, SqliteStore};
use jiff::Timestamp;
use tempfile::TempDir;

const MIN_VECTORS: u64 = 100;
const TAIL_LIMIT: u64 = 20;

cairn_core::vector_index_suite!(stores);

/// Two handles on a fresh database in a temporary directory, as two processes would have.
fn stores() -> AnnStores {
    stores_in(TempDir::new().unwrap())
}

fn stores_in(dir: TempDir) -> AnnStores {
    AnnStores {
        writer: Box::new(open(dir.path())),
        reader: Box::new(open(dir.path())),
        min_vectors: MIN_VECTORS,
        keep: Box::new(dir),
    }
}

fn open(dir: &Path) -> SqliteStore {
    SqliteStore::open(&dir.join("cairn.db"))
        .expect("open the store")
        .with_ann_settings(AnnSettings {
            min_vectors: MIN_VECTORS,
            tail_limit: TAIL_LIMIT,
            ..AnnSettings::default()
        })
}

/// The directory of a fixture's database.
fn dir(f: &AnnFixture) -> &Path {
    f.keep
        .downcast_ref::<TempDir>()
        .expect("the fixture keeps its directory")
        .path()
}

fn index_file(f: &AnnFixture) -> PathBuf {
    dir(f).join("cairn.db.hnsw")
}

fn fixture() -> AnnFixture {
    AnnFixture::new(stores())
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

#[test]
fn vectors_written_after_the_index_are_scanned_until_the_tail_is_long_enough_to_add() {
    let mut f = fixture();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");

    let late = f.add(5, &[]);
    for i in late.clone() {
        let (memory, vector) = &f.memories[i];
        assert_eq!(f.nearest(vector, &MemoryFilter::default())[0], memory.id);
    }
    let report = f.update(f.reader.as_ref(), false).unwrap();
    assert_eq!(
        counts(&report),
        (MIN_VECTORS, 0, 5, false),
        "a short tail stays out of the index"
    );

    f.add(TAIL_LIMIT as usize, &[]);
    let report = f.update(f.reader.as_ref(), false).unwrap();
    assert_eq!(
        counts(&report),
        (MIN_VECTORS + 5 + TAIL_LIMIT, 5 + TAIL_LIMIT, 0, false),
        "the tail is added, the index kept"
    );
    assert!(f.recall(30) >= 0.95);
}

#[test]
fn another_handle_opens_the_saved_index_and_follows_its_updates() {
    let mut f = fixture();
    f.add(MIN_VECTORS as usize - 1, &[]);
    f.update(f.reader.as_ref(), false);
    assert!(!index_file(&f).exists(), "no index below the threshold");
    f.add(1, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");
    assert!(index_file(&f).exists(), "persisted beside the database");

    let other = open(dir(&f));
    let report = f.update(&other, false).unwrap();
    assert_eq!(
        (report.indexed, report.rebuilt),
        (MIN_VECTORS, false),
        "opened, not rebuilt"
    );

    f.add(TAIL_LIMIT as usize, &[]);
    f.update(f.reader.as_ref(), false).unwrap();
    let report = f.update(&other, false).unwrap();
    assert_eq!(
        (report.indexed, report.unindexed, report.rebuilt),
        (MIN_VECTORS + TAIL_LIMIT, 0, false),
        "the other handle sees the extended file"
    );
}

#[test]
fn a_damaged_index_file_is_ignored_then_rebuilt() {
    let mut f = fixture();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");
    std::fs::write(index_file(&f), b"not an index").unwrap();

    let fresh = open(dir(&f));
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
    let mut f = fixture();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");
    let mut random = Seeded(0x9e37_79b9_7f4a_7c15);
    let size = std::fs::metadata(index_file(&f)).unwrap().len();
    for round in 0..60 {
        // A few bytes changed in place: the size, the metadata and the name stay.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(index_file(&f))
            .unwrap();
        for _ in 0..1 + round % 4 {
            file.seek(SeekFrom::Start(random.next() % size)).unwrap();
            file.write_all(&[random.next() as u8 | 1]).unwrap();
        }
        drop(file);
        assert_eq!(std::fs::metadata(index_file(&f)).unwrap().len(), size);

        let fresh = open(dir(&f));
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
            std::fs::metadata(index_file(&f)).unwrap().len(),
            size,
            "the same vectors, the same size"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir(&f))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_database_copied_back_beside_a_newer_index_never_hides_new_memories() {
    let mut f = fixture();
    f.add(MIN_VECTORS as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");
    let copy = dir(&f).join("copy.db");
    f.reader.backup(&copy).unwrap();
    // The index moves on past the copy: its watermark is ahead of the copy's vectors.
    f.add(TAIL_LIMIT as usize, &[]);
    f.update(f.reader.as_ref(), false).unwrap();
    let AnnFixture {
        api, reader, keep, ..
    } = f;
    drop((api, reader));
    let dir = keep
        .downcast::<TempDir>()
        .expect("the fixture keeps its directory");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(dir.path().join(format!("cairn.db{suffix}")));
    }
    std::fs::rename(&copy, dir.path().join("cairn.db")).unwrap();

    // New memories in the copied-back database take vector numbers the index already used.
    let again = AnnFixture::new(stores_in(*dir));
    for i in 0..5 {
        let new = NewMemory::new(format!("after the copy, {i}"), project("acme"), Source::Cli);
        let memory = again.api.write(&local(), new, None).expect("store").memory;
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
    let report = again.update(again.reader.as_ref(), false).unwrap();
    assert!(report.rebuilt);
    assert_eq!(report.indexed, MIN_VECTORS + 5);
}

#[test]
fn an_index_left_by_another_database_at_the_same_path_is_not_used() {
    let mut first = fixture();
    first.add(MIN_VECTORS as usize, &[]);
    first
        .update(first.reader.as_ref(), false)
        .expect("an index");
    let saved = std::fs::read(index_file(&first)).unwrap();
    let saved_meta = std::fs::read(dir(&first).join("cairn.db.hnsw.json")).unwrap();

    let mut second = fixture();
    // The second database holds other vectors under the same memory numbers.
    for i in 0..MIN_VECTORS as usize {
        let memory = second
            .api
            .write(
                &local(),
                NewMemory::new(format!("other {i}"), project("acme"), Source::Cli),
                None,
            )
            .unwrap()
            .memory;
        let vector = unit(50_000 + i as u64);
        second.put(&memory, vector.clone());
        second.memories.push((memory, vector));
    }
    std::fs::write(index_file(&second), saved).unwrap();
    std::fs::write(dir(&second).join("cairn.db.hnsw.json"), saved_meta).unwrap();

    let (memory, vector) = &second.memories[10];
    assert_eq!(
        second.nearest(vector, &MemoryFilter::default())[0],
        memory.id
    );
    assert!(second.recall(20) >= 0.999, "the exact scan answers");
    let report = second.update(second.reader.as_ref(), false).unwrap();
    assert!(report.rebuilt, "the foreign index is replaced");
}
