//! One entry of the REST route table: its method and path, what it reads, what it answers and
//! its handler. The table ([`crate::routes`]) builds the router and the OpenAPI document
//! ([`crate::openapi`]) from the same entries.

use axum::http::Method;
use axum::routing::MethodRouter;
use serde_json::{Map, Value};

use crate::AppState;

/// What a route reads from the request body.
#[derive(Clone, Copy)]
pub enum RequestBody {
    None,
    /// One JSON document of this schema.
    Json(fn() -> Map<String, Value>),
    /// JSON Lines as `GET /v1/export` writes them, streamed.
    JsonLines,
}

/// One documented route.
pub struct Route {
    pub method: Method,
    /// In OpenAPI's and axum's shared syntax: `/v1/memories/{id}`.
    pub path: &'static str,
    pub summary: &'static str,
    pub body: RequestBody,
    /// The query parameters' schema (an object whose properties are the parameters).
    pub query: Option<fn() -> Map<String, Value>>,
    /// Statuses this route answers besides the error statuses every route may give.
    pub success: &'static [(u16, &'static str)],
    /// Whether the bearer token is required (when the server has one).
    pub authenticated: bool,
    pub handler: MethodRouter<AppState>,
}
