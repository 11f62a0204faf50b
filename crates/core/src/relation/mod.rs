//! Conflicts and supersession: what one memory is to another.
//!
//! Agents store facts that go stale ("the event store is PostgreSQL", weeks later "the event
//! store moved to MySQL"). This domain keeps both and says which holds:
//!
//! - [`model`]: a [`Relation`] joins a newer memory (`source`) and an older one (`target`) of
//!   one scope; it is *pending* until a [`Verdict`] names its [`RelationKind`] (`related`,
//!   `compatible`, `scoped`, `conflicts_with`, `supersedes`, `not_conflict`) with reason,
//!   evidence, confidence and the [`Actor`] who said so; a new verdict keeps the old one in
//!   the relation's history;
//! - [`candidates`]: which memories a write may contradict, refine or replace — neighbours
//!   found by words and by meaning in the memory's own scope, of those that can conflict;
//! - [`disagreement`]: which of them it disagrees with, and how (a change, a flipped
//!   polarity, other values for the same subject, a refinement) — the decision, from the two
//!   texts alone;
//! - [`operations`]: [`Relations`] — writes that record one pending relation per candidate,
//!   `judge`, `compare`, `list`, `show`, `stats`, `scan`;
//! - [`annotation`]: the lines a search result carries (`supersedes: #id (title)` …);
//! - [`deferred`]: relation records an import kept because a memory of theirs is not in the
//!   store yet ([`DeferredRelation`]), applied when it arrives;
//! - [`store`]: what a backend provides ([`RelationStore`], [`RelationTx`]);
//! - [`columns`]: a relation as a SQL backend's columns hold it, written and read back once
//!   for both backends.
//!
//! Invariants: a write never fails because of detection (it runs after the write
//! committed); a pair is recorded once per actor (pending judgments have none), never across
//! scopes; supersession never deletes or hides the older memory: it ranks below its successor
//! in search, and context shows the successor instead; purging a memory deletes its relations.

pub mod annotation;
pub mod candidates;
pub mod columns;
pub mod deferred;
pub mod disagreement;
pub mod model;
pub mod operations;
pub mod store;

pub use annotation::{Annotation, AnnotationKind, annotations, one_line, successors};
pub use candidates::{Detector, Neighbour};
pub use deferred::{DeferredFilter, DeferredRelation, DeferredStatus};
pub use disagreement::{Disagreement, Signal};
pub use model::{Actor, ActorKind, Relation, RelationKind, RelationStatus, Verdict};
pub use operations::{
    CompareStatus, Compared, Detection, NewVerdict, Relations, ScanReport, ScannedPair,
};
pub use store::{RelationFilter, RelationStats, RelationStore, RelationTx, RelationView};
