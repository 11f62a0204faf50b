//! Vector storage: a memory's sentence vectors are written, replaced and dropped with its
//! vector, by every backend.

use jiff::Span;

use super::{Harness, StoreFactory, by_ref, local};
use crate::embedding::{MemoryVector, ModelIdentity, SentenceVectors, VectorSpace};
use crate::memory::{Memory, MemoryPatch};

const TEXT: VectorSpace = VectorSpace::Text;

pub fn sentence_vectors_live_and_die_with_their_memorys_vector(factory: StoreFactory) {
    let h = Harness::new(factory);
    let alpha = h.add("Alpha begins here. Alpha ends there.", &[]);
    let beta = h.add("Beta begins here. Beta ends there.", &[]);
    let store = h.api.backend();
    let model = ModelIdentity {
        name: "suite-model".into(),
        dimensions: 3,
        weights_sha256: "cd".repeat(32),
    };
    let put = |memory: &Memory, sentences: &SentenceVectors| {
        let row = MemoryVector {
            id: memory.id,
            updated_at: memory.updated_at,
            vector: vec![0.0, 0.0, 1.0],
            sentences: sentences.clone(),
        };
        let mut stored = 0;
        store
            .write(&mut |tx| {
                tx.set_embedding_model(TEXT, &model)?;
                stored = tx.put_embeddings(TEXT, std::slice::from_ref(&row))?;
                Ok(())
            })
            .unwrap();
        stored
    };
    let sentences_of = |memory: &Memory| {
        let mut found = store.sentence_vectors(TEXT, &[memory.id]).unwrap();
        assert!(found.len() <= 1);
        found.pop().map(|(id, sentences)| {
            assert_eq!(id, memory.id);
            sentences
        })
    };
    let two = SentenceVectors::encode(&[vec![1.0, 0.0, 0.0], vec![0.0, 0.6, 0.8]]);
    let one = SentenceVectors::encode(&[vec![0.0, 1.0, 0.0]]);

    assert_eq!(put(&alpha, &two), 1);
    assert_eq!(put(&beta, &one), 1);
    assert_eq!(sentences_of(&alpha), Some(two.clone()));
    assert_eq!(sentences_of(&beta), Some(one.clone()));
    // Stored again, they are replaced; stored without, they are gone.
    put(&alpha, &one);
    assert_eq!(sentences_of(&alpha), Some(one.clone()));
    put(&alpha, &SentenceVectors::default());
    assert_eq!(sentences_of(&alpha), None);
    put(&alpha, &two);

    // A new text drops the vector and its sentences; a put of the old text's vectors is refused.
    h.clock.advance(Span::new().seconds(1));
    let changed = h
        .api
        .patch(
            &local(),
            &by_ref(&alpha),
            MemoryPatch {
                content: Some("Alpha was rewritten. It says something else.".into()),
                ..Default::default()
            },
        )
        .unwrap()
        .memory;
    assert_eq!(sentences_of(&alpha), None);
    assert!(store.vectors(TEXT, &[alpha.id]).unwrap().is_empty());
    assert_eq!(put(&alpha, &two), 0, "stale: the memory changed since");
    assert_eq!(sentences_of(&alpha), None);
    assert_eq!(put(&changed, &two), 1);
    assert_eq!(sentences_of(&changed), Some(two.clone()));

    // Clearing the space drops every memory's sentences with its vector.
    store.write(&mut |tx| tx.clear_embeddings(TEXT)).unwrap();
    assert_eq!(sentences_of(&changed), None);
    assert_eq!(sentences_of(&beta), None);
    assert_eq!(store.embedding_counts(TEXT).unwrap().embedded, 0);
}
