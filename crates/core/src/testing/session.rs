//! The suite's session behaviours: recording events, summaries, observation search and
//! retention, extraction at a turn's stop, and context packing.

use jiff::Span;

use super::{Harness, StoreFactory, local, project};
use crate::context::{ContextRequest, Section};
use crate::memory::{Category, Source, WriteStatus};
use crate::memory::{NewMemory, PruneRule};
use crate::scope::ProjectName;
use crate::session::{AgentEvent, EventKind, ObservationKind, SessionKey, SummaryAuthor};
use crate::session::{AgentSummary, SUMMARY_TAG};
use crate::tokens;

pub(super) fn key(id: &str) -> SessionKey {
    SessionKey::new("claude-code", id).expect("valid key")
}

fn acme() -> ProjectName {
    ProjectName::new("acme").expect("valid project")
}

/// An event of session `id` at the harness's current time.
fn event(h: &Harness, id: &str, n: usize, kind: EventKind) -> AgentEvent {
    AgentEvent {
        event_id: format!("{id}-{n}"),
        session: key(id),
        project: acme(),
        cwd: Some("/work/acme".into()),
        at: h.now(),
        kind,
    }
}

fn tool_use(tool: &str, input: &str, output: &str, files: &[&str]) -> EventKind {
    EventKind::ToolUse {
        tool: tool.into(),
        input: input.into(),
        output: output.into(),
        files: files.iter().map(|f| f.to_string()).collect(),
        images: Vec::new(),
    }
}

/// A short session: prompt, an edit, a failing command, a passing one, the end.
pub(super) fn record_session(h: &Harness, id: &str) {
    let kinds = [
        EventKind::SessionStart {
            source: Some("startup".into()),
        },
        EventKind::Prompt {
            text: "Fix the flaky login test".into(),
        },
        EventKind::ToolStart {
            tool: "Edit".into(),
        },
        tool_use(
            "Edit",
            "{\"file_path\":\"src/login.rs\"}",
            "ok",
            &["src/login.rs"],
        ),
        EventKind::ToolFailure {
            tool: "Bash".into(),
            input: "cargo test login".into(),
            error: "test login_retries ... FAILED".into(),
            files: vec![],
        },
        tool_use("Bash", "cargo test login", "test result: ok", &[]),
        EventKind::SessionEnd {
            reason: Some("exit".into()),
            refused: Vec::new(),
        },
    ];
    let events: Vec<AgentEvent> = kinds
        .into_iter()
        .enumerate()
        .map(|(n, kind)| {
            h.clock.advance(Span::new().seconds(30));
            event(h, id, n, kind)
        })
        .collect();
    h.api.record_events(&events).expect("record");
}

pub fn events_record_a_session_its_observations_and_a_summary(factory: StoreFactory) {
    let h = Harness::new(factory);
    let started = h.now();
    record_session(&h, "s1");
    let session = h.api.session_by_key(&local(), &key("s1")).unwrap();
    assert_eq!(session.project, acme());
    assert_eq!(session.cwd.as_deref(), Some("/work/acme"));
    assert_eq!(
        session.first_prompt.as_deref(),
        Some("Fix the flaky login test")
    );
    assert_eq!(session.started_at, started + Span::new().seconds(30));
    assert_eq!(session.ended_at, Some(h.now()));
    assert_eq!(session.summary_by, Some(SummaryAuthor::Cairn));

    let observations = h.api.observations(&local(), &key("s1")).unwrap();
    let kinds: Vec<ObservationKind> = observations.iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [
            ObservationKind::Prompt,
            ObservationKind::ToolUse,
            ObservationKind::ToolFailure,
            ObservationKind::ToolUse
        ],
        "session start, tool start and end record no observation"
    );
    assert!(observations[2].error && observations[2].importance.get() == 4);
    assert_eq!(observations[1].files, ["src/login.rs"]);

    let summary = session.summary.expect("a summary");
    for expected in [
        "Goal: Fix the flaky login test",
        "Files touched (1): src/login.rs",
        "Commands (1): cargo test login",
        "Errors (1): Bash: test login_retries ... FAILED",
        "Prompts: 1; tool uses: 2; failures: 1.",
    ] {
        assert!(summary.contains(expected), "{expected:?} in\n{summary}");
    }
    // The summary is also a memory, found by search.
    let found = h.search("flaky login", crate::memory::MemoryFilter::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].tags.iter().any(|t| t.as_str() == SUMMARY_TAG));
    assert_eq!(found[0].content, summary);
}

/// A session's summary ranks below what an agent wrote about the same thing, unless the
/// search asks for summaries; context shows it only among the recent sessions; it expires after
/// `sessions.summary_retention_days` (90).
pub fn summaries_rank_below_written_memories_and_expire(factory: StoreFactory) {
    let h = Harness::new(factory);
    record_session(&h, "s1");
    let written = h
        .api
        .write(
            &local(),
            NewMemory::new(
                "The flaky login test fails because the session cache is shared",
                project("acme"),
                Source::Mcp,
            ),
            None,
        )
        .unwrap()
        .memory;
    let summary = h.api.session_by_key(&local(), &key("s1")).unwrap();
    assert!(summary.summary.is_some());

    let found = h.search("flaky login test", crate::memory::MemoryFilter::default());
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].id, written.id, "the written memory comes first");
    let asked = h.search(
        "flaky login test",
        crate::memory::MemoryFilter {
            tags_all: vec![crate::tag::Tag::new(SUMMARY_TAG).unwrap()],
            ..Default::default()
        },
    );
    assert_eq!(asked.len(), 1);
    let request = |query: &str| ContextRequest {
        project: Some(acme()),
        query: Some(query.into()),
        budget: 2_000,
        ..Default::default()
    };
    let context = h
        .api
        .context_request(&local(), &request("flaky login test"))
        .unwrap();
    let sections: Vec<(crate::id::MemoryId, Section)> =
        context.items.iter().map(|i| (i.id, i.section)).collect();
    assert!(
        sections.contains(&(written.id, Section::Relevant)),
        "{sections:?}"
    );
    assert!(
        sections.contains(&(asked[0].id, Section::Sessions)),
        "{sections:?}"
    );
    assert_eq!(
        asked[0].expires_at,
        Some(asked[0].created_at + Span::new().hours(24 * 90))
    );

    h.clock.advance(Span::new().hours(24 * 90 + 1));
    let later = h.search("flaky login test", crate::memory::MemoryFilter::default());
    assert_eq!(later.iter().map(|m| m.id).collect::<Vec<_>>(), [written.id]);
}

/// A session that never recorded its end (Codex's background server after `/quit`, a killed
/// agent) is ended, with a note, and summarised when a later session of the same agent starts
/// in the project after `sessions.close_idle_minutes` (120) of idleness; one idle for less, or
/// another agent's, stays open.
pub fn a_session_left_open_is_closed_by_the_next_start_after_its_idle_time(factory: StoreFactory) {
    let h = Harness::new(factory);
    let open = |id: &str, agent: &str| {
        let events: Vec<AgentEvent> = [
            EventKind::SessionStart { source: None },
            EventKind::Prompt {
                text: "Rename the config loader".into(),
            },
            tool_use(
                "Edit",
                "{\"file_path\":\"src/config.rs\"}",
                "ok",
                &["src/config.rs"],
            ),
        ]
        .into_iter()
        .enumerate()
        .map(|(n, kind)| AgentEvent {
            session: SessionKey::new(agent, id).unwrap(),
            ..event(&h, id, n, kind)
        })
        .collect();
        h.api.record_events(&events).unwrap();
    };
    open("quit", "codex");
    open("other-agent", "claude-code");
    h.clock.advance(Span::new().minutes(119));
    open("recent", "codex");
    h.clock.advance(Span::new().minutes(2));
    open("next", "codex");

    let session = |id: &str, agent: &str| {
        h.api
            .session_by_key(&local(), &SessionKey::new(agent, id).unwrap())
            .unwrap()
    };
    let closed = session("quit", "codex");
    assert_eq!(closed.ended_at, Some(closed.last_seen_at), "{closed:?}");
    assert!(closed.summary.is_some(), "summarised");
    let notes = h
        .api
        .observations(&local(), &SessionKey::new("codex", "quit").unwrap())
        .unwrap();
    assert!(
        notes.iter().any(|o| o.kind == ObservationKind::Notification
            && o.input.as_deref().is_some_and(|t| t.contains(
                "closed by cairn: no end was recorded, and it had been idle 121 minutes"
            ))),
        "{notes:?}"
    );
    assert_eq!(session("recent", "codex").ended_at, None, "idle 2 minutes");
    assert_eq!(session("other-agent", "claude-code").ended_at, None);
    assert_eq!(session("next", "codex").ended_at, None);
}

/// A call the agent's permissions refused, reported with a turn's end or the session's, is a
/// failed call of the session, recorded once however often it is reported, and counted in its
/// summary.
pub fn refused_calls_are_failures_recorded_once(factory: StoreFactory) {
    let h = Harness::new(factory);
    let refused = vec![crate::session::RefusedCall {
        id: "toolu_1".into(),
        tool: "Bash".into(),
        input: "touch denied-marker".into(),
        reason: "touch needs approval".into(),
    }];
    let stop = |n| {
        event(
            &h,
            "s1",
            n,
            EventKind::Stop {
                last_message: None,
                refused: refused.clone(),
            },
        )
    };
    let events = [
        event(
            &h,
            "s1",
            0,
            EventKind::Prompt {
                text: "Create the file".into(),
            },
        ),
        stop(1),
        stop(2),
        event(
            &h,
            "s1",
            3,
            EventKind::SessionEnd {
                reason: None,
                refused: refused.clone(),
            },
        ),
    ];
    h.api.record_events(&events).unwrap();
    let observations = h.api.observations(&local(), &key("s1")).unwrap();
    let failures: Vec<_> = observations
        .iter()
        .filter(|o| o.kind == ObservationKind::ToolFailure)
        .collect();
    assert_eq!(failures.len(), 1, "{observations:?}");
    assert_eq!(failures[0].tool.as_deref(), Some("Bash"));
    assert_eq!(
        failures[0].output.as_deref(),
        Some("permission denied: touch needs approval")
    );
    let summary = h
        .api
        .session_by_key(&local(), &key("s1"))
        .unwrap()
        .summary
        .expect("a summary");
    assert!(summary.contains("failures: 1"), "{summary}");
}

pub fn a_replayed_event_is_recorded_once(factory: StoreFactory) {
    let h = Harness::new(factory);
    let prompt = event(
        &h,
        "s1",
        0,
        EventKind::Prompt {
            text: "hello".into(),
        },
    );
    let first = h.api.record_events(std::slice::from_ref(&prompt)).unwrap();
    let again = h.api.record_events(&[prompt]).unwrap();
    assert_eq!((first.report.observations, first.report.replayed), (1, 0));
    assert_eq!((again.report.observations, again.report.replayed), (0, 1));
    assert_eq!(h.api.observations(&local(), &key("s1")).unwrap().len(), 1);
}

pub fn observations_are_redacted_truncated_searchable_and_expire(factory: StoreFactory) {
    let h = Harness::new(factory);
    let long_output = format!("{} tail-marker", "x".repeat(5_000));
    let events = [
        event(
            &h,
            "s1",
            0,
            tool_use(
                "Bash",
                "curl -H 'Authorization: Bearer abcdefghijklmnop123456' https://api.example.com",
                &long_output,
                &[],
            ),
        ),
        event(
            &h,
            "s1",
            1,
            EventKind::Prompt {
                text: "why does the kubernetes deploy hang".into(),
            },
        ),
    ];
    h.api.record_events(&events).unwrap();
    let stored = h.api.observations(&local(), &key("s1")).unwrap();
    let input = stored[0].input.as_deref().unwrap();
    assert!(
        input.contains("Bearer [REDACTED]") && !input.contains("abcdefghijklmnop123456"),
        "{input}"
    );
    let output = stored[0].output.as_deref().unwrap();
    assert!(
        output.ends_with("… [3012 more characters]"),
        "{}",
        &output[1990..]
    );

    let hits = h
        .domains()
        .sessions()
        .search_observations("kubernetes deploy", Some(acme()), None, 10)
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].observation.kind, ObservationKind::Prompt);
    assert_eq!(hits[0].session, key("s1"));
    let elsewhere = ProjectName::new("other").unwrap();
    assert!(
        h.domains()
            .sessions()
            .search_observations("kubernetes", Some(elsewhere), None, 10)
            .unwrap()
            .is_empty()
    );

    // Past the retention (30 days by default) observations are hidden, then pruned.
    h.clock.advance(Span::new().hours(31 * 24));
    assert!(
        h.domains()
            .sessions()
            .search_observations("kubernetes", None, None, 10)
            .unwrap()
            .is_empty()
    );
    assert!(h.api.observations(&local(), &key("s1")).unwrap().is_empty());
    // A dry run of prune deletes none of them; prune itself takes them with the memories.
    assert_eq!(
        h.api
            .prune(PruneRule::Expired(h.now()), true)
            .unwrap()
            .observations_deleted,
        0
    );
    assert_eq!(
        h.api
            .prune(PruneRule::Expired(h.now()), false)
            .unwrap()
            .observations_deleted,
        2
    );
    assert_eq!(h.domains().sessions().prune_observations().unwrap(), 0);
}

pub fn remember_lines_become_memories_when_a_turn_stops(factory: StoreFactory) {
    let h = Harness::new(factory);
    let message = "Fixed it.\n*Remember*: the payments service needs Redis 7, temporary until \
                   the migration\nnothing else";
    let report = h
        .api
        .record_events(&[event(
            &h,
            "s1",
            0,
            EventKind::Stop {
                last_message: Some(message.into()),
                refused: Vec::new(),
            },
        )])
        .unwrap();
    assert_eq!(report.report.extracted.len(), 1);
    let memory = &report.report.extracted[0].memory;
    assert_eq!(memory.source, Source::Extract);
    assert_eq!(memory.scope, project("acme"));
    assert_eq!(memory.session_id.as_deref(), Some("s1"));
    assert_eq!(memory.entered_by.as_deref(), Some("claude-code"));
    assert!(memory.tags.iter().any(|t| t.as_str() == "redis"));
    assert_eq!(
        memory.expires_at,
        Some(h.now() + Span::new().hours(90 * 24)),
        "temporary means 90 days"
    );
    // The same fact again is a duplicate, not a second memory.
    let again = h
        .api
        .extract(&local(), message, project("acme"), None, None)
        .unwrap();
    assert_eq!(again[0].status, WriteStatus::Duplicate);
}

pub fn an_agent_summary_is_kept_over_a_derived_one(factory: StoreFactory) {
    let h = Harness::new(factory);
    h.api
        .record_events(&[event(
            &h,
            "s1",
            0,
            EventKind::Prompt {
                text: "migrate the db".into(),
            },
        )])
        .unwrap();
    let stored = h
        .domains()
        .sessions()
        .store_agent_summary(AgentSummary {
            project: Some(acme()),
            goal: "Migrate the orders table".into(),
            accomplished: vec!["wrote migration 0042".into()],
            next_steps: vec!["backfill in staging".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.status, WriteStatus::Created);
    h.clock.advance(Span::new().minutes(5));
    h.api
        .record_events(&[event(
            &h,
            "s1",
            1,
            EventKind::SessionEnd {
                reason: None,
                refused: Vec::new(),
            },
        )])
        .unwrap();
    let session = h.api.session_by_key(&local(), &key("s1")).unwrap();
    assert_eq!(session.summary_by, Some(SummaryAuthor::Agent));
    let summary = session.summary.unwrap();
    assert!(
        summary.contains("Goal: Migrate the orders table")
            && summary.contains("Next steps:\n- backfill in staging"),
        "{summary}"
    );
    let empty = h
        .domains()
        .sessions()
        .store_agent_summary(AgentSummary::default());
    assert_eq!(empty.unwrap_err().field(), Some("goal"));
}

pub fn context_fits_its_budget_and_prefers_relevant_memories(factory: StoreFactory) {
    let h = Harness::new(factory);
    let mut relevant = NewMemory::new(
        "Login tests are flaky because the session cache is shared; run them with --test-threads 1",
        project("acme"),
        Source::Cli,
    );
    relevant.category = Category::Bugfix;
    let relevant = h.api.write(&local(), relevant, None).unwrap().memory;
    for n in 0..40 {
        h.clock.advance(Span::new().minutes(1));
        h.add(
            &format!(
                "Release note {n}: the dashboard colour palette was refreshed for quarter {n}"
            ),
            &[],
        );
    }
    let mut decision = NewMemory::new(
        "We deploy with blue-green on Fridays",
        project("acme"),
        Source::Cli,
    );
    decision.category = Category::Decision;
    decision.importance = Some(5);
    let decision = h.api.write(&local(), decision, None).unwrap().memory;

    let ask = |query: Option<&str>, budget: usize| {
        h.api
            .context_request(
                &local(),
                &ContextRequest {
                    project: Some(acme()),
                    query: query.map(String::from),
                    budget,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    for budget in [50, 120, 300, 2_000] {
        let context = ask(Some("why are the login tests flaky"), budget);
        assert!(context.tokens <= budget, "{} > {budget}", context.tokens);
        assert_eq!(context.tokens, tokens::count(&context.text));
    }
    // At the smallest budget that holds the relevant memory, it is taken first and fills the
    // budget: none of the 40 newer memories displaces it. Without the query, the same budget
    // goes to newer memories instead.
    let small = (50..400)
        .map(|budget| ask(Some("why are the login tests flaky"), budget))
        .find(|context| context.items.iter().any(|i| i.id == relevant.id))
        .expect("some budget holds the relevant memory");
    assert_eq!(small.items.len(), 1, "{}", small.text);
    let unguided = ask(None, small.budget);
    assert!(
        !unguided.items.is_empty() && unguided.items.iter().all(|i| i.id != relevant.id),
        "{}",
        unguided.text
    );
    assert_eq!(small.items[0].id, relevant.id);
    assert_eq!(small.items[0].section, Section::Relevant);
    assert!(small.text.contains(&format!("[{}]", relevant.id.handle())));
    // Without a query, the important decision leads.
    let general = ask(None, 2_000);
    assert_eq!(general.items[0].id, decision.id);
    assert_eq!(general.items[0].section, Section::Decisions);
    assert!(general.items.len() > 5 && general.considered >= general.items.len());
    let ids: std::collections::HashSet<_> = general.items.iter().map(|i| i.id).collect();
    assert_eq!(ids.len(), general.items.len(), "each memory once");
    // Budgets out of range are refused by name.
    let err = h
        .api
        .context_request(
            &local(),
            &ContextRequest {
                budget: 10,
                ..Default::default()
            },
        )
        .unwrap_err();
    assert_eq!(err.field(), Some("budget"));
}

/// A listing of one project and the global memories pages through both in one order, in
/// either direction and by either time, however the pages fall across the two scopes.
pub fn project_listings_page_through_both_scopes_in_order(factory: StoreFactory) {
    use crate::memory::{ListQuery, MemoryFilter, SortKey, SortOrder};
    let h = Harness::new(factory);
    for n in 0..9 {
        h.clock.advance(Span::new().minutes(1));
        let scope = if n % 3 == 0 {
            crate::scope::Scope::Global
        } else {
            project("acme")
        };
        h.api
            .write(
                &local(),
                NewMemory::new(format!("memory {n}"), scope, Source::Cli),
                None,
            )
            .unwrap();
    }
    h.api
        .write(
            &local(),
            NewMemory::new("elsewhere", project("other"), Source::Cli),
            None,
        )
        .unwrap();
    let filter = MemoryFilter::in_scope(crate::scope::ScopeFilter::ProjectAndGlobal(acme()));
    for sort in [SortKey::Created, SortKey::Updated] {
        for order in [SortOrder::Desc, SortOrder::Asc] {
            let page = |offset, limit| {
                h.domains()
                    .memories()
                    .list(&ListQuery {
                        filter: filter.clone(),
                        sort,
                        order,
                        limit,
                        offset,
                    })
                    .unwrap()
                    .into_iter()
                    .map(|m| m.content)
                    .collect::<Vec<_>>()
            };
            let mut expected: Vec<String> = (0..9).map(|n| format!("memory {n}")).collect();
            if order == SortOrder::Desc {
                expected.reverse();
            }
            assert_eq!(page(0, 100), expected);
            let pages: Vec<String> = [page(0, 4), page(4, 4), page(8, 4)].concat();
            assert_eq!(pages, expected, "{sort:?} {order:?}");
        }
    }
}

pub fn a_session_in_which_nothing_happened_leaves_no_summary(factory: StoreFactory) {
    let h = Harness::new(factory);
    // What `claude mcp list` does: a session starts and ends, with a notification between.
    let kinds = [
        EventKind::SessionStart {
            source: Some("startup".into()),
        },
        EventKind::Notification {
            text: "MCP servers connected".into(),
        },
        EventKind::SessionEnd {
            reason: Some("exit".into()),
            refused: Vec::new(),
        },
    ];
    let events: Vec<AgentEvent> = kinds
        .into_iter()
        .enumerate()
        .map(|(n, kind)| event(&h, "idle", n, kind))
        .collect();
    h.api.record_events(&events).expect("record");
    let session = h
        .api
        .session_by_key(&local(), &key("idle"))
        .expect("recorded");
    assert!(session.ended_at.is_some());
    assert!(session.summary.is_none());
    assert!(
        h.list(crate::memory::MemoryFilter::default()).is_empty(),
        "no summary memory for an empty session"
    );
    // A greeting is not worth a summary either.
    let chat = |id: &str, prompt: &str| {
        let kinds = [
            EventKind::SessionStart {
                source: Some("startup".into()),
            },
            EventKind::Prompt {
                text: prompt.into(),
            },
            EventKind::SessionEnd {
                reason: Some("exit".into()),
                refused: Vec::new(),
            },
        ];
        let events: Vec<AgentEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(n, kind)| event(&h, id, n, kind))
            .collect();
        h.api.record_events(&events).expect("record");
        h.api.session_by_key(&local(), &key(id)).expect("recorded")
    };
    assert!(chat("hello", "Say hello").summary.is_none());
    assert!(h.list(crate::memory::MemoryFilter::default()).is_empty());
    // A task stated at length is, tools or not; so is a session that used a tool.
    let stated = "Explain why the login test is flaky on CI but never locally, and what we \
                  should change in the retry logic so that it stops failing on slow runners";
    assert!(chat("asked", stated).summary.is_some());
    record_session(&h, "busy");
    assert_eq!(h.list(crate::memory::MemoryFilter::default()).len(), 2);
}

pub fn a_short_session_that_stored_a_memory_is_summarised(factory: StoreFactory) {
    let h = Harness::new(factory);
    let at = |n: usize, kind: EventKind| event(&h, "brief", n, kind);
    h.api
        .record_events(&[
            at(
                0,
                EventKind::SessionStart {
                    source: Some("startup".into()),
                },
            ),
            at(
                1,
                EventKind::Prompt {
                    text: "Remember: we ship on Fridays".into(),
                },
            ),
        ])
        .expect("record");
    h.add("Releases ship on Fridays", &[]);
    h.api
        .record_events(&[at(
            2,
            EventKind::SessionEnd {
                reason: Some("exit".into()),
                refused: Vec::new(),
            },
        )])
        .expect("record");
    let session = h
        .api
        .session_by_key(&local(), &key("brief"))
        .expect("recorded");
    let summary = session
        .summary
        .expect("a session that stored a memory is summarised");
    assert!(summary.contains("Releases ship on Fridays"), "{summary}");
}

/// An agent's history imported long after it ran: the session is judged by everything it did
/// (its observations are older than their retention), its `*Remember*:` fact counts as a
/// memory stored in it, and only sessions given a summary are reported summarised.
pub fn a_session_recorded_long_after_it_ran_is_judged_by_all_it_did(factory: StoreFactory) {
    let h = Harness::new(factory);
    let ran = h.now() - jiff::SignedDuration::from_hours(24 * 60);
    let past = |id: &str, n: usize, kind: EventKind| AgentEvent {
        at: ran + jiff::SignedDuration::from_secs(n as i64),
        ..event(&h, id, n, kind)
    };
    let end = || EventKind::SessionEnd {
        reason: Some("imported".into()),
        refused: Vec::new(),
    };
    let report = h
        .api
        .record_events(&[
            past(
                "old",
                0,
                EventKind::Prompt {
                    text: "Check the release".into(),
                },
            ),
            past("old", 1, tool_use("Bash", "make release-check", "ok", &[])),
            past(
                "old",
                2,
                EventKind::Stop {
                    last_message: Some("Done.\n*Remember*: release checks need VPN".into()),
                    refused: Vec::new(),
                },
            ),
            past("old", 3, end()),
        ])
        .expect("record");
    assert_eq!(report.report.summarized, [key("old")]);
    let summary = h
        .api
        .session_by_key(&local(), &key("old"))
        .expect("recorded")
        .summary
        .expect("summarised");
    assert!(summary.contains("make release-check"), "{summary}");
    assert!(
        summary.contains("Memories stored (1)") && summary.contains("release checks need VPN"),
        "{summary}"
    );
    let report = h
        .api
        .record_events(&[
            past(
                "hi",
                0,
                EventKind::Prompt {
                    text: "Say hello".into(),
                },
            ),
            past("hi", 1, end()),
        ])
        .expect("record");
    assert!(
        report.report.summarized.is_empty(),
        "{:?}",
        report.report.summarized
    );
    assert_eq!(report.report.ended, [key("hi")]);
}

pub fn a_prompt_and_learnings_handed_over_by_a_tool_land_in_the_callers_project(
    factory: StoreFactory,
) {
    use crate::access::Right;
    use crate::api::{CaptureInput, PromptInput};
    let h = Harness::new(factory);
    let writer = super::token_caller(&h.api, "acme", Right::Write);
    let saved = h
        .api
        .save_prompt(
            &writer,
            PromptInput {
                content: "Why does the login test fail?".into(),
                ..PromptInput::default()
            },
        )
        .unwrap();
    assert_eq!(saved.project, acme(), "the token's project");
    assert_eq!(saved.session.id, "manual-save-acme");
    let observations = h.api.observations(&local(), &saved.session).unwrap();
    assert_eq!(observations.len(), 1);
    assert_eq!(observations[0].kind, ObservationKind::Prompt);

    let output = "## Key Learnings\n- Redis holds sessions only\n- *Remember*: CI needs Docker 25";
    let capture = |caller: &crate::api::Caller| {
        h.api.capture(
            caller,
            CaptureInput {
                content: output.into(),
                ..CaptureInput::default()
            },
        )
    };
    let captured = capture(&writer).unwrap();
    assert_eq!(
        (captured.extracted, captured.saved, captured.duplicates),
        (2, 2, 0)
    );
    assert!(
        captured
            .outcomes
            .iter()
            .all(|o| o.memory.scope == crate::scope::Scope::Project(acme()))
    );
    let again = capture(&writer).unwrap();
    assert_eq!((again.saved, again.duplicates), (0, 2));

    // A reader may do neither; nothing is written for it, nor for a label over its limit or
    // empty text.
    let before = h.count_all();
    let too_long = h
        .api
        .capture(
            &writer,
            CaptureInput {
                content: "## Key Learnings\n- Deploys go out on Wednesdays".into(),
                source: Some("s".repeat(10_000)),
                ..CaptureInput::default()
            },
        )
        .unwrap_err();
    assert_eq!(too_long.field(), Some("entered_by"), "{too_long:?}");
    let reader = super::token_caller(&h.api, "acme", Right::Read);
    assert!(matches!(
        capture(&reader),
        Err(crate::Error::Forbidden { .. })
    ));
    let refused = h.api.save_prompt(
        &reader,
        PromptInput {
            content: "hi".into(),
            ..PromptInput::default()
        },
    );
    assert!(matches!(refused, Err(crate::Error::Forbidden { .. })));
    let blank = h
        .api
        .save_prompt(&writer, PromptInput::default())
        .unwrap_err();
    assert_eq!(blank.field(), Some("content"));
    let nowhere = h
        .api
        .save_prompt(
            &local(),
            PromptInput {
                content: "hi".into(),
                ..PromptInput::default()
            },
        )
        .unwrap_err();
    assert_eq!(nowhere.field(), Some("project"));
    assert_eq!(h.count_all(), before);
}
