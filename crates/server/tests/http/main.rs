//! The HTTP server over a real loopback socket: every route, every error status, auth, body
//! limits, the OpenAPI document, concurrent clients and graceful shutdown; store tokens and
//! their scopes on every route in [`access`]; what a web page or a slow client can do in
//! [`web`]. The store is a real SQLite file in a temporary directory, with an image directory
//! beside it.

mod access;
mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use cairn_core::api::{Api, Caller};
use cairn_core::config::{Config, ToolProfile};
use cairn_core::store::Store;
use cairn_core::{ApiParts, Source};
use cairn_server::{AppState, ServerOptions};
use cairn_store_sqlite::SqliteStore;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const TOKEN: &str = "test-token-0123456789abcdef";

/// A service of its own over the server's database, as the CLI would open it next to a running
/// server (tokens are issued this way).
fn operator_service(database: &std::path::Path) -> Api {
    let store = SqliteStore::open(database).unwrap();
    let images = cairn_core::image::ImageDir::new(database.with_file_name("images"));
    let parts = ApiParts {
        images: Some(images),
        ..ApiParts::new(Box::new(store))
    };
    Api::open(parts, &Config::default())
}

struct TestServer {
    base: String,
    client: reqwest::Client,
    database: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    _dir: tempfile::TempDir,
}

struct Setup {
    token: Option<&'static str>,
    max_body_bytes: usize,
    max_import_bytes: usize,
    allowed_origins: Vec<String>,
    read_timeout: std::time::Duration,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            token: None,
            max_body_bytes: 1 << 20,
            max_import_bytes: 64 << 20,
            allowed_origins: Vec::new(),
            read_timeout: std::time::Duration::from_secs(30),
        }
    }
}

impl TestServer {
    async fn start(setup: Setup) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("cairn.db");
        let api = operator_service(&database);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let bind: SocketAddr = listener.local_addr().unwrap();
        let state = AppState {
            api,
            caller: Caller::local(Source::Http),
            tools: ToolProfile::Core,
            options: Arc::new(ServerOptions {
                bind,
                token: setup.token.map(String::from),
                max_body_bytes: setup.max_body_bytes,
                max_import_bytes: setup.max_import_bytes,
                allowed_origins: setup.allowed_origins.clone(),
                read_timeout: setup.read_timeout,
            }),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(cairn_server::serve(listener, state, async move {
            let _ = stopped.await;
        }));
        TestServer {
            base: format!("http://{bind}"),
            client: reqwest::Client::new(),
            database,
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base))
    }

    /// The server's address, for raw connections.
    fn address(&self) -> SocketAddr {
        self.base.trim_start_matches("http://").parse().unwrap()
    }

    /// `POST /v1/import` with the JSON Lines content type; the body is the caller's.
    fn import_request(&self) -> reqwest::RequestBuilder {
        self.request(Method::POST, "/v1/import")
            .header("content-type", "application/x-ndjson")
    }

    /// Sends and returns the status and the JSON body (`Null` when there is none).
    async fn send(&self, request: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let response = request.send().await.expect("the server answers");
        let status = response.status();
        let text = response.text().await.unwrap();
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, body)
    }

    /// `method path` as a client that follows the server's rules: JSON, and every POST, PUT or
    /// PATCH saying so even without a body.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let writes = [Method::POST, Method::PUT, Method::PATCH].contains(&method);
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(&body);
        } else if writes {
            request = request.header("content-type", "application/json");
        }
        self.send(request).await
    }

    async fn store(&self, content: &str) -> String {
        let (status, body) = self
            .call(
                Method::POST,
                "/v1/memories",
                Some(json!({"content": content})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["memory"]["id"].as_str().unwrap().to_string()
    }
}

/// One line of an export: memory `n`, global, never revised.
fn export_line(n: u64, content: &str) -> String {
    let id = format!("00000000-0000-4000-8000-{n:012}");
    let record = json!({"id": id, "content": content, "title": null, "category": "other",
        "tags": [], "project": null, "topic_key": null, "entered_by": null, "session_id": null,
        "source": "import", "importance": 3,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        "expires_at": null, "deleted_at": null, "revisions": []});
    format!("{record}\n")
}

fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_works_over_a_real_socket() {
    let server = TestServer::start(Setup::default()).await;
    let (status, health) = server.call(Method::GET, "/v1/health", None).await;
    assert_eq!((status, &health["status"]), (StatusCode::OK, &json!("ok")));
    assert_eq!(health["semantic_search"], false);

    let (status, created) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "Releases are cut from main every Tuesday", "tags": ["release"], "project": "acme", "category": "decision"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["memory"]["source"], "http");
    let id = created["memory"]["id"].as_str().unwrap().to_string();
    let handle = created["memory"]["handle"].as_str().unwrap().to_string();
    let (status, duplicate) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "Releases are cut from main every Tuesday", "project": "acme"})),
        )
        .await;
    assert_eq!(
        (status, &duplicate["status"]),
        (StatusCode::OK, &json!("duplicate"))
    );
    server.store("The staging cluster runs in eu-west-1").await;

    let (status, listed) = server
        .call(Method::GET, "/v1/memories?project=acme&limit=5", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        listed["total"], 2,
        "acme's memory and the global one: {listed}"
    );
    let (_, listed) = server
        .call(Method::GET, "/v1/memories?tags=release", None)
        .await;
    assert_eq!(listed["memories"][0]["id"], id.as_str());

    let (status, got) = server
        .call(Method::GET, &format!("/v1/memories/{handle}"), None)
        .await;
    assert_eq!((status, &got["id"]), (StatusCode::OK, &json!(id)));

    let (status, patched) = server
        .call(
            Method::PATCH,
            &format!("/v1/memories/{id}"),
            Some(json!({"content": "Releases are cut from main every Wednesday", "importance": 5})),
        )
        .await;
    assert_eq!(
        (status, &patched["status"]),
        (StatusCode::OK, &json!("updated"))
    );
    let (_, history) = server
        .call(
            Method::GET,
            &format!("/v1/memories/{id}?history=true"),
            None,
        )
        .await;
    assert_eq!(
        history["revisions"].as_array().unwrap().len(),
        1,
        "{history}"
    );

    let (status, found) = server
        .call(
            Method::GET,
            "/v1/search?query=wednesday%20release&tags=release",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(found["results"][0]["memory"]["id"], id.as_str());
    let (status, found) = server
        .call(
            Method::POST,
            "/v1/search",
            Some(json!({"query": "staging cluster", "limit": 1, "mode": "lexical"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(found["results"].as_array().unwrap().len(), 1);
    assert!(
        found["results"][0]["memory"]["content"]
            .as_str()
            .unwrap()
            .contains("eu-west-1")
    );

    let (_, tags) = server.call(Method::GET, "/v1/tags", None).await;
    assert_eq!(tags["tags"], json!([{"tag": "release", "count": 1}]));
    let (_, stats) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(stats["memories"], 2, "{stats}");

    let export = server
        .request(Method::GET, "/v1/export")
        .send()
        .await
        .unwrap();
    assert_eq!(export.headers()["content-type"], "application/x-ndjson");
    let lines = export.text().await.unwrap();
    assert_eq!(lines.lines().count(), 1 + 2, "a header, then the memories");
    let header: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(
        (
            header["counts"]["memories"].clone(),
            header["sessions"].clone()
        ),
        (json!(2), json!(false))
    );
    let with_sessions = server
        .request(Method::GET, "/v1/export?sessions=true")
        .send()
        .await
        .unwrap();
    let first = with_sessions.text().await.unwrap();
    let header: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(header["sessions"], true);
    let (status, imported) = server
        .send(server.import_request().body(lines.clone()))
        .await;
    assert_eq!(status, StatusCode::OK, "{imported}");
    assert_eq!(
        imported["memories"]["unchanged"], 2,
        "importing an export again changes nothing"
    );

    let (status, forgotten) = server
        .call(Method::DELETE, &format!("/v1/memories/{id}"), None)
        .await;
    assert_eq!(
        (status, &forgotten["status"]),
        (StatusCode::OK, &json!("forgotten"))
    );
    let (status, _) = server
        .call(Method::GET, &format!("/v1/memories/{id}"), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, purged) = server
        .call(
            Method::DELETE,
            &format!("/v1/memories/{id}?purge=true"),
            None,
        )
        .await;
    assert_eq!(
        (status, &purged["status"]),
        (StatusCode::OK, &json!("purged"))
    );
    let (_, stats) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(stats["memories"], 1, "{stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_error_status_comes_back_in_one_json_shape() {
    let server = TestServer::start(Setup {
        max_body_bytes: 64 * 1024,
        ..Setup::default()
    })
    .await;
    // 400: refused by the service, naming the field.
    let (status, body) = server
        .call(Method::POST, "/v1/memories", Some(json!({"content": "  "})))
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "content");
    // 400: not the route's JSON.
    let (status, body) = server
        .send(
            server
                .request(Method::POST, "/v1/memories")
                .header("content-type", "application/json")
                .body("{not json"),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    let (status, body) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "x", "colour": "red"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("colour"),
        "{body}"
    );
    let (status, body) = server
        .call(Method::GET, "/v1/search?query=x&limit=many", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "limit");
    let (status, body) = server
        .call(Method::GET, "/v1/search?query=x&limit=500", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    let (status, body) = server
        .call(Method::GET, "/v1/search?query=x&after=someday", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "after");
    // 404: no such memory, no such route.
    let (status, body) = server
        .call(Method::GET, "/v1/memories/0123abcd", None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    let (status, body) = server.call(Method::GET, "/v2/anything", None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    // 409: a handle that matches two memories.
    // Two ids that share their first eight digits (every `export_line` id does).
    let lines = export_line(0xabcd_0001, "one") + &export_line(0xabcd_0002, "two");
    let (status, body) = server.send(server.import_request().body(lines)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = server
        .call(Method::GET, "/v1/memories/00000000", None)
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "conflict");
    // 413: content over the service's limit, and a body over the server's.
    let (status, body) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "x".repeat(20_000)})),
        )
        .await;
    assert_error(status, &body, StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    assert_eq!(body["error"]["field"], "content");
    let (status, body) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "x".repeat(100_000)})),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    assert_eq!(body["error"]["field"], "body");
    // 503: meaning without a model.
    let (status, body) = server
        .call(Method::GET, "/v1/search?query=anything&mode=semantic", None)
        .await;
    assert_error(
        status,
        &body,
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
    );
    // Nothing refused was written: only the two imported memories exist.
    let (_, stats) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(stats["memories"], 2, "{stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_log_shows_each_change_made_over_http_and_refuses_a_bad_filter() {
    let server = TestServer::start(Setup::default()).await;
    let id = server
        .store("the staging database is rebuilt nightly")
        .await;
    let (status, _) = server
        .call(
            Method::DELETE,
            &format!("/v1/memories/{id}?purge=true"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, log) = server.call(Method::GET, "/v1/audit", None).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let entries = log["entries"].as_array().unwrap();
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["memory.purge", "memory.store"], "{log}");
    for entry in entries {
        assert_eq!(entry["entry_point"], "http", "{log}");
        assert_eq!(
            entry["token"],
            Value::Null,
            "the local user on loopback: {log}"
        );
        assert_eq!(entry["target"], id.as_str(), "{log}");
    }
    let (status, log) = server
        .call(Method::GET, "/v1/audit?target=nothing-like-it", None)
        .await;
    assert_eq!((status, log), (StatusCode::OK, json!({"entries": []})));
    let (status, body) = server
        .call(Method::GET, "/v1/audit?action=memory.delete", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "action", "{body}");
}

/// A relation imported over HTTP before its memories waits: listed, shown, replayed (nothing
/// to apply yet) and discarded through `/v1/conflicts/deferred`; bad ids and filters are named.
#[tokio::test(flavor = "multi_thread")]
async fn a_relation_imported_before_its_memories_waits_in_the_deferred_queue() {
    let server = TestServer::start(Setup::default()).await;
    let judgment = "5b1e07c2-4d0e-4f7a-9a51-2f0c1d3e4b6a";
    let relation = json!({
        "type": "relation", "id": judgment,
        "source": "0b0e6f3c-2d4a-4c1e-9f7b-1a2b3c4d5e6f",
        "target": "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
        "project": "acme", "score": null, "verdict": null, "history": [],
        "created_at": "2026-03-11T14:05:00Z", "updated_at": "2026-03-11T14:05:00Z",
    });
    let (status, report) = server
        .send(server.import_request().body(format!("{relation}\n")))
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["relations_deferred"], 1, "{report}");

    let (status, listed) = server
        .call(Method::GET, "/v1/conflicts/deferred?status=deferred", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(
        listed["deferred"][0]["relation"]["id"], judgment,
        "{listed}"
    );
    let one = format!("/v1/conflicts/deferred/{judgment}");
    let (status, shown) = server.call(Method::GET, &one, None).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["deferred"]["status"], "deferred", "{shown}");
    let (status, replay) = server
        .call(Method::POST, "/v1/conflicts/deferred/replay", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{replay}");
    assert_eq!(
        (replay["retried"].clone(), replay["waiting"].clone()),
        (json!(1), json!(1))
    );
    let (status, discarded) = server.call(Method::DELETE, &one, None).await;
    assert_eq!(status, StatusCode::OK, "{discarded}");
    assert_eq!(discarded["status"], "discarded");
    let (status, body) = server.call(Method::GET, &one, None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    let (status, body) = server
        .call(Method::GET, "/v1/conflicts/deferred?status=stuck", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "status", "{body}");
    let (status, body) = server
        .call(Method::GET, "/v1/conflicts/deferred/5b1e07c2", None)
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "invalid");
    assert_eq!(body["error"]["field"], "id", "{body}");
    let (status, log) = server
        .call(Method::GET, "/v1/audit?action=deferred.discard", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{log}");
    assert_eq!(log["entries"][0]["target"], judgment, "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_guards_every_route_but_health_and_the_document() {
    let server = TestServer::start(Setup {
        token: Some(TOKEN),
        ..Setup::default()
    })
    .await;
    let (status, body) = server.call(Method::GET, "/v1/stats", None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    let (status, body) = server
        .send(
            server
                .request(Method::GET, "/v1/stats")
                .bearer_auth("wrong-token-0123456789"),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    let (status, _) = server
        .send(server.request(Method::GET, "/v1/stats").bearer_auth(TOKEN))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = server
        .send(
            server
                .request(Method::POST, "/v1/memories")
                .json(&json!({"content": "written without a token"})),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    let (status, body) = server
        .send(
            server
                .request(Method::POST, "/mcp")
                .header("accept", "application/json, text/event-stream")
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    for open in ["/v1/health", "/v1/openapi.json"] {
        let (status, _) = server.call(Method::GET, open, None).await;
        assert_eq!(status, StatusCode::OK, "{open}");
    }
    let (_, stats) = server
        .send(server.request(Method::GET, "/v1/stats").bearer_auth(TOKEN))
        .await;
    assert_eq!(stats["memories"], 0, "the refused write wrote nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_viewer_is_served_without_a_token_under_a_policy_that_forbids_inline_script() {
    let server = TestServer::start(Setup {
        token: Some(TOKEN),
        ..Setup::default()
    })
    .await;
    for (path, content_type, holds) in [
        (
            "/",
            "text/html",
            r#"<script type="module" src="/viewer/app.js">"#,
        ),
        ("/viewer/app.js", "text/javascript", "import"),
        ("/viewer/dom.js", "text/javascript", "export function el("),
        ("/viewer/viewer.css", "text/css", ":root"),
    ] {
        let response = server.request(Method::GET, path).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with(content_type),
            "{path}: {headers:?}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert_eq!(policy, cairn_server::viewer::CONTENT_SECURITY_POLICY);
        assert!(policy.contains("script-src 'self';") && !policy.contains("unsafe"));
        assert!(response.text().await.unwrap().contains(holds), "{path}");
    }
    // The page is open; what it shows is not.
    let (status, body) = server.call(Method::GET, "/v1/memories", None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
}

#[test]
fn listening_beyond_loopback_needs_a_long_token_or_store_tokens() {
    let public: SocketAddr = "0.0.0.0:7437".parse().unwrap();
    let loopback: SocketAddr = "127.0.0.1:7437".parse().unwrap();
    let refused = cairn_server::check_exposure(&public, None, false).unwrap_err();
    assert_eq!(refused.field(), Some("bind"));
    assert!(refused.to_string().contains("--token"), "{refused}");
    assert!(
        refused.to_string().contains("cairn token create"),
        "{refused}"
    );
    assert!(cairn_server::check_exposure(&public, Some(TOKEN), false).is_ok());
    assert!(cairn_server::check_exposure(&public, None, true).is_ok());
    assert!(cairn_server::check_exposure(&loopback, None, false).is_ok());
    let short = cairn_server::check_exposure(&public, Some("hunter2"), true).unwrap_err();
    assert_eq!(short.field(), Some("token"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_lists_exactly_the_routes_that_answer() {
    let server = TestServer::start(Setup::default()).await;
    let id = server.store("a memory for the route walk").await;
    let (status, document) = server.call(Method::GET, "/v1/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(document["openapi"], "3.1.0");
    let mut documented = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push(format!("{} {path}", method.to_uppercase()));
        }
    }
    documented.sort();
    let expected = [
        "DELETE /agentmemory/slot",
        "DELETE /v1/conflicts/deferred/{id}",
        "DELETE /v1/memories/{id}",
        "DELETE /v1/slots/{label}",
        "GET /agentmemory/slot",
        "GET /agentmemory/slots",
        "GET /v1/audit",
        "GET /v1/conflicts",
        "GET /v1/conflicts/deferred",
        "GET /v1/conflicts/deferred/{id}",
        "GET /v1/conflicts/stats",
        "GET /v1/conflicts/{id}",
        "GET /v1/context",
        "GET /v1/export",
        "GET /v1/health",
        "GET /v1/images/{id}/thumbnail",
        "GET /v1/memories",
        "GET /v1/memories/{id}",
        "GET /v1/openapi.json",
        "GET /v1/search",
        "GET /v1/sessions",
        "GET /v1/sessions/{agent}/{id}",
        "GET /v1/slots",
        "GET /v1/slots/{label}",
        "GET /v1/stats",
        "GET /v1/tags",
        "PATCH /v1/memories/{id}",
        "PATCH /v1/slots/{label}",
        "POST /agentmemory/slot",
        "POST /agentmemory/slot/append",
        "POST /agentmemory/slot/reflect",
        "POST /agentmemory/slot/replace",
        "POST /agentmemory/vision-embed",
        "POST /agentmemory/vision-search",
        "POST /v1/conflicts/compare",
        "POST /v1/conflicts/deferred/replay",
        "POST /v1/conflicts/scan",
        "POST /v1/conflicts/{id}/judge",
        "POST /v1/context",
        "POST /v1/import",
        "POST /v1/memories",
        "POST /v1/memories/add",
        "POST /v1/memories/{id}/restore",
        "POST /v1/search",
        "POST /v1/sessions/summary",
        "POST /v1/sessions/{agent}/{id}/reflect",
        "POST /v1/slots",
        "POST /v1/slots/{label}/append",
        "POST /v1/slots/{label}/reset",
        "POST /v1/vision/embed",
        "POST /v1/vision/search",
        "PUT /v1/slots/{label}",
    ];
    assert_eq!(documented, expected);
    // Each documented operation is really routed: never the fallback's 404 or a 405.
    for operation in &documented {
        let (method, path) = operation.split_once(' ').unwrap();
        let path = path
            .replace("{agent}", "claude-code")
            .replace("{id}", &id)
            .replace("{label}", "guidance");
        let (status, body) = server
            .send(
                server
                    .request(method.parse().unwrap(), &path)
                    .header("content-type", "application/json")
                    .body("{}"),
            )
            .await;
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{operation}");
        assert!(
            !body.to_string().contains("no such route"),
            "{operation} fell through: {body}"
        );
    }
    // Query parameters come from the input types: search documents its filters.
    let parameters: Vec<&str> = document["paths"]["/v1/search"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in ["query", "mode", "limit", "tags", "project", "after"] {
        assert!(
            parameters.contains(&name),
            "{name} missing from {parameters:?}"
        );
    }
}

/// agentmemory's slot, vision-search and vision-embed requests, with its field names, answered
/// by the same operations as `/v1`.
#[tokio::test(flavor = "multi_thread")]
async fn agentmemorys_slot_and_vision_requests_are_answered_as_v1_answers_them() {
    let server = TestServer::start(Setup::default()).await;
    let (status, created) = server
        .call(
            Method::POST,
            "/agentmemory/slot",
            Some(json!({"label": "house_rules", "content": "- tabs", "sizeLimit": 200, "readOnly": "false", "scope": "global"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(
        created["slot"]["pinned"], true,
        "pinned unless asked: {created}"
    );
    assert_eq!(created["slot"]["limit"], 200);
    let (status, appended) = server
        .call(
            Method::POST,
            "/agentmemory/slot/append",
            Some(json!({"label": "house_rules", "text": "- small PRs"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{appended}");
    assert_eq!(appended["slot"]["content"], "- tabs\n- small PRs");
    let (status, got) = server
        .call(Method::GET, "/agentmemory/slot?label=house_rules", None)
        .await;
    assert_eq!(
        (status, &got["slot"]["content"]),
        (StatusCode::OK, &appended["slot"]["content"])
    );
    let (_, v1) = server
        .call(Method::GET, "/v1/slots/house_rules", None)
        .await;
    assert_eq!(got, v1, "the same document as /v1");
    let (status, replaced) = server
        .call(
            Method::POST,
            "/agentmemory/slot/replace",
            Some(json!({"label": "house_rules", "content": "- spaces"})),
        )
        .await;
    assert_eq!(
        (status, &replaced["slot"]["content"]),
        (StatusCode::OK, &json!("- spaces"))
    );
    let (_, listed) = server.call(Method::GET, "/agentmemory/slots", None).await;
    assert!(
        listed["slots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["label"] == "house_rules")
    );
    // Over the limit: refused as /v1 refuses it, nothing written.
    let (status, over) = server
        .call(
            Method::POST,
            "/agentmemory/slot/append",
            Some(json!({"label": "house_rules", "text": "x".repeat(300)})),
        )
        .await;
    assert_error(status, &over, StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    let (status, deleted) = server
        .call(Method::DELETE, "/agentmemory/slot?label=house_rules", None)
        .await;
    assert_eq!(
        (status, &deleted["status"]),
        (StatusCode::OK, &json!("deleted"))
    );
    let (status, gone) = server
        .call(Method::GET, "/agentmemory/slot?label=house_rules", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{gone}");

    // Vision search with agentmemory's names; a name neither system knows is refused.
    server
        .store("The login page shows connection refused")
        .await;
    let (status, found) = server
        .call(
            Method::POST,
            "/agentmemory/vision-search",
            Some(json!({"queryText": "connection refused", "topK": "3"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let (_, v1) = server
        .call(
            Method::POST,
            "/v1/vision/search",
            Some(json!({"query_text": "connection refused", "top_k": 3})),
        )
        .await;
    assert_eq!(found, v1);
    let (status, refused) = server
        .call(
            Method::POST,
            "/agentmemory/vision-search",
            Some(json!({"queryTxt": "connection refused"})),
        )
        .await;
    assert_error(status, &refused, StatusCode::BAD_REQUEST, "invalid");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("queryTxt"),
        "{refused}"
    );

    // Vision embed with agentmemory's names (the session and observation taken and left).
    let pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let (status, stored) = server
        .call(
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "the login page", "image": pixel})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{stored}");
    let image = stored["image"]["id"]
        .as_str()
        .expect("an image id")
        .to_string();
    let (status, looked) = server
        .call(
            Method::POST,
            "/agentmemory/vision-embed",
            Some(json!({"imageRef": image, "sessionId": "ses_1", "observationId": "obs_1"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{looked}");
    assert_eq!(looked["image"]["id"], json!(image));
    assert_eq!(looked["report"]["hashed"], 1, "{looked}");
    let (_, v1) = server
        .call(
            Method::POST,
            "/v1/vision/embed",
            Some(json!({"image_ref": image})),
        )
        .await;
    assert_eq!(looked["image"], v1["image"]);
    let (status, refused) = server
        .call(
            Method::POST,
            "/agentmemory/vision-embed",
            Some(json!({"imageRf": image})),
        )
        .await;
    assert_error(status, &refused, StatusCode::BAD_REQUEST, "invalid");
}

#[tokio::test(flavor = "multi_thread")]
async fn sixteen_concurrent_clients_lose_nothing() {
    let server = Arc::new(TestServer::start(Setup::default()).await);
    let mut tasks = Vec::new();
    for client in 0..16 {
        let server = Arc::clone(&server);
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for request in 0..200 {
                if request % 2 == 0 {
                    ids.push(
                        server
                            .store(&format!(
                                "client {client} wrote note {request} about queues"
                            ))
                            .await,
                    );
                } else {
                    let (status, _) = server
                        .call(Method::GET, "/v1/search?query=queues&limit=5", None)
                        .await;
                    assert_eq!(status, StatusCode::OK);
                }
            }
            ids
        }));
    }
    let mut written = Vec::new();
    for task in tasks {
        written.extend(task.await.unwrap());
    }
    assert_eq!(written.len(), 16 * 100);
    let (_, stats) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(stats["memories"], 1600, "{stats}");
    for id in written.iter().step_by(16) {
        let (status, _) = server
            .call(Method::GET, &format!("/v1/memories/{id}"), None)
            .await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{id} was acknowledged but is missing"
        );
    }
}

/// Waits until `condition` holds, checking it between short pauses; fails after a minute.
async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited a minute for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_lets_a_write_in_flight_finish() {
    let mut server = TestServer::start(Setup::default()).await;
    let lines: String = (0..3_000)
        .map(|n| export_line(n, &format!("imported during shutdown, number {n}")))
        .collect();
    // The body arrives in two parts; the server is told to stop between them.
    let (parts, body) = tokio::sync::mpsc::channel::<Result<String, std::io::Error>>(2);
    let body = reqwest::Body::wrap_stream(tokio_stream::wrappers::ReceiverStream::new(body));
    let import = tokio::spawn(server.import_request().body(body).send());
    let half = lines.len() / 2;
    let cut = lines[..half].rfind('\n').unwrap() + 1;
    parts.send(Ok(lines[..cut].to_string())).await.unwrap();
    // Handshake: the import is under way once its transaction holds the store's write lock.
    let probe = SqliteStore::open(&server.database)
        .unwrap()
        .with_lock_wait(std::time::Duration::ZERO)
        .unwrap();
    wait_for("the import to take the write lock", || {
        matches!(
            probe.write(&mut |_| Ok(())),
            Err(cairn_core::Error::Busy { .. })
        )
    })
    .await;
    let _ = server.stop.take().unwrap().send(());
    // Handshake: the server is shutting down once it refuses new connections.
    let address = server.base.trim_start_matches("http://").to_string();
    wait_for("the server to refuse new connections", || {
        std::net::TcpStream::connect(&address).is_err()
    })
    .await;
    parts.send(Ok(lines[cut..].to_string())).await.unwrap();
    drop(parts);
    let response = import.await.unwrap().expect("the import got its answer");
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!(report["memories"]["created"], 3_000, "{report}");
    server.task.take().unwrap().await.unwrap().unwrap();
    // And the database the server left behind holds all of it.
    let store = SqliteStore::open(&server.database).unwrap();
    let api = Api::open(ApiParts::new(Box::new(store)), &Config::default());
    assert_eq!(
        api.stats(&cairn_core::testing::local()).unwrap().memories,
        3_000
    );
    // New connections are refused once it has stopped.
    assert!(
        server
            .request(Method::GET, "/v1/health")
            .send()
            .await
            .is_err()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_import_over_its_limit_is_refused_whole() {
    let server = TestServer::start(Setup {
        max_import_bytes: 16 * 1024,
        ..Setup::default()
    })
    .await;
    let lines: String = (0..200)
        .map(|n| export_line(n, "too many to import"))
        .collect();
    assert!(lines.len() > 16 * 1024);
    let (status, body) = server.send(server.import_request().body(lines)).await;
    assert_error(
        status,
        &body,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    assert_eq!(body["error"]["field"], "body");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_import_bytes"),
        "{body}"
    );
    let (_, stats) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(
        stats["memories"], 0,
        "the lines before the limit were rolled back"
    );
}

/// Sessions recorded by hooks (another process writing the same file) are served: listed,
/// shown with observations, found by observation search; context fits its budget; an agent's
/// summary is stored on its session.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_observations_context_and_summaries_are_served() {
    use cairn_core::session::{AgentEvent, EventKind, SessionKey};
    let server = TestServer::start(Setup::default()).await;
    let acme = cairn_core::ProjectName::new("acme").unwrap();
    let hooks = Api::open(
        ApiParts::new(Box::new(SqliteStore::open(&server.database).unwrap())),
        &Config::default(),
    );
    let event = |n: usize, kind: EventKind| AgentEvent {
        event_id: format!("e{n}"),
        session: SessionKey::new("claude-code", "s1").unwrap(),
        project: acme.clone(),
        cwd: None,
        at: jiff::Timestamp::now(),
        kind,
    };
    hooks
        .record_events(&[
            event(
                0,
                EventKind::Prompt {
                    text: "why does the kubernetes deploy hang".into(),
                },
            ),
            event(
                1,
                EventKind::ToolUse {
                    tool: "Bash".into(),
                    input: "kubectl rollout status deploy/api".into(),
                    output: "waiting".into(),
                    files: vec![],
                    images: Vec::new(),
                },
            ),
        ])
        .unwrap();
    let id = server
        .store("Deploys hang when the readiness probe path is wrong")
        .await;

    let (status, body) = server
        .call(Method::GET, "/v1/sessions?all_projects=true", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["sessions"][0]["key"]["id"], "s1");
    let (status, body) = server
        .call(Method::GET, "/v1/sessions/claude-code/s1", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["observations"].as_array().unwrap().len(), 2);
    let (status, body) = server
        .call(Method::GET, "/v1/sessions/claude-code/nope", None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(body["error"]["field"], "session", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no session claude-code/nope is recorded"),
        "{body}"
    );

    // agentmemory's slot reflection names the session by its id alone, as /v1 does by path.
    let (status, reflected) = server
        .call(
            Method::POST,
            "/agentmemory/slot/reflect",
            Some(json!({"sessionId": "s1", "maxObservations": 50})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reflected}");
    assert_eq!(
        reflected["session"],
        json!({"agent": "claude-code", "id": "s1"})
    );
    let (_, v1) = server
        .call(Method::POST, "/v1/sessions/claude-code/s1/reflect", None)
        .await;
    assert_eq!(
        (&reflected["session"], &reflected["project"]),
        (&v1["session"], &v1["project"])
    );
    let (status, body) = server
        .call(
            Method::POST,
            "/agentmemory/slot/reflect",
            Some(json!({"sessionId": "nope"})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");

    let (status, body) = server
        .call(
            Method::GET,
            "/v1/search?query=kubernetes&observations=true&all_projects=true",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["observations"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["observations"][0]["observation"]["kind"], "prompt");
    let (status, body) = server
        .call(
            Method::GET,
            "/v1/search?query=kubernetes&observations=true&tags=a",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["field"], "tags");

    let (status, body) = server
        .call(
            Method::POST,
            "/v1/context",
            Some(json!({"query": "deploy hangs", "budget": 300})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["tokens"].as_u64().unwrap() <= 300, "{body}");
    assert_eq!(body["items"][0]["id"], id.as_str());
    let (status, body) = server
        .call(Method::GET, "/v1/context?budget=10", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["field"], "budget");

    let (status, body) = server
        .call(
            Method::POST,
            "/v1/sessions/summary",
            Some(json!({"goal": "Find why deploys hang", "project": "acme",
                        "next_steps": ["fix the probe path"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, body) = server
        .call(Method::GET, "/v1/sessions/claude-code/s1", None)
        .await;
    assert_eq!(body["session"]["summary_by"], "agent", "{body}");
    assert!(
        body["session"]["summary"]
            .as_str()
            .unwrap()
            .contains("- fix the probe path")
    );
}
