//! cairn-core: the domain of cairn, a persistent memory for AI coding agents.
//!
//! A *memory* ([`memory::Memory`]) is one complete unit of knowledge — a decision, a root cause,
//! a preference — with a stable id, a scope (one project or global), tags, a category and a
//! history. The crate is laid out by domain, each folder holding its model, its operations and
//! the storage trait a backend implements for it:
//!
//! - [`memory`]: the unit, its write path (validate, redact, dedupe, topic upsert), filters and
//!   [`memory::Visibility`], extraction;
//! - [`relation`]: conflicts and supersession — candidates found on every write, verdicts,
//!   the annotations search results carry;
//! - [`search`]: the pipeline — lexical, fuzzy and semantic signals fused into one ranking —
//!   over the query language of [`query`];
//! - [`embedding`]: vectors, the embedding queue and its background worker;
//! - [`image`]: images kept with memories — a content-addressed directory, references, quota;
//! - [`session`]: agent sessions and observations recorded from hooks, summaries;
//! - [`slot`]: labelled, size-limited blocks agents keep, and reflection of ended sessions;
//! - [`context`]: what a session should know, packed into a token budget (reads only);
//! - [`exchange`]: export and import of everything a store holds, plain records, backups;
//! - [`health`]: `cairn doctor` — every check of the store and what it derives, and the
//!   repairs of what is derived;
//! - [`access`]: who may do what — access tokens scoped to one project, and the
//!   [`access::Access`] every request carries and every operation checks;
//! - [`audit`]: the log of changes — who, what, when, through which entry point.
//!
//! [`store::Store`] is the sum of the domains' storage traits, so one transaction spans them.
//! [`api::Api`] is the one front door the adapters (CLI, MCP, HTTP, hooks) use: each operation
//! checks the caller's access, converts its input, and calls into its domain. This crate knows
//! no SQL, HTTP, MCP or ML. Start reading at [`api`], then the domain you need.

pub mod access;
pub mod api;
pub mod audit;
pub mod clock;
pub mod config;
pub mod context;
pub mod dates;
pub mod embedding;
pub mod error;
pub mod exchange;
pub mod files;
pub mod health;
pub mod id;
pub mod image;
pub mod input;
pub mod memory;
pub mod project;
pub mod query;
pub mod redact;
pub mod relation;
pub mod scope;
pub mod search;
pub mod session;
pub mod slot;
pub mod store;
pub mod tag;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tokens;

pub use api::{Api, ApiParts};
pub use error::{Error, RecordAt, Result};
pub use id::{IdRef, MemoryId, RelationId, RelationRef};
pub use memory::{
    Category, Importance, Memory, MemoryPatch, NewMemory, Revision, Source, TopicKey, WriteOutcome,
    WriteStatus,
};
pub use scope::{ProjectName, Scope, ScopeFilter};
pub use tag::Tag;
