//! Who a request is: the auth layer in front of every authenticated route (REST and `/mcp`).
//!
//! [`authorize`] decides each request's [`Access`] and attaches a [`Caller`] with it to the
//! request; handlers read it back with the [`Authorized`] extractor, and `/mcp` reads it from
//! the request's extensions. The rules, in order:
//! - a bearer token equal to the server's `--token` (compared in constant time) is the
//!   operator: [`Access::Full`];
//! - any other bearer token must be a live token of the store (see
//!   [`cairn_core::access`]), whose grant the request gets; an unknown or revoked one is 401;
//! - a request without a token is refused (401) when the server has a `--token`, when it
//!   listens beyond loopback, or once the store holds a live token — loopback included, and
//!   checked on every request, so a token issued while the server runs takes effect at once;
//! - otherwise (loopback, no tokens anywhere) it is the local user, with full access.
//!
//! What a granted request may then do is core's to check ([`cairn_core::api::Api`]): a
//! refusal there is 403, logged with the token's id.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::access::Access;
use cairn_core::api::{Api, Caller};
use subtle::ConstantTimeEq;

use crate::AppState;
use crate::error::ApiError;

/// The bearer token a request presents: `None` without an `Authorization` header.
fn presented(headers: &axum::http::HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(|token| Some(token.trim().to_string()))
        .ok_or_else(|| ApiError::unauthorized("the Authorization header must be `Bearer <token>`"))
}

/// Decides the request's access, or answers 401.
async fn access_of(state: &AppState, given: Option<String>) -> Result<Access, ApiError> {
    let admin = state.options.token.as_deref();
    let api = state.api.clone();
    match given {
        Some(given) if admin.is_some_and(|a| bool::from(given.as_bytes().ct_eq(a.as_bytes()))) => {
            Ok(Access::Full)
        }
        Some(given) => match blocking(api, move |api| api.authenticate(&given)).await? {
            Some(grant) => Ok(Access::Token(grant)),
            None => Err(ApiError::unauthorized(
                "the bearer token is wrong: it is neither this server's token nor a live token \
                 of its store (`cairn token list` shows them; revoked ones are refused)",
            )),
        },
        None if admin.is_some() => Err(ApiError::unauthorized(
            "this server needs `Authorization: Bearer <token>` (the token given to cairn serve, \
             or one made with `cairn token create`)",
        )),
        None if !state.options.bind.ip().is_loopback() => Err(ApiError::unauthorized(
            "this server listens beyond loopback: every request needs `Authorization: Bearer \
             <token>` (one made with `cairn token create`)",
        )),
        None => match blocking(api, |api| api.tokens_required()).await? {
            true => Err(ApiError::unauthorized(
                "this store has access tokens, so every request needs one: `Authorization: \
                 Bearer <token>` (`cairn token create` makes one)",
            )),
            false => Ok(Access::Full),
        },
    }
}

/// The caller of a route that needs no token (health): the access its token (or loopback
/// without tokens) would grant, or none at all when it presents nothing usable.
pub async fn optional_caller(state: &AppState, headers: &axum::http::HeaderMap) -> Option<Caller> {
    let given = presented(headers).ok()?;
    let access = access_of(state, given).await.ok()?;
    Some(state.caller.clone().granted(access))
}

/// Runs blocking work against the API on tokio's blocking pool (the service blocks on its
/// store); the one place the server leaves its async runtime for the store.
pub(crate) async fn blocking<T: Send + 'static>(
    api: Api,
    work: impl FnOnce(&Api) -> cairn_core::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || work(&api))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::from)
}

/// The auth layer: attaches the request's [`Caller`], or answers 401.
pub async fn authorize(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let access = match presented(request.headers()) {
        Ok(given) => access_of(&state, given).await,
        Err(error) => Err(error),
    };
    match access {
        Ok(access) => {
            let caller = state.caller.clone().granted(access);
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(error) => error.into_response(),
    }
}

/// A handler's view of an authorised request: the api and the request's caller.
pub struct Authorized {
    pub api: Api,
    pub caller: Caller,
}

impl FromRequestParts<AppState> for Authorized {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        // Only routes behind `authorize` use this extractor; without its caller, serve nothing.
        let caller = parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
            ApiError::internal("a route that needs a caller was served without the auth layer")
        })?;
        Ok(Authorized {
            api: state.api.clone(),
            caller,
        })
    }
}
