//! HTTP errors: every failure becomes one JSON shape with the right status, here and nowhere
//! else.
//!
//! ```json
//! {"error": {"code": "invalid", "message": "content: is empty; say what should be remembered", "field": "content"}}
//! ```
//!
//! | code | status | when |
//! | --- | --- | --- |
//! | `invalid` | 400 | the service refused the input, or the body is not the JSON the route takes |
//! | `unauthorized` | 401 | a token is required and the request's is missing or wrong |
//! | `read_only` | 403 | the target refuses changes (a read-only slot) |
//! | `not_found` | 404 | no such memory, slot or session, or no such route |
//! | `conflict` | 409 | a short handle matches several memories; a slot that already exists |
//! | `too_large` | 413 | a value over its configured limit, or a body over the request limit |
//! | `unavailable` | 503 | a capability this installation lacks (semantic search without a model) |
//! | `internal` | 500 | storage or model failures; the message says what failed |

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cairn_core::Error;
use serde_json::json;

/// An error on its way to becoming a response.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub field: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
        }
    }

    /// A failure of the server itself (a task that panicked).
    pub fn internal(error: impl std::fmt::Display) -> Self {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            error.to_string(),
        )
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// A body that is not the JSON the route takes.
    pub fn bad_body(message: impl Into<String>) -> Self {
        ApiError {
            field: Some("body".into()),
            ..ApiError::new(StatusCode::BAD_REQUEST, "invalid", message)
        }
    }

    pub fn body_too_large(limit: usize) -> Self {
        ApiError {
            field: Some("body".into()),
            ..ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "the request body is over the limit of {limit} bytes (server.max_body_bytes)"
                ),
            )
        }
    }
}

impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        let (status, code) = match &error {
            Error::Invalid { .. } | Error::ImportRecord { .. } => {
                (StatusCode::BAD_REQUEST, "invalid")
            }
            Error::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            Error::NotFound { .. } | Error::Missing { .. } => (StatusCode::NOT_FOUND, "not_found"),
            Error::AmbiguousHandle { .. } | Error::Conflict { .. } => {
                (StatusCode::CONFLICT, "conflict")
            }
            Error::ReadOnly { .. } => (StatusCode::FORBIDDEN, "read_only"),
            Error::Forbidden { .. } => (StatusCode::FORBIDDEN, "forbidden"),
            Error::Unavailable { .. } => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            Error::Busy { .. } => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(%error, "request failed");
        }
        ApiError {
            status,
            code,
            field: error.field().map(String::from),
            message: error.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body =
            json!({"error": {"code": self.code, "message": self.message, "field": self.field}});
        (self.status, Json(body)).into_response()
    }
}
