//! Semantic search through the service over SQLite with the real all-MiniLM-L6-v2: meaning finds
//! what words miss, filters and visibility hold on the vector path, the embedding queue follows
//! every change, and vectors of two models never mix. The tests that need the installed model are
//! ignored unless asked for (`--include-ignored`; see `cairn_embed::testing`).

use std::sync::{Arc, OnceLock};

use cairn_core::api::ScanInput;
use cairn_core::embedding::{
    Embedder, ModelIdentity, SentenceVectors, VectorSpace, dot, embedding_text,
};
use cairn_core::memory::MemoryFilter;
use cairn_core::search::{SearchMode, SearchRequest, SignalKind};
use cairn_core::store::Store;
use cairn_core::testing::{Harness, local, project};
use cairn_core::{Error, IdRef, Memory, MemoryPatch, NewMemory, Source};
use cairn_embed::SentenceEmbedder;
use cairn_store_sqlite::SqliteStore;
use jiff::Span;

fn in_memory() -> Box<dyn Store> {
    Box::new(SqliteStore::open_in_memory().expect("in-memory store"))
}

/// The model, loaded once for all tests of this file.
fn model() -> Arc<SentenceEmbedder> {
    static MODEL: OnceLock<Arc<SentenceEmbedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| Arc::new(cairn_embed::testing::model_for_tests()))
        .clone()
}

fn harness() -> Harness {
    Harness::with_embedder(in_memory, model())
}

fn search(h: &Harness, query: &str, mode: SearchMode, filter: MemoryFilter) -> Vec<Memory> {
    let request = SearchRequest {
        mode: Some(mode),
        ..SearchRequest::new(query, filter, 10)
    };
    h.api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .hits
        .into_iter()
        .map(|hit| hit.memory)
        .collect()
}

fn ids(memories: &[Memory]) -> Vec<cairn_core::MemoryId> {
    memories.iter().map(|m| m.id).collect()
}

fn embed_all(h: &Harness) -> u64 {
    h.api.embed_pending(&mut |_| {}).unwrap().embedded
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_paraphrase_finds_a_memory_that_shares_no_word_with_it() {
    let h = harness();
    let cat = h.add("The cat sits on the mat", &[]);
    h.add("Quarterly revenue grew 5%", &[]);
    h.add("Deploys go through the blue-green pipeline", &[]);
    assert_eq!(embed_all(&h), 3);
    let query = "a kitten resting on a rug";
    assert!(
        search(&h, query, SearchMode::Lexical, MemoryFilter::default()).is_empty(),
        "no word in common"
    );
    let found = search(&h, query, SearchMode::Semantic, MemoryFilter::default());
    assert_eq!(found.first().map(|m| m.id), Some(cat.id), "{found:?}");
    let hybrid = search(&h, query, SearchMode::Hybrid, MemoryFilter::default());
    assert_eq!(hybrid.first().map(|m| m.id), Some(cat.id));
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn unrelated_memories_are_not_returned_by_meaning() {
    let h = harness();
    h.add("Quarterly revenue grew 5%", &[]);
    h.add("The staging database runs PostgreSQL 16", &[]);
    embed_all(&h);
    let found = search(
        &h,
        "kitten naps",
        SearchMode::Semantic,
        MemoryFilter::default(),
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn hybrid_fuses_keyword_and_meaning_and_explains_both() {
    let h = harness();
    let both = h.add("Postgres connection pool exhausted under load", &[]);
    h.add("The database ran out of connections at peak traffic", &[]);
    h.add("Lunch menu for Friday", &[]);
    embed_all(&h);
    let request = SearchRequest {
        mode: Some(SearchMode::Hybrid),
        ..SearchRequest::new("postgres connections exhausted", MemoryFilter::default(), 5)
    };
    let results = h
        .api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap();
    let first = &results.hits[0];
    assert_eq!(first.memory.id, both.id);
    let signals: Vec<SignalKind> = first.signals.iter().map(|s| s.signal).collect();
    assert!(signals.contains(&SignalKind::Lexical), "{signals:?}");
    assert!(signals.contains(&SignalKind::Semantic), "{signals:?}");
    let semantic = first
        .signals
        .iter()
        .find(|s| s.signal == SignalKind::Semantic)
        .unwrap();
    assert!(semantic.raw > 0.3 && semantic.raw <= 1.0, "{semantic:?}");
}

/// The stored sentence vectors of `memory`, if it has some.
fn sentences_of(h: &Harness, memory: &Memory) -> Option<SentenceVectors> {
    let mut found = h
        .api
        .backend()
        .sentence_vectors(VectorSpace::Text, &[memory.id])
        .unwrap();
    found.pop().map(|(_, sentences)| sentences)
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_memory_is_as_near_as_its_nearest_sentence_and_its_sentences_follow_its_text() {
    let h = harness();
    let model = model();
    let content = "Notes from the Tuesday sync. The office coffee machine is broken again. The \
                   quarterly report is due on Friday. My cat sleeps on the warm router all \
                   afternoon.";
    let notes = h.add(content, &[]);
    h.add("Deploys go through the blue-green pipeline", &[]);
    assert_eq!(embed_all(&h), 2);
    assert!(sentences_of(&h, &notes).is_some(), "the queue stores them");
    let query = "where does the kitten nap";
    let q = model.embed(&[query]).unwrap().remove(0);
    let passage = model
        .embed_passages(&[&embedding_text(None, content)])
        .unwrap()
        .remove(0);
    let best_sentence = passage
        .sentences
        .iter()
        .map(|s| dot(&q, s))
        .fold(f32::MIN, f32::max);
    let whole = dot(&q, &passage.vector);
    assert!(best_sentence > whole + 0.05, "{best_sentence} vs {whole}");
    let request = SearchRequest {
        mode: Some(SearchMode::Semantic),
        ..SearchRequest::new(query, MemoryFilter::default(), 5)
    };
    let results = h
        .api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap();
    assert_eq!(results.hits[0].memory.id, notes.id);
    let raw = results.hits[0].signals[0].raw;
    assert!(
        (raw - f64::from(best_sentence)).abs() < 2e-3,
        "scored {raw}: its best sentence is {best_sentence}, its whole text {whole}"
    );
    // Hybrid search fuses the whole memory's similarity (see `search::semantic`).
    let request = SearchRequest {
        mode: Some(SearchMode::Hybrid),
        ..request
    };
    let results = h
        .api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap();
    let fused = results
        .hits
        .iter()
        .find(|hit| hit.memory.id == notes.id)
        .and_then(|hit| {
            hit.signals
                .iter()
                .find(|s| s.signal == SignalKind::Semantic)
        })
        .expect("found by meaning in hybrid search");
    assert!(
        (fused.raw - f64::from(whole)).abs() < 1e-4,
        "{fused:?} vs {whole}"
    );

    // A person's write embeds itself with its sentences; a new text of one sentence drops them.
    let written = h.add(
        "Standup moved to 10:00. The cat now naps in the server room.",
        &[],
    );
    assert_eq!(h.api.embedding_status().unwrap().counts.pending, 0);
    assert!(
        sentences_of(&h, &written).is_some(),
        "the write stores them"
    );
    h.api
        .patch(
            &cairn_core::testing::local(),
            &IdRef::Full(notes.id),
            MemoryPatch {
                content: Some("The coffee machine is fixed".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(sentences_of(&h, &notes), None);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn forgotten_purged_and_expired_memories_never_come_back_by_meaning() {
    let h = harness();
    let forgotten = h.add("The cat sits on the mat", &[]);
    let purged = h.add("A cat sleeps on the carpet", &[]);
    let mut expiring = NewMemory::new("Kittens nap on rugs", project("acme"), Source::Cli);
    expiring.expires_at = Some(h.now() + Span::new().minutes(5));
    let expiring = h
        .api
        .write(&cairn_core::testing::local(), expiring, None)
        .unwrap()
        .memory;
    let kept = h.add("Cats like warm windowsills", &[]);
    embed_all(&h);
    h.api
        .forget(
            &cairn_core::testing::local(),
            &forgotten.id.to_string(),
            false,
        )
        .unwrap();
    h.api
        .forget(&cairn_core::testing::local(), &purged.id.to_string(), true)
        .unwrap();
    h.clock.advance(Span::new().minutes(10));
    let found = ids(&search(
        &h,
        "a kitten resting on a rug",
        SearchMode::Semantic,
        MemoryFilter::default(),
    ));
    assert_eq!(found, [kept.id], "only the visible memory");
    assert!(!found.contains(&expiring.id));
    assert_eq!(h.api.embedding_status().unwrap().counts.embedded, 3);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn filters_compose_with_semantic_search() {
    let h = harness();
    let ops = h.add("The cat sits on the mat", &["ops"]);
    h.add("A kitten rests on a rug", &["home"]);
    embed_all(&h);
    let filter = MemoryFilter {
        tags_all: vec![cairn_core::Tag::new("ops").unwrap()],
        ..Default::default()
    };
    let found = search(&h, "kitten on a rug", SearchMode::Semantic, filter);
    assert_eq!(ids(&found), [ops.id]);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn writes_leave_memories_pending_until_embedded_and_search_still_finds_them() {
    let h = harness();
    let memory = h.add("The cat sits on the mat", &[]);
    let status = h.api.embedding_status().unwrap();
    assert_eq!((status.counts.embedded, status.counts.pending), (0, 1));
    assert_eq!(
        ids(&search(
            &h,
            "cat mat",
            SearchMode::Hybrid,
            MemoryFilter::default()
        )),
        [memory.id],
        "a pending memory is found by its words"
    );
    assert_eq!(embed_all(&h), 1);
    // A new text makes it pending again; tags alone do not.
    h.api
        .patch(
            &cairn_core::testing::local(),
            &IdRef::Full(memory.id),
            MemoryPatch {
                tags: Some(vec!["pets".into()]),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(h.api.embedding_status().unwrap().counts.pending, 0);
    h.api
        .patch(
            &cairn_core::testing::local(),
            &IdRef::Full(memory.id),
            MemoryPatch {
                content: Some("Quarterly revenue grew 5%".into()),
                ..Default::default()
            },
        )
        .unwrap();
    // A person's or agent's write embeds its new text itself once the store's vectors are the
    // model's (conflict detection needs it); nothing is left pending.
    assert_eq!(h.api.embedding_status().unwrap().counts.pending, 0);
    assert_eq!(embed_all(&h), 0);
    // What a hook extracts waits for the queue: hooks never run the model.
    h.api
        .extract(
            &local(),
            "*Remember*: the office plants are watered on Mondays",
            project("acme"),
            None,
            None,
        )
        .unwrap();
    assert_eq!(h.api.embedding_status().unwrap().counts.pending, 1);
    assert_eq!(embed_all(&h), 1);
    let found = search(
        &h,
        "sales went up this quarter",
        SearchMode::Semantic,
        MemoryFilter::default(),
    );
    assert_eq!(ids(&found), [memory.id], "the new text is what is embedded");
}

/// The real model under another name: what the store sees after the user changes models.
struct Renamed(Arc<SentenceEmbedder>, ModelIdentity);

impl Embedder for Renamed {
    fn identity(&self) -> &ModelIdentity {
        &self.1
    }
    fn embed(&self, texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
        self.0.embed(texts)
    }
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn vectors_of_two_models_never_mix() {
    let model = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let open = |embedder: Arc<dyn Embedder>| {
        let parts = cairn_core::ApiParts {
            embedder: Some(embedder),
            ..cairn_core::ApiParts::new(Box::new(SqliteStore::open(&path).unwrap()))
        };
        cairn_core::api::Api::open(parts, &cairn_core::testing::embedding_config(16))
    };
    let first = open(model.clone());
    first
        .write(
            &cairn_core::testing::local(),
            NewMemory::new("The cat sits on the mat", project("acme"), Source::Cli),
            None,
        )
        .unwrap();
    first.embed_pending(&mut |_| {}).unwrap();
    drop(first);
    let mut other = model.identity().clone();
    other.weights_sha256 = "0".repeat(64);
    let second = open(Arc::new(Renamed(model.clone(), other.clone())));
    let request = SearchRequest {
        mode: Some(SearchMode::Hybrid),
        ..SearchRequest::new("kitten on a rug", MemoryFilter::default(), 5)
    };
    let results = second
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap();
    assert!(results.hits.is_empty(), "old vectors are not compared");
    assert!(
        results.notices.iter().any(|n| n.contains("reindex")),
        "{:?}",
        results.notices
    );
    let report = second.embed_pending(&mut |_| {}).unwrap();
    assert!(report.model_changed);
    assert_eq!(report.embedded, 1);
    assert_eq!(
        second.embedding_status().unwrap().model_in_store,
        Some(other)
    );
    assert_eq!(
        second
            .search_request(&cairn_core::testing::local(), &request)
            .unwrap()
            .hits
            .len(),
        1
    );
}

#[test]
fn meaning_without_a_model_is_refused_with_how_to_get_one() {
    let api = cairn_core::api::Api::open(
        cairn_core::ApiParts::new(in_memory()),
        &cairn_core::config::Config::default(),
    );
    let request = SearchRequest {
        mode: Some(SearchMode::Semantic),
        ..SearchRequest::new("anything", MemoryFilter::default(), 5)
    };
    let err = api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap_err();
    assert!(matches!(err, Error::Unavailable { .. }), "{err}");
    assert!(
        err.to_string().contains("no embedding model is installed"),
        "{err}"
    );
    let lexical = api
        .search_request(
            &cairn_core::testing::local(),
            &SearchRequest::new("anything", MemoryFilter::default(), 5),
        )
        .unwrap();
    assert_eq!(
        lexical.mode,
        Some(SearchMode::Lexical),
        "lexical without a model"
    );
}

/// The real model, counting the texts it is asked to embed.
struct Counting(Arc<SentenceEmbedder>, std::sync::atomic::AtomicUsize);

impl Embedder for Counting {
    fn identity(&self) -> &ModelIdentity {
        self.0.identity()
    }
    fn embed(&self, texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
        self.1
            .fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
        self.0.embed(texts)
    }
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn each_memory_is_embedded_once_and_an_empty_queue_embeds_nothing() {
    let model = model();
    let counting = Arc::new(Counting(model, Default::default()));
    let h = Harness::with_embedder(in_memory, counting.clone());
    let embedded = || counting.1.load(std::sync::atomic::Ordering::SeqCst);
    for text in ["The cat sits on the mat", "Quarterly revenue grew 5%"] {
        h.add(text, &[]);
    }
    assert_eq!(embed_all(&h), 2);
    assert_eq!(embedded(), 2);
    let report = h.api.embed_pending(&mut |_| {}).unwrap();
    assert_eq!((report.embedded, report.model_changed), (0, false));
    assert_eq!(embedded(), 2, "nothing pending, nothing embedded");
    h.add("Deploys go through the blue-green pipeline", &[]);
    assert_eq!(embed_all(&h), 0, "the write embedded itself");
    assert_eq!(embedded(), 3, "only the new memory, once");
}

/// A model that breaks while embedding: the search fails with a model error naming it, instead
/// of taking the process down, and the store is untouched. Needs no real model.
struct Broken(ModelIdentity);

impl Embedder for Broken {
    fn identity(&self) -> &ModelIdentity {
        &self.0
    }
    fn embed(&self, _texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
        panic!("the model broke")
    }
}

#[test]
fn a_model_that_panics_on_the_query_fails_the_search_with_a_model_error() {
    let broken = Arc::new(Broken(ModelIdentity {
        name: "broken".into(),
        dimensions: 4,
        weights_sha256: "0".repeat(64),
    }));
    let h = Harness::with_embedder(in_memory, broken);
    h.api
        .write(
            &cairn_core::testing::local(),
            NewMemory::new("The cat sits on the mat", project("acme"), Source::Cli),
            None,
        )
        .unwrap();
    let request = SearchRequest {
        mode: Some(SearchMode::Hybrid),
        ..SearchRequest::new("cat", MemoryFilter::default(), 5)
    };
    let error = h
        .api
        .search_request(&cairn_core::testing::local(), &request)
        .unwrap_err();
    assert!(matches!(error, Error::Model { .. }), "{error}");
    // Lexical search is unaffected.
    let lexical = SearchRequest {
        mode: Some(SearchMode::Lexical),
        ..request
    };
    assert_eq!(
        h.api
            .search_request(&cairn_core::testing::local(), &lexical)
            .unwrap()
            .hits
            .len(),
        1
    );
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_write_finds_a_contradiction_by_meaning_alone_and_stores_its_own_vector() {
    use cairn_core::relation::candidates::significant_words;
    use cairn_core::relation::disagreement::stem;
    let h = harness();
    // Vectors are the installed model's once anything was embedded.
    embed_all(&h);
    let old = h.add("The cache layer is Memcached", &[]);
    h.add("Quarterly revenue grew 5%", &[]);
    h.add("The office plants are watered on Mondays", &[]);
    let text = "We switched the in-memory tier to Redis";
    let stems = |text: &str| -> Vec<String> {
        significant_words(None, text)
            .iter()
            .map(|w| stem(w))
            .collect()
    };
    let theirs = stems(&old.content);
    assert!(
        stems(text).iter().all(|w| !theirs.contains(w)),
        "the pair must share no word, however inflected, for this test to mean anything"
    );
    let new = h
        .api
        .write(
            &cairn_core::testing::local(),
            NewMemory::new(text, project("acme"), Source::Cli),
            None,
        )
        .unwrap();
    let found: Vec<_> = new.candidates.iter().map(|c| c.id).collect();
    assert_eq!(found, vec![old.id], "{:?}", new.candidates);
    // The write embedded itself: nothing is left for the queue.
    assert_eq!(embed_all(&h), 0);

    // Without the model, the same write finds nothing: no word is shared.
    let words = Harness::new(in_memory);
    words.add("The cache layer is Memcached", &[]);
    let blind = words
        .api
        .write(
            &cairn_core::testing::local(),
            NewMemory::new(text, project("acme"), Source::Cli),
            None,
        )
        .unwrap();
    assert!(blind.candidates.is_empty(), "{:?}", blind.candidates);
}

/// A malformed operator query is still searched for its words' meaning where meaning is asked
/// for (hybrid says the words themselves were not searched); lexical refuses it, naming the query.
#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_malformed_operator_query_still_finds_by_meaning() {
    let h = harness();
    let cat = h.add("The cat sits on the mat", &[]);
    h.add("Quarterly revenue grew 5%", &[]);
    assert_eq!(embed_all(&h), 2);
    let malformed = "(kitten AND rug";
    let request = |mode| SearchRequest {
        mode: Some(mode),
        ..SearchRequest::new(malformed, MemoryFilter::default(), 10)
    };
    let hybrid = h
        .api
        .search_request(&cairn_core::testing::local(), &request(SearchMode::Hybrid))
        .unwrap();
    assert_eq!(hybrid.hits.first().map(|hit| hit.memory.id), Some(cat.id));
    assert!(
        hybrid.hits[0]
            .signals
            .iter()
            .all(|s| s.signal == SignalKind::Semantic),
        "{:?}",
        hybrid.hits[0].signals
    );
    assert_eq!(hybrid.notices.len(), 1, "{:?}", hybrid.notices);
    assert!(
        hybrid.notices[0].contains("never closed")
            && hybrid.notices[0].contains("only meaning was searched"),
        "{}",
        hybrid.notices[0]
    );
    let semantic = h
        .api
        .search_request(
            &cairn_core::testing::local(),
            &request(SearchMode::Semantic),
        )
        .unwrap();
    assert_eq!(semantic.hits.first().map(|hit| hit.memory.id), Some(cat.id));
    let lexical = h
        .api
        .search_request(&cairn_core::testing::local(), &request(SearchMode::Lexical))
        .unwrap_err();
    assert_eq!(lexical.field(), Some("query"), "{lexical}");
}

/// `conflicts scan --semantic`: memories still waiting for their vectors are embedded first,
/// so a pair that shares no word is found; the same scan without it finds nothing (it compares
/// the vectors already stored, and these have none yet).
#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_semantic_scan_embeds_what_waits_and_finds_a_pair_worded_otherwise() {
    // Nothing embedded yet, so the writes wait for their vectors (as after `cairn import`).
    let h = harness();
    let old = h.add("The cache layer is Memcached", &[]);
    h.add("Quarterly revenue grew 5%", &[]);
    h.clock.advance(Span::new().seconds(1));
    let new = h.add("We switched the in-memory tier to Redis", &[]);
    let scan = |semantic| {
        h.api
            .scan_conflicts(
                &cairn_core::testing::local(),
                ScanInput {
                    project: Some("acme".into()),
                    semantic,
                    ..ScanInput::default()
                },
                &mut |_, _| {},
            )
            .unwrap()
    };
    let by_words = scan(false);
    assert!(by_words.pairs.is_empty(), "{:?}", by_words.pairs);
    let by_meaning = scan(true);
    let pairs: Vec<_> = by_meaning
        .pairs
        .iter()
        .map(|p| (p.source, p.target))
        .collect();
    assert_eq!(pairs, vec![(new.id, old.id)], "{:?}", by_meaning.pairs);
    assert_eq!(embed_all(&h), 0, "the scan embedded what waited");
}

/// Without a model a semantic scan is refused, saying how to get one.
#[test]
fn a_semantic_scan_without_a_model_is_refused_with_how_to_get_one() {
    let h = Harness::new(in_memory);
    h.add("The cache layer is Memcached", &[]);
    let error = h
        .api
        .scan_conflicts(
            &cairn_core::testing::local(),
            ScanInput {
                project: Some("acme".into()),
                semantic: true,
                apply: true,
                ..ScanInput::default()
            },
            &mut |_, _| {},
        )
        .unwrap_err();
    let Error::Unavailable { what, hint } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (what.as_str(), hint.as_str()),
        ("a semantic scan", cairn_core::embedding::HOW_TO_ENABLE)
    );
}
