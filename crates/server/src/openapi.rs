//! The OpenAPI 3.1 document, built from the route table.
//!
//! Request schemas are the same JSON Schemas (2020-12, which OpenAPI 3.1 uses as is) that MCP's
//! `tools/list` shows, generated from core's input types. Query parameters are the properties
//! of the route's query schema. Every route may also answer with the error statuses below, all
//! in one shape.

use serde_json::{Map, Value, json};

use crate::route::{RequestBody, Route};

/// The statuses any route may answer besides its own, with the shared error body.
const ERRORS: &[(u16, &str)] = &[
    (
        400,
        "invalid input (a body that is not UTF-8: invalid_utf8); `field` names what to fix",
    ),
    (401, "missing or wrong bearer token"),
    (
        403,
        "outside the token's scope, a read-only target, or a web page of another origin",
    ),
    (404, "no such memory"),
    (408, "the body went silent for server.read_timeout_secs"),
    (409, "a short handle matches several memories"),
    (413, "a value or the body is over its limit"),
    (
        415,
        "a POST, PUT or PATCH without Content-Type: application/json",
    ),
    (
        421,
        "a Host that is not this loopback server's (DNS rebinding)",
    ),
    (
        503,
        "not available here (semantic search without a model), or the store is busy",
    ),
    (507, "the disk is full; nothing was written"),
];

/// Every error code, as `crate::error` gives them.
const ERROR_CODES: &[&str] = &[
    "invalid",
    "invalid_utf8",
    "unauthorized",
    "forbidden",
    "read_only",
    "wrong_origin",
    "not_found",
    "request_timeout",
    "conflict",
    "too_large",
    "payload_too_large",
    "unsupported_media_type",
    "wrong_host",
    "unavailable",
    "busy",
    "disk_full",
    "internal",
];

fn error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": ERROR_CODES},
                "message": {"type": "string"},
                "field": {"type": ["string", "null"]},
            },
        }},
    })
}

fn operation(route: &Route) -> Value {
    let mut responses = Map::new();
    for (status, description) in route.success {
        responses.insert(status.to_string(), json!({"description": description}));
    }
    for (status, description) in ERRORS {
        if (*status == 401 && !route.authenticated) || responses.contains_key(&status.to_string()) {
            continue;
        }
        responses.insert(
            status.to_string(),
            json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}),
        );
    }
    let mut parameters: Vec<Value> = path_parameters(route.path)
        .map(|name| {
            let (description, schema) = path_parameter(route.path, name);
            json!({
                "name": name, "in": "path", "required": true,
                "description": description, "schema": schema,
            })
        })
        .collect();
    if let Some(query) = route.query {
        let schema = query();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, property) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let mut property = property.clone();
            let description = property
                .as_object_mut()
                .and_then(|p| p.remove("description"))
                .unwrap_or(Value::Null);
            let mut parameter = json!({
                "name": name, "in": "query",
                "required": required.contains(&name.as_str()),
                "schema": property,
            });
            if property_is_array(&parameter["schema"]) {
                parameter["style"] = json!("form");
                parameter["explode"] = json!(false);
            }
            if !description.is_null() {
                parameter["description"] = description;
            }
            parameters.push(parameter);
        }
    }
    let mut operation = json!({
        "summary": route.summary,
        "operationId": operation_id(route),
        "responses": responses,
    });
    if !parameters.is_empty() {
        operation["parameters"] = Value::Array(parameters);
    }
    let content = match route.body {
        RequestBody::None => None,
        RequestBody::Json(schema) => {
            Some(json!({"application/json": {"schema": Value::Object(schema())}}))
        }
        RequestBody::JsonLines => Some(json!({
            "application/x-ndjson": {"schema": {
                "type": "string",
                "description": "JSON Lines, one record per line, as GET /v1/export writes them",
            }},
            "application/json": {"schema": {
                "type": "array",
                "description": "Plain records in one JSON array: each at least {\"content\": …}",
                "items": {"type": "object"},
            }},
        })),
    };
    if let Some(content) = content {
        operation["requestBody"] = json!({"required": true, "content": content});
    }
    if !route.authenticated {
        operation["security"] = json!([]);
    }
    operation
}

/// The `{name}`s of a path, in order.
fn path_parameters(path: &str) -> impl Iterator<Item = &str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
}

/// What a path parameter is: its description and schema.
fn path_parameter(path: &str, name: &str) -> (&'static str, Value) {
    let hex_id = json!({"type": "string", "pattern": "^[0-9a-fA-F-]{8,36}$"});
    match name {
        "id" if path.starts_with("/v1/conflicts/deferred") => (
            "A full judgment id, as the deferred relations list it",
            json!({"type": "string", "pattern": "^[0-9a-fA-F-]{32,36}$"}),
        ),
        "id" if path.starts_with("/v1/conflicts") => {
            ("A judgment id or its first 8 hex digits", hex_id)
        }
        "id" if path.starts_with("/v1/images") => (
            "An image id (64 hex digits, as results give it)",
            json!({"type": "string", "pattern": "^[0-9a-f]{64}$"}),
        ),
        "id" if path.starts_with("/v1/sessions") => (
            "The agent's own session id",
            json!({"type": "string", "minLength": 1}),
        ),
        "id" => (
            "A full memory id or a short handle (at least 8 hex digits)",
            hex_id,
        ),
        "label" => (
            "A slot's label: a lowercase letter, then lowercase letters, digits and _ \
             (persona, pending_items …)",
            json!({"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"}),
        ),
        "agent" => (
            "The agent whose session it is (claude-code, codex, opencode …)",
            json!({"type": "string", "minLength": 1}),
        ),
        _ => ("", json!({"type": "string"})),
    }
}

fn property_is_array(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("array"))
}

/// `get_v1_memories_id` and the like: unique per method and path.
fn operation_id(route: &Route) -> String {
    let path: String = route
        .path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = path
        .split('_')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    format!("{}_{path}", route.method.as_str().to_ascii_lowercase())
}

/// The whole document.
pub fn document(routes: &[Route]) -> Value {
    let mut paths = Map::new();
    for route in routes {
        let item = paths
            .entry(route.path.to_string())
            .or_insert_with(|| json!({}));
        item[route.method.as_str().to_ascii_lowercase()] = operation(route);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "cairn",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Persistent memory for AI coding agents. MCP (streamable HTTP) is served at /mcp beside this API.",
        },
        "paths": paths,
        "components": {
            "schemas": {"Error": error_schema()},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    })
}
