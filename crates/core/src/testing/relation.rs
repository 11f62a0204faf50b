//! The suite's relation behaviours: candidates on write, verdicts and their refusals,
//! comparisons, annotations and ranking, purge, scan and stats.

use super::{Harness, StoreFactory, by_ref, local, project};
use crate::Error;
use crate::config::Config;
use crate::id::RelationRef;
use crate::memory::{Memory, MemoryFilter, NewMemory, Source, WriteOutcome, WriteStatus};
use crate::relation::{
    Actor, ActorKind, CompareStatus, NewVerdict, RelationFilter, RelationKind, RelationStatus,
};
use crate::scope::Scope;
use crate::search::{FuzzyMode, SearchRequest};

fn write(h: &Harness, content: &str, scope: Scope) -> WriteOutcome {
    h.api
        .write(&local(), NewMemory::new(content, scope, Source::Cli), None)
        .expect("store")
}

fn verdict(relation: RelationKind) -> NewVerdict {
    NewVerdict {
        relation: Some(relation),
        reason: Some("the newer note says so".into()),
        actor: Actor {
            kind: ActorKind::Agent,
            name: Some("claude-code".into()),
            ..Actor::default()
        },
        ..NewVerdict::default()
    }
}

fn all_relations(h: &Harness) -> Vec<crate::relation::RelationView> {
    h.domains()
        .relations()
        .list(&RelationFilter {
            limit: 100,
            ..RelationFilter::default()
        })
        .expect("relations")
}

const POSTGRES: &str = "The event store runs on PostgreSQL 16 with logical replication";
const MYSQL: &str = "The event store moved from PostgreSQL to MySQL last sprint";

pub fn a_write_reports_candidates_and_records_pending_judgments(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = write(&h, POSTGRES, project("acme")).memory;
    write(
        &h,
        "Deploys go out on Fridays through the blue-green pipeline",
        project("acme"),
    );
    // The same words in another project are not a candidate.
    write(&h, POSTGRES, project("other"));

    let new = write(&h, MYSQL, project("acme"));
    assert_eq!(new.status, WriteStatus::Created);
    let found: Vec<_> = new.candidates.iter().map(|c| c.id).collect();
    assert_eq!(found, vec![old.id], "{:?}", new.candidates);
    let candidate = &new.candidates[0];
    assert_eq!(candidate.title, POSTGRES);
    assert!(candidate.score > 0.0 && candidate.score <= 1.0);

    let relations = all_relations(&h);
    assert_eq!(relations.len(), 1);
    let pending = &relations[0];
    assert_eq!(pending.relation.id, candidate.judgment_id);
    assert_eq!(pending.relation.status(), RelationStatus::Pending);
    assert_eq!(
        (pending.relation.source, pending.relation.target),
        (new.memory.id, old.id)
    );
    assert_eq!(pending.target_title.as_deref(), Some(POSTGRES));

    // A duplicate writes nothing and has no candidates; a write unlike anything has none.
    let again = write(&h, MYSQL, project("acme"));
    assert_eq!(again.status, WriteStatus::Duplicate);
    assert!(again.candidates.is_empty());
    let unrelated = write(
        &h,
        "Prefer tabs in Makefiles, spaces elsewhere",
        project("acme"),
    );
    assert!(
        unrelated.candidates.is_empty(),
        "{:?}",
        unrelated.candidates
    );
    // Updating the newer memory finds the same pair, already related: nothing new.
    let updated = h
        .api
        .patch(
            &local(),
            &by_ref(&new.memory),
            crate::memory::MemoryPatch {
                content: Some(format!("{MYSQL}, for the event store")),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(updated.candidates.is_empty(), "{:?}", updated.candidates);
    assert_eq!(all_relations(&h).len(), 1);
}

/// A project's rules that share a domain, a verb or a form raise nothing; a changed fact, a
/// flipped rule and other values for the same subject do, each with the reason; a session's
/// summary is never a candidate, however alike.
pub fn only_memories_that_disagree_become_candidates(factory: StoreFactory) {
    let h = Harness::new(factory);
    let acme = || project("acme");
    for rule in [
        "Use type instead of interface",
        "Never use default exports - use named exports",
        "Use @emotion/styled for styling components",
        "Unit tests: `tests/unit` (no network calls allowed)",
    ] {
        write(&h, rule, acme());
    }
    for rule in [
        "Use optional chaining (?.) instead of &&",
        "Never use direct CSS classes or Tailwind",
        "Prefix styled components with 'Styled'",
        "Integration tests: `tests/integration` (network calls allowed)",
    ] {
        let outcome = write(&h, rule, acme());
        assert!(
            outcome.candidates.is_empty(),
            "{rule}: {:?}",
            outcome.candidates
        );
    }
    assert!(all_relations(&h).is_empty());

    let squash = write(&h, "Always squash-merge pull requests", acme()).memory;
    let never = write(&h, "Never squash pull requests; keep every commit", acme());
    assert_eq!(never.candidates.len(), 1, "{:?}", never.candidates);
    assert_eq!(never.candidates[0].id, squash.id);
    assert!(
        never.candidates[0]
            .reason
            .contains("negates what the other states (squash)"),
        "{}",
        never.candidates[0].reason
    );
    let timeout = write(&h, "Session cookies expire after 30 minutes", acme()).memory;
    let longer = write(&h, "Session cookies expire after 8 hours", acme());
    assert_eq!(longer.candidates.len(), 1, "{:?}", longer.candidates);
    assert_eq!(longer.candidates[0].id, timeout.id);
    assert!(
        longer.candidates[0].reason.contains(
            "both speak of after, cookies, expire, session; values differ (8 against 30)"
        ),
        "{}",
        longer.candidates[0].reason
    );

    // A session's summary neither asks about a decision nor is asked about.
    let decision = write(&h, "The event store moved to MySQL now", acme());
    assert!(decision.candidates.is_empty(), "{:?}", decision.candidates);
    let mut summary = NewMemory::new(
        "Session summary: moved the event store to PostgreSQL and tuned its replication",
        acme(),
        Source::Hook,
    );
    summary.tags = vec![crate::session::SUMMARY_TAG.into()];
    let summary = h.api.write(&local(), summary, None).unwrap();
    assert!(summary.candidates.is_empty(), "{:?}", summary.candidates);
    let later = write(&h, "The event store moved back to PostgreSQL", acme());
    let found: Vec<_> = later.candidates.iter().map(|c| c.id).collect();
    assert_eq!(found, [decision.memory.id], "{:?}", later.candidates);
}

pub fn detection_honours_its_settings(factory: StoreFactory) {
    let mut config = Config::default();
    config.conflicts.max_candidates = 1;
    let h = Harness::with_config(factory, &config);
    for variant in ["PostgreSQL 15", "PostgreSQL 16", "PostgreSQL 17"] {
        write(
            &h,
            &format!("The event store runs on {variant}"),
            project("acme"),
        );
    }
    let new = write(&h, MYSQL, project("acme"));
    assert_eq!(new.candidates.len(), 1, "{:?}", new.candidates);

    config.conflicts.detect = false;
    let off = Harness::with_config(factory, &config);
    write(&off, POSTGRES, project("acme"));
    assert!(write(&off, MYSQL, project("acme")).candidates.is_empty());
    assert!(all_relations(&off).is_empty());
}

pub fn verdicts_settle_judgments_keep_history_and_refuse_bad_input(factory: StoreFactory) {
    let h = Harness::new(factory);
    write(&h, POSTGRES, project("acme"));
    let new = write(&h, MYSQL, project("acme"));
    let judgment = RelationRef::Full(new.candidates[0].judgment_id);

    let before = all_relations(&h);
    let refusals = [
        (NewVerdict::default(), "relation"),
        (
            NewVerdict {
                confidence: Some(f64::NAN),
                ..verdict(RelationKind::Supersedes)
            },
            "confidence",
        ),
        (
            NewVerdict {
                reason: Some("x".repeat(2_001)),
                ..verdict(RelationKind::Supersedes)
            },
            "reason",
        ),
    ];
    for (bad, field) in refusals {
        let err = h.domains().relations().judge(&judgment, bad).unwrap_err();
        assert_eq!(err.field(), Some(field), "{err}");
    }
    let unknown = RelationRef::parse("00000000-0000-4000-8000-000000000000").unwrap();
    let err = h
        .domains()
        .relations()
        .judge(&unknown, verdict(RelationKind::Supersedes))
        .unwrap_err();
    assert!(matches!(err, Error::Missing { .. }), "{err}");
    assert_eq!(err.field(), Some("judgment_id"));
    assert_eq!(
        all_relations(&h),
        before,
        "a refused verdict changed something"
    );
    assert!("superseded".parse::<RelationKind>().is_err());

    let judged = h
        .domains()
        .relations()
        .judge(
            &judgment,
            NewVerdict {
                confidence: Some(1.7),
                evidence: Some("migration PR #412".into()),
                ..verdict(RelationKind::Supersedes)
            },
        )
        .unwrap();
    let current = judged.relation.verdict.clone().unwrap();
    assert_eq!(current.relation, RelationKind::Supersedes);
    assert_eq!(current.confidence, Some(1.0), "confidence is clamped");
    assert_eq!(current.actor.name.as_deref(), Some("claude-code"));
    assert!(judged.relation.history.is_empty());

    // The same verdict again changes nothing; another one keeps the first in the history.
    let same = h
        .domains()
        .relations()
        .judge(
            &judgment,
            NewVerdict {
                confidence: Some(1.0),
                evidence: Some("migration PR #412".into()),
                ..verdict(RelationKind::Supersedes)
            },
        )
        .unwrap();
    assert_eq!(same, judged);
    h.clock.advance(jiff::Span::new().minutes(5));
    let handle = RelationRef::parse(&judged.relation.id.handle()).unwrap();
    let rejudged = h
        .domains()
        .relations()
        .judge(&handle, verdict(RelationKind::ConflictsWith))
        .unwrap();
    assert_eq!(rejudged.relation.kind(), Some(RelationKind::ConflictsWith));
    assert_eq!(rejudged.relation.history, vec![current]);
    assert!(rejudged.relation.updated_at > judged.relation.updated_at);
}

pub fn compare_is_idempotent_per_actor_and_refuses_cross_project_pairs(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = write(
        &h,
        "Staging runs on a single t3.medium node",
        project("acme"),
    )
    .memory;
    let new = write(
        &h,
        "Staging moved to two spot nodes behind an ALB",
        project("acme"),
    )
    .memory;
    let elsewhere = write(
        &h,
        "Staging runs on a single t3.medium node",
        project("other"),
    )
    .memory;
    let (a, b) = (by_ref(&new), by_ref(&old));

    let first = h
        .domains()
        .relations()
        .compare(&a, &b, verdict(RelationKind::Supersedes))
        .unwrap();
    assert_eq!(first.status, CompareStatus::Created);
    let again = h
        .domains()
        .relations()
        .compare(&a, &b, verdict(RelationKind::Supersedes))
        .unwrap();
    assert_eq!(again.status, CompareStatus::Unchanged);
    let changed = h
        .domains()
        .relations()
        .compare(&a, &b, verdict(RelationKind::Scoped))
        .unwrap();
    assert_eq!(changed.status, CompareStatus::Updated);
    assert_eq!(changed.relation.as_ref().unwrap().relation.history.len(), 1);
    // Another actor's verdict on the same pair is a row of its own.
    let user = NewVerdict {
        actor: Actor {
            kind: ActorKind::User,
            name: Some("dana".into()),
            ..Actor::default()
        },
        ..verdict(RelationKind::Supersedes)
    };
    assert_eq!(
        h.domains()
            .relations()
            .compare(&b, &a, user)
            .unwrap()
            .status,
        CompareStatus::Created
    );
    assert_eq!(all_relations(&h).len(), 2);

    let before = all_relations(&h);
    let dismissed = h
        .domains()
        .relations()
        .compare(&a, &b, verdict(RelationKind::NotConflict))
        .unwrap();
    assert_eq!(dismissed.status, CompareStatus::NotRecorded);
    let across = h
        .domains()
        .relations()
        .compare(&a, &by_ref(&elsewhere), verdict(RelationKind::Supersedes))
        .unwrap_err();
    assert_eq!(across.field(), Some("b"), "{across}");
    assert!(across.to_string().contains("across projects"), "{across}");
    let itself = h
        .domains()
        .relations()
        .compare(&a, &a, verdict(RelationKind::Supersedes))
        .unwrap_err();
    assert_eq!(itself.field(), Some("b"));
    assert_eq!(
        all_relations(&h),
        before,
        "a refused comparison changed something"
    );
}

fn search(h: &Harness, query: &str) -> Vec<(Memory, Vec<String>)> {
    let request = SearchRequest {
        fuzzy: FuzzyMode::Never,
        ..SearchRequest::new(query, MemoryFilter::default(), 10)
    };
    h.api
        .search_request(&local(), &request)
        .unwrap()
        .hits
        .into_iter()
        .map(|hit| {
            let lines = hit.annotations.iter().map(|a| a.to_string()).collect();
            (hit.memory, lines)
        })
        .collect()
}

pub fn search_results_carry_annotations_and_superseded_memories_rank_below_successors(
    factory: StoreFactory,
) {
    let h = Harness::new(factory);
    // The old fact matches the query better by words alone.
    let old = write(
        &h,
        "Event store: PostgreSQL. The event store is PostgreSQL, event store backups nightly",
        project("acme"),
    )
    .memory;
    let new = write(&h, "The event store moved to MySQL", project("acme"));
    let judgment = new.candidates[0].judgment_id;
    let new = new.memory;
    let (o, n) = (old.id.handle(), new.id.handle());

    let pending = search(&h, "event store");
    assert_eq!(pending[0].0.id, old.id, "pending changes no ranking");
    assert_eq!(
        pending[0].1,
        vec![format!("conflict: contested by #{n} (pending)")]
    );
    assert_eq!(
        pending[1].1,
        vec![format!("conflict: contested by #{o} (pending)")]
    );
    // A judgment left pending past `conflicts.annotate_pending_days` (14) stops marking its
    // memories, and is still listed.
    h.clock.advance(jiff::Span::new().hours(24 * 14 + 1));
    let stale = search(&h, "event store");
    assert!(stale.iter().all(|(_, lines)| lines.is_empty()), "{stale:?}");
    assert_eq!(all_relations(&h).len(), 1);

    h.domains()
        .relations()
        .judge(
            &RelationRef::Full(judgment),
            verdict(RelationKind::Supersedes),
        )
        .unwrap();
    let judged = search(&h, "event store");
    let order: Vec<_> = judged.iter().map(|(m, _)| m.id).collect();
    assert_eq!(order, vec![new.id, old.id], "the successor ranks first");
    assert_eq!(
        judged[0].1,
        vec![format!("supersedes: #{o} ({})", old.headline())]
    );
    assert_eq!(
        judged[1].1,
        vec![format!(
            "superseded_by: #{n} (The event store moved to MySQL)"
        )]
    );

    // Forgotten, the successor is gone from results and the old memory names it deleted.
    h.api.forget(&local(), &new.id.to_string(), false).unwrap();
    let after = search(&h, "event store");
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].1, vec![format!("superseded_by: #{n} (deleted)")]);

    // conflicts_with reads the same on both sides.
    let x = write(
        &h,
        "Release builds use LTO fat and one codegen unit",
        project("acme"),
    )
    .memory;
    let y = write(
        &h,
        "Release builds use thin LTO to keep link times short",
        project("acme"),
    )
    .memory;
    h.domains()
        .relations()
        .compare(
            &by_ref(&y),
            &by_ref(&x),
            verdict(RelationKind::ConflictsWith),
        )
        .unwrap();
    let lines: Vec<Vec<String>> = search(&h, "release builds LTO")
        .into_iter()
        .map(|(_, lines)| lines)
        .collect();
    assert!(lines.contains(&vec![format!(
        "conflicts: #{} ({})",
        y.id.handle(),
        y.headline()
    )]));
    assert!(lines.contains(&vec![format!(
        "conflicts: #{} ({})",
        x.id.handle(),
        x.headline()
    )]));
}

pub fn purging_a_memory_deletes_its_relations_and_forgetting_keeps_them(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = write(&h, POSTGRES, project("acme")).memory;
    let new = write(&h, MYSQL, project("acme")).memory;
    assert_eq!(all_relations(&h).len(), 1);
    h.api.forget(&local(), &old.id.to_string(), false).unwrap();
    let kept = all_relations(&h);
    assert_eq!(kept.len(), 1);
    assert_eq!(
        kept[0].target_title, None,
        "a forgotten memory reads as deleted"
    );
    assert_eq!(kept[0].source_title.as_deref(), Some(MYSQL));
    h.api.forget(&local(), &old.id.to_string(), true).unwrap();
    assert!(all_relations(&h).is_empty());
    assert!(
        h.domains()
            .relations()
            .relations_of(&[new.id])
            .unwrap()
            .is_empty()
    );
}

pub fn scan_finds_pairs_never_related_and_records_them_only_when_applied(factory: StoreFactory) {
    let mut config = Config::default();
    config.conflicts.detect = false;
    let h = Harness::with_config(factory, &config);
    let old = write(&h, POSTGRES, project("acme")).memory;
    h.clock.advance(jiff::Span::new().seconds(1));
    let new = write(&h, MYSQL, project("acme")).memory;
    write(
        &h,
        "Prefer tabs in Makefiles, spaces elsewhere",
        project("acme"),
    );
    assert!(all_relations(&h).is_empty());

    let mut seen = Vec::new();
    let dry = h
        .domains()
        .relations()
        .scan(&project("acme"), false, 10, &mut |done, total| {
            seen.push((done, total))
        })
        .unwrap();
    assert_eq!(dry.memories, 3);
    assert_eq!(seen.last(), Some(&(3, 3)));
    assert_eq!(dry.pairs.len(), 1, "{:?}", dry.pairs);
    assert_eq!((dry.pairs[0].source, dry.pairs[0].target), (new.id, old.id));
    assert_eq!(dry.recorded, 0);
    assert!(all_relations(&h).is_empty(), "a dry run writes nothing");

    let applied = h
        .domains()
        .relations()
        .scan(&project("acme"), true, 10, &mut |_, _| {})
        .unwrap();
    assert_eq!(applied.recorded, 1);
    let relations = all_relations(&h);
    assert_eq!(relations.len(), 1);
    assert_eq!(Some(relations[0].relation.id), applied.pairs[0].judgment_id);
    let again = h
        .domains()
        .relations()
        .scan(&project("acme"), true, 10, &mut |_, _| {})
        .unwrap();
    assert!(again.pairs.is_empty(), "a related pair is not found again");
}

pub fn stats_count_relations_by_status_and_kind(factory: StoreFactory) {
    let h = Harness::new(factory);
    write(&h, POSTGRES, project("acme"));
    let new = write(&h, MYSQL, project("acme"));
    let a = write(
        &h,
        "Staging runs on a single t3.medium node",
        project("acme"),
    )
    .memory;
    let b = write(
        &h,
        "Staging moved to two spot nodes behind an ALB",
        project("acme"),
    )
    .memory;
    h.domains()
        .relations()
        .compare(&by_ref(&b), &by_ref(&a), verdict(RelationKind::Supersedes))
        .unwrap();
    let pending = h
        .domains()
        .relations()
        .list(&RelationFilter {
            status: Some(RelationStatus::Pending),
            limit: 10,
            ..RelationFilter::default()
        })
        .unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].relation.id, new.candidates[0].judgment_id);
    let stats = h
        .domains()
        .relations()
        .stats(Some(&project("acme")))
        .unwrap();
    assert_eq!((stats.total, stats.pending, stats.judged), (2, 1, 1));
    assert_eq!(stats.by_relation.len(), 1);
    assert_eq!(stats.by_relation[0].name, "supersedes");
    assert_eq!(
        h.domains()
            .relations()
            .stats(Some(&project("other")))
            .unwrap()
            .total,
        0
    );
}

pub fn facts_extracted_from_agents_record_candidates_by_words(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = write(&h, POSTGRES, project("acme")).memory;
    let outcomes = h
        .api
        .extract(
            &local(),
            &format!("Done.\n*Remember*: {MYSQL}\n"),
            project("acme"),
            Some("claude-code".into()),
            None,
        )
        .unwrap();
    assert_eq!(outcomes.len(), 1);
    let ids: Vec<_> = outcomes[0].candidates.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![old.id]);
}

pub fn context_shows_a_successor_instead_of_the_memory_it_replaced(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut old = NewMemory::new(POSTGRES, project("acme"), Source::Cli);
    old.category = crate::memory::Category::Decision;
    old.importance = Some(5);
    let old = h.api.write(&local(), old, None).unwrap().memory;
    let request = crate::context::ContextRequest {
        project: Some(crate::scope::ProjectName::new("acme").unwrap()),
        budget: 2_000,
        ..Default::default()
    };
    let ids = |h: &Harness| -> Vec<crate::id::MemoryId> {
        h.api
            .context_request(&local(), &request)
            .unwrap()
            .items
            .iter()
            .map(|i| i.id)
            .collect()
    };
    let new = write(&h, MYSQL, project("acme"));
    assert!(ids(&h).contains(&old.id), "pending changes nothing");
    h.domains()
        .relations()
        .judge(
            &RelationRef::Full(new.candidates[0].judgment_id),
            verdict(RelationKind::Supersedes),
        )
        .unwrap();
    let shown = ids(&h);
    assert!(shown.contains(&new.memory.id), "{shown:?}");
    assert!(
        !shown.contains(&old.id),
        "the stale memory is left out: {shown:?}"
    );
    // In the stale memory's place (important decisions), ahead of merely recent ones.
    let context = h.api.context_request(&local(), &request).unwrap();
    assert_eq!(context.items[0].id, new.memory.id);
}

pub fn imported_plain_records_record_candidates_by_words(factory: StoreFactory) {
    let h = Harness::new(factory);
    let old = write(&h, POSTGRES, project("acme")).memory;
    let line = serde_json::json!({"content": MYSQL, "project": "acme"}).to_string();
    let report = h.import(&line).unwrap();
    assert_eq!(report.memories.created, 1);
    assert_eq!((report.conflict_candidates, report.unchecked), (1, 0));
    let relations = all_relations(&h);
    assert_eq!(relations.len(), 1);
    assert_eq!(relations[0].relation.target, old.id);
    // Importing the same again stores nothing and finds nothing new.
    let again = h.import(&line).unwrap();
    assert_eq!(again.conflict_candidates, 0);
    assert_eq!(all_relations(&h).len(), 1);
}
