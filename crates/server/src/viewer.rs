//! The web viewer: static files compiled into the binary (the page at `/`, its style and its
//! script modules under `/viewer/`), a page that talks to the REST API under `/v1` like any
//! other client.
//!
//! The files hold no data, so they are served without a token; everything they show comes from
//! `/v1`, which asks for the token (the page keeps it in the tab's session storage). Every
//! answer carries a Content-Security-Policy that allows only this origin's own script and
//! style, images from this origin or made in the page (`blob:` thumbnails fetched with the
//! token), and no inline script at all: even stored text that slipped into the page as markup
//! could not run. The page itself puts stored text on screen only as text (`viewer/dom.js`).

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::AppState;

/// What the viewer's pages may load: their own files and the API, nothing from elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// The page, and the files it loads (`app.js` imports the others as ES modules).
const INDEX_HTML: &str = include_str!("../viewer/index.html");

/// `(path, content type, content)` of every file under `/viewer/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/viewer/viewer.css",
        CSS,
        include_str!("../viewer/viewer.css"),
    ),
    ("/viewer/app.js", JS, include_str!("../viewer/app.js")),
    ("/viewer/api.js", JS, include_str!("../viewer/api.js")),
    ("/viewer/dom.js", JS, include_str!("../viewer/dom.js")),
    (
        "/viewer/views/conflicts.js",
        JS,
        include_str!("../viewer/views/conflicts.js"),
    ),
    (
        "/viewer/views/forgotten.js",
        JS,
        include_str!("../viewer/views/forgotten.js"),
    ),
    (
        "/viewer/views/images.js",
        JS,
        include_str!("../viewer/views/images.js"),
    ),
    (
        "/viewer/views/login.js",
        JS,
        include_str!("../viewer/views/login.js"),
    ),
    (
        "/viewer/views/memory.js",
        JS,
        include_str!("../viewer/views/memory.js"),
    ),
    (
        "/viewer/views/search.js",
        JS,
        include_str!("../viewer/views/search.js"),
    ),
    (
        "/viewer/views/slots.js",
        JS,
        include_str!("../viewer/views/slots.js"),
    ),
    (
        "/viewer/views/stats.js",
        JS,
        include_str!("../viewer/views/stats.js"),
    ),
    (
        "/viewer/views/timeline.js",
        JS,
        include_str!("../viewer/views/timeline.js"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// The viewer's routes: the page at `/` and its files under `/viewer/`.
pub fn routes() -> Router<AppState> {
    let page = Router::new().route(
        "/",
        get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
    );
    ASSETS
        .iter()
        .fold(page, |router, &(path, content_type, body)| {
            router.route(path, get(move || async move { asset(content_type, body) }))
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module the scripts import is served: an import missing from [`ASSETS`] would
    /// leave the page blank.
    #[test]
    fn every_imported_module_is_served() {
        let served: Vec<&str> = ASSETS.iter().map(|(path, ..)| *path).collect();
        for (path, _, body) in ASSETS {
            let dir = &path[..path.rfind('/').unwrap()];
            for line in body.lines().filter(|l| l.starts_with("import ")) {
                let target = line.split('"').nth(1).expect("an import names a file");
                let mut parts: Vec<&str> = dir.split('/').collect();
                for step in target.split('/') {
                    match step {
                        "." => {}
                        ".." => {
                            parts.pop();
                        }
                        name => parts.push(name),
                    }
                }
                let resolved = parts.join("/");
                assert!(
                    served.contains(&resolved.as_str()),
                    "{path} imports {resolved}"
                );
            }
        }
        assert!(INDEX_HTML.contains(r#"src="/viewer/app.js""#));
    }
}
