//! `cairn token` end to end: tokens made, listed and revoked from the command line, kept only
//! as hashes, and obeyed by a running `cairn serve` at once (401 without one, 403 and a log
//! line outside the project, refused after revocation), and `cairn audit` naming who did what.

use serde_json::json;

use super::{Sandbox, Served};

/// The id inside a token's text (`cairn_<id>_<secret>`).
fn id_of(token: &str) -> &str {
    token
        .strip_prefix("cairn_")
        .unwrap()
        .split('_')
        .next()
        .unwrap()
}

#[test]
fn tokens_made_from_the_cli_are_obeyed_by_a_running_server() {
    let sandbox = Sandbox::new();
    sandbox.ok(&["store", "acme deploys with blue green", "--project", "acme"]);
    sandbox.ok(&["store", "beta deploys by hand", "--project", "beta"]);
    let served = Served::without_token(&sandbox, &[]);
    // No token anywhere: loopback is the local user's.
    let (status, body) = served.get("/v1/memories", "");
    assert_eq!(status, 200, "{body}");

    // The text form prints the token alone, so `$(cairn token create …)` is exactly it.
    let made = sandbox.ok(&[
        "token",
        "create",
        "--project",
        "acme",
        "--read",
        "--name",
        "ci bot",
    ]);
    let reader = made.stdout.trim().to_string();
    assert_eq!(made.stdout.lines().count(), 1, "{}", made.stdout);
    assert!(reader.starts_with("cairn_"), "{reader}");
    assert!(made.stderr.contains("shown only now"), "{}", made.stderr);
    let writer = sandbox.ok_json(&["token", "create", "--project", "acme", "--write"]);
    assert_eq!(writer["right"], "write");
    assert_eq!(writer["project"], "acme");
    let writer = writer["token"].as_str().unwrap().to_string();
    assert_eq!(writer.len(), "cairn_".len() + 12 + 1 + 64);

    // A token needs its right; the error names the flags.
    let run = sandbox.run(&["token", "create", "--project", "acme"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--read") && run.stderr.contains("--write"),
        "{}",
        run.stderr
    );

    // Listed without their secrets; the store holds only their hashes.
    let listed = sandbox.ok_json(&["token", "list"]);
    let tokens = listed["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2, "{listed}");
    assert_eq!(tokens[0]["id"], id_of(&reader));
    assert_eq!(tokens[0]["name"], "ci bot");
    assert!(!listed.to_string().contains(&reader[20..]), "{listed}");
    for file in ["cairn.db", "cairn.db-wal"] {
        if let Ok(bytes) = std::fs::read(sandbox.home.join(file)) {
            let secret = &reader.as_bytes()[20..];
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret),
                "{file} holds a secret"
            );
        }
    }
    let text = sandbox.ok(&["token", "list"]).stdout;
    assert!(
        text.contains(id_of(&reader)) && text.contains("ci bot"),
        "{text}"
    );

    // The running server needs a token now, and keeps each to its project.
    let (status, body) = served.get("/v1/memories", "");
    assert_eq!(status, 401, "{body}");
    let (status, found) = served.post("/v1/search", &reader, &json!({"query": "deploys"}));
    assert_eq!(status, 200, "{found}");
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{found}");
    assert_eq!(results[0]["memory"]["project"], "acme");
    let (status, body) = served.post(
        "/v1/search",
        &reader,
        &json!({"query": "deploys", "project": "beta"}),
    );
    assert_eq!(status, 403, "{body}");
    let line = served.logged(&[
        "refused a request outside its token's scope",
        id_of(&reader),
    ]);
    assert!(line.contains("WARN") && line.contains("beta"), "{line}");
    let (status, body) = served.post("/v1/memories", &reader, &json!({"content": "x"}));
    assert_eq!(status, 403, "a read token does not write: {body}");
    let (status, body) = served.post(
        "/v1/memories",
        &writer,
        &json!({"content": "acme uses calver"}),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["memory"]["project"], "acme");

    // The command line stays the operator's: it sees every project.
    let all = sandbox.ok_json(&["list", "--all-projects"]);
    assert_eq!(all["total"], 3, "{all}");

    // Revoked: listed as such, refused by the server from the next request.
    let revoked = sandbox.ok(&["token", "revoke", id_of(&reader)]).stdout;
    assert!(
        revoked.starts_with(&format!("revoked {}", id_of(&reader))),
        "{revoked}"
    );
    let (status, body) = served.post("/v1/search", &reader, &json!({"query": "deploys"}));
    assert_eq!(status, 401, "{body}");
    let listed = sandbox.ok_json(&["token", "list"]);
    assert!(listed["tokens"][0]["revoked_at"].is_string(), "{listed}");
    let run = sandbox.run(&["token", "revoke", "0123456789ab"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("no token has the id"), "{}", run.stderr);

    // The audit log says who did each of it, through which door; the refused requests and
    // the reads left nothing.
    let log = sandbox.ok_json(&["audit", "--limit", "100"]);
    let entries = log["entries"].as_array().unwrap();
    let summary: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["entry_point"].as_str().unwrap(),
                e["token"].as_str().unwrap_or("local"),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("token.revoke", "cli", "local"),
            ("memory.store", "http", id_of(&writer)),
            ("token.issue", "cli", "local"),
            ("token.issue", "cli", "local"),
            ("memory.store", "cli", "local"),
            ("memory.store", "cli", "local"),
        ],
        "{log}"
    );
    let text = sandbox.ok(&["audit", "--token", id_of(&writer)]).stdout;
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("memory.store") && text.contains("http") && text.contains("acme"),
        "{text}"
    );
    let run = sandbox.run(&["audit", "--action", "memory.delete"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("action") && run.stderr.contains("memory.purge"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_server_beyond_loopback_starts_on_store_tokens_alone() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["serve", "--bind", "0.0.0.0:0"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("cairn token create"), "{}", run.stderr);
    let token = sandbox
        .ok(&["token", "create", "--project", "acme", "--write"])
        .stdout;
    let token = token.trim();
    let served = Served::without_token(&sandbox, &["--bind", "0.0.0.0:0"]);
    let (status, _) = served.get("/v1/memories", "");
    assert_eq!(status, 401);
    let (status, body) = served.get("/v1/memories", token);
    assert_eq!(status, 200, "{body}");
}
