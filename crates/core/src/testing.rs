//! The behavioural suite every storage backend must pass.
//!
//! Each function here drives a [`MemoryService`] over a fresh store from the backend's factory
//! and pins one behaviour end to end: write outcomes, visibility, filters, history, search,
//! export/import. A backend's test binary instantiates all of them with
//! [`store_behaviour_suite!`](crate::store_behaviour_suite), so a backend cannot pass with a
//! subset. Time is a manual clock, so expiry is tested without sleeping.

use std::io::Cursor;

use jiff::{Span, Timestamp, Zoned};

use crate::Error;
use crate::clock::{Clock, ManualClock};
use crate::config::Limits;
use crate::exchange::MemoryRecord;
use crate::id::IdRef;
use crate::memory::{Category, Memory, Source, WriteStatus};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::search::{FuzzyMode, SearchRequest};
use crate::service::{MemoryPatch, MemoryService, NewMemory};
use crate::store::{ListQuery, MemoryFilter, SortKey, SortOrder, Store};
use crate::tag::Tag;

mod sessions;
mod slots;
pub use sessions::*;
pub use slots::*;

/// Makes a fresh, empty store.
pub type StoreFactory = fn() -> Box<dyn Store>;

/// Instantiates every behaviour of the suite as a `#[test]` for a backend.
#[macro_export]
macro_rules! store_behaviour_suite {
    ($factory:expr) => {
        $crate::store_behaviour_suite!(@tests $factory;
            store_get_list_search_round_trip,
            duplicate_content_in_a_scope_returns_the_existing_memory_and_writes_nothing,
            topic_key_revises_in_place_and_keeps_the_previous_revision,
            update_keeps_history_and_an_unchanged_update_writes_nothing,
            expired_memories_are_invisible_to_every_read,
            prune_dry_run_deletes_nothing_and_prune_deletes_exactly_the_expired,
            forget_hides_and_purge_removes_for_good,
            tag_filters_match_all_or_any,
            date_filters_bound_creation_time,
            scope_filters_separate_projects_and_include_global,
            filters_compose_with_search,
            search_ranks_memories_holding_more_terms_first_and_pages,
            the_index_follows_updates_and_purges,
            short_handles_resolve_and_ambiguity_is_an_error,
            invalid_writes_name_the_field_and_write_nothing,
            secrets_are_redacted_on_store_update_and_import,
            export_then_import_is_lossless_and_reimport_is_a_no_op,
            import_of_a_newer_record_updates_and_merges_history,
            a_bad_import_line_rolls_back_the_whole_import,
            tags_and_stats_count_visible_memories,
            query_operators_phrases_and_prefixes_match_exactly,
            implicit_queries_rank_memories_by_how_many_words_they_hold,
            strict_implicit_queries_return_only_memories_holding_every_word,
            fuzzy_search_finds_misspelled_words_and_nothing_unrelated,
            fuzzy_threshold_is_respected,
            fuzzy_never_returns_expired_or_forgotten_memories,
            fuzzy_runs_by_itself_only_when_exact_search_finds_little,
            filters_compose_with_fuzzy_search,
            lexical_ranking_over_a_window_considers_only_the_newest_matches,
            events_record_a_session_its_observations_and_a_summary,
            a_replayed_event_is_recorded_once,
            observations_are_redacted_truncated_searchable_and_expire,
            remember_lines_become_memories_when_a_turn_stops,
            an_agent_summary_is_kept_over_a_derived_one,
            context_fits_its_budget_and_prefers_relevant_memories,
            project_listings_page_through_both_scopes_in_order,
            default_slots_are_seeded_by_scope_and_seeding_never_overwrites,
            slot_operations_round_trip_and_refuse_bad_labels_and_duplicates,
            slot_limits_refuse_oversize_writes_and_write_nothing,
            read_only_slots_refuse_changes_until_unlocked,
            project_slots_are_separate_and_shadow_global_ones,
            parallel_appends_to_one_slot_lose_nothing,
            reflection_at_session_end_fills_pending_items_patterns_and_context,
            reflection_can_be_turned_off_and_skips_deleted_or_read_only_slots,
            pinned_slots_lead_the_context_within_its_budget,
        );
    };
    (@tests $factory:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::testing::$name($factory);
            }
        )*
    };
}

/// A service over a fresh store with a clock the test moves.
pub struct Harness {
    pub service: MemoryService,
    pub clock: ManualClock,
}

/// The fixed start of every test's clock.
pub fn start_time() -> Zoned {
    "2026-03-11T14:05:00+00:00[UTC]"
        .parse()
        .expect("valid time")
}

impl Harness {
    pub fn new(factory: StoreFactory) -> Self {
        Self::with_limits(factory, Limits::default())
    }

    pub fn with_limits(factory: StoreFactory, limits: Limits) -> Self {
        let (clock, handle) = Clock::manual(start_time());
        Harness {
            service: MemoryService::with_clock(factory(), limits, clock),
            clock: handle,
        }
    }

    /// A harness whose service embeds with `embedder` (semantic search, the embedding queue).
    pub fn with_embedder(
        factory: StoreFactory,
        embedder: std::sync::Arc<dyn crate::embedding::Embedder>,
    ) -> Self {
        let (clock, handle) = Clock::manual(start_time());
        Harness {
            service: MemoryService::with_clock(factory(), Limits::default(), clock)
                .with_embedder(embedder, 16),
            clock: handle,
        }
    }

    pub fn now(&self) -> Timestamp {
        self.service.now().timestamp()
    }

    /// Stores `content` in the `acme` project with the given tags; returns the memory.
    pub fn add(&self, content: &str, tags: &[&str]) -> Memory {
        let mut new = NewMemory::new(content, project("acme"), Source::Cli);
        new.tags = tags.iter().map(|t| t.to_string()).collect();
        let outcome = self.service.store(new).expect("store");
        assert_eq!(outcome.status, WriteStatus::Created, "{content}");
        outcome.memory
    }

    pub fn count_all(&self) -> u64 {
        let filter = MemoryFilter {
            include_expired: true,
            include_forgotten: true,
            ..Default::default()
        };
        self.service.count(&filter).expect("count")
    }

    pub fn search(&self, query: &str, filter: MemoryFilter) -> Vec<Memory> {
        let request = SearchRequest {
            fuzzy: FuzzyMode::Never,
            ..SearchRequest::new(query, filter, 50)
        };
        self.service
            .search(&request)
            .expect("search")
            .hits
            .into_iter()
            .map(|hit| hit.memory)
            .collect()
    }

    pub fn list(&self, filter: MemoryFilter) -> Vec<Memory> {
        let query = ListQuery {
            filter,
            sort: SortKey::Created,
            order: SortOrder::Asc,
            limit: 1000,
            offset: 0,
        };
        self.service.list(&query).expect("list")
    }

    pub fn export(&self) -> String {
        let mut out = String::new();
        self.service
            .export(&mut |record| {
                out.push_str(&serde_json::to_string(record).expect("json"));
                out.push('\n');
                Ok(())
            })
            .expect("export");
        out
    }

    pub fn import(&self, jsonl: &str) -> crate::Result<crate::exchange::ImportReport> {
        self.service
            .import(&mut Cursor::new(jsonl.as_bytes()), &mut |_| {})
    }
}

pub fn project(name: &str) -> Scope {
    Scope::Project(ProjectName::new(name).expect("valid project"))
}

fn tags(names: &[&str]) -> Vec<Tag> {
    names
        .iter()
        .map(|n| Tag::new(n).expect("valid tag"))
        .collect()
}

fn ids(memories: &[Memory]) -> Vec<String> {
    memories.iter().map(|m| m.id.to_string()).collect()
}

/// The ids of the memories a test expects, in order.
fn expected_ids(memories: &[&Memory]) -> Vec<String> {
    memories.iter().map(|m| m.id.to_string()).collect()
}

fn by_ref(memory: &Memory) -> IdRef {
    IdRef::Full(memory.id)
}

pub fn store_get_list_search_round_trip(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut new = NewMemory::new(
        "  Use pnpm, not npm, in the web workspace.  ",
        project("acme"),
        Source::Cli,
    );
    new.title = Some("Package manager".into());
    new.category = Category::Decision;
    new.tags = vec!["Tooling".into(), "node".into()];
    new.entered_by = Some("claude-code".into());
    new.importance = Some(4);
    let stored = h.service.store(new).unwrap();
    assert_eq!(stored.status, WriteStatus::Created);
    let memory = stored.memory;
    assert_eq!(memory.content, "Use pnpm, not npm, in the web workspace.");
    assert_eq!(memory.tags, tags(&["node", "tooling"]));

    let got = h.service.get(&[by_ref(&memory)]).unwrap();
    assert_eq!(got, vec![memory.clone()]);
    assert_eq!(h.list(MemoryFilter::default()), vec![memory.clone()]);
    assert_eq!(
        h.search("pnpm workspace", MemoryFilter::default()),
        vec![memory.clone()]
    );
    // Stemming and case: "Workspaces" finds "workspace".
    assert_eq!(
        h.search("Workspaces", MemoryFilter::default()),
        vec![memory.clone()]
    );
    assert!(h.search("kubernetes", MemoryFilter::default()).is_empty());
}

pub fn duplicate_content_in_a_scope_returns_the_existing_memory_and_writes_nothing(
    factory: StoreFactory,
) {
    let h = Harness::new(factory);
    let first = h.add("Run migrations before deploying", &["deploy"]);
    let again = h
        .service
        .store(NewMemory::new(
            "run   MIGRATIONS before deploying\n",
            project("acme"),
            Source::Mcp,
        ))
        .unwrap();
    assert_eq!(again.status, WriteStatus::Duplicate);
    assert_eq!(again.memory, first);
    assert_eq!(h.count_all(), 1);
    // Another scope is another place: the same words are a new memory there.
    let elsewhere = h
        .service
        .store(NewMemory::new(
            "Run migrations before deploying",
            Scope::Global,
            Source::Cli,
        ))
        .unwrap();
    assert_eq!(elsewhere.status, WriteStatus::Created);
    assert_eq!(h.count_all(), 2);
}

pub fn topic_key_revises_in_place_and_keeps_the_previous_revision(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut first = NewMemory::new("We use MySQL 8", project("acme"), Source::Cli);
    first.topic_key = Some("database".into());
    let created = h.service.store(first.clone()).unwrap();
    assert_eq!(created.status, WriteStatus::Created);

    h.clock.advance(Span::new().minutes(5));
    let mut second = first.clone();
    second.content = "We moved to PostgreSQL 16".into();
    let updated = h.service.store(second.clone()).unwrap();
    assert_eq!(updated.status, WriteStatus::Updated);
    assert_eq!(updated.memory.id, created.memory.id);
    assert_eq!(updated.memory.created_at, created.memory.created_at);
    assert!(updated.memory.updated_at > created.memory.updated_at);
    assert_eq!(h.count_all(), 1);

    let history = h.service.history(&by_ref(&created.memory)).unwrap();
    assert_eq!(history.memory.content, "We moved to PostgreSQL 16");
    assert_eq!(history.revisions.len(), 1);
    assert_eq!(history.revisions[0].number, 1);
    assert_eq!(history.revisions[0].content, "We use MySQL 8");
    assert_eq!(history.revisions[0].written_at, created.memory.updated_at);
    // Search sees the new content only.
    assert!(h.search("mysql", MemoryFilter::default()).is_empty());
    assert_eq!(h.search("postgresql", MemoryFilter::default()).len(), 1);
    // The same state again is a duplicate: nothing written, no new revision.
    let same = h.service.store(second).unwrap();
    assert_eq!(same.status, WriteStatus::Duplicate);
    assert_eq!(
        h.service
            .history(&by_ref(&created.memory))
            .unwrap()
            .revisions
            .len(),
        1
    );
    // The same key in another scope is a different memory.
    let mut global = first;
    global.scope = Scope::Global;
    assert_eq!(
        h.service.store(global).unwrap().status,
        WriteStatus::Created
    );
}

pub fn update_keeps_history_and_an_unchanged_update_writes_nothing(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("Cache TTL is 60s", &["cache"]);
    h.clock.advance(Span::new().seconds(1));
    let patch = MemoryPatch {
        content: Some("Cache TTL is 300s".into()),
        tags: Some(vec!["cache".into(), "Perf".into()]),
        importance: Some(5),
        title: Some(Some("TTL".into())),
        ..Default::default()
    };
    let updated = h.service.update(&by_ref(&memory), patch.clone()).unwrap();
    assert_eq!(updated.status, WriteStatus::Updated);
    assert_eq!(updated.memory.tags, tags(&["cache", "perf"]));
    assert_eq!(updated.memory.importance.get(), 5);
    assert_eq!(
        h.service.get(&[by_ref(&memory)]).unwrap()[0],
        updated.memory
    );
    let again = h.service.update(&by_ref(&memory), patch).unwrap();
    assert_eq!(again.status, WriteStatus::Unchanged);
    let history = h.service.history(&by_ref(&memory)).unwrap();
    assert_eq!(history.revisions.len(), 1);
    assert_eq!(history.revisions[0].content, "Cache TTL is 60s");
    assert_eq!(history.revisions[0].tags, tags(&["cache"]));
    // Clearing a title is a change too.
    let cleared = h
        .service
        .update(
            &by_ref(&memory),
            MemoryPatch {
                title: Some(None),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(cleared.memory.title, None);
    assert_eq!(
        h.service.history(&by_ref(&memory)).unwrap().revisions.len(),
        2
    );
}

fn store_expiring(h: &Harness, content: &str, in_minutes: i64) -> Memory {
    let mut new = NewMemory::new(content, project("acme"), Source::Cli);
    new.expires_at = Some(h.now() + Span::new().minutes(in_minutes));
    h.service.store(new).unwrap().memory
}

pub fn expired_memories_are_invisible_to_every_read(factory: StoreFactory) {
    let h = Harness::new(factory);
    let fleeting = store_expiring(&h, "The staging password rotates weekly", 10);
    let lasting = h.add("The staging host is stage.internal", &["staging"]);
    assert_eq!(h.search("staging", MemoryFilter::default()).len(), 2);
    h.clock.advance(Span::new().minutes(11));

    assert!(matches!(
        h.service.get(&[by_ref(&fleeting)]),
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        ids(&h.list(MemoryFilter::default())),
        expected_ids(&[&lasting])
    );
    assert_eq!(
        ids(&h.search("staging", MemoryFilter::default())),
        expected_ids(&[&lasting])
    );
    assert!(
        h.service
            .update(&by_ref(&fleeting), MemoryPatch::default())
            .is_err()
    );
    // A store of the same content is no duplicate of an expired memory.
    let fresh = h.service.store(NewMemory::new(
        "The staging password rotates weekly",
        project("acme"),
        Source::Cli,
    ));
    assert_eq!(fresh.unwrap().status, WriteStatus::Created);
    // Still there for those who ask.
    let all = MemoryFilter {
        include_expired: true,
        ..Default::default()
    };
    assert_eq!(h.list(all).len(), 3);
}

pub fn prune_dry_run_deletes_nothing_and_prune_deletes_exactly_the_expired(factory: StoreFactory) {
    let h = Harness::new(factory);
    let soon = store_expiring(&h, "expires soon", 5);
    let later = store_expiring(&h, "expires later", 60);
    let forever = h.add("never expires", &[]);
    h.clock.advance(Span::new().minutes(10));

    let dry = h.service.prune(None, true).unwrap();
    assert!(!dry.deleted);
    assert_eq!(ids(&dry.memories), expected_ids(&[&soon]));
    assert_eq!(h.count_all(), 3);

    let future = h.service.prune(Some(h.now() + Span::new().hours(1)), false);
    assert_eq!(future.unwrap_err().field(), Some("before"));
    assert_eq!(h.count_all(), 3);

    let pruned = h.service.prune(None, false).unwrap();
    assert!(pruned.deleted);
    assert_eq!(ids(&pruned.memories), expected_ids(&[&soon]));
    assert_eq!(h.count_all(), 2);
    let remaining = h.list(MemoryFilter {
        include_expired: true,
        ..Default::default()
    });
    assert_eq!(ids(&remaining), expected_ids(&[&later, &forever]));
    assert!(
        h.service.purge(&by_ref(&soon)).is_err(),
        "pruned memories are gone for good"
    );
}

pub fn forget_hides_and_purge_removes_for_good(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("Flaky test: retry the websocket suite", &["ci"]);
    h.service
        .update(
            &by_ref(&memory),
            MemoryPatch {
                content: Some("Flaky: websocket suite".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let forgotten = h.service.forget(&by_ref(&memory)).unwrap();
    assert!(forgotten.deleted_at.is_some());
    assert!(matches!(
        h.service.get(&[by_ref(&memory)]),
        Err(Error::NotFound { .. })
    ));
    assert!(h.search("websocket", MemoryFilter::default()).is_empty());
    assert!(h.list(MemoryFilter::default()).is_empty());
    assert!(
        h.service.forget(&by_ref(&memory)).is_err(),
        "forgetting twice is an error"
    );
    let with_forgotten = MemoryFilter {
        include_forgotten: true,
        ..Default::default()
    };
    assert_eq!(h.list(with_forgotten.clone()).len(), 1);
    assert_eq!(h.search("websocket", with_forgotten.clone()).len(), 1);

    h.service.purge(&by_ref(&memory)).unwrap();
    assert_eq!(h.count_all(), 0);
    assert!(h.search("websocket", with_forgotten).is_empty());
    assert!(
        h.export().is_empty(),
        "purge leaves no trace, not even history"
    );
    assert!(h.service.tags(&MemoryFilter::default()).unwrap().is_empty());
}

pub fn tag_filters_match_all_or_any(factory: StoreFactory) {
    let h = Harness::new(factory);
    let both = h.add("note one about builds", &["rust", "ci"]);
    let rust = h.add("note two about builds", &["rust"]);
    let ci = h.add("note three about builds", &["CI"]);
    h.add("note four about builds", &["docs"]);
    let all = |names: &[&str]| MemoryFilter {
        tags_all: tags(names),
        ..Default::default()
    };
    let any = |names: &[&str]| MemoryFilter {
        tags_any: tags(names),
        ..Default::default()
    };

    assert_eq!(ids(&h.list(all(&["rust", "ci"]))), expected_ids(&[&both]));
    assert_eq!(ids(&h.list(all(&["RUST"]))), expected_ids(&[&both, &rust]));
    assert_eq!(
        ids(&h.list(any(&["rust", "ci"]))),
        expected_ids(&[&both, &rust, &ci])
    );
    assert_eq!(h.search("builds", all(&["rust", "ci"])).len(), 1);
    assert_eq!(h.search("builds", any(&["ci", "docs"])).len(), 3);
    let combined = MemoryFilter {
        tags_all: tags(&["rust"]),
        tags_any: tags(&["ci", "docs"]),
        ..Default::default()
    };
    assert_eq!(ids(&h.list(combined)), expected_ids(&[&both]));
    assert!(h.list(all(&["nope"])).is_empty());
}

pub fn date_filters_bound_creation_time(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = h.add("deploy log alpha", &[]);
    h.clock.advance(Span::new().hours(48));
    let middle_time = h.now();
    let recent = h.add("deploy log beta", &[]);
    let after = MemoryFilter {
        created_after: Some(middle_time),
        ..Default::default()
    };
    let before = MemoryFilter {
        created_before: Some(middle_time),
        ..Default::default()
    };
    assert_eq!(ids(&h.list(after.clone())), expected_ids(&[&recent]));
    assert_eq!(ids(&h.list(before.clone())), expected_ids(&[&old]));
    assert_eq!(ids(&h.search("deploy", after)), expected_ids(&[&recent]));
    assert_eq!(ids(&h.search("deploy", before)), expected_ids(&[&old]));
}

pub fn scope_filters_separate_projects_and_include_global(factory: StoreFactory) {
    let h = Harness::new(factory);
    let acme = h.add("acme uses terraform", &[]);
    let other = h
        .service
        .store(NewMemory::new(
            "other uses terraform too",
            project("other"),
            Source::Cli,
        ))
        .unwrap()
        .memory;
    let global = h
        .service
        .store(NewMemory::new(
            "I prefer terraform fmt on save",
            Scope::Global,
            Source::Cli,
        ))
        .unwrap()
        .memory;
    let in_acme = MemoryFilter::in_scope(ScopeFilter::ProjectAndGlobal(
        ProjectName::new("acme").unwrap(),
    ));
    assert_eq!(
        ids(&h.list(in_acme.clone())),
        expected_ids(&[&acme, &global])
    );
    let mut found = ids(&h.search("terraform", in_acme));
    found.sort();
    let mut expected = expected_ids(&[&acme, &global]);
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(
        ids(&h.list(MemoryFilter::in_scope(ScopeFilter::Global))),
        expected_ids(&[&global])
    );
    assert_eq!(h.list(MemoryFilter::in_scope(ScopeFilter::All)).len(), 3);
    assert_eq!(
        h.search("terraform", MemoryFilter::in_scope(ScopeFilter::All))
            .len(),
        3
    );
    assert_eq!(other.scope, project("other"));
}

pub fn filters_compose_with_search(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut decision = NewMemory::new(
        "redis cache eviction uses allkeys-lru",
        project("acme"),
        Source::Cli,
    );
    decision.category = Category::Decision;
    decision.entered_by = Some("Codex".into());
    let decision = h.service.store(decision).unwrap().memory;
    let mut bug = NewMemory::new(
        "redis cache crashed on eviction storm",
        project("acme"),
        Source::Cli,
    );
    bug.category = Category::Bugfix;
    bug.entered_by = Some("claude-code".into());
    h.service.store(bug).unwrap();
    let by_category = MemoryFilter {
        category: Some(Category::Decision),
        ..Default::default()
    };
    assert_eq!(
        ids(&h.search("redis eviction", by_category)),
        expected_ids(&[&decision])
    );
    let by_agent = MemoryFilter {
        entered_by: Some("codex".into()),
        ..Default::default()
    };
    assert_eq!(
        ids(&h.search("redis", by_agent)),
        expected_ids(&[&decision])
    );
}

pub fn search_ranks_memories_holding_more_terms_first_and_pages(factory: StoreFactory) {
    let h = Harness::new(factory);
    h.add("the docker daemon restarts nightly", &[]);
    let both = h.add("docker compose networking needs host mode", &[]);
    h.add("compose files live in deploy", &[]);
    let results = h.search("docker compose", MemoryFilter::default());
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].id, both.id);
    let page = |offset| {
        let request = SearchRequest {
            offset,
            fuzzy: FuzzyMode::Never,
            ..SearchRequest::new("docker compose", MemoryFilter::default(), 1)
        };
        h.service.search(&request).unwrap().hits
    };
    assert_eq!(page(0)[0].memory.id, results[0].id);
    assert_eq!(page(2)[0].memory.id, results[2].id);
    assert!(page(3).is_empty());
    let first = &page(0)[0];
    assert_eq!(first.signals.len(), 1);
    assert_eq!(first.signals[0].rank, 1);
    assert!(
        first.signals[0].raw > 0.0,
        "BM25 scores are positive, higher is better"
    );
}

pub fn the_index_follows_updates_and_purges(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("grpc gateway times out", &["network"]);
    h.service
        .update(
            &by_ref(&memory),
            MemoryPatch {
                content: Some("http gateway times out".into()),
                tags: Some(vec!["proxy".into()]),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(h.search("grpc", MemoryFilter::default()).is_empty());
    assert!(h.search("network", MemoryFilter::default()).is_empty());
    assert_eq!(h.search("http", MemoryFilter::default()).len(), 1);
    assert_eq!(
        h.search("proxy", MemoryFilter::default()).len(),
        1,
        "tags are searchable"
    );
    let with_title = h
        .service
        .update(
            &by_ref(&memory),
            MemoryPatch {
                title: Some(Some("Gateway timeout".into())),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        h.search("timeout", MemoryFilter::default())[0].id,
        with_title.memory.id
    );
    h.service.purge(&by_ref(&memory)).unwrap();
    let everything = MemoryFilter {
        include_forgotten: true,
        include_expired: true,
        ..Default::default()
    };
    assert!(h.search("gateway", everything).is_empty());
}

pub fn short_handles_resolve_and_ambiguity_is_an_error(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("handles are short", &[]);
    let handle = IdRef::parse(&memory.id.handle()).unwrap();
    assert_eq!(h.service.get(&[handle]).unwrap()[0].id, memory.id);
    // Two ids sharing a prefix, made by import.
    let lines: String = [
        "aaaa1111-0000-4000-8000-000000000001",
        "aaaa2222-0000-4000-8000-000000000002",
    ]
    .iter()
    .map(|id| {
        let mut record = MemoryRecord {
            memory: memory.clone(),
            revisions: vec![],
        };
        record.memory.id = id.parse().unwrap();
        record.memory.content = format!("imported {id}");
        serde_json::to_string(&record).unwrap() + "\n"
    })
    .collect();
    h.import(&lines).unwrap();
    let err = h.service.get(&[IdRef::parse("aaaa").unwrap()]).unwrap_err();
    assert!(
        matches!(&err, Error::AmbiguousHandle { candidates, .. } if candidates.len() == 2),
        "{err}"
    );
    assert_eq!(
        h.service.get(&[IdRef::parse("aaaa2").unwrap()]).unwrap()[0].content,
        "imported aaaa2222-0000-4000-8000-000000000002"
    );
    assert!(matches!(
        h.service.get(&[IdRef::parse("bbbb").unwrap()]),
        Err(Error::NotFound { .. })
    ));
}

pub fn invalid_writes_name_the_field_and_write_nothing(factory: StoreFactory) {
    let limits = Limits {
        max_content_bytes: 100,
        ..Limits::default()
    };
    let h = Harness::with_limits(factory, limits);
    let kept = h.add("a memory that must survive bad writes", &["keep"]);
    let base = || NewMemory::new("fine content", project("acme"), Source::Cli);
    let cases: Vec<(&str, NewMemory)> = vec![
        (
            "content",
            NewMemory {
                content: "x".repeat(101),
                ..base()
            },
        ),
        (
            "content",
            NewMemory {
                content: "  \n ".into(),
                ..base()
            },
        ),
        (
            "importance",
            NewMemory {
                importance: Some(9),
                ..base()
            },
        ),
        (
            "expires",
            NewMemory {
                expires_at: Some(h.now() - Span::new().hours(1)),
                ..base()
            },
        ),
        (
            "tags",
            NewMemory {
                tags: vec!["a".repeat(65)],
                ..base()
            },
        ),
        (
            "tags",
            NewMemory {
                tags: (0..40).map(|i| format!("t{i}")).collect(),
                ..base()
            },
        ),
        (
            "title",
            NewMemory {
                title: Some("t".repeat(201)),
                ..base()
            },
        ),
        (
            "topic_key",
            NewMemory {
                topic_key: Some("k".repeat(201)),
                ..base()
            },
        ),
    ];
    for (field, new) in cases {
        let err = h.service.store(new).unwrap_err();
        assert_eq!(err.field(), Some(field), "{err}");
    }
    let over = h
        .service
        .store(NewMemory {
            content: "x".repeat(101),
            ..base()
        })
        .unwrap_err()
        .to_string();
    assert!(
        over.contains("101 bytes") && over.contains("100 bytes"),
        "{over}"
    );
    let bad_update = h.service.update(
        &by_ref(&kept),
        MemoryPatch {
            content: Some("y".repeat(101)),
            ..Default::default()
        },
    );
    assert_eq!(bad_update.unwrap_err().field(), Some("content"));
    assert_eq!(h.count_all(), 1);
    assert_eq!(h.service.get(&[by_ref(&kept)]).unwrap()[0], kept);
    assert!(
        h.service
            .history(&by_ref(&kept))
            .unwrap()
            .revisions
            .is_empty()
    );
}

pub fn secrets_are_redacted_on_store_update_and_import(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut new = NewMemory::new(
        "db is postgres://app:hunter2hunter2@db/x <private>wife's name</private>",
        project("acme"),
        Source::Cli,
    );
    new.title = Some("key sk-abcdefghijklmnopqrstuvwxyz123456".into());
    let stored = h.service.store(new).unwrap().memory;
    assert_eq!(
        stored.content,
        "db is postgres://app:[REDACTED]@db/x [REDACTED]"
    );
    assert_eq!(stored.title.as_deref(), Some("key [REDACTED]"));
    assert!(
        h.search("hunter2hunter2", MemoryFilter::default())
            .is_empty()
    );

    let updated = h
        .service
        .update(
            &by_ref(&stored),
            MemoryPatch {
                content: Some("token ghp_0123456789abcdefghijABCDEFGHIJ012345".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(updated.memory.content, "token [REDACTED]");

    let mut record = MemoryRecord {
        memory: stored.clone(),
        revisions: vec![stored.to_revision(1)],
    };
    record.memory.id = crate::MemoryId::generate();
    record.memory.content = "imported Bearer abcdefghijklmnop1234".into();
    record.revisions[0].content = "old <private>secret</private>".into();
    h.import(&(serde_json::to_string(&record).unwrap() + "\n"))
        .unwrap();
    let imported = h.service.history(&IdRef::Full(record.memory.id)).unwrap();
    assert_eq!(imported.memory.content, "imported Bearer [REDACTED]");
    assert_eq!(imported.revisions[0].content, "old [REDACTED]");
}

/// A store holding every kind of state: history, tags, expiry, forgotten, several scopes.
fn varied_store(h: &Harness) {
    let mut topic = NewMemory::new("api rate limit is 100/min", project("acme"), Source::Mcp);
    topic.topic_key = Some("rate-limit".into());
    topic.tags = vec!["api".into()];
    h.service.store(topic.clone()).unwrap();
    h.clock.advance(Span::new().seconds(3));
    topic.content = "api rate limit is 500/min".into();
    h.service.store(topic).unwrap();
    let mut rich = NewMemory::new("prefers tabs", Scope::Global, Source::Hook);
    rich.title = Some("Indentation".into());
    rich.category = Category::Preference;
    rich.entered_by = Some("opencode".into());
    rich.session_id = Some("s-42".into());
    rich.importance = Some(2);
    rich.expires_at = Some(h.now() + Span::new().hours(24 * 30));
    h.service.store(rich).unwrap();
    let gone = h.add("temporary workaround", &["tmp"]);
    h.service.forget(&by_ref(&gone)).unwrap();
    store_expiring(h, "expiring note", 1);
    h.clock.advance(Span::new().minutes(2));
}

pub fn export_then_import_is_lossless_and_reimport_is_a_no_op(factory: StoreFactory) {
    let source = Harness::new(factory);
    varied_store(&source);
    let exported = source.export();
    assert_eq!(
        exported.lines().count(),
        4,
        "forgotten and expired memories are exported too"
    );

    let target = Harness::new(factory);
    let report = target.import(&exported).unwrap();
    assert_eq!(
        (report.created, report.updated, report.unchanged),
        (4, 0, 0)
    );
    assert_eq!(target.export(), exported);

    let again = target.import(&exported).unwrap();
    assert_eq!((again.created, again.updated, again.unchanged), (0, 0, 4));
    assert_eq!(target.export(), exported);
    assert_eq!(target.count_all(), 4);
}

pub fn import_of_a_newer_record_updates_and_merges_history(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("version one", &[]);
    let old_export = h.export();
    h.clock.advance(Span::new().seconds(5));
    h.service
        .update(
            &by_ref(&memory),
            MemoryPatch {
                content: Some("version two".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let new_export = h.export();

    let other = Harness::new(factory);
    other.import(&old_export).unwrap();
    let report = other.import(&new_export).unwrap();
    assert_eq!(report.updated, 1);
    assert_eq!(other.export(), new_export);
    // An older record does not overwrite a newer state.
    let stale = other.import(&old_export).unwrap();
    assert_eq!(stale.unchanged, 1);
    let history = other.service.history(&by_ref(&memory)).unwrap();
    assert_eq!(history.memory.content, "version two");
    assert_eq!(
        history
            .revisions
            .iter()
            .map(|r| r.content.as_str())
            .collect::<Vec<_>>(),
        ["version one"]
    );
}

pub fn a_bad_import_line_rolls_back_the_whole_import(factory: StoreFactory) {
    let source = Harness::new(factory);
    varied_store(&source);
    let mut lines: Vec<String> = source.export().lines().map(String::from).collect();
    lines.insert(2, r#"{"id": "not-an-id"}"#.into());
    let target = Harness::new(factory);
    let kept = target.add("already here", &[]);
    let err = target.import(&lines.join("\n")).unwrap_err();
    assert!(matches!(err, Error::ImportLine { line: 3, .. }), "{err}");
    assert_eq!(target.count_all(), 1);
    assert_eq!(target.service.get(&[by_ref(&kept)]).unwrap()[0], kept);

    let mut over_limit = MemoryRecord {
        memory: kept.clone(),
        revisions: vec![],
    };
    over_limit.memory.id = crate::MemoryId::generate();
    over_limit.memory.content = "z".repeat(20_000);
    let err = target
        .import(&serde_json::to_string(&over_limit).unwrap())
        .unwrap_err();
    assert_eq!(err.field(), Some("content"), "{err}");
    assert_eq!(target.count_all(), 1);
}

pub fn tags_and_stats_count_visible_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    h.add("one", &["rust", "ci"]);
    h.add("two", &["rust"]);
    let gone = h.add("three", &["rust", "legacy"]);
    h.service.forget(&by_ref(&gone)).unwrap();
    store_expiring(&h, "four", 1);
    h.clock.advance(Span::new().minutes(5));
    let counts: Vec<(String, u64)> = h
        .service
        .tags(&MemoryFilter::default())
        .unwrap()
        .into_iter()
        .map(|c| (c.tag.to_string(), c.count))
        .collect();
    assert_eq!(counts, [("rust".to_string(), 2), ("ci".to_string(), 1)]);
    let stats = h.service.stats().unwrap();
    assert_eq!((stats.memories, stats.forgotten, stats.expired), (2, 1, 1));
    assert_eq!(stats.by_project.len(), 1);
    assert_eq!(stats.by_project[0].name, "acme");
    assert_eq!(stats.by_agent[0].name, "unknown");
}

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
        .service
        .search(&request)
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
    let err = h.service.search(&SearchRequest {
        fuzzy: FuzzyMode::Never,
        ..SearchRequest::new("docker AND", MemoryFilter::default(), 5)
    });
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
            .service
            .search(&SearchRequest {
                fuzzy: FuzzyMode::Never,
                ..SearchRequest::new(query, MemoryFilter::default(), 10)
            })
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
    h.service
        .search(&request)
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
    let bad = h.service.search(&SearchRequest {
        threshold: Some(1.5),
        ..SearchRequest::new("x", MemoryFilter::default(), 5)
    });
    assert_eq!(bad.unwrap_err().field(), Some("threshold"));
}

pub fn fuzzy_never_returns_expired_or_forgotten_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    let m = fuzzy_corpus(&h);
    let fleeting = store_expiring(&h, "docker swarm was tried once", 1);
    h.service.forget(&by_ref(&m[0])).unwrap();
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
        include_expired: true,
        include_forgotten: true,
        ..Default::default()
    };
    let all = fuzzy_search(&h, "dokcer", FuzzyMode::Always, None, everything);
    let ids: Vec<_> = all.hits.iter().map(|hit| hit.memory.id).collect();
    assert!(ids.contains(&m[0].id) && ids.contains(&fleeting.id));
}

pub fn fuzzy_runs_by_itself_only_when_exact_search_finds_little(factory: StoreFactory) {
    let h = Harness::new(factory);
    for i in 0..6 {
        h.add(&format!("docker note {i}"), &[]);
    }
    h.add("dockers are a kind of trousers", &[]);
    let plenty = fuzzy_search(&h, "docker", FuzzyMode::Auto, None, MemoryFilter::default());
    assert!(plenty.hits.iter().all(|hit| {
        hit.signals
            .iter()
            .all(|s| s.signal == crate::search::SignalKind::Lexical)
    }));
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
    let results = h.service.search(&request).unwrap();
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
    let expression = crate::search::Match::Term("alpha".into());
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
