//! The compatibility suite: the calls other memory systems' clients make, as those systems
//! document them, against cairn. engram's memory protocol through `cairn mcp --tools engram`
//! (the official MCP Python SDK); LLMemory's command line. (agentmemory's routes are in the
//! server's HTTP tests, OpenClaw's `memory_add` in `files.rs` and core's suite.)

use serde_json::{Value, json};

use super::{Sandbox, mcp_answers, mcp_calls_offering, python_with_mcp_sdk};

/// The answers to `calls` of engram's tools, each parsed, none an error.
fn engram_calls(s: &Sandbox, python: &str, calls: Value) -> Vec<Value> {
    mcp_answers(s, python, &calls, "engram")
}

#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn engrams_memory_protocol_runs_unchanged() {
    let python = python_with_mcp_sdk();
    let s = Sandbox::new();
    // The protocol's saves, as its examples write them.
    let saved = engram_calls(
        &s,
        &python,
        json!([
            {"tool": "mem_save", "arguments": {
                "title": "Staging database",
                "type": "architecture",
                "content": "**What**: The staging database is PostgreSQL 15\n**Why**: matches production",
                "capture_prompt": false}},
            {"tool": "mem_save", "arguments": {
                "title": "Staging database upgraded",
                "type": "decision",
                "content": "**What**: The staging database is PostgreSQL 16\n**Why**: matches production",
                "topic_key": "architecture/staging-db"}},
            {"tool": "mem_save", "arguments": {
                "title": "Editor preference", "scope": "personal",
                "content": "I prefer tabs over spaces"}},
            {"tool": "mem_save", "arguments": {
                "title": "Deploy day", "content": "Deploys go out on Wednesdays"}},
        ]),
    );
    let first = &saved[0];
    assert_eq!(first["judgment_required"], false, "{first}");
    assert_eq!(first["judgment_status"], "not_required");
    assert_eq!(first["sync_id"], first["id"]);
    let second = &saved[1];
    assert_eq!(second["judgment_required"], true, "{second}");
    assert_eq!(second["judgment_status"], "pending");
    assert_eq!(second["topic_key"], "architecture/staging-db");
    let judgment = second["judgment_id"].as_str().unwrap().to_string();
    assert!(
        judgment.starts_with("rel-") && judgment.len() == 36,
        "{judgment}"
    );
    assert_eq!(second["candidates"][0]["judgment_id"], judgment.as_str());
    assert_eq!(second["candidates"][0]["id"], first["id"]);

    // What the protocol does next: judge, compare, search, context, summary.
    let (a, b) = (
        second["id"].as_str().unwrap(),
        saved[3]["id"].as_str().unwrap(),
    );
    let results = engram_calls(
        &s,
        &python,
        json!([
            {"tool": "mem_judge", "arguments": {
                "judgment_id": judgment, "relation": "supersedes",
                "reason": "upgraded in March", "confidence": 0.9}},
            {"tool": "mem_compare", "arguments": {
                "memory_id_a": a, "memory_id_b": b, "relation": "compatible",
                "confidence": 0.8, "reasoning": "a database and a deploy day"}},
            {"tool": "mem_search", "arguments": {"query": "staging database", "type": "decision"}},
            {"tool": "mem_search", "arguments": {"query": "tabs", "scope": "personal"}},
            {"tool": "mem_session_summary", "arguments": {
                "content": "## Goal\nUpgrade staging\n\n## Discoveries\n- PostgreSQL 16 needs a new pgvector\n\n## Accomplished\n- upgraded staging\n\n## Relevant Files\n- deploy/staging.tf"}},
            {"tool": "mem_context", "arguments": {}},
        ]),
    );
    assert_eq!(results[0]["status"], "judged", "{}", results[0]);
    assert_eq!(results[0]["judgment_id"], judgment.as_str());
    assert_eq!(results[0]["relation"]["verdict"]["relation"], "supersedes");
    let sync = results[1]["sync_id"].as_str().unwrap();
    assert!(sync.starts_with("rel-"), "{}", results[1]);
    let decisions = &results[2]["results"];
    assert_eq!(decisions[0]["id"], second["id"], "{decisions}");
    assert!(
        decisions
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["category"] == "decision")
    );
    assert_eq!(
        results[3]["results"][0]["project"],
        Value::Null,
        "personal is global"
    );
    assert_eq!(results[4]["status"], "created", "{}", results[4]);
    assert!(
        results[5]["context"]
            .as_str()
            .unwrap()
            .contains("PostgreSQL 16"),
        "{}",
        results[5]
    );

    // A prompt saved by tool is a prompt of its session; learnings are captured once each.
    let output = "Fixed the flaky login test.\n\n## Key Learnings:\n\
                  1. The login tests share a session cache; run them with --test-threads 1\n\
                  2. The staging proxy drops idle connections after 60 s\n";
    let handed = engram_calls(
        &s,
        &python,
        json!([
            {"tool": "mem_save_prompt", "arguments": {
                "content": "Why does the login test fail on CI?", "project": "acme"}},
            {"tool": "mem_capture_passive", "arguments": {
                "content": output, "source": "subagent-stop"}},
            {"tool": "mem_capture_passive", "arguments": {"content": output}},
        ]),
    );
    assert_eq!(handed[0]["session_id"], "manual-save-acme", "{}", handed[0]);
    assert!(
        handed[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Prompt saved: \"Why does the login test"),
        "{}",
        handed[0]
    );
    let key = format!("{}/manual-save-acme", handed[0]["agent"].as_str().unwrap());
    let session = s.ok_json(&["sessions", &key]);
    let prompt = &session["observations"][0];
    assert_eq!(
        (&prompt["kind"], &prompt["input"]),
        (
            &json!("prompt"),
            &json!("Why does the login test fail on CI?")
        ),
        "{session}"
    );
    assert_eq!(
        (&handed[1]["extracted"], &handed[1]["saved"]),
        (&json!(2), &json!(2)),
        "{}",
        handed[1]
    );
    assert_eq!(
        handed[1]["message"],
        "Passive capture complete: extracted=2 saved=2 duplicates=0"
    );
    assert_eq!(
        (&handed[2]["saved"], &handed[2]["duplicates"]),
        (&json!(0), &json!(2)),
        "{}",
        handed[2]
    );
    let found = s.ok_json(&["search", "staging proxy idle connections"]);
    assert_eq!(
        found["results"][0]["memory"]["id"], handed[1]["ids"][1],
        "{found}"
    );

    // engram's limits hold: reasoning of at most 200 characters, and required.
    let refused = mcp_calls_offering(
        &s,
        &python,
        &json!([
            {"tool": "mem_compare", "arguments": {
                "memory_id_a": a, "memory_id_b": b, "relation": "compatible",
                "confidence": 0.8, "reasoning": "x".repeat(201)}},
            {"tool": "mem_compare", "arguments": {
                "memory_id_a": a, "memory_id_b": b, "relation": "compatible", "confidence": 0.8}},
        ]),
        "engram",
    );
    for result in &refused {
        assert_eq!(result["is_error"], true, "{result}");
        assert!(
            result["text"].as_str().unwrap().contains("reasoning"),
            "{result}"
        );
    }
}

/// LLMemory's documented command line.
#[test]
fn llmemorys_command_line_runs_unchanged() {
    let s = Sandbox::new();
    s.ok(&["store", "zebra crossing rules", "--json"]);
    s.ok(&["store", "Alpha release notes", "--json"]);
    let listed = s
        .ok(&["list", "--sort", "content", "--order", "asc", "--json"])
        .json();
    let contents: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["Alpha release notes", "zebra crossing rules"]);
    let markdown = s.ok(&["search", "release", "--markdown"]).stdout;
    assert!(markdown.starts_with("## Search"), "{markdown}");
}
