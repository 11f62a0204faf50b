//! cairn-core: the domain of cairn, a persistent memory for AI coding agents.
//!
//! A *memory* ([`memory::Memory`]) is one complete unit of knowledge — a decision, a root cause,
//! a preference — with a stable id, a scope (one project or global), tags, a category and a
//! history. All behaviour lives in [`service::MemoryService`]: validation and redaction of input,
//! what a write means (created / duplicate / updated), soft forget and purge, expiry, search
//! (signals fused into one ranking), export and import. Adapters — the CLI, MCP and HTTP servers,
//! agent hooks — only translate to and from the service's types, so a rule added here holds
//! everywhere at once.
//!
//! Storage sits behind the [`store::Store`] trait; this crate knows no SQL, HTTP, MCP or ML.
//! Start reading at [`service`], then [`store`] and [`search`].

pub mod api;
pub mod clock;
pub mod config;
pub mod context;
pub mod dates;
pub mod embedding;
pub mod embedding_queue;
pub mod embedding_worker;
pub mod error;
pub mod exchange;
pub mod extract;
pub mod id;
pub mod memory;
pub mod normalise;
pub mod project;
pub mod redact;
pub mod reflection;
pub mod scope;
pub mod search;
pub mod service;
pub mod session;
pub mod sessions;
pub mod slot;
pub mod slots;
pub mod store;
pub mod tag;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tokens;
pub mod validate;

pub use error::{Error, Result};
pub use id::{IdRef, MemoryId};
pub use memory::{
    Category, Importance, Memory, Revision, Source, TopicKey, WriteOutcome, WriteStatus,
};
pub use scope::{ProjectName, Scope, ScopeFilter};
pub use service::{MemoryPatch, MemoryService, NewMemory};
pub use tag::Tag;
