//! The suite's exchange behaviours: everything a store holds survives export and import byte
//! for byte, plain records are stored like new memories, and a bad or cut-off file imports
//! nothing.

use jiff::Span;
use serde_json::json;

use super::session::{key, record_session};
use super::{Harness, StoreFactory, by_ref, local, project, tags};
use crate::error::{Error, RecordAt};
use crate::exchange::Header;
use crate::exchange::format::VERSION;
use crate::id::RelationRef;
use crate::memory::{Category, MemoryFilter, NewMemory, Source, Visibility};
use crate::relation::{NewVerdict, RelationKind};
use crate::scope::{ProjectName, Scope};
use crate::slot::{DEFAULT_SLOTS, NewSlot, PENDING_ITEMS, SlotAddress, SlotLabel, SlotScope};

fn acme() -> ProjectName {
    ProjectName::new("acme").expect("valid project")
}

fn address(label: &str, scope: SlotScope) -> SlotAddress {
    SlotAddress {
        label: SlotLabel::new(label).expect("valid label"),
        project: Some(acme()),
        scope: Some(scope),
    }
}

/// Memories with history, both kinds of slot (one appended default, one deleted default, one
/// of the user's own), and two sessions with their observations.
fn full_store(h: &Harness) {
    let mut topic = NewMemory::new("api rate limit is 100/min", project("acme"), Source::Mcp);
    topic.topic_key = Some("rate-limit".into());
    h.api.write(&local(), topic.clone(), None).unwrap();
    h.clock.advance(Span::new().seconds(3));
    topic.content = "api rate limit is 500/min".into();
    h.api.write(&local(), topic, None).unwrap();
    h.add("prefers tabs", &["style"]);
    // A pending judgment, settled: a relation with a verdict and one earlier verdict.
    let spaces = h.add("prefers spaces now, in python", &["style"]);
    let judgment = relation_of(h, &spaces);
    for relation in [RelationKind::Related, RelationKind::Scoped] {
        h.domains()
            .relations()
            .judge(
                &RelationRef::Full(judgment),
                NewVerdict {
                    relation: Some(relation),
                    reason: Some("python only".into()),
                    confidence: Some(0.8),
                    ..NewVerdict::default()
                },
            )
            .unwrap();
    }

    let pending = address(PENDING_ITEMS, SlotScope::Project);
    h.domains()
        .slots()
        .append_slot(&pending, "- ship the importer")
        .unwrap();
    h.domains()
        .slots()
        .delete_slot(&address("persona", SlotScope::Global))
        .unwrap();
    h.domains()
        .slots()
        .create_slot(NewSlot {
            label: "runbook".into(),
            scope: Scope::Global,
            content: "restart with `make up`".into(),
            description: Some("How to bring the stack back".into()),
            limit: Some(500),
            pinned: true,
            read_only: true,
        })
        .unwrap();
    record_session(h, "s1");
    record_session(h, "s2");
}

/// The judgment the write of `memory` recorded.
fn relation_of(h: &Harness, memory: &crate::memory::Memory) -> crate::id::RelationId {
    let relations = h.domains().relations().relations_of(&[memory.id]).unwrap();
    assert_eq!(relations.len(), 1, "{relations:?}");
    relations[0].relation.id
}

fn header(export: &str) -> Header {
    serde_json::from_str(export.lines().next().expect("a header line")).expect("a header")
}

pub fn everything_a_store_holds_round_trips_byte_for_byte(factory: StoreFactory) {
    let source = Harness::new(factory);
    full_store(&source);
    let exported = source.export();
    let counts = header(&exported).counts;
    assert_eq!(counts.sessions, 2);
    // Three memories and the two sessions' summaries.
    assert_eq!(counts.memories, 5, "{counts:?}");
    assert_eq!(counts.relations, 1, "{counts:?}");
    // Every default, seeded once (global and acme), less the deleted persona, plus runbook.
    assert_eq!(
        counts.slots,
        DEFAULT_SLOTS.len() as u64 - 1 + 1,
        "{counts:?}"
    );
    assert_eq!(counts.slot_seeds, 2, "{counts:?}");
    assert_eq!(counts.observations, 8, "{counts:?}");
    assert_eq!(
        exported.lines().count() as u64,
        1 + counts.named().iter().map(|(_, n)| n).sum::<u64>()
    );

    let target = Harness::new(factory);
    let report = target.import(&exported).unwrap();
    assert_eq!(report.records, exported.lines().count() as u64 - 1);
    assert_eq!(report.slots.created, counts.slots);
    assert_eq!(report.relations.created, 1);
    assert_eq!(report.observations.created, counts.observations);
    assert_eq!(target.export(), exported);
    let pending = address(PENDING_ITEMS, SlotScope::Project);
    assert_eq!(
        target.domains().slots().slot(&pending).unwrap().content,
        "- ship the importer"
    );
    let deleted = target
        .api
        .domains
        .slots()
        .slot(&address("persona", SlotScope::Global));
    assert!(deleted.is_err(), "a deleted default stays deleted");
    assert_eq!(
        target.api.observations(&local(), &key("s1")).unwrap(),
        source.api.observations(&local(), &key("s1")).unwrap()
    );

    let again = target.import(&exported).unwrap();
    for (kind, counted) in again.kinds() {
        assert_eq!((kind, counted.created, counted.updated), (kind, 0, 0));
    }
    assert_eq!(target.export(), exported);
}

pub fn an_export_without_sessions_leaves_them_out(factory: StoreFactory) {
    let h = Harness::new(factory);
    full_store(&h);
    let mut out = Vec::new();
    h.api
        .export(&local(), Default::default(), &mut |line| {
            out.extend_from_slice(line);
            Ok(())
        })
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    let head = header(&text);
    assert!(!head.sessions);
    assert_eq!((head.counts.sessions, head.counts.observations), (0, 0));
    assert!(!text.contains(r#""type":"session""#));
    assert!(!text.contains(r#""type":"observation""#));
    let target = Harness::new(factory);
    target.import(&text).unwrap();
    assert_eq!(target.count_all(), h.count_all());
}

pub fn plain_records_are_stored_like_new_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    let full = h.add("already stored, exported in full", &[]);
    let full_line = serde_json::to_string(&crate::memory::MemoryRecord {
        memory: full.clone(),
        revisions: vec![],
    })
    .unwrap();
    let target = Harness::new(factory);
    let lines = [
        r#"{"content": "Deploys go out on Wednesdays", "tags": ["Release"], "category": "decision"}"#.to_string(),
        full_line,
        r#"{"content": "token ghp_0123456789abcdefghijABCDEFGHIJ012345", "project": "acme", "title": "CI"}"#.into(),
        r#"{"content": "written last year", "created_at": "2025-03-01T09:00:00Z", "entered_by": "notes", "importance": 4}"#.into(),
        r#"{"content": "expires soon", "expires": "in 3 days"}"#.into(),
    ];
    let report = target.import(&lines.join("\n")).unwrap();
    assert_eq!((report.records, report.memories.created), (5, 5));
    let all = target.list(MemoryFilter {
        visibility: Visibility::VISIBLE,
        ..Default::default()
    });
    let by_content = |text: &str| {
        all.iter()
            .find(|m| m.content.starts_with(text))
            .unwrap_or_else(|| panic!("{text} imported"))
    };
    let deploys = by_content("Deploys");
    assert_eq!(deploys.category, Category::Decision);
    assert_eq!(deploys.tags[0].as_str(), "release");
    assert_eq!(
        deploys.scope,
        Scope::Global,
        "the default scope of this import"
    );
    assert_eq!(deploys.source, Source::Import);
    let secret = by_content("token");
    assert_eq!(secret.content, "token [REDACTED]");
    assert_eq!(secret.scope, project("acme"));
    let old = by_content("written last year");
    assert_eq!(old.created_at.to_string(), "2025-03-01T09:00:00Z");
    assert_eq!(
        (old.importance.get(), old.entered_by.as_deref()),
        (4, Some("notes"))
    );
    let soon = by_content("expires soon");
    assert_eq!(soon.expires_at, Some(h.now() + Span::new().hours(72)));
    assert!(all.contains(&full), "the full record keeps its id");

    // The same file again: every plain record is a duplicate, the full one is unchanged.
    let again = target.import(&lines.join("\n")).unwrap();
    assert_eq!((again.memories.created, again.memories.unchanged), (0, 5));

    // A JSON array of the same records, as a person writes it.
    let array = format!("[\n{}\n]", lines.join(",\n"));
    let fresh = Harness::new(factory);
    let from_array = fresh.import(&array).unwrap();
    assert_eq!(from_array.memories.created, 5);
}

pub fn a_bad_plain_record_anywhere_imports_nothing(factory: StoreFactory) {
    let h = Harness::new(factory);
    let kept = h.add("already here", &[]);
    let good = r#"{"content": "a fine note"}"#;
    let cases = [
        (r#"{"content": "x", "tilte": "typo"}"#, "json", "tilte"),
        (r#"{"title": "no content"}"#, "json", "content"),
        (
            r#"{"content": "x", "created_at": "next friday"}"#,
            "created_at",
            "future",
        ),
        (r#"{"content": "x", "project": "  "}"#, "project", "empty"),
        (r#"{"content": "x", "importance": 9}"#, "importance", ""),
        (r#"{"type": "widget"}"#, "type", "widget"),
    ];
    for (bad, field, says) in cases {
        let text = format!("{good}\n\n{bad}\n{good}\n");
        let error = h.import(&text).expect_err(&format!("{bad} is refused"));
        assert!(
            matches!(
                error,
                Error::ImportRecord {
                    at: RecordAt::Line(3),
                    ..
                }
            ),
            "{bad}: {error}"
        );
        assert_eq!(error.field(), Some(field), "{bad}: {error}");
        assert!(error.to_string().contains(says), "{bad}: {error}");
        assert!(
            error.to_string().contains("nothing was imported"),
            "{error}"
        );
        let after_blank_lines = format!("\n  \n{bad}\n");
        let error = h.import(&after_blank_lines).unwrap_err();
        assert!(
            matches!(
                error,
                Error::ImportRecord {
                    at: RecordAt::Line(3),
                    ..
                }
            ),
            "blank lines before the first record still count: {error}"
        );
        let array = format!("[{good}, {bad}]");
        let error = h.import(&array).unwrap_err();
        assert!(
            matches!(
                error,
                Error::ImportRecord {
                    at: RecordAt::Element(2),
                    ..
                }
            ),
            "{bad}: {error}"
        );
    }
    assert_eq!(h.count_all(), 1);
    assert_eq!(
        h.api
            .memories(&local(), &[crate::IdRef::Full(kept.id)])
            .unwrap()[0],
        kept
    );
}

/// The relation line of `full_store`'s export, and the relation it holds.
fn exported_relation(export: &str) -> (String, crate::relation::Relation) {
    let line = export
        .lines()
        .find(|l| l.starts_with(r#"{"type":"relation""#))
        .expect("a relation line");
    (line.to_string(), serde_json::from_str(line).unwrap())
}

/// The relation line `line` with its target replaced by a memory no store holds.
fn relation_to_nowhere(line: &str, relation: &crate::relation::Relation) -> String {
    let nowhere = crate::id::MemoryId::generate();
    line.replace(&relation.target.to_string(), &nowhere.to_string())
}

pub fn an_imported_relation_waits_for_its_memories_and_needs_them_in_its_scope(
    factory: StoreFactory,
) {
    let source = Harness::new(factory);
    full_store(&source);
    let exported = source.export();
    let (relation_line, relation) = exported_relation(&exported);
    let memory_lines: Vec<&str> = exported
        .lines()
        .filter(|l| l.starts_with(r#"{"type":"memory""#))
        .collect();
    let target = Harness::new(factory);
    let empty = target.export();
    let queue = |h: &Harness, status: Option<&str>| {
        let input = crate::api::DeferredInput {
            status: status.map(str::to_string),
            limit: None,
        };
        h.api.deferred_relations(&local(), &input).unwrap()
    };
    let all = crate::api::DeferredInput::default();

    // Without its memories, a relation is kept aside: the import succeeds and says so, and the
    // store's relations (and its export) do not show it.
    let alone = target.import(&relation_line).unwrap();
    assert_eq!((alone.relations_deferred, alone.relations.total()), (1, 0));
    assert_eq!(target.export(), empty);
    let waiting = queue(&target, None);
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].relation, relation);
    assert_eq!(waiting[0].status, crate::relation::DeferredStatus::Deferred);
    assert!(
        waiting[0].last_error.contains(&relation.source.to_string()),
        "{}",
        waiting[0].last_error
    );
    // The doctor tells of it, and of nothing once the queue is empty.
    let waits = |h: &Harness| {
        let report = h.api.examine(&local(), true).unwrap();
        report
            .findings
            .iter()
            .find(|f| f.found.contains("relations wait"))
            .map(|f| f.found.clone())
    };
    assert_eq!(
        waits(&target).as_deref(),
        Some("imported relations wait for their memories: 1 waiting, 0 dead")
    );
    // The same file again keeps one entry; trying again without the memories counts a try.
    target.import(&relation_line).unwrap();
    let replayed = target.api.replay_deferred(&local()).unwrap();
    assert_eq!(
        (replayed.retried, replayed.applied, replayed.waiting),
        (1, 0, 1)
    );
    let waiting = queue(&target, None);
    assert_eq!((waiting.len(), waiting[0].attempts), (1, 1));
    // A project token reaches neither the queue nor a replay: it spans every project.
    let reader = super::token_caller(&target.api, "acme", crate::access::Right::Write);
    for error in [
        target.api.deferred_relations(&reader, &all).unwrap_err(),
        target.api.replay_deferred(&reader).unwrap_err(),
    ] {
        assert!(matches!(error, Error::Forbidden { .. }), "{error}");
    }

    // Its memories arrive with a later import: the relation is applied, verdicts and all, and
    // leaves the queue.
    let arrived = target.import(&memory_lines.join("\n")).unwrap();
    assert_eq!(
        (arrived.deferred_applied, arrived.relations_deferred),
        (1, 0)
    );
    assert!(queue(&target, None).is_empty());
    assert_eq!(waits(&target), None);
    let applied = target
        .api
        .conflict(&local(), &relation.id.to_string())
        .unwrap();
    assert_eq!(applied.relation, relation);
    let logged = target
        .api
        .audit(&local(), crate::api::AuditInput::default())
        .unwrap();
    assert!(
        logged[0]
            .entry
            .detail
            .contains("deferred relations 1 applied"),
        "{:?}",
        logged[0]
    );

    // A relation whose memories are both here but in other scopes is refused outright.
    let elsewhere = target
        .api
        .write(
            &local(),
            NewMemory::new("prefers tabs, in go", project("other"), Source::Cli),
            None,
        )
        .unwrap()
        .memory;
    let moved = relation_line.replace(&relation.target.to_string(), &elsewhere.id.to_string());
    let error = target.import(&moved).unwrap_err();
    assert_eq!(error.field(), Some("target"), "{error}");
    assert!(error.to_string().contains("across projects"), "{error}");
    // ... and when that memory comes after the relation, the waiting relation is marked dead
    // (no later import can mend it), kept to be read, and discarded by hand.
    let late = Harness::new(factory);
    late.import(&relation_line).unwrap();
    let in_other_project: Vec<String> = memory_lines
        .iter()
        .map(
            |line| match line.contains(&format!(r#""id":"{}""#, relation.target)) {
                true => line.replace(r#""project":"acme""#, r#""project":"other""#),
                false => line.to_string(),
            },
        )
        .collect();
    let report = late.import(&in_other_project.join("\n")).unwrap();
    assert_eq!(report.deferred_applied, 0);
    assert!(queue(&late, Some("deferred")).is_empty());
    let dead = queue(&late, Some("dead"));
    assert_eq!(dead.len(), 1);
    assert!(
        dead[0].last_error.contains("across projects"),
        "{}",
        dead[0].last_error
    );
    let id = relation.id.to_string();
    assert_eq!(late.api.deferred_relation(&local(), &id).unwrap(), dead[0]);
    assert_eq!(late.api.discard_deferred(&local(), &id).unwrap(), dead[0]);
    assert!(queue(&late, None).is_empty());
    let gone = late.api.discard_deferred(&local(), &id).unwrap_err();
    assert_eq!(gone.field(), Some("id"), "{gone}");
    let short = late.api.deferred_relation(&local(), &id[..8]).unwrap_err();
    assert!(short.to_string().contains("full judgment id"), "{short}");
    for (field, input) in [
        ("limit", json!({"limit": 501})),
        ("limit", json!({"limit": 0})),
        ("status", json!({"status": "stuck"})),
    ] {
        let input = serde_json::from_value(input).unwrap();
        let error = late.api.deferred_relations(&local(), &input).unwrap_err();
        assert_eq!(error.field(), Some(field), "{error}");
    }

    // Purging a memory a waiting relation names drops it from the queue with its relations.
    let purged = Harness::new(factory);
    let source_line = memory_lines
        .iter()
        .find(|line| line.contains(&format!(r#""id":"{}""#, relation.source)))
        .expect("the relation's source memory");
    purged
        .import(&format!(
            "{source_line}\n{}",
            relation_to_nowhere(&relation_line, &relation)
        ))
        .unwrap();
    // It came with its source: tried once at the end of that import, it still waits for its
    // target; an import of an unrelated memory does not read it again.
    assert_eq!(queue(&purged, None)[0].attempts, 1);
    purged
        .import(r#"{"content": "an unrelated note"}"#)
        .unwrap();
    let unrelated = memory_lines
        .iter()
        .find(|line| !line.contains(&format!(r#""id":"{}""#, relation.source)))
        .expect("another memory");
    purged.import(unrelated).unwrap();
    assert_eq!(queue(&purged, None)[0].attempts, 1);
    purged
        .api
        .forget(&local(), &relation.source.to_string(), true)
        .unwrap();
    assert!(queue(&purged, None).is_empty());
}

pub fn a_header_guards_against_cut_off_and_newer_files(factory: StoreFactory) {
    let source = Harness::new(factory);
    full_store(&source);
    let exported = source.export();
    let target = Harness::new(factory);

    let mut lines: Vec<&str> = exported.lines().collect();
    lines.pop();
    let error = target.import(&lines.join("\n")).unwrap_err();
    assert_eq!(error.field(), Some("counts"), "{error}");
    assert!(error.to_string().contains("incomplete"), "{error}");
    let empty = Harness::new(factory).export();
    assert_eq!(
        target.export(),
        empty,
        "nothing of the cut-off file was kept"
    );

    let newer = exported.replacen(
        &format!(r#""version":{VERSION}"#),
        &format!(r#""version":{}"#, VERSION + 1),
        1,
    );
    let error = target.import(&newer).unwrap_err();
    assert_eq!(error.field(), Some("version"), "{error}");
    assert!(error.to_string().contains("upgrade cairn"), "{error}");

    let mut late: Vec<&str> = exported.lines().collect();
    late.swap(0, 1);
    let error = target.import(&late.join("\n")).unwrap_err();
    assert!(
        matches!(
            error,
            Error::ImportRecord {
                at: RecordAt::Line(2),
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(target.count_all(), 0);
}

pub fn an_imported_slot_replaces_an_untouched_default_but_not_a_newer_edit(factory: StoreFactory) {
    let source = Harness::new(factory);
    let pending = address(PENDING_ITEMS, SlotScope::Project);
    source
        .api
        .domains
        .slots()
        .append_slot(&pending, "- from the old machine")
        .unwrap();
    let exported = source.export();

    // The new store was opened once: its defaults exist, empty, newer than the export.
    let target = Harness::new(factory);
    target.clock.advance(Span::new().hours(1));
    assert_eq!(target.domains().slots().slot(&pending).unwrap().content, "");
    let report = target.import(&exported).unwrap();
    // Only pending_items was ever written in the old store; the other defaults are equal.
    assert_eq!(report.slots.updated, 1, "{report:?}");
    assert_eq!(
        target.domains().slots().slot(&pending).unwrap().content,
        "- from the old machine"
    );

    // An edit made after the export is newer: importing the old file again keeps it.
    target.clock.advance(Span::new().hours(1));
    target
        .api
        .domains
        .slots()
        .append_slot(&pending, "- new here")
        .unwrap();
    target.import(&exported).unwrap();
    assert_eq!(
        target.domains().slots().slot(&pending).unwrap().content,
        "- from the old machine\n- new here"
    );
}

pub fn an_observation_needs_its_session_first(factory: StoreFactory) {
    let source = Harness::new(factory);
    record_session(&source, "s1");
    let exported = source.export();
    let orphans: Vec<&str> = exported
        .lines()
        .filter(|line| line.contains(r#""type":"observation""#))
        .collect();
    let target = Harness::new(factory);
    let error = target.import(&orphans.join("\n")).unwrap_err();
    assert_eq!(error.field(), Some("session"), "{error}");
    assert!(target.api.session_by_key(&local(), &key("s1")).is_err());
}

pub fn a_whole_store_moves_into_another_and_a_second_run_changes_nothing(factory: StoreFactory) {
    use crate::access::{NewToken, Right};
    use crate::embedding::{MemoryVector, ModelIdentity, SentenceVectors, VectorSpace};
    use crate::exchange::{ExportItem, MigrateStage, migrate};

    let source = Harness::new(factory);
    full_store(&source);
    // Vectors of a made-up model for every memory.
    let mut memories = Vec::new();
    source
        .api
        .backend()
        .export(false, &mut |item| {
            if let ExportItem::Memory(memory, _) = item {
                memories.push((memory.id, memory.updated_at));
            }
            Ok(())
        })
        .unwrap();
    let model = ModelIdentity {
        name: "suite-model".into(),
        dimensions: 3,
        weights_sha256: "ab".repeat(32),
    };
    let vectors: Vec<_> = memories
        .iter()
        .enumerate()
        .map(|(i, (id, at))| MemoryVector {
            id: *id,
            updated_at: *at,
            vector: vec![i as f32 + 0.125, 0.5, -1.25],
            // Every other memory has sentence vectors: they move with it.
            sentences: match i % 2 {
                0 => SentenceVectors::encode(&[vec![0.6, 0.8, 0.0], vec![0.0, i as f32, 1.0]]),
                _ => SentenceVectors::default(),
            },
        })
        .collect();
    source
        .api
        .backend()
        .write(&mut |tx| {
            tx.set_embedding_model(VectorSpace::Text, &model)?;
            tx.put_embeddings(VectorSpace::Text, &vectors)?;
            Ok(())
        })
        .unwrap();

    // Two tokens, one revoked: both move with their hashes.
    for right in [Right::Read, Right::Write] {
        source
            .api
            .issue_token(
                &local(),
                NewToken {
                    project: acme(),
                    right,
                    name: None,
                },
            )
            .unwrap();
    }
    let first = source.api.tokens(&local()).unwrap()[0].id.clone();
    source.api.revoke_token(&local(), first.as_str()).unwrap();

    // A relation waiting for a memory moves as it waits.
    let (relation_line, relation) = exported_relation(&source.export());
    let waiting = source
        .import(&relation_to_nowhere(&relation_line, &relation).replace(
            &relation.id.to_string(),
            &crate::id::RelationId::generate().to_string(),
        ))
        .unwrap();
    assert_eq!(waiting.relations_deferred, 1);

    let target = Harness::new(factory);
    let limits = crate::config::Limits::default();
    let (from, to) = (source.api.backend(), target.api.backend());
    let mut stages = Vec::new();
    let now = super::start_time().timestamp();
    let report = migrate(from, to, &limits, now, &mut |p| stages.push(p.stage)).unwrap();
    assert_eq!(report.deferred_relations, 1);
    let all = crate::relation::DeferredFilter {
        status: None,
        limit: 10,
    };
    assert_eq!(
        to.deferred_relations(&all).unwrap(),
        from.deferred_relations(&all).unwrap()
    );
    assert!(report.verified(), "{:?}", report.check);
    assert_eq!(report.moved.memories.created, memories.len() as u64);
    assert_eq!(report.moved.observations.created, 8);
    assert_eq!(report.vectors, memories.len() as u64);
    assert_eq!(
        report.check.len(),
        8,
        "six kinds, tokens and one vector space"
    );
    assert_eq!(report.tokens, 2);
    assert_eq!(
        to.access_tokens_with_hashes().unwrap(),
        from.access_tokens_with_hashes().unwrap()
    );
    for stage in [
        MigrateStage::Records,
        MigrateStage::Vectors,
        MigrateStage::Check,
    ] {
        assert!(stages.contains(&stage), "{stages:?}");
    }
    assert_eq!(target.export(), source.export());
    let ids: Vec<_> = memories.iter().map(|(id, _)| *id).collect();
    let sorted = |store: &dyn crate::store::Store| {
        let mut found = store.vectors(VectorSpace::Text, &ids).unwrap();
        found.sort_by_key(|(id, _)| *id);
        found
    };
    assert_eq!(sorted(to), sorted(from));
    let sentences = |store: &dyn crate::store::Store| {
        let mut found = store.sentence_vectors(VectorSpace::Text, &ids).unwrap();
        found.sort_by_key(|(id, _)| *id);
        found
    };
    let moved = sentences(to);
    assert_eq!(moved.len(), memories.len().div_ceil(2));
    assert_eq!(moved, sentences(from));
    assert_eq!(to.embedding_model(VectorSpace::Text).unwrap(), Some(model));
    assert_eq!(
        to.embedding_counts(VectorSpace::Text).unwrap(),
        from.embedding_counts(VectorSpace::Text).unwrap()
    );

    // A second run (an interrupted move, resumed) finds everything there and writes nothing.
    let again = migrate(from, to, &limits, now, &mut |_| {}).unwrap();
    for (kind, counted) in again.moved.kinds() {
        assert_eq!((kind, counted.created, counted.updated), (kind, 0, 0));
    }
    assert_eq!(again.tokens, 0);
    assert!(again.verified(), "{:?}", again.check);

    // The check sees what differs: a memory only the target holds.
    target.add("only the target knows this", &[]);
    let differs = migrate(from, to, &limits, now, &mut |_| {}).unwrap();
    assert!(!differs.verified());
    let wrong: Vec<&str> = differs
        .check
        .iter()
        .filter(|kind| !kind.same)
        .map(|kind| kind.kind.as_str())
        .collect();
    assert_eq!(wrong, ["memories"]);

    let error = migrate(from, from, &limits, now, &mut |_| {}).unwrap_err();
    assert_eq!(error.field(), Some("to"));
}

/// Memory records in a row are written together (`RecordWriter`), in runs of
/// [`MEMORY_RUN`](crate::exchange::import::MEMORY_RUN): the store must end exactly as when each
/// record is imported on its own — new ids with their revisions, tags and index entries, an id
/// already stored (revised), an id repeated within a run and across runs, an older repeat, and a
/// plain record after them that duplicates one of them.
pub fn memory_records_written_together_end_as_written_one_by_one(factory: StoreFactory) {
    use crate::memory::{MemoryRecord, Revision};
    const NEW: usize = 1_100;
    let stamp = |h: &Harness, seconds: i64| h.now() + Span::new().seconds(seconds);
    let batched = Harness::new(factory);
    let alone = Harness::new(factory);
    let stored = batched.add("stored before the import", &["db"]);
    let stored_alone = alone
        .import(
            &serde_json::to_string(&MemoryRecord {
                memory: stored.clone(),
                revisions: vec![],
            })
            .unwrap(),
        )
        .unwrap();
    assert_eq!(stored_alone.memories.created, 1);

    let record = |index: usize, seconds: i64, words: &str| {
        let mut memory = stored.clone();
        memory.id = crate::id::MemoryId::generate();
        memory.content = format!("bulk memory marker{index} {words}");
        memory.tags = tags(&["bulk", &format!("group{}", index % 7)]);
        memory.created_at = stamp(&batched, seconds);
        memory.updated_at = memory.created_at;
        if index == 1_000 {
            memory.scope = Scope::Global;
        }
        let revisions = (1..=u32::from(index.is_multiple_of(100)) * 2)
            .map(|number| Revision {
                number,
                content: format!("earlier state {number} of marker{index}"),
                title: None,
                category: memory.category,
                tags: vec![],
                importance: memory.importance,
                expires_at: None,
                written_at: stamp(&batched, i64::from(number) - 10),
            })
            .collect();
        MemoryRecord { memory, revisions }
    };
    let records: Vec<MemoryRecord> = (0..NEW).map(|i| record(i, 1, "about postgres")).collect();
    let line = |record: &MemoryRecord| serde_json::to_string(record).unwrap();
    let mut lines: Vec<String> = records.iter().map(line).collect();
    let mut revised = records[3].clone();
    revised.memory.content = "bulk memory marker3 revised later in the same run".into();
    revised.memory.updated_at = stamp(&batched, 20);
    lines.insert(10, line(&revised));
    let mut across = records[0].clone();
    across.memory.content = "bulk memory marker0 revised in a later run".into();
    across.memory.updated_at = stamp(&batched, 30);
    lines.insert(700, line(&across));
    let mut older = records[5].clone();
    older.memory.content = "an older state of marker5".into();
    older.memory.updated_at = stamp(&batched, -60);
    lines.insert(800, line(&older));
    let mut known = MemoryRecord {
        memory: stored.clone(),
        revisions: vec![],
    };
    known.memory.content = "stored before the import, revised by it".into();
    known.memory.updated_at = stamp(&batched, 40);
    lines.push(line(&known));
    lines.push(serde_json::json!({ "content": records[1_000].memory.content }).to_string());

    let report = batched.import(&lines.join("\n")).unwrap();
    assert_eq!(report.records, lines.len() as u64);
    assert_eq!(
        (
            report.memories.created,
            report.memories.updated,
            report.memories.unchanged
        ),
        (NEW as u64, 3, 2),
        "{report:?}"
    );
    for line in &lines {
        alone.import(line).unwrap();
    }
    assert_eq!(batched.export(), alone.export());

    assert_eq!(batched.count_all(), 1 + NEW as u64);
    let found = batched.search("marker1042", MemoryFilter::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].content, "bulk memory marker1042 about postgres");
    let group3 = MemoryFilter {
        tags_all: tags(&["group3"]),
        ..MemoryFilter::default()
    };
    assert_eq!(
        batched.list(group3).len(),
        (0..NEW).filter(|i| i % 7 == 3).count()
    );
    let history = |h: &Harness, marker: &str| {
        let memory = h.search(marker, MemoryFilter::default()).remove(0);
        h.api.history(&local(), &by_ref(&memory)).unwrap()
    };
    let marker3 = history(&batched, "marker3");
    assert_eq!(
        marker3.memory.content,
        "bulk memory marker3 revised later in the same run"
    );
    assert_eq!(marker3.revisions.len(), 1);
    let marker100 = history(&batched, "marker100");
    assert_eq!(
        marker100
            .revisions
            .iter()
            .map(|r| r.number)
            .collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(
        batched.api.embedding_status().unwrap().counts.pending,
        alone.api.embedding_status().unwrap().counts.pending
    );

    // Two revisions of one number are refused with the record's line, before anything is
    // written.
    let mut twice = record(NEW, 1, "with its history twice");
    twice.revisions = record(100, 1, "").revisions;
    twice.revisions[1].number = 1;
    let before = batched.export();
    let error = batched
        .import(&[line(&record(NEW + 1, 1, "new")), line(&twice)].join("\n"))
        .unwrap_err();
    assert_eq!(error.field(), Some("revisions[1].number"), "{error}");
    assert!(error.to_string().starts_with("line 2"), "{error}");
    assert_eq!(batched.export(), before);
}
