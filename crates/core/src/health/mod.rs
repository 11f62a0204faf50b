//! Saying when something is wrong: `cairn doctor`.
//!
//! A store holds what agents rely on, and damage to it should never go unseen. The doctor
//! looks at everything cairn keeps and everything it derives from it — the database file
//! (SQLite's integrity and foreign-key checks), the full-text index against its table, vectors
//! against memories, the vector index against the store, the image files against their
//! records, a project's markdown files against the store, the queues of pending work, the
//! schema version, free disk space and permissions — and explains each [`Finding`]: what was
//! found, what it means, and the command that repairs it.
//!
//! - [`model`]: [`Finding`], [`Severity`], [`Repair`], [`HealthReport`];
//! - [`store`]: what a backend checks and repairs of its own ([`HealthStore`]);
//! - [`operations`]: [`Doctor`] — the checks that span domains, and the repairs.
//!
//! Invariants: checking never writes. Repairs rebuild only what is derived (the full-text
//! index, the vector index, the embedding queue, thumbnails, rows pointing at nothing); a
//! damaged database is recovered — what SQLite can still read — into a new file beside it,
//! never in place, and the user decides whether to switch to it (`cairn restore`). A quick
//! examination ([`Doctor::examine`] with `quick`) reads nothing in proportion to the store's
//! size, so a server's health endpoint can run it on every call.

pub mod model;
pub mod operations;
pub mod store;

pub use model::{Finding, HealthReport, Repair, Severity};
pub use operations::Doctor;
pub use store::HealthStore;
