//! Memory slots: labelled, size-limited blocks an agent keeps and edits (persona, preferences,
//! pending items, …), pinned ones shown at the start of every session.
//!
//! - [`model`]: [`SlotLabel`], [`Slot`] (scope, content, limit ≤ 20,000, pinned, read-only),
//!   [`SlotAddress`] (a label as a caller means it: the project's slot shadows the global one);
//! - [`defaults`]: the eight [`DEFAULT_SLOTS`];
//! - [`operations`]: [`Slots`] — list, get, create, append, replace, configure, delete, reset,
//!   reflect; each change is one transaction that seeds the scope's missing defaults, reads the
//!   slot under the write lock and checks limit and read-only before writing;
//! - [`reflection`]: what an ended session leaves in slots (TODO/FIXME items, a pattern line,
//!   touched files);
//! - [`store`]: what a backend provides ([`SlotStore`], [`SlotTx`]).
//!
//! Invariants: a slot never holds more than its limit (a change over it is refused and writes
//! nothing; reflection makes room by dropping only lines it wrote itself, oldest first); a
//! read-only slot refuses every change but a settings change; defaults are seeded once per scope
//! and label, never over an existing slot, and a deleted default stays deleted until reset.

pub mod defaults;
pub mod model;
pub mod operations;
pub mod reflection;
pub mod store;

pub use defaults::{DEFAULT_SLOTS, DefaultSlot, PENDING_ITEMS, PROJECT_CONTEXT, SESSION_PATTERNS};
pub use model::{
    DEFAULT_LIMIT, MAX_DESCRIPTION_CHARS, MAX_LIMIT, Slot, SlotAddress, SlotLabel, SlotScope,
    limit, place,
};
pub use operations::{NewSlot, Recorded, Reflection, SlotSettings, Slots};
pub use reflection::SlotChange;
pub use store::{SlotStore, SlotTx};
