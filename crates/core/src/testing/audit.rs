//! The audit log's contract: every change through the front door leaves one entry naming who
//! made it, through which entry point, what it changed; reads and no-op writes leave none;
//! only the operator reads the log; old entries go with the retention.

use jiff::Span;
use serde_json::{Value, json};

use super::{Harness, StoreFactory, local, token_caller};
use crate::Error;
use crate::access::Right;
use crate::api::{AuditInput, Caller};
use crate::audit::{AuditAction, AuditEntry};
use crate::config::Config;
use crate::memory::Source;
use crate::scope::ProjectName;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid input")
}

fn log(h: &Harness, query: Value) -> Vec<AuditEntry> {
    h.api
        .audit(&local(), input(query))
        .expect("the operator reads the log")
}

fn actions(entries: &[AuditEntry]) -> Vec<&'static str> {
    entries.iter().map(|e| e.entry.action.as_str()).collect()
}

pub fn every_change_is_logged_with_who_made_it_and_reads_are_not(factory: StoreFactory) {
    let h = Harness::new(factory);
    let acme = ProjectName::new("acme").unwrap();
    let mcp = Caller {
        default_project: Some(acme.clone()),
        agent: Some("claude-code".into()),
        ..Caller::local(Source::Mcp)
    };

    // The operator, through MCP, stores a memory: one entry; the same content again is a
    // duplicate, which changes nothing and leaves none; a read leaves none either.
    let stored = h
        .api
        .store(
            &mcp,
            input(json!({"content": "deploys go out on tuesdays"})),
        )
        .unwrap();
    h.api
        .store(
            &mcp,
            input(json!({"content": "deploys go out on tuesdays"})),
        )
        .unwrap();
    h.api
        .search(&mcp, input(json!({"query": "deploys"})))
        .unwrap();
    let entries = log(&h, json!({}));
    assert_eq!(actions(&entries), ["memory.store"]);
    let first = &entries[0].entry;
    assert_eq!(first.entry_point, Source::Mcp);
    assert_eq!(first.token, None);
    assert_eq!(first.agent.as_deref(), Some("claude-code"));
    assert_eq!(first.project.as_ref(), Some(&acme));
    assert_eq!(first.target, stored.memory.id.to_string());
    assert_eq!(first.detail, "created");
    assert_eq!(first.at, h.now());

    // A token's client (over HTTP, say) changes, judges, edits a slot and forgets: each entry
    // names the token.
    let writer = Caller {
        source: Source::Http,
        ..token_caller(&h.api, "acme", Right::Write)
    };
    let token = match &writer.access {
        crate::access::Access::Token(grant) => grant.token.clone(),
        crate::access::Access::Full => unreachable!("a token's caller"),
    };
    let id = stored.memory.id.to_string();
    h.api
        .update(
            &writer,
            &id,
            input(json!({"content": "deploys go out on wednesdays"})),
        )
        .unwrap();
    // An update to what is already stored changes nothing and leaves no entry.
    h.api
        .update(
            &writer,
            &id,
            input(json!({"content": "deploys go out on wednesdays"})),
        )
        .unwrap();
    let other = h
        .api
        .store(
            &writer,
            input(json!({"content": "releases are tagged by the CI bot"})),
        )
        .unwrap();
    h.api
        .compare(
            &writer,
            input(json!({"a": other.memory.id.to_string(), "b": id, "relation": "related"})),
        )
        .unwrap();
    h.api
        .append_slot(
            &writer,
            "pending_items",
            &input(json!({"content": "- tag 2.0"})),
        )
        .unwrap();
    h.api
        .forget(&writer, &other.memory.id.to_string(), false)
        .unwrap();
    h.api
        .forget(&local(), &other.memory.id.to_string(), true)
        .unwrap();

    let entries = log(&h, json!({"limit": 100}));
    assert_eq!(
        actions(&entries),
        [
            "memory.purge",
            "memory.forget",
            "slot.edit",
            "verdict",
            "memory.store",
            "memory.update",
            "token.issue",
            "memory.store",
        ],
        "newest first"
    );
    let by_token = log(&h, json!({"token": token.as_str(), "limit": 100}));
    assert_eq!(
        actions(&by_token),
        [
            "memory.forget",
            "slot.edit",
            "verdict",
            "memory.store",
            "memory.update"
        ]
    );
    for entry in &by_token {
        assert_eq!(entry.entry.entry_point, Source::Http);
        assert_eq!(entry.entry.project.as_ref(), Some(&acme));
    }
    assert_eq!(by_token[1].entry.target, "pending_items");
    assert_eq!(by_token[1].entry.detail, "append");
    assert_eq!(
        by_token[2].entry.detail,
        format!("{} related {}", other.memory.id, id)
    );
    let issued = &entries[6].entry;
    assert_eq!(issued.target, token.as_str());
    assert_eq!(issued.detail, "write");
    assert_eq!(issued.token, None, "the operator issued it");

    // The story of one memory, and one action.
    let story = log(&h, json!({"target": other.memory.id.to_string()}));
    assert_eq!(
        actions(&story),
        ["memory.purge", "memory.forget", "memory.store"]
    );
    let purges = log(&h, json!({"action": "memory.purge"}));
    assert_eq!(purges.len(), 1);
    assert_eq!(purges[0].entry.entry_point, Source::Cli);
    assert_eq!(purges[0].entry.token, None);
    assert_eq!(log(&h, json!({"limit": 2})).len(), 2);
    assert!(log(&h, json!({"project": "beta"})).is_empty());

    // A session that ends through its hooks is reflected into its project's slots: logged as
    // the hook's doing.
    super::slot::reflective_session(&h, "7f3e9c1a-0002");
    let reflected = log(&h, json!({"action": "slot.reflect"}));
    assert_eq!(reflected.len(), 1);
    assert_eq!(reflected[0].entry.entry_point, Source::Hook);
    assert_eq!(reflected[0].entry.target, "claude-code/7f3e9c1a-0002");
    assert_eq!(reflected[0].entry.project.as_ref(), Some(&acme));

    // An import that wrote something is one entry; the same import again writes nothing.
    let line = "{\"content\": \"the nightly job runs at 02:00\"}\n";
    h.import(line).unwrap();
    h.import(line).unwrap();
    let imports = log(&h, json!({"action": "import"}));
    assert_eq!(imports.len(), 1);
    assert_eq!(imports[0].entry.detail, "memories 1 created, 0 updated");

    // A client's name is kept to a label's length however long the client made it (a slot
    // edit takes no name of its own to refuse it by).
    let long_named = Caller {
        agent: Some("x".repeat(100_000)),
        ..mcp.clone()
    };
    h.api
        .append_slot(
            &long_named,
            "pending_items",
            &input(json!({"content": "- warm the cache"})),
        )
        .unwrap();
    let entry = &log(&h, json!({"action": "slot.edit"}))[0].entry;
    assert_eq!(entry.agent.as_ref().map(|a| a.chars().count()), Some(200));

    // A revoked token's revocation is logged too; seqs only grow.
    h.api.revoke_token(&local(), token.as_str()).unwrap();
    let newest = log(&h, json!({"limit": 100}));
    assert_eq!(newest[0].entry.action, AuditAction::TokenRevoke);
    assert!(newest.windows(2).all(|pair| pair[0].seq > pair[1].seq));
}

pub fn only_the_operator_reads_the_log_and_bad_filters_name_their_field(factory: StoreFactory) {
    let h = Harness::new(factory);
    for right in [Right::Read, Right::Write] {
        let caller = token_caller(&h.api, "acme", right);
        let error = h.api.audit(&caller, AuditInput::default()).unwrap_err();
        assert!(matches!(error, Error::Forbidden { .. }), "{error:?}");
    }
    for (query, field) in [
        (json!({"action": "memory.delete"}), "action"),
        (json!({"limit": 0}), "limit"),
        (json!({"limit": 101}), "limit"),
        (json!({"since": "the other day"}), "since"),
        (json!({"token": "not a token"}), "token"),
        (json!({"project": "p".repeat(600)}), "project"),
    ] {
        let error = h.api.audit(&local(), input(query.clone())).unwrap_err();
        assert_eq!(error.field(), Some(field), "{query}: {error}");
    }
}

pub fn audit_entries_past_their_retention_go_and_zero_keeps_none(factory: StoreFactory) {
    let mut config = Config::default();
    config.audit.retention_days = 2;
    let h = Harness::with_config(factory, &config);
    let old = h.add("the build cache lives in /var/cache/ci", &[]);
    h.api.forget(&local(), &old.id.to_string(), false).unwrap();
    h.clock.advance(Span::new().days(1));
    h.api.restore_memory(&local(), &old.id.to_string()).unwrap();
    assert_eq!(
        actions(&log(&h, json!({}))),
        ["memory.restore", "memory.forget", "memory.store"]
    );
    assert_eq!(
        actions(&log(&h, json!({"since": "12 hours ago"}))),
        ["memory.restore"]
    );
    // Two days after the first two, the next change takes them away; the restore is kept.
    h.clock.advance(Span::new().days(1).hours(1));
    h.api.forget(&local(), &old.id.to_string(), false).unwrap();
    assert_eq!(
        actions(&log(&h, json!({}))),
        ["memory.forget", "memory.restore"]
    );

    let mut off = Config::default();
    off.audit.retention_days = 0;
    let h = Harness::with_config(factory, &off);
    let memory = h.add("nothing of this is logged", &[]);
    h.api
        .forget(&local(), &memory.id.to_string(), true)
        .unwrap();
    assert!(log(&h, json!({})).is_empty());
}
