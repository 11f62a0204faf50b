//! HTTP errors: every failure becomes one JSON shape with the right status, here and nowhere
//! else.
//!
//! ```json
//! {"error": {"code": "invalid", "message": "content: is empty; say what should be remembered", "field": "content"}}
//! ```
//!
//! | code | status | when |
//! | --- | --- | --- |
//! | `invalid` | 400 | the service refused the input, or the body is not the JSON the route takes, or a query parameter the route does not take |
//! | `invalid_utf8` | 400 | a body (an import) that is not UTF-8 text |
//! | `unauthorized` | 401 | a token is required and the request's is missing or wrong |
//! | `read_only` | 403 | the target refuses changes (a read-only slot) |
//! | `forbidden` | 403 | the request's token does not reach what it asks for |
//! | `wrong_origin` | 403 | a web page of another origin (see [`crate::guard`]) |
//! | `not_found` | 404 | no such memory, slot or session, or no such route |
//! | `request_timeout` | 408 | the body went silent for `server.read_timeout_secs` |
//! | `conflict` | 409 | a short handle matches several memories; a slot that already exists |
//! | `too_large` | 413 | a value over its configured limit |
//! | `payload_too_large` | 413 | a body over the request limit |
//! | `unsupported_media_type` | 415 | a POST, PUT or PATCH without a JSON content type |
//! | `wrong_host` | 421 | a `Host` that is not this loopback server's (DNS rebinding) |
//! | `unavailable`, `busy` | 503 | a capability this installation lacks (semantic search without a model); the store's write lock was held too long |
//! | `disk_full` | 507 | the disk is full; nothing was written and what was stored is kept |
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

    /// The same error, naming the field (or header) at fault.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
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

    /// A body that went silent for longer than the server waits.
    pub fn body_timed_out() -> Self {
        ApiError {
            field: Some("body".into()),
            ..ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                "the request body sent nothing for longer than the server waits \
                 (server.read_timeout_secs); nothing was done",
            )
        }
    }

    pub fn body_too_large(limit: usize) -> Self {
        ApiError {
            field: Some("body".into()),
            ..ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!(
                    "the request body is over the limit of {limit} bytes (server.max_body_bytes)"
                ),
            )
        }
    }
}

/// The status and code of a service error; an import record's error is its cause's.
fn status_of(error: &Error) -> (StatusCode, &'static str) {
    match error {
        Error::ImportRecord { source, .. } => match status_of(source) {
            (status, code)
                if status.is_client_error() || status == StatusCode::INSUFFICIENT_STORAGE =>
            {
                (status, code)
            }
            _ => (StatusCode::BAD_REQUEST, "invalid"),
        },
        Error::Invalid { .. } => (StatusCode::BAD_REQUEST, "invalid"),
        Error::TooLarge { field, .. } if field == "body" => {
            (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large")
        }
        Error::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
        Error::InvalidUtf8 { .. } => (StatusCode::BAD_REQUEST, "invalid_utf8"),
        Error::DiskFull { .. } => (StatusCode::INSUFFICIENT_STORAGE, "disk_full"),
        Error::NotFound { .. } | Error::Missing { .. } => (StatusCode::NOT_FOUND, "not_found"),
        Error::AmbiguousHandle { .. } | Error::Conflict { .. } => {
            (StatusCode::CONFLICT, "conflict")
        }
        Error::ReadOnly { .. } => (StatusCode::FORBIDDEN, "read_only"),
        Error::Forbidden { .. } => (StatusCode::FORBIDDEN, "forbidden"),
        Error::Unavailable { .. } => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        Error::Busy { .. } => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
    }
}

impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        let (status, code) = status_of(&error);
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
