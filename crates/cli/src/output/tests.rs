//! Snapshot tests of every view in every format, over fixed memories and a fixed time zone.

use cairn_core::exchange::{Counts, ImportReport, KindReport};
use cairn_core::memory::ConflictCandidate;
use cairn_core::memory::{MemoryHistory, PruneReport, PruneRule};
use cairn_core::memory::{NamedCount, StoreStats, TagCount};
use cairn_core::relation::{
    Actor, ActorKind, CompareStatus, Compared, Relation, RelationKind, RelationStats, RelationView,
    ScanReport, ScannedPair, Verdict, annotations,
};
use cairn_core::search::{Boosts, SearchHit, SearchResults, SignalKind, SignalScore};
use cairn_core::{
    Category, Importance, Memory, ProjectName, Scope, Source, Tag, TopicKey, WriteOutcome,
    WriteStatus,
};
use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::{Format, RelationsView, Style, View, render};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn decision() -> Memory {
    Memory {
        id: "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b".parse().unwrap(),
        content:
            "Use pnpm, not npm, in the web workspace: npm's hoisting broke the\nvite build twice."
                .into(),
        title: Some("Package manager".into()),
        category: Category::Decision,
        tags: vec![Tag::new("node").unwrap(), Tag::new("tooling").unwrap()],
        scope: Scope::Project(ProjectName::new("github.com/acme/web").unwrap()),
        topic_key: Some(TopicKey::new("package-manager").unwrap()),
        entered_by: Some("claude-code".into()),
        session_id: None,
        source: Source::Cli,
        importance: Importance::new(4).unwrap(),
        created_at: at("2026-03-11T14:05:00Z"),
        updated_at: at("2026-03-12T09:00:00Z"),
        expires_at: None,
        deleted_at: None,
    }
}

fn preference() -> Memory {
    Memory {
        id: "b7c1d2e3-0000-4000-8000-00000000beef".parse().unwrap(),
        content: "Prefers tabs over spaces".into(),
        title: None,
        category: Category::Preference,
        tags: vec![],
        scope: Scope::Global,
        topic_key: None,
        entered_by: None,
        session_id: Some("s-42".into()),
        source: Source::Mcp,
        importance: Importance::default(),
        created_at: at("2026-03-10T08:00:00Z"),
        updated_at: at("2026-03-10T08:00:00Z"),
        expires_at: Some(at("2026-04-01T00:00:00Z")),
        deleted_at: None,
    }
}

/// The decision supersedes the preference (judged), with one earlier verdict.
fn superseding() -> RelationView {
    let verdict = |relation, at_time: &str| Verdict {
        relation,
        reason: Some("the team moved to pnpm".into()),
        evidence: Some("PR #88".into()),
        confidence: Some(0.9),
        actor: Actor {
            kind: ActorKind::Agent,
            name: Some("claude-code".into()),
            model: None,
            session: None,
        },
        judged_at: at(at_time),
    };
    RelationView {
        relation: Relation {
            id: "5b1e07c2-0000-4000-8000-000000000001".parse().unwrap(),
            source: decision().id,
            target: preference().id,
            scope: Scope::Global,
            score: Some(0.625),
            verdict: Some(verdict(RelationKind::Supersedes, "2026-03-12T10:00:00Z")),
            history: vec![verdict(RelationKind::ConflictsWith, "2026-03-12T09:30:00Z")],
            created_at: at("2026-03-12T09:00:00Z"),
            updated_at: at("2026-03-12T10:00:00Z"),
        },
        source_title: Some("Package manager".into()),
        target_title: Some("Prefers tabs over spaces".into()),
        reason: Some("both speak of indentation; the newer says something changed".into()),
    }
}

/// A pending judgment whose older memory was forgotten.
fn pending() -> RelationView {
    let mut view = superseding();
    view.relation.id = "9c2d0000-0000-4000-8000-000000000002".parse().unwrap();
    view.relation.verdict = None;
    view.relation.history = Vec::new();
    view.target_title = None;
    view.reason = None;
    view
}

fn all(view: View<'_>) -> String {
    let mut out = String::new();
    for format in [Format::Text, Format::Json, Format::Markdown] {
        let style = Style {
            format,
            quiet: false,
            tz: TimeZone::UTC,
            color: false,
        };
        out.push_str(&format!("--- {format:?}\n"));
        out.push_str(&render(&view, &style));
    }
    out
}

#[test]
fn write_outcomes() {
    for status in [
        WriteStatus::Created,
        WriteStatus::Duplicate,
        WriteStatus::Updated,
    ] {
        let outcome = WriteOutcome::new(status, decision());
        insta::assert_snapshot!(format!("write_{status}"), all(View::Write(&outcome)));
    }
    let quiet = Style {
        format: Format::Text,
        quiet: true,
        tz: TimeZone::UTC,
        color: false,
    };
    let mut flagged = WriteOutcome::new(WriteStatus::Created, decision());
    flagged.candidates.push(ConflictCandidate {
        judgment_id: superseding().relation.id,
        id: preference().id,
        title: "Prefers tabs over spaces".into(),
        category: Category::Preference,
        score: 0.625,
        reason: "both speak of indentation; one negates what the other states (tabs)".into(),
    });
    insta::assert_snapshot!("write_created_with_candidates", all(View::Write(&flagged)));
    let outcome = WriteOutcome::new(WriteStatus::Created, decision());
    assert_eq!(
        render(&View::Write(&outcome), &quiet),
        "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b\n"
    );
}

#[test]
fn get_with_history() {
    let memory = decision();
    let histories = vec![MemoryHistory {
        revisions: vec![memory.to_revision(1)],
        memory: memory.clone(),
    }];
    insta::assert_snapshot!(all(View::Memories {
        memories: &[memory, preference()],
        relations: &[superseding()],
        images: &[],
    }));
    insta::assert_snapshot!(all(View::Histories(&histories)));
}

#[test]
fn listing_and_search() {
    let memories = [decision(), preference()];
    insta::assert_snapshot!(all(View::Listing {
        memories: &memories,
        total: 5,
        images: &[],
    }));
    let hits: Vec<SearchHit> = memories
        .iter()
        .enumerate()
        .map(|(index, m)| SearchHit {
            memory: m.clone(),
            score: 1.0 / (61.0 + index as f64),
            signals: vec![
                SignalScore {
                    signal: SignalKind::Lexical,
                    rank: index + 1,
                    raw: 4.25 - index as f64,
                    held: Some(1.0),
                },
                SignalScore {
                    signal: SignalKind::Fuzzy,
                    rank: 2 - index,
                    raw: 1.5,
                    held: None,
                },
            ],
            boosts: Boosts {
                recency: 0.0125,
                importance: if index == 0 { 0.025 } else { 0.0 },
                project: if index == 0 { 0.2 } else { 0.0 },
            },
            annotations: annotations(&[m.id], &[superseding(), pending()])
                .remove(&m.id)
                .unwrap_or_default(),
            images: Vec::new(),
        })
        .collect();
    let results = SearchResults {
        hits,
        matched_words: vec!["pnpm".into(), "tabs".into(), "hoisting".into()],
        mode: Some(cairn_core::search::SearchMode::Hybrid),
        notices: Vec::new(),
    };
    insta::assert_snapshot!(all(View::Search {
        query: "pnpm tabs",
        results: &results,
        explain: false,
        budget: None
    }));
    insta::assert_snapshot!(
        "search_explained",
        all(View::Search {
            query: "pnpm tabs",
            results: &results,
            explain: true,
            budget: None
        })
    );
    insta::assert_snapshot!(
        "search_within_budget",
        all(View::Search {
            query: "pnpm tabs",
            results: &results,
            explain: false,
            budget: Some(110)
        })
    );
    let empty = SearchResults::default();
    insta::assert_snapshot!(
        "search_empty",
        all(View::Search {
            query: "nothing",
            results: &empty,
            explain: false,
            budget: None
        })
    );
}

#[test]
fn maintenance_views() {
    let report = PruneReport {
        memories: vec![preference()],
        deleted: false,
        rule: PruneRule::Expired(at("2026-05-01T00:00:00Z")),
        observations_deleted: 0,
    };
    insta::assert_snapshot!(all(View::Prune(&report)));
    insta::assert_snapshot!(all(View::Forgotten {
        memory: &decision(),
        purged: false
    }));
    let stats = StoreStats {
        memories: 120,
        forgotten: 3,
        expired: 2,
        revisions: 14,
        tags: 9,
        by_category: vec![
            NamedCount {
                name: "decision".into(),
                count: 70,
            },
            NamedCount {
                name: "fact".into(),
                count: 50,
            },
        ],
        by_project: vec![
            NamedCount {
                name: "github.com/acme/web".into(),
                count: 100,
            },
            NamedCount {
                name: "global".into(),
                count: 20,
            },
        ],
        by_agent: vec![
            NamedCount {
                name: "claude-code".into(),
                count: 119,
            },
            NamedCount {
                name: "unknown".into(),
                count: 1,
            },
        ],
        by_day: vec![
            NamedCount {
                name: "2026-03-11".into(),
                count: 2,
            },
            NamedCount {
                name: "2026-03-12".into(),
                count: 5,
            },
        ],
        oldest: Some(at("2026-01-02T03:04:00Z")),
        newest: Some(at("2026-03-12T09:00:00Z")),
        size_bytes: Some(1_572_864),
    };
    let tags = vec![
        TagCount {
            tag: Tag::new("node").unwrap(),
            count: 40,
        },
        TagCount {
            tag: Tag::new("ci").unwrap(),
            count: 7,
        },
    ];
    insta::assert_snapshot!(all(View::Stats {
        stats: &stats,
        location: "/home/u/.local/share/cairn/cairn.db",
        tags: Some(&tags),
        agents: true,
        images: cairn_core::image::ImageTotals {
            images: 3,
            bytes: 1_363_148,
            unread: 1,
            unhashed: 0,
            without_vector: 2,
            without_clip_vector: 3,
        },
    }));
    insta::assert_snapshot!(all(View::Tags(&tags)));
    let imported = ImportReport {
        records: 12,
        memories: KindReport {
            created: 7,
            updated: 1,
            unchanged: 2,
        },
        slots: KindReport {
            created: 0,
            updated: 2,
            unchanged: 0,
        },
        ..ImportReport::default()
    };
    insta::assert_snapshot!(all(View::Imported(&imported)));
    let counts = Counts {
        memories: 10,
        slots: 4,
        slot_seeds: 2,
        ..Counts::default()
    };
    insta::assert_snapshot!(all(View::Exported {
        counts: &counts,
        to: "/tmp/memory.jsonl"
    }));
    let created_before = PruneReport {
        memories: vec![preference()],
        deleted: true,
        rule: PruneRule::CreatedBefore(at("2026-05-01T00:00:00Z")),
        observations_deleted: 0,
    };
    insta::assert_snapshot!(all(View::Prune(&created_before)));
}

#[test]
fn relations() {
    let listed = [superseding(), pending()];
    insta::assert_snapshot!(all(View::Relation(RelationsView::Relations(&listed))));
    insta::assert_snapshot!(all(View::Relation(RelationsView::Relation {
        status: Some("judged"),
        relation: &superseding(),
    })));
    insta::assert_snapshot!(all(View::Relation(RelationsView::RelationStats(
        &RelationStats {
            total: 3,
            pending: 1,
            judged: 2,
            by_relation: vec![
                NamedCount {
                    name: "supersedes".into(),
                    count: 1
                },
                NamedCount {
                    name: "scoped".into(),
                    count: 1
                },
            ],
        }
    ))));
    insta::assert_snapshot!(all(View::Relation(RelationsView::Compared(&Compared {
        status: CompareStatus::Unchanged,
        relation: Some(superseding()),
    }))));
    insta::assert_snapshot!(all(View::Relation(RelationsView::Scan(&ScanReport {
        memories: 12,
        pairs: vec![ScannedPair {
            source: decision().id,
            source_title: "Package manager".into(),
            target: preference().id,
            target_title: "Prefers tabs over spaces".into(),
            score: 0.5,
            reason: "both speak of package, manager; values differ (pnpm against npm)".into(),
            judgment_id: None,
        }],
        recorded: 0,
        applied: false,
    }))));
}

#[test]
fn stored_terminal_escapes_are_shown_never_sent() {
    let mut memory = decision();
    memory.content = "done\u{1b}]0;owned\u{7}\u{1b}[2J\r\nnext line\rover\u{9b}31m".into();
    memory.title = Some("title\u{1b}[31m".into());
    for format in [Format::Text, Format::Markdown] {
        let style = Style {
            format,
            quiet: false,
            tz: TimeZone::UTC,
            color: true,
        };
        let view = View::Memories {
            memories: std::slice::from_ref(&memory),
            relations: &[],
            images: &[],
        };
        let shown = render(&view, &style);
        assert!(
            !shown
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{format:?}: {shown:?}"
        );
        assert!(shown.contains("done\\x1b]0;owned\\x07\\x1b[2J"), "{shown}");
        assert!(shown.contains("next line\\x0dover\\x9b31m"), "{shown}");
        assert!(shown.contains("title\\x1b[31m"), "{shown}");
    }
    let json = render(
        &View::Memories {
            memories: std::slice::from_ref(&memory),
            relations: &[],
            images: &[],
        },
        &Style {
            format: Format::Json,
            quiet: false,
            tz: TimeZone::UTC,
            color: false,
        },
    );
    assert!(json.contains("\\u001b]0;owned"), "{json}");
}
