//! Who may do what: the access tokens a store holds, and the [`Access`] every request carries.
//!
//! A team's server is reached by many agents; each gets a token scoped to one project with a
//! [`Right`]: `read`, or `write` (read and write). `cairn token create` issues one and prints
//! its secret once; the store keeps only the secret's SHA-256 (the secret is 256 random bits,
//! so a fast hash is as good as a slow one), looked up directly when a request presents it.
//! A revoked token stays listed, refused.
//!
//! [`Access`] is what a caller may do, decided by the adapter that received the request: the
//! local operator (the CLI, hooks, `cairn mcp` over stdio, a server without tokens, a server's
//! `--token`) has [`Access::Full`]; a request that presented a store token has that token's
//! [`Grant`]. [`crate::api::Api`] checks it on every operation a network client can reach:
//! - reads see the grant's project and the global scope (memories, slots, sessions, relations,
//!   images); a read that asks for everything is narrowed to that;
//! - writes go to the grant's project only — global memories and slots are shared by every
//!   project, so only the operator writes them;
//! - whole-store operations (statistics, export, import, conflict scans of another scope,
//!   token management) need [`Access::Full`].
//!
//! A refusal is [`Error::Forbidden`](crate::Error::Forbidden), naming the token, and is logged.
//!
//! - [`model`]: [`Right`], [`TokenId`], [`AccessToken`], secrets and their hashes;
//! - [`check`]: [`Access`], [`Grant`] and the checks;
//! - [`operations`]: [`Tokens`] — issue, list, revoke, authenticate;
//! - [`store`]: what a backend provides ([`AccessStore`], [`AccessTx`]).

pub mod check;
pub mod model;
pub mod operations;
pub mod store;

pub use check::{Access, Grant};
pub use model::{AccessToken, IssuedToken, Right, TokenHash, TokenId};
pub use operations::{NewToken, Tokens};
pub use store::{AccessStore, AccessTx};
