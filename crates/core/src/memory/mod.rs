//! Memories: the unit of knowledge cairn keeps, and everything done to one.
//!
//! - [`model`]: [`Memory`], [`Revision`], [`Category`], [`Source`], [`Importance`],
//!   [`TopicKey`], and what a write did ([`WriteStatus`], [`WriteOutcome`]);
//! - [`new`]: a write as an adapter asks for it ([`NewMemory`], [`MemoryPatch`]);
//! - [`filter`]: which memories a read considers ([`MemoryFilter`], [`ListQuery`]) and
//!   [`Visibility`], the one rule of what is hidden (forgotten, expired);
//! - [`validate`], [`normalise`]: input rules and duplicate detection;
//! - [`mod@write`]: the rules every write applies inside its transaction;
//! - [`operations`]: [`Memories`], the operations the service delegates to;
//! - [`extract`]: `*Remember*:` lines in agent output become memories;
//! - [`category`]: the category a memory's wording suggests, for a write that names none;
//! - [`record`]: a memory with its history, as an export carries it;
//! - [`store`]: what a backend provides ([`MemoryStore`], [`MemoryTx`]);
//! - [`columns`]: a memory and a revision as a SQL backend's columns hold them, read back in
//!   one place for both backends.
//!
//! Invariants: a write is `created`, `duplicate` (same normalised content in the scope, live:
//! nothing written) or `updated` (same topic key in the scope: the previous state becomes a
//! revision); text is validated and redacted before it reaches a store; hidden memories are
//! invisible to every read unless a filter asks for them.

pub mod category;
pub mod columns;
pub mod extract;
pub mod filter;
pub mod model;
pub mod new;
pub mod normalise;
pub mod operations;
pub mod record;
pub mod store;
pub mod validate;
pub mod write;

pub use filter::{ListQuery, MemoryFilter, PruneRule, SortKey, SortOrder, Visibility};
pub use model::{
    Category, ConflictCandidate, HEADLINE_CHARS, Importance, Memory, Revision, Source, TopicKey,
    WriteOutcome, WriteStatus, headline,
};
pub use new::{MemoryPatch, NewMemory};
pub use operations::{Memories, MemoryHistory, PruneReport};
pub use record::MemoryRecord;
pub use store::{MemoryStore, MemoryTx, NamedCount, STATS_DAYS, SignalHit, StoreStats, TagCount};
