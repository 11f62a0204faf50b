//! Reading requests into core's [`api`](cairn_core::api) inputs.
//!
//! A body is read within the body limit and parsed as the route's JSON type; a query string is
//! turned into the same JSON object first, so `GET /v1/search?query=x&tags=a,b&limit=5` and
//! `POST /v1/search {"query": "x", "tags": ["a", "b"], "limit": 5}` are one input with one
//! validation. The input type's own schema says how to read each parameter: booleans and numbers
//! are parsed, list fields take comma-separated or repeated values, and unknown parameters are
//! refused by name — on a route that reads none too ([`no_query`]). A body cut off by the
//! router's timeout is told apart from a malformed one ([`timed_out`], 408).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use query_pairs::coerce;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::AppState;
use crate::error::ApiError;

/// A JSON body of type `T`.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::body_too_large(state.options.max_body_bytes)
                } else if timed_out(&rejection) {
                    ApiError::body_timed_out()
                } else {
                    ApiError::bad_body(rejection.body_text())
                }
            })?;
        if bytes.is_empty() {
            return Err(ApiError::bad_body("the request needs a JSON body"));
        }
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|error| ApiError::bad_body(format!("not the JSON this route takes: {error}")))
    }
}

/// The layer of a route that reads no query parameters: any given are refused by name.
pub async fn no_query(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let names: Vec<String> = match Query::<Vec<(String, String)>>::try_from_uri(request.uri()) {
        Ok(Query(pairs)) => pairs.into_iter().map(|(name, _)| name).collect(),
        Err(_) => vec![request.uri().query().unwrap_or_default().to_string()],
    };
    let names: Vec<String> = names.into_iter().filter(|n| !n.is_empty()).collect();
    if names.is_empty() {
        return next.run(request).await;
    }
    let error = ApiError::bad_body(format!(
        "this route takes no query parameters, but got {}; send them in the JSON body \
         (GET /v1/openapi.json lists each route's parameters)",
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    error.with_field(names[0].clone()).into_response()
}

/// True when an error was caused by the body going silent (the router's body timeout).
pub fn timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        // An I/O error's `source` skips the error it wraps: look at that one too.
        if let Some(inner) = error
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            && timed_out(inner)
        {
            return true;
        }
        cause = error.source();
    }
    false
}

/// Query parameters read as the JSON input `T`.
pub struct QueryInput<T>(pub T);

type Schema = Arc<Map<String, Value>>;

/// `T`'s schema, generated once per type: every GET reads its query string with it.
fn schema_of<T: schemars::JsonSchema + 'static>() -> Schema {
    static SCHEMAS: OnceLock<Mutex<HashMap<TypeId, Schema>>> = OnceLock::new();
    let mut schemas = SCHEMAS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Arc::clone(
        schemas
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(cairn_core::api::schema::<T>())),
    )
}

impl<T: DeserializeOwned + schemars::JsonSchema + 'static> FromRequestParts<AppState>
    for QueryInput<T>
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Query(pairs) = Query::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::bad_body(rejection.body_text()))?;
        let object = coerce(&schema_of::<T>(), pairs)?;
        serde_json::from_value(Value::Object(object))
            .map(QueryInput)
            .map_err(|error| {
                let mut api = ApiError::bad_body(format!("query parameters: {error}"));
                api.field = Some("query".into());
                api
            })
    }
}

mod query_pairs {
    //! Query pairs to JSON, guided by a schema's property types.

    use super::*;

    pub fn coerce(
        schema: &Map<String, Value>,
        pairs: Vec<(String, String)>,
    ) -> Result<Map<String, Value>, ApiError> {
        let properties = schema.get("properties").and_then(Value::as_object);
        let mut object = Map::new();
        for (key, text) in pairs {
            let kind = properties
                .and_then(|p| p.get(&key))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("string");
            let bad = |what: &str| {
                ApiError::bad_body(format!("{key}: '{text}' is not {what}")).with_field(key.clone())
            };
            let value = match kind {
                "boolean" => match text.as_str() {
                    "true" | "1" | "" => Value::Bool(true),
                    "false" | "0" => Value::Bool(false),
                    _ => return Err(bad("true or false")),
                },
                "integer" => Value::from(text.parse::<i64>().map_err(|_| bad("a whole number"))?),
                "array" => {
                    let items = text
                        .split(',')
                        .map(str::trim)
                        .filter(|item| !item.is_empty())
                        .map(|item| Value::String(item.into()));
                    let list = object
                        .entry(key.clone())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(list) = list {
                        list.extend(items);
                    }
                    continue;
                }
                _ => Value::String(text),
            };
            object.insert(key, value);
        }
        Ok(object)
    }
}
