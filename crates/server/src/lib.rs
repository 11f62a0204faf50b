//! cairn's HTTP server: the REST API under `/v1`, its OpenAPI document, MCP at `/mcp`, and the
//! web viewer at `/`.
//!
//! The server is one more thin adapter over core's service, like the CLI and `cairn mcp`: the
//! routes (see [`routes`]) read core's [`api`](cairn_core::api) inputs and return the same
//! JSON the CLI prints; the MCP endpoint is [`cairn_mcp`]'s, mounted as a tower service. What
//! the server adds is what a long-lived process can: the embedding model stays loaded, the
//! embedding queue runs continuously (see [`cairn_core::api::worker`]), and many clients
//! share one store.
//!
//! Rules that hold for every route:
//! - Web pages cannot reach the server (see [`guard`]): a loopback server answers only
//!   loopback `Host` names (DNS rebinding), a `POST`/`PUT`/`PATCH` must carry a JSON content
//!   type, and a request with a foreign `Origin` is refused (cross-site requests).
//! - Auth (see [`auth`]): every route but `/v1/health`, `/v1/openapi.json` and the viewer's
//!   static files (see [`viewer`]) goes through one layer that decides the request's caller —
//!   the server's `--token` is the operator, a store token (`cairn token create`) is scoped to
//!   its project, and once the store holds a token every request needs one, loopback
//!   included. Without any token the server only listens on loopback; [`check_exposure`]
//!   refuses anything else before binding. A request outside its token's scope gets 403.
//! - Bodies over `server.max_body_bytes` (imports: `server.max_import_bytes`) get 413.
//! - Slow clients cannot hold the server: a request's headers must arrive within
//!   `server.read_timeout_secs` of the connection going idle (idle keep-alive connections are
//!   closed then too), and a body that sends nothing for that long is cut off (408).
//! - Errors have one JSON shape and status mapping (see [`error`]).
//! - Shutdown is graceful: the listener closes, requests in flight (and their writes) finish,
//!   MCP sessions end.

pub mod agentmemory;
pub mod auth;
pub mod error;
pub mod guard;
mod handlers;
mod input;
pub mod openapi;
pub mod route;
pub mod routes;
pub mod viewer;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;
use cairn_core::api::{Api, Caller};
use cairn_core::config::ToolProfile;
use cairn_core::{Error, Source};
use cairn_mcp::McpContext;
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;

/// How the server listens and what it accepts.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub bind: SocketAddr,
    pub token: Option<String>,
    pub max_body_bytes: usize,
    pub max_import_bytes: usize,
    /// Origins besides the server's own whose pages may call it (`server.allowed_origins`).
    pub allowed_origins: Vec<String>,
    /// How long a client may take to send a request's headers, or leave its body silent.
    pub read_timeout: Duration,
}

/// What every request handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub api: Api,
    /// Who a request is before auth: the server's default project, source `http`. The auth
    /// layer gives each request its own copy with the access its token grants.
    pub caller: Caller,
    /// The MCP tools `/mcp` offers.
    pub tools: ToolProfile,
    pub options: Arc<ServerOptions>,
}

/// Refuses to expose the store without a token: binding anything but loopback needs the
/// server's own token or a store that holds access tokens (every request must then present
/// one).
pub fn check_exposure(
    bind: &SocketAddr,
    token: Option<&str>,
    store_has_tokens: bool,
) -> Result<(), Error> {
    if let Some(token) = token
        && token.trim().len() < 16
    {
        return Err(Error::invalid(
            "token",
            "is shorter than 16 characters; use a long random string (e.g. `openssl rand -hex 32`)",
        ));
    }
    if token.is_none() && !store_has_tokens && !bind.ip().is_loopback() {
        return Err(Error::invalid(
            "bind",
            format!(
                "refusing to listen on {bind} without a token: anyone who can reach that address \
                 could read and change every memory. Make access tokens (`cairn token create`), \
                 set --token (or CAIRN_TOKEN), or bind a loopback address such as 127.0.0.1"
            ),
        ));
    }
    Ok(())
}

/// The `Host` values MCP answers: loopback names, plus the bound address when it is not
/// loopback (a token guards that case).
fn mcp_allowed_hosts(bind: &SocketAddr) -> Vec<String> {
    if !bind.ip().is_loopback() {
        // Behind a token, DNS rebinding gains nothing: accept whatever name clients use.
        return Vec::new();
    }
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
}

/// The whole application: REST routes, MCP at `/mcp`, the body limit, auth, and a JSON 404.
pub fn router(state: AppState, shutdown: CancellationToken) -> Router {
    let auth = middleware::from_fn_with_state(state.clone(), auth::authorize);
    let mut api = Router::new();
    for route in routes::routes() {
        let mut handler = route.handler;
        if route.query.is_none() {
            // A parameter the route does not read would be ignored silently (a `?project=`
            // on a write that goes to the caller's own project): refuse it instead.
            handler = handler.route_layer(middleware::from_fn(input::no_query));
        }
        if route.authenticated {
            handler = handler.route_layer(auth.clone());
        }
        api = api.route(route.path, handler);
    }
    // Memories written through MCP say so, whichever transport carried the call. (Each call's
    // caller is the one the auth layer attached to its request.)
    let mcp_context = McpContext {
        api: state.api.clone(),
        caller: Caller {
            source: Source::Mcp,
            ..state.caller.clone()
        },
        profile: state.tools,
    };
    let mcp = cairn_mcp::http_service(
        mcp_context,
        mcp_allowed_hosts(&state.options.bind),
        shutdown,
    );
    let mcp = Router::new().route_service("/mcp", mcp).route_layer(auth);
    api.merge(mcp)
        .merge(viewer::routes())
        .fallback(|| async {
            ApiError::not_found("no such route; GET /v1/openapi.json lists every route")
        })
        .layer(DefaultBodyLimit::max(state.options.max_body_bytes))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            state.options.read_timeout,
        ))
        // Outermost: no web page reaches auth, a route, MCP or the viewer.
        .layer(middleware::from_fn_with_state(state.clone(), guard::guard))
        .with_state(state)
}

/// Serves on `listener` until `shutdown` completes, then lets requests in flight finish.
///
/// Each connection must send a request's headers within `read_timeout` of going idle (hyper's
/// header timer also closes idle keep-alive connections); bodies are timed by the router.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sessions = CancellationToken::new();
    let read_timeout = state.options.read_timeout;
    let app = router(state, sessions.clone());
    let connections = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: wait for some to close.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(read_timeout)
            .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    // Open MCP streams would otherwise keep the server waiting.
    sessions.cancel();
    connections.shutdown().await;
    Ok(())
}
