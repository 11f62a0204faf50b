//! Search behaviours: the query language, coordination levels, fuzzy search, the ranking window.

use super::local;
use super::*;

/// Stores the texts; a memory's number is its position.
fn corpus(h: &Harness, texts: &[&str]) -> Vec<Memory> {
    texts.iter().map(|text| h.add(text, &[])).collect()
}

fn numbers(h: &Harness, memories: &[Memory], query: &str, strict: bool) -> Vec<usize> {
    let request = SearchRequest {
        strict,
        fuzzy: FuzzyMode::Never,
        ..SearchRequest::new(query, MemoryFilter::default(), 50)
    };
    let results = h
        .api
        .search_request(&local(), &request)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    found(memories, &results)
}

pub fn query_operators_phrases_and_prefixes_match_exactly(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = corpus(
        &h,
        &[
            "docker compose networking",      // 0
            "docker swarm is deprecated",     // 1
            "compose the release notes",      // 2
            "kubernetes networking policies", // 3
            "deployment scripts for staging", // 4
            "networking docker bridge issue", // 5
        ],
    );
    let q = |query: &str| numbers(&h, &m, query, false);
    assert_eq!(q("docker AND compose"), [0]);
    assert_eq!(q("docker OR kubernetes"), [0, 1, 3, 5]);
    assert_eq!(q("docker NOT compose"), [1, 5]);
    assert_eq!(q("networking AND NOT docker"), [3]);
    assert_eq!(q("\"docker compose\""), [0]);
    assert_eq!(
        q("\"compose docker\""),
        Vec::<usize>::new(),
        "a phrase keeps its order"
    );
    assert_eq!(q("deploy*"), [4], "a prefix matches longer words");
    assert_eq!(q("kube*"), [3]);
    assert_eq!(q("dock* AND bridge"), [5]);
    // Precedence: AND binds tighter than OR; parentheses override.
    assert_eq!(q("kubernetes OR docker AND compose"), [0, 3]);
    assert_eq!(q("(kubernetes OR docker) AND networking"), [0, 3, 5]);
    assert_eq!(q("(docker OR compose) NOT (swarm OR release)"), [0, 5]);
    let err = h.api.search_request(
        &local(),
        &SearchRequest {
            fuzzy: FuzzyMode::Never,
            ..SearchRequest::new("docker AND", MemoryFilter::default(), 5)
        },
    );
    assert_eq!(err.unwrap_err().field(), Some("query"));
}

pub fn implicit_queries_rank_memories_by_how_many_words_they_hold(factory: StoreFactory) {
    let h = Harness::new(factory);
    // The memories holding fewer words repeat a query word in a short text, so by BM25 alone they
    // would outrank the long memories holding more of the words.
    let m = corpus(
        &h,
        &[
            "redis redis redis cache cache tuning notes", // 0: redis
            "eviction eviction eviction eviction policy", // 1: eviction
            "the redis eviction setting lives in a long configuration file with many other settings", // 2: redis eviction
            "timeout timeout timeout", // 3: timeout
            "a long page on redis timeout handling among many other unrelated operational topics and notes", // 4: redis timeout
            "redis eviction and the timeout: one long note that covers all of them among other matters", // 5: all three
        ],
    );
    let order = |query: &str| {
        let hits = h
            .api
            .search_request(
                &local(),
                &SearchRequest {
                    fuzzy: FuzzyMode::Never,
                    ..SearchRequest::new(query, MemoryFilter::default(), 10)
                },
            )
            .unwrap()
            .hits;
        hits.iter()
            .map(|hit| m.iter().position(|x| x.id == hit.memory.id).unwrap())
            .collect::<Vec<usize>>()
    };
    let two = order("what is the redis eviction?");
    assert_eq!(two.len(), 5, "partial matches still come back: {two:?}");
    let mut both = two[..2].to_vec();
    both.sort();
    assert_eq!(both, [2, 5], "memories holding every word first: {two:?}");
    let three = order("redis eviction timeout");
    assert_eq!(three.len(), 6, "{three:?}");
    assert_eq!(three[0], 5, "the memory holding all three first: {three:?}");
    let mut pairs = three[1..3].to_vec();
    pairs.sort();
    assert_eq!(pairs, [2, 4], "then those holding two of three: {three:?}");
}

pub fn strict_implicit_queries_return_only_memories_holding_every_word(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = corpus(
        &h,
        &["redis eviction policy", "redis cache", "eviction notice"],
    );
    assert_eq!(numbers(&h, &m, "redis eviction", true), [0]);
    assert_eq!(numbers(&h, &m, "redis eviction", false), [0, 1, 2]);
}

fn fuzzy_search(
    h: &Harness,
    query: &str,
    fuzzy: FuzzyMode,
    threshold: Option<f64>,
    filter: MemoryFilter,
) -> crate::search::SearchResults {
    let request = SearchRequest {
        fuzzy,
        threshold,
        ..SearchRequest::new(query, filter, 20)
    };
    h.api
        .search_request(&local(), &request)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn fuzzy_corpus(h: &Harness) -> Vec<Memory> {
    corpus(
        h,
        &[
            "docker compose restarts the api container", // 0
            "kubernetes ingress needs a tls secret",     // 1
            "postgres vacuum runs nightly",              // 2
            "the build cache lives in target",           // 3
        ],
    )
}

/// The positions in `memories` of the memories found, in order of position.
fn found(memories: &[Memory], results: &crate::search::SearchResults) -> Vec<usize> {
    let mut out: Vec<usize> = results
        .hits
        .iter()
        .map(|hit| {
            memories
                .iter()
                .position(|m| m.id == hit.memory.id)
                .expect("stored")
        })
        .collect();
    out.sort();
    out
}

pub fn fuzzy_search_finds_misspelled_words_and_nothing_unrelated(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = fuzzy_corpus(&h);
    for (typo, expected, word) in [
        ("dokcer", 0, "docker"),
        ("kuberntes", 1, "kubernetes"),
        ("postgrse", 2, "postgres"),
    ] {
        let results = fuzzy_search(&h, typo, FuzzyMode::Auto, None, MemoryFilter::default());
        assert_eq!(found(&m, &results), [expected], "{typo}");
        assert!(
            results.matched_words.contains(&word.to_string()),
            "{typo}: {:?}",
            results.matched_words
        );
        assert_eq!(
            results.hits[0].signals[0].signal,
            crate::search::SignalKind::Fuzzy
        );
    }
    assert!(
        fuzzy_search(
            &h,
            "zebra",
            FuzzyMode::Always,
            None,
            MemoryFilter::default()
        )
        .hits
        .is_empty()
    );
    assert!(
        fuzzy_search(
            &h,
            "dokcer",
            FuzzyMode::Never,
            None,
            MemoryFilter::default()
        )
        .hits
        .is_empty()
    );
}

pub fn fuzzy_threshold_is_respected(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = fuzzy_corpus(&h);
    // "dokcer" is 0.83 alike to "docker".
    assert_eq!(
        found(
            &m,
            &fuzzy_search(
                &h,
                "dokcer",
                FuzzyMode::Always,
                Some(0.8),
                MemoryFilter::default()
            )
        ),
        [0]
    );
    assert!(
        fuzzy_search(
            &h,
            "dokcer",
            FuzzyMode::Always,
            Some(0.9),
            MemoryFilter::default()
        )
        .hits
        .is_empty()
    );
    let bad = h.api.search_request(
        &local(),
        &SearchRequest {
            threshold: Some(1.5),
            ..SearchRequest::new("x", MemoryFilter::default(), 5)
        },
    );
    assert_eq!(bad.unwrap_err().field(), Some("threshold"));
}

pub fn fuzzy_never_returns_expired_or_forgotten_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = fuzzy_corpus(&h);
    let fleeting = store_expiring(&h, "docker swarm was tried once", 1);
    h.api.forget(&local(), &m[0].id.to_string(), false).unwrap();
    h.clock.advance(Span::new().minutes(5));
    let results = fuzzy_search(
        &h,
        "dokcer",
        FuzzyMode::Always,
        None,
        MemoryFilter::default(),
    );
    assert!(
        results.hits.is_empty(),
        "{:?}",
        results
            .hits
            .iter()
            .map(|h| &h.memory.content)
            .collect::<Vec<_>>()
    );
    let everything = MemoryFilter {
        visibility: Visibility {
            expired: true,
            forgotten: true,
        },
        ..Default::default()
    };
    let all = fuzzy_search(&h, "dokcer", FuzzyMode::Always, None, everything);
    let ids: Vec<_> = all.hits.iter().map(|hit| hit.memory.id).collect();
    assert!(ids.contains(&m[0].id) && ids.contains(&fleeting.id));
}

pub fn fuzzy_runs_by_itself_only_for_words_no_memory_holds(factory: StoreFactory) {
    let h = Harness::new(factory);
    for i in 0..6 {
        h.add(&format!("docker note {i}"), &[]);
    }
    h.add("dockers are a kind of trousers", &[]);
    h.add("the package manager is pnpm", &[]);
    h.add("the page size is 4096", &[]);
    h.add("the linter runs in ci", &[]);
    let only = |results: &crate::search::SearchResults, kind| {
        results
            .hits
            .iter()
            .all(|hit| hit.signals.iter().all(|s| s.signal == kind))
    };
    let plenty = fuzzy_search(&h, "docker", FuzzyMode::Auto, None, MemoryFilter::default());
    assert!(only(&plenty, crate::search::SignalKind::Lexical));
    // A word the store holds is no typo, however few memories hold it: `package` finds the one
    // memory that says it, not `page` (0.73 alike, above the threshold, three edits away).
    let few = fuzzy_search(
        &h,
        "package",
        FuzzyMode::Auto,
        None,
        MemoryFilter::default(),
    );
    assert_eq!(few.hits.len(), 1, "{:?}", few.matched_words);
    assert!(only(&few, crate::search::SignalKind::Lexical));
    // A word found nowhere is a typo even when the others find plenty.
    let typo = fuzzy_search(
        &h,
        "docker trousres",
        FuzzyMode::Auto,
        None,
        MemoryFilter::default(),
    );
    assert!(
        typo.matched_words.contains(&"trousers".to_string()),
        "{:?}",
        typo.matched_words
    );
    assert!(
        typo.hits
            .iter()
            .any(|hit| hit.memory.content.contains("trousers"))
    );
    // Unasked, a near-spelling must be a typo's distance away: `lints` is two edits from
    // `linter` (0.73 alike), too many for five letters. Asked for, the threshold alone decides.
    let unasked = fuzzy_search(&h, "lints", FuzzyMode::Auto, None, MemoryFilter::default());
    assert!(unasked.hits.is_empty(), "{:?}", unasked.matched_words);
    let asked = fuzzy_search(
        &h,
        "lints",
        FuzzyMode::Always,
        None,
        MemoryFilter::default(),
    );
    assert!(
        asked.matched_words.contains(&"linter".to_string()),
        "{:?}",
        asked.matched_words
    );
    let forced = fuzzy_search(
        &h,
        "docker",
        FuzzyMode::Always,
        None,
        MemoryFilter::default(),
    );
    assert!(forced.hits.iter().any(|hit| {
        hit.signals
            .iter()
            .any(|s| s.signal == crate::search::SignalKind::Fuzzy)
    }));
}

pub fn a_memory_found_only_by_a_near_spelling_ranks_below_every_exact_match(factory: StoreFactory) {
    let h = Harness::new(factory);
    // Exact matches, the second weak (its normalised lexical score is the ranking's lowest),
    // and a memory holding only a near-spelling of the word.
    h.add("kubernetes kubernetes kubernetes: the cluster", &[]);
    h.add(
        "kubernetes appears once in this much longer note about many other unrelated things",
        &[],
    );
    h.add("kubernates", &[]);
    let results = fuzzy_search(
        &h,
        "kubernetes",
        FuzzyMode::Always,
        None,
        MemoryFilter::default(),
    );
    let kinds: Vec<bool> = results
        .hits
        .iter()
        .map(|hit| hit.near_spelling_only())
        .collect();
    assert_eq!(kinds, [false, false, true], "{:?}", results.hits);
}

pub fn filters_compose_with_fuzzy_search(factory: StoreFactory) {
    let h = Harness::new(factory);
    let ops = h.add("docker daemon crashed", &["ops"]);
    h.add("docker desktop licence", &["legal"]);
    let filter = MemoryFilter {
        tags_all: tags(&["ops"]),
        ..Default::default()
    };
    let request = SearchRequest {
        mode: Some(crate::search::SearchMode::Fuzzy),
        ..SearchRequest::new("dokcer", filter, 20)
    };
    let results = h.api.search_request(&local(), &request).unwrap();
    assert_eq!(
        results
            .hits
            .iter()
            .map(|hit| hit.memory.id)
            .collect::<Vec<_>>(),
        [ops.id]
    );
}

pub fn lexical_ranking_over_a_window_considers_only_the_newest_matches(factory: StoreFactory) {
    let store = factory();
    let now = start_time().timestamp();
    let mut written = Vec::new();
    for i in 0..10 {
        // The oldest memories repeat the word most, so BM25 alone would rank them first.
        let content = format!("{} filler text {i}", "alpha ".repeat(10 - i));
        let memory = Memory::plain(content, Scope::Global, Source::Cli, now);
        store.write(&mut |tx| tx.insert(&memory)).unwrap();
        written.push(memory.id);
    }
    let expression = crate::query::Match::Term("alpha".into());
    let ranked = |window| {
        let hits = store
            .lexical(&expression, &MemoryFilter::default(), now, 10, window)
            .unwrap();
        let mut ids: Vec<_> = hits.into_iter().map(|h| h.id).collect();
        ids.sort();
        ids
    };
    let mut newest: Vec<_> = written[7..].to_vec();
    newest.sort();
    assert_eq!(ranked(3), newest);
    let mut all = written.clone();
    all.sort();
    assert_eq!(ranked(100), all);
    assert_eq!(
        store.match_count(&expression, 3).unwrap(),
        3,
        "counting stops at the cap"
    );
    assert_eq!(store.match_count(&expression, 100).unwrap(), 10);
}

/// In a store of thousands, where a backend may estimate how many memories hold a common word
/// rather than count them all (PostgreSQL counts up to a thousand), a rarer word still weighs
/// more: of two equally short memories holding one query word each, the one holding the rarer
/// word ranks above the other, though the other is newer.
pub fn a_rarer_word_outweighs_a_common_one_in_a_large_store(factory: StoreFactory) {
    use crate::query::Match::{Any, Prefix, Term};
    let store = factory();
    let now = start_time().timestamp();
    let filler = |word: &str, i: usize| {
        Memory::plain(
            format!("{word} filler text number {i}"),
            Scope::Global,
            Source::Cli,
            now,
        )
    };
    let common: Vec<Memory> = (0..2_400).map(|i| filler("alpha", i)).collect();
    let rarer: Vec<Memory> = (0..1_200).map(|i| filler("beta", i)).collect();
    store
        .write(&mut |tx| common.iter().chain(&rarer).try_for_each(|m| tx.insert(m)))
        .unwrap();
    let short = |content: &str| {
        let memory = Memory::plain(content, Scope::Global, Source::Cli, now);
        store.write(&mut |tx| tx.insert(&memory)).unwrap();
        memory.id
    };
    let holds_rarer = short("beta note");
    let holds_common = short("alpha note");
    // The common word as itself and as a prefix (a backend may estimate the two differently).
    for common in [Term("alpha".into()), Prefix(vec!["alph".into()])] {
        let expression = Any(vec![common.clone(), Term("beta".into())]);
        let ranked: Vec<_> = store
            .lexical(
                &expression,
                &MemoryFilter::default(),
                now,
                4_000,
                usize::MAX,
            )
            .unwrap()
            .into_iter()
            .map(|hit| hit.id)
            .collect();
        let place = |id| ranked.iter().position(|r| *r == id);
        assert_eq!(ranked.len(), 3_602);
        assert!(
            place(holds_rarer) < place(holds_common),
            "'beta' (in a third of the store) must outweigh {common:?} (in two thirds): \
             'beta note' ranked {:?}, 'alpha note' {:?}",
            place(holds_rarer),
            place(holds_common)
        );
    }
}

pub fn a_search_from_a_project_ranks_its_memories_first_among_comparable_hits(
    factory: StoreFactory,
) {
    let h = Harness::new(factory);
    let in_scope = |content: &str, scope: Scope| {
        h.api
            .write(&local(), NewMemory::new(content, scope, Source::Cli), None)
            .expect("store")
            .memory
            .id
    };
    let text = "releases go through the staging pipeline first";
    let acme = in_scope(text, project("acme"));
    let zeta = in_scope(text, project("zeta"));
    let global = in_scope(text, Scope::Global);
    // Clearly the better answer to "kubernetes upgrade", in another project.
    let clear = in_scope("kubernetes upgrade: drain each node first", project("zeta"));
    let weak = in_scope(
        "a long note about the office move, the new coffee machine, the parking rules, and \
         that someone mentioned kubernetes once",
        project("acme"),
    );
    let ranked = |query: &str, scope: ScopeFilter, from: Option<&str>| -> Vec<crate::MemoryId> {
        let request = SearchRequest {
            fuzzy: FuzzyMode::Never,
            mode: Some(crate::search::SearchMode::Lexical),
            from_project: from.map(|name| ProjectName::new(name).unwrap()),
            ..SearchRequest::new(query, MemoryFilter::in_scope(scope), 10)
        };
        let results = h.api.search_request(&local(), &request).expect("search");
        results.hits.iter().map(|hit| hit.memory.id).collect()
    };
    // Over every project, the one searched from comes first, whichever it is; the global
    // memory and the other project's follow.
    let from_acme = ranked("staging pipeline", ScopeFilter::All, Some("acme"));
    assert_eq!(from_acme[0], acme, "{from_acme:?}");
    let from_zeta = ranked("staging pipeline", ScopeFilter::All, Some("zeta"));
    assert_eq!(from_zeta[0], zeta, "{from_zeta:?}");
    // The default scope of a read made in a project: that project, then the global memory.
    let in_acme = ranked(
        "staging pipeline",
        ScopeFilter::ProjectAndGlobal(ProjectName::new("acme").unwrap()),
        None,
    );
    assert_eq!(in_acme, [acme, global]);
    // A memory of another project that clearly answers better still comes first.
    let clearly = ranked("kubernetes upgrade", ScopeFilter::All, Some("acme"));
    assert_eq!(clearly, [clear, weak]);
}

pub fn a_keyword_hit_records_the_share_of_a_plain_query_it_holds(factory: StoreFactory) {
    let h = Harness::new(factory);
    h.add("deployments go through the staging pipeline", &[]);
    h.add("the staging database is PostgreSQL", &[]);
    let held = |query: &str| -> Vec<Option<f64>> {
        // Near-spellings on every word make a second signal, so lexical's vote is fused.
        let request = SearchRequest {
            fuzzy: FuzzyMode::Always,
            mode: Some(crate::search::SearchMode::Lexical),
            ..SearchRequest::new(query, MemoryFilter::default(), 10)
        };
        let results = h.api.search_request(&local(), &request).expect("search");
        let mut shares: Vec<Option<f64>> = results
            .hits
            .iter()
            .flat_map(|hit| &hit.signals)
            .filter(|signal| signal.signal == crate::search::SignalKind::Lexical)
            .map(|signal| signal.held)
            .collect();
        shares.sort_by(|a, b| b.partial_cmp(a).unwrap());
        shares
    };
    // "deploy" meets "deployments" as the index's stemming does; the second memory holds one
    // word of three.
    assert_eq!(
        held("deploy staging pipeline"),
        [Some(1.0), Some(1.0 / 3.0)]
    );
    // A strict query's hits hold what it asks for: their votes are not weighed.
    assert_eq!(held("staging AND (pipeline OR database)"), [None, None]);
}
