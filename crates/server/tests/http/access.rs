//! Store tokens over HTTP: once the store holds one, every request needs a token; a token's
//! request outside its project is 403 on every authenticated route (REST and MCP); inside it,
//! reads are narrowed to the project and the global scope; a revoked token is refused at once.

use cairn_core::access::{NewToken, Right};
use cairn_core::api::{Api, Caller};
use cairn_core::session::{AgentEvent, EventKind, SessionKey};
use cairn_core::{ProjectName, Source};

use super::*;

/// A 1×1 PNG, for a memory that shows an image.
const PIXEL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// What project beta holds, made by the operator before any token exists.
struct Beta {
    memory: String,
    other: String,
    judgment: String,
    image: String,
}

fn operator() -> Caller {
    Caller::local(Source::Cli)
}

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).unwrap()
}

fn stored(api: &Api, fields: Value) -> cairn_core::WriteOutcome {
    api.store(&operator(), input(fields)).unwrap()
}

/// Memories in acme, beta and the global scope; a judgment, an image and a session in beta.
fn populate(api: &Api) -> Beta {
    stored(
        api,
        json!({"content": "acme ships the gateway on tuesdays", "project": "acme"}),
    );
    stored(
        api,
        json!({"content": "the gateway config lives in etcd", "global": true}),
    );
    let memory = stored(
        api,
        json!({"content": "beta ships the gateway by hand", "project": "beta"}),
    );
    let other = stored(
        api,
        json!({"content": "beta pins openssl 3.0", "project": "beta"}),
    );
    let compared = api
        .compare(
            &operator(),
            input(
                json!({"a": other.memory.id.to_string(), "b": memory.memory.id.to_string(),
                "relation": "related"}),
            ),
        )
        .unwrap();
    let image = stored(
        api,
        json!({"content": "the beta login page", "project": "beta", "image": PIXEL}),
    );
    let at = api.now().timestamp();
    api.record_events(&[AgentEvent {
        event_id: "beta-start".into(),
        session: SessionKey::new("claude-code", "beta-session").unwrap(),
        project: ProjectName::new("beta").unwrap(),
        cwd: None,
        at,
        kind: EventKind::SessionStart { source: None },
    }])
    .unwrap();
    Beta {
        memory: memory.memory.id.to_string(),
        other: other.memory.id.to_string(),
        judgment: compared.relation.unwrap().relation.id.to_string(),
        image: image.image.expect("the image was kept").id.to_string(),
    }
}

fn issue(api: &Api, right: Right) -> String {
    api.issue_token(
        &operator(),
        NewToken {
            project: ProjectName::new("acme").unwrap(),
            right,
            name: None,
        },
    )
    .unwrap()
    .token
}

impl TestServer {
    async fn with_token(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let writes = [Method::POST, Method::PUT, Method::PATCH].contains(&method);
        let mut request = self.request(method, path).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        } else if writes {
            request = request.header("content-type", "application/json");
        }
        self.send(request).await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_token_reaches_only_its_project_on_every_route() {
    let server = TestServer::start(Setup::default()).await;
    let operator_api = operator_service(&server.database);
    let beta = populate(&operator_api);
    // Before any token, loopback is the local user's.
    let (status, _) = server.call(Method::GET, "/v1/stats", None).await;
    assert_eq!(status, StatusCode::OK);

    // Tokens issued while the server runs take effect at once.
    let reader = issue(&operator_api, Right::Read);
    let writer = issue(&operator_api, Right::Write);
    let (status, body) = server.call(Method::GET, "/v1/stats", None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cairn token create"),
        "{body}"
    );
    let (status, body) = server
        .with_token("cairn_000000000000_nope", Method::GET, "/v1/stats", None)
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    let (status, _) = server.call(Method::GET, "/v1/health", None).await;
    assert_eq!(status, StatusCode::OK, "health needs no token");

    // Every authenticated route, aimed at project beta (or the whole store), is refused.
    let (m, o, j, i) = (&beta.memory, &beta.other, &beta.judgment, &beta.image);
    let outside: Vec<(Method, String, Option<Value>)> = vec![
        // agentmemory's routes take the same inputs, so the same scope holds.
        (
            Method::POST,
            "/agentmemory/vision-search".into(),
            Some(json!({"queryText": "gateway", "project": "beta"})),
        ),
        (
            Method::POST,
            "/agentmemory/vision-embed".into(),
            Some(json!({"imageRef": i})),
        ),
        (
            Method::POST,
            "/v1/vision/embed".into(),
            Some(json!({"image_ref": i})),
        ),
        (Method::GET, "/agentmemory/slots?project=beta".into(), None),
        (
            Method::GET,
            "/agentmemory/slot?label=guidance&project=beta".into(),
            None,
        ),
        (
            Method::POST,
            "/agentmemory/slot".into(),
            Some(json!({"label": "notes", "project": "beta"})),
        ),
        (
            Method::DELETE,
            "/agentmemory/slot?label=guidance&project=beta".into(),
            None,
        ),
        (
            Method::POST,
            "/agentmemory/slot/append".into(),
            Some(json!({"label": "guidance", "text": "x", "project": "beta"})),
        ),
        (
            Method::POST,
            "/agentmemory/slot/replace".into(),
            Some(json!({"label": "guidance", "content": "x", "project": "beta"})),
        ),
        (Method::DELETE, format!("/v1/memories/{m}"), None),
        (Method::POST, format!("/v1/memories/{m}/restore"), None),
        (
            Method::DELETE,
            "/v1/slots/guidance?project=beta".into(),
            None,
        ),
        (Method::GET, "/v1/conflicts?project=beta".into(), None),
        (Method::GET, "/v1/conflicts/stats?project=beta".into(), None),
        (Method::GET, format!("/v1/conflicts/{j}"), None),
        (Method::GET, "/v1/context?project=beta".into(), None),
        (Method::GET, "/v1/export".into(), None),
        (Method::GET, format!("/v1/images/{i}/thumbnail"), None),
        (Method::GET, "/v1/memories?project=beta".into(), None),
        (Method::GET, format!("/v1/memories/{m}"), None),
        (Method::GET, format!("/v1/memories/{m}?history=true"), None),
        (
            Method::GET,
            "/v1/search?query=gateway&project=beta".into(),
            None,
        ),
        (
            Method::GET,
            "/v1/search?query=gateway&observations=true&project=beta".into(),
            None,
        ),
        (
            Method::POST,
            "/v1/vision/search".into(),
            Some(json!({"image_ref": i})),
        ),
        (Method::GET, "/v1/sessions?project=beta".into(), None),
        (
            Method::GET,
            "/v1/sessions/claude-code/beta-session".into(),
            None,
        ),
        (Method::GET, "/v1/slots?project=beta".into(), None),
        (Method::GET, "/v1/slots/guidance?project=beta".into(), None),
        (Method::GET, "/v1/stats".into(), None),
        (Method::GET, "/v1/audit".into(), None),
        (Method::GET, "/v1/conflicts/deferred".into(), None),
        (Method::GET, format!("/v1/conflicts/deferred/{j}"), None),
        (Method::DELETE, format!("/v1/conflicts/deferred/{j}"), None),
        (Method::POST, "/v1/conflicts/deferred/replay".into(), None),
        (Method::GET, "/v1/tags?project=beta".into(), None),
        (
            Method::PATCH,
            format!("/v1/memories/{m}"),
            Some(json!({"content": "taken"})),
        ),
        (
            Method::PATCH,
            "/v1/slots/guidance".into(),
            Some(json!({"project": "beta", "pinned": true})),
        ),
        (
            Method::POST,
            "/v1/conflicts/compare".into(),
            Some(json!({"a": o, "b": m, "relation": "compatible"})),
        ),
        (
            Method::POST,
            "/v1/conflicts/scan".into(),
            Some(json!({"project": "beta"})),
        ),
        (
            Method::POST,
            format!("/v1/conflicts/{j}/judge"),
            Some(json!({"relation": "compatible"})),
        ),
        (
            Method::POST,
            "/v1/context".into(),
            Some(json!({"project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/import".into(),
            Some(json!({"content": "imported"})),
        ),
        (
            Method::POST,
            "/v1/memories".into(),
            Some(json!({"content": "into beta", "project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/memories".into(),
            Some(json!({"content": "for all", "global": true})),
        ),
        (
            Method::POST,
            "/v1/search".into(),
            Some(json!({"query": "gateway", "project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/sessions/summary".into(),
            Some(json!({"goal": "x", "project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/sessions/claude-code/beta-session/reflect".into(),
            None,
        ),
        (
            Method::POST,
            "/agentmemory/slot/reflect".into(),
            Some(json!({"sessionId": "beta-session"})),
        ),
        (
            Method::POST,
            "/v1/slots".into(),
            Some(json!({"label": "beta_notes", "project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/slots/guidance/append".into(),
            Some(json!({"content": "- x", "project": "beta"})),
        ),
        (
            Method::POST,
            "/v1/slots/guidance/reset?project=beta".into(),
            None,
        ),
        (
            Method::POST,
            "/v1/vision/search".into(),
            Some(json!({"query_text": "login", "project": "beta"})),
        ),
        (
            Method::PUT,
            "/v1/slots/guidance".into(),
            Some(json!({"content": "x", "project": "beta"})),
        ),
    ];
    for (method, path, body) in &outside {
        let (status, answer) = server
            .with_token(&writer, method.clone(), path, body.clone())
            .await;
        assert_error(status, &answer, StatusCode::FORBIDDEN, "forbidden");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("outside this token's scope"),
            "{method} {path}: {answer}"
        );
    }
    // The table covers every authenticated route the OpenAPI document lists.
    let (_, document) = server.call(Method::GET, "/v1/openapi.json", None).await;
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["/v1/health", "/v1/openapi.json", "/v1/memories/add"].contains(&path.as_str()) {
                continue;
            }
            let pattern = path.split('{').next().unwrap();
            let covered = outside
                .iter()
                .any(|(m, p, _)| m.as_str().eq_ignore_ascii_case(method) && p.starts_with(pattern));
            assert!(
                covered,
                "{method} {path} is not tried outside the token's scope"
            );
        }
    }
    // `memory_add` writes into the token's own project: only a reader is refused.
    let add = json!({"text": "acme tags releases with calver"});
    let (status, body) = server
        .with_token(&reader, Method::POST, "/v1/memories/add", Some(add.clone()))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "forbidden");
    let (status, body) = server
        .with_token(&writer, Method::POST, "/v1/memories/add", Some(add))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Inside its scope: reads see acme and global memories, writes land in acme.
    let (status, body) = server
        .with_token(
            &reader,
            Method::GET,
            "/v1/search?query=gateway&all_projects=true",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut projects: Vec<Value> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["memory"]["project"].clone())
        .collect();
    projects.sort_by_key(|p| p.to_string());
    assert_eq!(projects, [json!("acme"), Value::Null]);
    let (status, body) = server
        .with_token(
            &writer,
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "acme rotates keys"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["memory"]["project"], "acme");
    // The log names the token behind each write and the entry point it came through (no
    // token reads it: `/v1/audit` is in the table above).
    let log = json!({"entries": operator_api
        .audit(&operator(), input(json!({"action": "memory.store", "limit": 2})))
        .unwrap()});
    let writer_id = writer.split('_').nth(1).unwrap();
    for entry in log["entries"].as_array().unwrap() {
        assert_eq!(entry["action"], "memory.store", "{log}");
        assert_eq!(entry["entry_point"], "http", "{log}");
        assert_eq!(entry["token"], writer_id, "{log}");
        assert_eq!(entry["project"], "acme", "{log}");
    }
    assert_eq!(log["entries"][0]["target"], body["memory"]["id"], "{log}");
    let (status, body) = server
        .with_token(
            &reader,
            Method::POST,
            "/v1/memories",
            Some(json!({"content": "a reader writes"})),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "forbidden");

    // MCP checks each call with the token its request presented.
    let mcp = McpSession::open(&server, &writer).await;
    let refused = mcp
        .call(
            "memory_search",
            json!({"query": "gateway", "project": "beta"}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused.to_string().contains("outside this token's scope"),
        "{refused}"
    );
    let found = mcp.call("memory_search", json!({"query": "gateway"})).await;
    assert_eq!(found["isError"], false, "{found}");
    assert!(!found.to_string().contains("beta ships"), "{found}");
    let (status, _) = server.call(Method::POST, "/mcp", Some(json!({}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Revoked: refused from the next request on.
    let id = reader
        .strip_prefix("cairn_")
        .unwrap()
        .split('_')
        .next()
        .unwrap();
    operator_api.revoke_token(&operator(), id).unwrap();
    let (status, body) = server
        .with_token(&reader, Method::GET, "/v1/memories", None)
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "unauthorized");
}

/// A minimal streamable-HTTP MCP client: initialise, then call tools, each request carrying
/// the bearer token.
struct McpSession<'a> {
    server: &'a TestServer,
    token: String,
    session: String,
}

impl<'a> McpSession<'a> {
    async fn open(server: &'a TestServer, token: &str) -> McpSession<'a> {
        let response = server
            .request(Method::POST, "/mcp")
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "access-test", "version": "1"}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        let _ = response.text().await;
        let mcp = McpSession {
            server,
            token: token.into(),
            session,
        };
        mcp.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        mcp
    }

    async fn post(&self, message: Value) -> String {
        self.server
            .request(Method::POST, "/mcp")
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.session)
            .json(&message)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// A tool call's result (`content`, `isError`).
    async fn call(&self, tool: &str, arguments: Value) -> Value {
        let text = self
            .post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}))
            .await;
        // Answered as server-sent events: the JSON is on the `data:` line.
        let data = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or_else(|| panic!("no event in {text}"));
        let message: Value = serde_json::from_str(data).unwrap();
        let mut result = message["result"].clone();
        if result.get("isError").is_none() {
            result["isError"] = json!(false);
        }
        result
    }
}
