//! The memory domain's behaviours: write outcomes, visibility, filters, history, handles,
//! validation and redaction, export and import, stats.

use super::local;
use super::*;

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
    let stored = h.api.write(&local(), new, None).unwrap();
    assert_eq!(stored.status, WriteStatus::Created);
    let memory = stored.memory;
    assert_eq!(memory.content, "Use pnpm, not npm, in the web workspace.");
    assert_eq!(memory.tags, tags(&["node", "tooling"]));

    let got = h.api.memories(&local(), &[by_ref(&memory)]).unwrap();
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
        .api
        .write(
            &local(),
            NewMemory::new(
                "run   MIGRATIONS before deploying\n",
                project("acme"),
                Source::Mcp,
            ),
            None,
        )
        .unwrap();
    assert_eq!(again.status, WriteStatus::Duplicate);
    assert_eq!(again.memory, first);
    assert_eq!(h.count_all(), 1);
    // Another scope is another place: the same words are a new memory there.
    let elsewhere = h
        .api
        .write(
            &local(),
            NewMemory::new(
                "Run migrations before deploying",
                Scope::Global,
                Source::Cli,
            ),
            None,
        )
        .unwrap();
    assert_eq!(elsewhere.status, WriteStatus::Created);
    assert_eq!(h.count_all(), 2);
}

pub fn topic_key_revises_in_place_and_keeps_the_previous_revision(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut first = NewMemory::new("We use MySQL 8", project("acme"), Source::Cli);
    first.topic_key = Some("database".into());
    let created = h.api.write(&local(), first.clone(), None).unwrap();
    assert_eq!(created.status, WriteStatus::Created);

    h.clock.advance(Span::new().minutes(5));
    let mut second = first.clone();
    second.content = "We moved to PostgreSQL 16".into();
    let updated = h.api.write(&local(), second.clone(), None).unwrap();
    assert_eq!(updated.status, WriteStatus::Updated);
    assert_eq!(updated.memory.id, created.memory.id);
    assert_eq!(updated.memory.created_at, created.memory.created_at);
    assert!(updated.memory.updated_at > created.memory.updated_at);
    assert_eq!(h.count_all(), 1);

    let history = h.api.history(&local(), &by_ref(&created.memory)).unwrap();
    assert_eq!(history.memory.content, "We moved to PostgreSQL 16");
    assert_eq!(history.revisions.len(), 1);
    assert_eq!(history.revisions[0].number, 1);
    assert_eq!(history.revisions[0].content, "We use MySQL 8");
    assert_eq!(history.revisions[0].written_at, created.memory.updated_at);
    // Search sees the new content only.
    assert!(h.search("mysql", MemoryFilter::default()).is_empty());
    assert_eq!(h.search("postgresql", MemoryFilter::default()).len(), 1);
    // The same state again is a duplicate: nothing written, no new revision.
    let same = h.api.write(&local(), second, None).unwrap();
    assert_eq!(same.status, WriteStatus::Duplicate);
    assert_eq!(
        h.api
            .history(&local(), &by_ref(&created.memory))
            .unwrap()
            .revisions
            .len(),
        1
    );
    // The same key in another scope is a different memory.
    let mut global = first;
    global.scope = Scope::Global;
    assert_eq!(
        h.api.write(&local(), global, None).unwrap().status,
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
    let updated = h
        .api
        .patch(&local(), &by_ref(&memory), patch.clone())
        .unwrap();
    assert_eq!(updated.status, WriteStatus::Updated);
    assert_eq!(updated.memory.tags, tags(&["cache", "perf"]));
    assert_eq!(updated.memory.importance.get(), 5);
    assert_eq!(
        h.api.memories(&local(), &[by_ref(&memory)]).unwrap()[0],
        updated.memory
    );
    let again = h.api.patch(&local(), &by_ref(&memory), patch).unwrap();
    assert_eq!(again.status, WriteStatus::Unchanged);
    let history = h.api.history(&local(), &by_ref(&memory)).unwrap();
    assert_eq!(history.revisions.len(), 1);
    assert_eq!(history.revisions[0].content, "Cache TTL is 60s");
    assert_eq!(history.revisions[0].tags, tags(&["cache"]));
    // Clearing a title is a change too.
    let cleared = h
        .api
        .patch(
            &local(),
            &by_ref(&memory),
            MemoryPatch {
                title: Some(None),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(cleared.memory.title, None);
    assert_eq!(
        h.api
            .history(&local(), &by_ref(&memory))
            .unwrap()
            .revisions
            .len(),
        2
    );
}

pub fn expired_memories_are_invisible_to_every_read(factory: StoreFactory) {
    let h = Harness::new(factory);
    let fleeting = store_expiring(&h, "The staging password rotates weekly", 10);
    let lasting = h.add("The staging host is stage.internal", &["staging"]);
    assert_eq!(h.search("staging", MemoryFilter::default()).len(), 2);
    h.clock.advance(Span::new().minutes(11));

    assert!(matches!(
        h.api.memories(&local(), &[by_ref(&fleeting)]),
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
        h.api
            .patch(&local(), &by_ref(&fleeting), MemoryPatch::default())
            .is_err()
    );
    // A store of the same content is no duplicate of an expired memory.
    let fresh = h.api.write(
        &local(),
        NewMemory::new(
            "The staging password rotates weekly",
            project("acme"),
            Source::Cli,
        ),
        None,
    );
    assert_eq!(fresh.unwrap().status, WriteStatus::Created);
    // Still there for those who ask.
    let all = MemoryFilter {
        visibility: Visibility {
            expired: true,
            ..Visibility::VISIBLE
        },
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

    let dry = h.api.prune(PruneRule::Expired(h.now()), true).unwrap();
    assert!(!dry.deleted);
    assert_eq!(ids(&dry.memories), expected_ids(&[&soon]));
    assert_eq!(h.count_all(), 3);

    let future = h
        .api
        .prune(PruneRule::Expired(h.now() + Span::new().hours(1)), false);
    assert_eq!(future.unwrap_err().field(), Some("before"));
    assert_eq!(h.count_all(), 3);

    let pruned = h.api.prune(PruneRule::Expired(h.now()), false).unwrap();
    assert!(pruned.deleted);
    assert_eq!(ids(&pruned.memories), expected_ids(&[&soon]));
    assert_eq!(h.count_all(), 2);
    let remaining = h.list(MemoryFilter {
        visibility: Visibility {
            expired: true,
            ..Visibility::VISIBLE
        },
        ..Default::default()
    });
    assert_eq!(ids(&remaining), expected_ids(&[&later, &forever]));
    assert!(
        h.api.forget(&local(), &soon.id.to_string(), true).is_err(),
        "pruned memories are gone for good"
    );
}

pub fn prune_created_before_deletes_older_memories_in_every_state(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old_live = h.add("written long ago", &[]);
    let old_gone = h.add("forgotten long ago", &[]);
    h.api
        .forget(&local(), &old_gone.id.to_string(), false)
        .unwrap();
    let old_expiring = store_expiring(&h, "expires next year", 60 * 24 * 365);
    h.clock.advance(Span::new().hours(24));
    let cutoff = h.now();
    let newer = h.add("written after the cutoff", &[]);

    let dry = h.api.prune(PruneRule::CreatedBefore(cutoff), true).unwrap();
    assert_eq!(
        ids(&dry.memories),
        expected_ids(&[&old_live, &old_gone, &old_expiring])
    );
    assert_eq!(h.count_all(), 4, "a dry run deletes nothing");
    // A date in the future is allowed: everything was created before it.
    let everything = h
        .api
        .prune(
            PruneRule::CreatedBefore(h.now() + Span::new().hours(1)),
            true,
        )
        .unwrap();
    assert_eq!(everything.memories.len(), 4);

    let pruned = h
        .api
        .prune(PruneRule::CreatedBefore(cutoff), false)
        .unwrap();
    assert!(pruned.deleted);
    assert_eq!(pruned.memories.len(), 3);
    assert_eq!(h.count_all(), 1);
    assert_eq!(
        h.api.memories(&local(), &[by_ref(&newer)]).unwrap()[0],
        newer
    );
}

pub fn forget_hides_and_purge_removes_for_good(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("Flaky test: retry the websocket suite", &["ci"]);
    h.api
        .patch(
            &local(),
            &by_ref(&memory),
            MemoryPatch {
                content: Some("Flaky: websocket suite".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let forgotten = h
        .api
        .forget(&local(), &memory.id.to_string(), false)
        .unwrap();
    assert!(forgotten.deleted_at.is_some());
    assert!(matches!(
        h.api.memories(&local(), &[by_ref(&memory)]),
        Err(Error::NotFound { .. })
    ));
    assert!(h.search("websocket", MemoryFilter::default()).is_empty());
    assert!(h.list(MemoryFilter::default()).is_empty());
    assert!(
        h.api
            .forget(&local(), &memory.id.to_string(), false)
            .is_err(),
        "forgetting twice is an error"
    );
    let with_forgotten = MemoryFilter {
        visibility: Visibility {
            forgotten: true,
            ..Visibility::VISIBLE
        },
        ..Default::default()
    };
    assert_eq!(h.list(with_forgotten.clone()).len(), 1);
    assert_eq!(h.search("websocket", with_forgotten.clone()).len(), 1);

    h.api
        .forget(&local(), &memory.id.to_string(), true)
        .unwrap();
    assert_eq!(h.count_all(), 0);
    assert!(h.search("websocket", with_forgotten).is_empty());
    assert_eq!(
        h.export().lines().count(),
        1,
        "purge leaves no trace, not even history (only the header is left)"
    );
    assert!(
        h.api
            .tag_counts(&local(), &MemoryFilter::default())
            .unwrap()
            .is_empty()
    );
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
    assert_eq!(ids(&h.list(combined.clone())), expected_ids(&[&both]));
    assert!(h.list(all(&["nope"])).is_empty());
    // Counts agree with the lists (a store may count through the tags' own lists).
    let count = |filter: MemoryFilter| h.domains().memories().count(&filter).unwrap();
    assert_eq!(count(all(&["rust", "ci"])), 1);
    assert_eq!(count(all(&["RUST"])), 2);
    assert_eq!(count(any(&["rust", "ci"])), 3);
    assert_eq!(count(combined), 1);
    assert_eq!(count(all(&["nope"])), 0);
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
        .api
        .write(
            &local(),
            NewMemory::new("other uses terraform too", project("other"), Source::Cli),
            None,
        )
        .unwrap()
        .memory;
    let global = h
        .api
        .write(
            &local(),
            NewMemory::new("I prefer terraform fmt on save", Scope::Global, Source::Cli),
            None,
        )
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
    let decision = h.api.write(&local(), decision, None).unwrap().memory;
    let mut bug = NewMemory::new(
        "redis cache crashed on eviction storm",
        project("acme"),
        Source::Cli,
    );
    bug.category = Category::Bugfix;
    bug.entered_by = Some("claude-code".into());
    h.api.write(&local(), bug, None).unwrap();
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
        h.api.search_request(&local(), &request).unwrap().hits
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
    h.api
        .patch(
            &local(),
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
        .api
        .patch(
            &local(),
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
    h.api
        .forget(&local(), &memory.id.to_string(), true)
        .unwrap();
    let everything = MemoryFilter {
        visibility: Visibility {
            expired: true,
            forgotten: true,
        },
        ..Default::default()
    };
    assert!(h.search("gateway", everything).is_empty());
}

pub fn short_handles_resolve_and_ambiguity_is_an_error(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("handles are short", &[]);
    let handle = IdRef::parse(&memory.id.handle()).unwrap();
    assert_eq!(
        h.api.memories(&local(), &[handle]).unwrap()[0].id,
        memory.id
    );
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
    let err = h
        .api
        .memories(&local(), &[IdRef::parse("aaaa").unwrap()])
        .unwrap_err();
    assert!(
        matches!(&err, Error::AmbiguousHandle { candidates, .. } if candidates.len() == 2),
        "{err}"
    );
    assert_eq!(
        h.api
            .memories(&local(), &[IdRef::parse("aaaa2").unwrap()])
            .unwrap()[0]
            .content,
        "imported aaaa2222-0000-4000-8000-000000000002"
    );
    assert!(matches!(
        h.api.memories(&local(), &[IdRef::parse("bbbb").unwrap()]),
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
            "content",
            NewMemory {
                content: "a NUL \0 in the middle".into(),
                ..base()
            },
        ),
        (
            "title",
            NewMemory {
                title: Some("NUL\0".into()),
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
        let err = h.api.write(&local(), new, None).unwrap_err();
        assert_eq!(err.field(), Some(field), "{err}");
    }
    let over = h
        .api
        .write(
            &local(),
            NewMemory {
                content: "x".repeat(101),
                ..base()
            },
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(
        over.contains("101 bytes") && over.contains("100 bytes"),
        "{over}"
    );
    let bad_update = h.api.patch(
        &local(),
        &by_ref(&kept),
        MemoryPatch {
            content: Some("y".repeat(101)),
            ..Default::default()
        },
    );
    assert_eq!(bad_update.unwrap_err().field(), Some("content"));
    assert_eq!(h.count_all(), 1);
    assert_eq!(h.api.memories(&local(), &[by_ref(&kept)]).unwrap()[0], kept);
    assert!(
        h.api
            .history(&local(), &by_ref(&kept))
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
    let stored = h.api.write(&local(), new, None).unwrap().memory;
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
        .api
        .patch(
            &local(),
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
    let imported = h
        .api
        .history(&local(), &IdRef::Full(record.memory.id))
        .unwrap();
    assert_eq!(imported.memory.content, "imported Bearer [REDACTED]");
    assert_eq!(imported.revisions[0].content, "old [REDACTED]");
}

/// A store holding every kind of state: history, tags, expiry, forgotten, several scopes.
fn varied_store(h: &Harness) {
    let mut topic = NewMemory::new("api rate limit is 100/min", project("acme"), Source::Mcp);
    topic.topic_key = Some("rate-limit".into());
    topic.tags = vec!["api".into()];
    h.api.write(&local(), topic.clone(), None).unwrap();
    h.clock.advance(Span::new().seconds(3));
    topic.content = "api rate limit is 500/min".into();
    h.api.write(&local(), topic, None).unwrap();
    let mut rich = NewMemory::new("prefers tabs", Scope::Global, Source::Hook);
    rich.title = Some("Indentation".into());
    rich.category = Category::Preference;
    rich.entered_by = Some("opencode".into());
    rich.session_id = Some("s-42".into());
    rich.importance = Some(2);
    rich.expires_at = Some(h.now() + Span::new().hours(24 * 30));
    h.api.write(&local(), rich, None).unwrap();
    let gone = h.add("temporary workaround", &["tmp"]);
    h.api.forget(&local(), &gone.id.to_string(), false).unwrap();
    store_expiring(h, "expiring note", 1);
    h.clock.advance(Span::new().minutes(2));
}

pub fn export_then_import_is_lossless_and_reimport_is_a_no_op(factory: StoreFactory) {
    let source = Harness::new(factory);
    varied_store(&source);
    let exported = source.export();
    assert_eq!(
        exported.lines().count(),
        1 + 4,
        "a header, then forgotten and expired memories too"
    );

    let target = Harness::new(factory);
    let report = target.import(&exported).unwrap();
    assert_eq!(
        (
            report.memories.created,
            report.memories.updated,
            report.memories.unchanged
        ),
        (4, 0, 0)
    );
    assert_eq!(target.export(), exported);

    let again = target.import(&exported).unwrap();
    assert_eq!(
        (
            again.memories.created,
            again.memories.updated,
            again.memories.unchanged
        ),
        (0, 0, 4)
    );
    assert_eq!(target.export(), exported);
    assert_eq!(target.count_all(), 4);
}

pub fn import_of_a_newer_record_updates_and_merges_history(factory: StoreFactory) {
    let h = Harness::new(factory);
    let memory = h.add("version one", &[]);
    let old_export = h.export();
    h.clock.advance(Span::new().seconds(5));
    h.api
        .patch(
            &local(),
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
    assert_eq!(report.memories.updated, 1);
    assert_eq!(other.export(), new_export);
    // An older record does not overwrite a newer state.
    let stale = other.import(&old_export).unwrap();
    assert_eq!(stale.memories.unchanged, 1);
    let history = other.api.history(&local(), &by_ref(&memory)).unwrap();
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
    assert!(
        matches!(
            err,
            Error::ImportRecord {
                at: RecordAt::Line(3),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(target.count_all(), 1);
    assert_eq!(
        target.api.memories(&local(), &[by_ref(&kept)]).unwrap()[0],
        kept
    );

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

pub fn a_listing_by_content_is_alphabetical_without_regard_to_ascii_case(factory: StoreFactory) {
    let h = Harness::new(factory);
    for text in [
        "beta release",
        "Zebra stripes",
        "alpha build",
        "Ärger",
        "Beta Rollout",
    ] {
        h.add(text, &[]);
    }
    let listed = |order| {
        h.domains()
            .memories()
            .list(&ListQuery {
                filter: MemoryFilter::default(),
                sort: SortKey::Content,
                order,
                limit: 10,
                offset: 0,
            })
            .unwrap()
            .into_iter()
            .map(|m| m.content)
            .collect::<Vec<_>>()
    };
    // By bytes "Beta Rollout" and "Zebra" would come before "alpha" and "beta"; characters
    // past ASCII come after every ASCII letter.
    let ascending = [
        "alpha build",
        "beta release",
        "Beta Rollout",
        "Zebra stripes",
        "Ärger",
    ];
    assert_eq!(listed(SortOrder::Asc), ascending);
    let mut descending = ascending;
    descending.reverse();
    assert_eq!(listed(SortOrder::Desc), descending);
}

pub fn tags_and_stats_count_visible_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    h.add("one", &["rust", "ci"]);
    h.add("two", &["rust"]);
    let gone = h.add("three", &["rust", "legacy"]);
    h.api.forget(&local(), &gone.id.to_string(), false).unwrap();
    store_expiring(&h, "four", 1);
    h.clock.advance(Span::new().minutes(5));
    let counts: Vec<(String, u64)> = h
        .api
        .tag_counts(&local(), &MemoryFilter::default())
        .unwrap()
        .into_iter()
        .map(|c| (c.tag.to_string(), c.count))
        .collect();
    assert_eq!(counts, [("rust".to_string(), 2), ("ci".to_string(), 1)]);
    let stats = h.api.stats(&local()).unwrap();
    assert_eq!((stats.memories, stats.forgotten, stats.expired), (2, 1, 1));
    assert_eq!(stats.by_project.len(), 1);
    assert_eq!(stats.by_project[0].name, "acme");
    assert_eq!(stats.by_agent[0].name, "unknown");
    // Per day written (UTC), oldest first; forgotten and expired memories do not count.
    h.clock.advance(Span::new().hours(48));
    let later = h.add("five", &[]);
    let day = |m: &Memory| m.created_at.to_string()[..10].to_string();
    let by_day: Vec<(String, u64)> = h
        .api
        .stats(&local())
        .unwrap()
        .by_day
        .into_iter()
        .map(|d| (d.name, d.count))
        .collect();
    assert_eq!(by_day, [(day(&gone), 2), (day(&later), 1)]);
}
