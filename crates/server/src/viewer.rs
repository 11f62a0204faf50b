//! The web viewer: three static files compiled into the binary and served at `/`, a page that
//! talks to the REST API under `/v1` like any other client.
//!
//! The files hold no data, so they are served without a token; everything they show comes from
//! `/v1`, which asks for the token (the page keeps it in the tab's session storage). Every
//! answer carries a Content-Security-Policy that allows only this origin's own script and
//! style, images from this origin or made in the page (`blob:` thumbnails fetched with the
//! token), and no inline script at all: even stored text that slipped into the page as markup
//! could not run. The page itself puts stored text on screen only as text (`viewer.js`).

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::AppState;

/// What the viewer's pages may load: their own files and the API, nothing from elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

const INDEX_HTML: &str = include_str!("../viewer/index.html");
const VIEWER_JS: &str = include_str!("../viewer/viewer.js");
const VIEWER_CSS: &str = include_str!("../viewer/viewer.css");

/// The viewer's routes: the page at `/` and its script and style under `/viewer/`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/viewer/viewer.js",
            get(|| async { asset("text/javascript; charset=utf-8", VIEWER_JS) }),
        )
        .route(
            "/viewer/viewer.css",
            get(|| async { asset("text/css; charset=utf-8", VIEWER_CSS) }),
        )
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            // The files change only with the binary; a new version must not meet an old script.
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}
