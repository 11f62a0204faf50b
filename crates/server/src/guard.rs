//! What every request must be before any route sees it: loopback is not a trust boundary
//! against the user's own browser.
//!
//! A page on any site can make the browser send requests to `http://127.0.0.1:7437`. Two
//! kinds matter, and [`guard`] refuses both before auth, routes, MCP or the viewer run:
//! - **DNS rebinding**: a name the attacker controls (`evil.example`) answers with 127.0.0.1,
//!   so the page is same-origin with the server and could read every answer. The browser still
//!   sends the page's own name in `Host`, so a server bound to loopback answers only requests
//!   whose `Host` is a loopback name or the bound address (421 otherwise). A server bound
//!   beyond loopback needs a token for every request, which a rebinding page does not have,
//!   so it accepts any name its clients use.
//! - **Cross-site requests** ("CSRF"): a form or a `no-cors` fetch may POST with
//!   `Content-Type: text/plain` and no preflight. A `POST`, `PUT` or `PATCH` must therefore
//!   say it carries JSON (`application/json`, `application/*+json`, or JSON Lines for imports),
//!   which a browser only sends across sites after a preflight cairn never grants (415
//!   otherwise); and a request that carries `Origin` must come from the server's own origin
//!   or one listed in `server.allowed_origins` (403 otherwise). `DELETE` cannot be sent across
//!   sites without a preflight either, and carries `Origin` when a page sends it.
//!
//! Clients that are not browsers (curl, MCP SDKs, agents) send no `Origin` and a `Host` that
//! names the address they dialled, so nothing changes for them; a token keeps working from
//! anywhere.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// Host names a loopback server answers to, besides its own bound address.
const LOOPBACK_NAMES: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// The layer in front of everything the server serves.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match check(&state, request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    }
}

fn check(state: &AppState, method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    let host = host_of(headers)?;
    let bind = &state.options.bind;
    if bind.ip().is_loopback() && !is_loopback_name(host, &bind.ip().to_string()) {
        return Err(ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "wrong_host",
            format!(
                "the Host header names '{host}', but this server listens on {bind} without a \
                 token and answers only to loopback names (localhost, 127.0.0.1, [::1]); a web \
                 page reaching it under another name is refused (DNS rebinding)"
            ),
        )
        .with_field("Host"));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !same_origin(origin, host) && !listed(origin, &state.options.allowed_origins) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "wrong_origin",
                format!(
                    "the Origin header says this request comes from the page '{origin}', which \
                     is neither this server's own origin (http://{host}) nor listed in \
                     server.allowed_origins; web pages may not reach cairn"
                ),
            )
            .with_field("Origin"));
        }
    }
    if matches!(*method, Method::POST | Method::PUT | Method::PATCH) {
        let given = headers
            .get(header::CONTENT_TYPE)
            .map(|value| value.to_str().unwrap_or("(not text)"));
        if !given.is_some_and(is_json) {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                format!(
                    "a {method} must carry `Content-Type: application/json` (JSON Lines for \
                     /v1/import: application/x-ndjson), even without a body; this one has {}. \
                     Web pages can send other types across sites, so cairn refuses them",
                    given.map_or("none".to_string(), |t| format!("'{t}'"))
                ),
            )
            .with_field("Content-Type"));
        }
    }
    Ok(())
}

/// The `Host` header's name, without the port: required, since HTTP/1.1 always sends it.
fn host_of(headers: &HeaderMap) -> Result<&str, ApiError> {
    headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| !host.is_empty())
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::MISDIRECTED_REQUEST,
                "wrong_host",
                "the request has no Host header (or one that is not text); send the address \
                 you connected to, such as localhost:7437",
            )
            .with_field("Host")
        })
}

/// The name part of a `Host` value: `[::1]:7437` → `::1`, `localhost:7437` → `localhost`.
fn name_of(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn is_loopback_name(host: &str, bound: &str) -> bool {
    let name = name_of(host).trim_end_matches('.').to_ascii_lowercase();
    LOOPBACK_NAMES.contains(&name.as_str()) || name == bound
}

/// True when `origin` is this server's own: the scheme and the very `Host` the request names.
fn same_origin(origin: &str, host: &str) -> bool {
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .strip_prefix(scheme)
            .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
    })
}

fn listed(origin: &str, allowed: &[String]) -> bool {
    let origin = origin.trim_end_matches('/');
    allowed
        .iter()
        .any(|entry| entry.trim_end_matches('/').eq_ignore_ascii_case(origin))
}

/// A JSON media type: `application/json`, `application/<anything>+json` or JSON Lines, with
/// any parameters (`; charset=utf-8`).
fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "application/json" | "application/x-ndjson" | "application/jsonl"
    ) || (essence.starts_with("application/") && essence.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_lose_their_port_and_brackets() {
        assert_eq!(name_of("localhost:7437"), "localhost");
        assert_eq!(name_of("[::1]:7437"), "::1");
        assert_eq!(name_of("127.0.0.1"), "127.0.0.1");
        assert_eq!(name_of("evil.example:7437"), "evil.example");
        assert!(is_loopback_name("LOCALHOST.:80", "127.0.0.1"));
        assert!(is_loopback_name("127.0.0.2:9", "127.0.0.2"));
        assert!(!is_loopback_name("localhost.evil.example", "127.0.0.1"));
        assert!(!is_loopback_name("127.0.0.1.nip.io", "127.0.0.1"));
    }

    #[test]
    fn only_json_media_types_pass() {
        for good in [
            "application/json",
            "Application/JSON; charset=utf-8",
            "application/x-ndjson",
            "application/merge-patch+json",
        ] {
            assert!(is_json(good), "{good}");
        }
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "text/json+plain",
            "",
        ] {
            assert!(!is_json(bad), "{bad}");
        }
    }

    #[test]
    fn an_origin_is_the_servers_own_only_with_the_same_host() {
        assert!(same_origin("http://127.0.0.1:7437", "127.0.0.1:7437"));
        assert!(same_origin("http://LOCALHOST:7437", "localhost:7437"));
        assert!(!same_origin("http://localhost:7438", "localhost:7437"));
        assert!(!same_origin("http://evil.example", "127.0.0.1:7437"));
        assert!(!same_origin("null", "127.0.0.1:7437"));
        let allowed = vec!["https://tools.example.com/".to_string()];
        assert!(listed("https://tools.example.com", &allowed));
        assert!(!listed("https://tools.example.com.evil", &allowed));
    }
}
