//! cairn on a PostgreSQL store (`CAIRN_STORE`): the CLI and two servers on one database share one
//! memory, and the write rules hold across servers. Each test gets a fresh schema of the server
//! `CAIRN_TEST_POSTGRES` names; they are ignored unless asked for (`--include-ignored`).

use cairn_store_postgres::testing::{fresh_store, test_server};
use serde_json::json;

use super::{Sandbox, Served};

/// A sandbox whose store is a fresh schema of the test server.
fn on_postgres() -> Sandbox {
    let server = test_server();
    // The URL puts every connection of every cairn process in that schema.
    let (_, url) = fresh_store(&server, "cli").expect("a fresh schema on the test server");
    Sandbox {
        store_url: Some(url),
        ..Sandbox::new()
    }
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn the_cli_and_two_servers_share_one_postgres_store() {
    let sandbox = on_postgres();
    let stored = sandbox.ok_json(&[
        "store",
        "The billing service retries webhooks with exponential backoff",
        "--tags",
        "billing",
    ]);
    let id = stored["memory"]["id"].as_str().unwrap().to_string();
    // Nothing was written to the SQLite file the sandbox would otherwise use.
    assert!(!sandbox.home.join("cairn.db").exists());

    let token = "postgres-test-token-0123456789";
    let first = Served::start(&sandbox, &["--project", "acme"], token);
    let second = Served::start(&sandbox, &["--project", "acme"], token);
    // What the CLI stored, both servers find (a typo too: the vocabulary is shared).
    for served in [&first, &second] {
        let (status, found) = served.post(
            "/v1/search",
            token,
            &json!({"query": "webhok backoff", "project": "acme"}),
        );
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["results"][0]["memory"]["id"], id.as_str(), "{found}");
    }
    // The same words stored through both servers at once are one memory: the duplicate check
    // and the write are atomic across servers.
    let rounds = 8;
    std::thread::scope(|scope| {
        for round in 0..rounds {
            for served in [&first, &second] {
                scope.spawn(move || {
                    let (status, body) = served.post(
                        "/v1/memories",
                        token,
                        &json!({"content": format!("Deploy step {round} runs the migrations first")}),
                    );
                    assert!(status == 200 || status == 201, "{status} {body}");
                });
            }
        }
    });
    let listed = sandbox.ok_json(&["list", "--limit", "100"]);
    let memories = listed["memories"].as_array().unwrap();
    assert_eq!(memories.len(), rounds + 1, "{listed}");
    // A memory stored through a server is the CLI's to change.
    let (_, through_http) = second.post(
        "/v1/memories",
        token,
        &json!({"content": "The staging database is reset every Sunday night"}),
    );
    let http_id = through_http["memory"]["id"].as_str().unwrap().to_string();
    sandbox.ok(&["forget", &http_id]);
    let (_, found) = first.post(
        "/v1/search",
        token,
        &json!({"query": "staging database", "project": "acme"}),
    );
    assert_eq!(found["results"].as_array().unwrap().len(), 0, "{found}");
}

#[test]
fn a_bad_store_url_is_explained_and_nothing_falls_back_to_the_file() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["store", "anything", "--store", "mysql://somewhere/db"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not a PostgreSQL URL"),
        "{}",
        run.stderr
    );
    let run = sandbox.run(&[
        "store",
        "anything",
        "--store",
        "postgres://nobody:secret@127.0.0.1:1/none",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("cannot connect to PostgreSQL at postgres://nobody@127.0.0.1:1/none"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("secret"), "{}", run.stderr);
    assert!(!sandbox.home.join("cairn.db").exists());
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_token_made_on_a_postgres_store_holds_on_every_server_until_revoked() {
    let sandbox = on_postgres();
    sandbox.ok(&["store", "acme's queue is RabbitMQ", "--project", "acme"]);
    sandbox.ok(&["store", "beta's queue is Kafka", "--project", "beta"]);
    let first = Served::without_token(&sandbox, &[]);
    let second = Served::without_token(&sandbox, &[]);
    let token = sandbox
        .ok(&["token", "create", "--project", "acme", "--write"])
        .stdout;
    let token = token.trim();
    for served in [&first, &second] {
        let (status, _) = served.get("/v1/memories", "");
        assert_eq!(status, 401, "the store holds a token now");
        let (status, found) = served.post("/v1/search", token, &json!({"query": "queue"}));
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
        let (status, body) = served.post(
            "/v1/memories",
            token,
            &json!({"content": "into beta", "project": "beta"}),
        );
        assert_eq!(status, 403, "{body}");
    }
    let id = token
        .strip_prefix("cairn_")
        .unwrap()
        .split('_')
        .next()
        .unwrap();
    sandbox.ok(&["token", "revoke", id]);
    for served in [&first, &second] {
        let (status, body) = served.post("/v1/search", token, &json!({"query": "queue"}));
        assert_eq!(status, 401, "{body}");
    }
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_store_moves_to_postgres_and_back_unchanged() {
    let server = test_server();
    let (_, url) = fresh_store(&server, "move").expect("a fresh schema on the test server");
    let sandbox = Sandbox::new();
    let token = super::migrate::populate(&sandbox);
    let original = sandbox.ok(&["export", "-", "--sessions"]).stdout;

    let moved = sandbox.ok_json(&["migrate-store", "--to", &url]);
    assert_eq!(moved["verified"], true, "{moved}");
    let on_postgres = sandbox
        .ok(&["--store", &url, "export", "-", "--sessions"])
        .stdout;
    assert_eq!(on_postgres, original);
    // PostgreSQL's list knows the token's project memories like the file did.
    let found = sandbox.ok_json(&["--store", &url, "search", "staging", "--project", "beta"]);
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
    // The token made on the file opens a server on PostgreSQL: its hash moved.
    let on_postgres = Sandbox {
        store_url: Some(url.clone()),
        ..Sandbox::new()
    };
    let served = Served::without_token(&on_postgres, &[]);
    let (status, _) = served.get("/v1/memories", "");
    assert_eq!(status, 401, "the moved token is required");
    let (status, found) = served.post("/v1/search", &token, &json!({"query": "staging"}));
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");

    let back = sandbox.home.join("back.db");
    let to = format!("sqlite:{}", back.display());
    let returned = sandbox.ok_json(&["migrate-store", "--from", &url, "--to", &to]);
    assert_eq!(returned["verified"], true, "{returned}");
    let back_db = back.display().to_string();
    let again = sandbox
        .ok(&["--db", &back_db, "export", "-", "--sessions"])
        .stdout;
    assert_eq!(again, original);
}
