//! The suite's vector-index behaviours, for a backend with an approximate nearest-neighbour
//! index (SQLite's HNSW file, pgvector's HNSW): built once a space holds enough vectors, in
//! agreement with the exact scan, found by another handle of the same database, never a way back
//! for forgotten, purged or changed memories, and never hiding a match of a selective filter.
//!
//! Vectors are seeded pseudo-random unit vectors written through the store's own API, so that
//! queries can be aimed at exact stored vectors; no model plays a part. Memories are written
//! through an [`Api`] on one handle and vectors through a second, as two processes (or two
//! servers) of one database would. A backend's own index tests (a damaged file, a walked index)
//! use the same [`AnnFixture`].

use jiff::Timestamp;

use super::{local, project, seeded_unit_vector};
use crate::api::{Api, ApiParts};
use crate::config::Config;
use crate::embedding::{MemoryVector, ModelIdentity, VectorIndexReport, VectorSpace};
use crate::id::{IdRef, MemoryId};
use crate::memory::{Memory, MemoryFilter, MemoryPatch, NewMemory, SignalHit, Source, Visibility};
use crate::store::Store;
use crate::tag::Tag;

/// The space every vector of these tests lives in.
pub const TEXT: VectorSpace = VectorSpace::Text;

/// The dimensions of the seeded vectors.
pub const DIMENSIONS: usize = 32;

/// Two handles on one fresh database whose index is built from `min_vectors` vectors on, and
/// whatever must live as long as they do (a temporary directory, say).
pub struct AnnStores {
    pub writer: Box<dyn Store>,
    pub reader: Box<dyn Store>,
    pub min_vectors: u64,
    pub keep: Box<dyn std::any::Any>,
}

/// Makes two handles on a fresh database with a small index threshold.
pub type AnnFactory = fn() -> AnnStores;

/// Instantiates every vector-index behaviour as a `#[test]` for a backend with an index, like
/// [`store_behaviour_suite!`](crate::store_behaviour_suite) (and with its `ignore = "needs …"`).
#[macro_export]
macro_rules! vector_index_suite {
    ($factory:expr $(, ignore = $reason:literal)?) => {
        $crate::store_behaviour_suite!(@tests $factory, [$(ignore = $reason)?];
            the_index_is_built_once_large_enough_and_agrees_with_the_exact_scan,
            forgotten_purged_and_changed_memories_never_come_back_through_the_index,
            a_selective_filter_gets_every_match_it_allows,
        );
    };
}

/// The test model: its name says what the vectors are.
pub fn seeded_identity(dimensions: usize) -> ModelIdentity {
    ModelIdentity {
        name: format!("seeded-unit-vectors-{dimensions}"),
        dimensions,
        weights_sha256: "0".repeat(64),
    }
}

/// The seeded unit vector number `seed`.
pub fn unit(seed: u64) -> Vec<f32> {
    seeded_unit_vector(seed, DIMENSIONS)
}

/// The ids of a nearest-neighbour answer, in its order.
pub fn ids(hits: crate::Result<Vec<SignalHit>>) -> Vec<MemoryId> {
    hits.expect("nearest")
        .into_iter()
        .map(|hit| hit.id)
        .collect()
}

/// Memories written through an [`Api`] on one handle, their vectors put and searched through
/// the other.
pub struct AnnFixture {
    pub api: Api,
    pub reader: Box<dyn Store>,
    pub min_vectors: u64,
    pub memories: Vec<(Memory, Vec<f32>)>,
    pub keep: Box<dyn std::any::Any>,
}

impl AnnFixture {
    pub fn new(stores: AnnStores) -> Self {
        AnnFixture {
            api: Api::open(ApiParts::new(stores.writer), &Config::default()),
            reader: stores.reader,
            min_vectors: stores.min_vectors,
            memories: Vec::new(),
            keep: stores.keep,
        }
    }

    /// Stores `n` more memories (tagged `tags`) with vectors; returns their positions.
    pub fn add(&mut self, n: usize, tags: &[&str]) -> std::ops::Range<usize> {
        let start = self.memories.len();
        for i in start..start + n {
            let mut new =
                NewMemory::new(format!("memory number {i}"), project("acme"), Source::Cli);
            new.tags = tags.iter().map(|t| t.to_string()).collect();
            let memory = self.api.write(&local(), new, None).expect("store").memory;
            let vector = unit(i as u64);
            self.put(&memory, vector.clone());
            self.memories.push((memory, vector));
        }
        start..start + n
    }

    /// Gives `memory` this vector (of any length: the model is named by it).
    pub fn put(&self, memory: &Memory, vector: Vec<f32>) {
        put_vector(self.reader.as_ref(), memory, vector);
    }

    /// Brings `store`'s index up to date (or rebuilds it); `None` below the threshold.
    pub fn update(&self, store: &dyn Store, rebuild: bool) -> Option<VectorIndexReport> {
        store
            .update_vector_index(TEXT, rebuild, &mut |_, _| {})
            .expect("update the index")
    }

    /// The store's own top 10: through the index when there is one.
    pub fn nearest(&self, query: &[f32], filter: &MemoryFilter) -> Vec<MemoryId> {
        ids(self
            .reader
            .nearest(TEXT, query, filter, Timestamp::now(), 10))
    }

    /// The exact top 10, scanning every vector.
    pub fn exact(&self, query: &[f32], filter: &MemoryFilter) -> Vec<MemoryId> {
        ids(self
            .reader
            .nearest_exact(TEXT, query, filter, Timestamp::now(), 10))
    }

    /// The share of the exact top 10 that the store's own search returns, over `queries`
    /// fresh random queries.
    pub fn recall(&self, queries: u64) -> f64 {
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

/// Gives `memory` this vector in `store`, under the seeded model of its length.
pub fn put_vector(store: &dyn Store, memory: &Memory, vector: Vec<f32>) {
    let dimensions = vector.len();
    store
        .write(&mut |tx| {
            tx.set_embedding_model(TEXT, &seeded_identity(dimensions))?;
            let written = tx.put_embeddings(
                TEXT,
                &[MemoryVector::whole(
                    memory.id,
                    memory.updated_at,
                    vector.clone(),
                )],
            )?;
            assert_eq!(written, 1);
            Ok(())
        })
        .expect("put a vector");
}

pub fn the_index_is_built_once_large_enough_and_agrees_with_the_exact_scan(factory: AnnFactory) {
    let mut f = AnnFixture::new(factory());
    let min = f.min_vectors;
    f.add(min as usize - 1, &[]);
    assert!(
        f.update(f.reader.as_ref(), false).is_none(),
        "too small for an index"
    );

    f.add(1, &[]);
    let report = f.update(f.reader.as_ref(), false).expect("an index");
    assert_eq!(
        (report.indexed, report.added, report.rebuilt),
        (min, min, true),
        "built"
    );
    let other = f.api.backend();
    let report = f.update(other, false).expect("the index");
    assert_eq!(
        (report.indexed, report.added, report.rebuilt),
        (min, 0, false),
        "another handle finds it built"
    );

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
            "scored by cairn from the stored vector: {}",
            hits[0].raw
        );
    }
    let report = f.update(f.reader.as_ref(), true).expect("the index");
    assert_eq!(
        (report.indexed, report.rebuilt),
        (min, true),
        "rebuilt when asked"
    );
    assert!(f.recall(10) >= 0.95);
}

pub fn forgotten_purged_and_changed_memories_never_come_back_through_the_index(
    factory: AnnFactory,
) {
    let mut f = AnnFixture::new(factory());
    f.add(f.min_vectors as usize, &[]);
    f.update(f.reader.as_ref(), false).expect("an index");
    let (forgotten, forgotten_vector) = f.memories[3].clone();
    let (purged, purged_vector) = f.memories[4].clone();
    let (changed, old_vector) = f.memories[5].clone();

    f.api
        .forget(&local(), &forgotten.id.to_string(), false)
        .unwrap();
    f.api
        .forget(&local(), &purged.id.to_string(), true)
        .unwrap();
    let patch = MemoryPatch {
        content: Some("memory number five, rewritten".into()),
        ..MemoryPatch::default()
    };
    let changed = f
        .api
        .patch(&local(), &IdRef::Full(changed.id), patch)
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

pub fn a_selective_filter_gets_every_match_it_allows(factory: AnnFactory) {
    let mut f = AnnFixture::new(factory());
    f.add(f.min_vectors as usize * 2, &[]);
    let rare = f.add(4, &["rare"]);
    f.update(f.reader.as_ref(), true).expect("an index");

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
