//! Moving a store: everything it holds, out to one JSON Lines stream and back in.
//!
//! An export (format version 2, [`mod@format`]) is a header line — format, version, the cairn that
//! wrote it, and how many records of each kind follow — then one record per line, each with a
//! `type`: `memory` (with its history; forgotten and expired ones too), `slot` (both scopes),
//! `slot_seeds` (which default slots a scope was ever given, so a deleted default stays
//! deleted), and with sessions asked for, `session` followed by its `observation`s. Vectors are
//! not exported: they are the model's to make again. The backend reads one consistent snapshot
//! ([`ExchangeStore::export`]), so the counts and the records agree even while others write.
//!
//! Import ([`mod@import`]) reads the same stream, version 1 (memory lines without header or type,
//! as cairn wrote before) and *plain* records ([`plain`]): a line, or an element of a JSON
//! array, with just `content` and a few optional fields, which is stored like any new memory
//! (validated, redacted, deduplicated). It runs in one transaction: any bad record imports
//! nothing and is named by its line (or array element) and field. A header's counts are checked
//! against the records read, so a file cut short imports nothing. The one record that may wait
//! is a relation whose memory is not in the store (relations imported before their memories, one
//! judged elsewhere of a memory purged here): it is kept in the deferred queue ([`mod@deferred`],
//! `relation::deferred`) and applied by a later import that brings the memory.
//!
//! Invariants: importing is idempotent (every kind is keyed: a memory by id, a slot by scope and
//! label, a session by agent and id, an observation by event id; a stored state newer than the
//! record is kept), and export → import into an empty store → export gives the same bytes.
//! Deferred relations are not exported (they are not the store's relations yet); a migration
//! moves them.
//!
//! [`mod@migrate`] moves a whole store into another (SQLite to PostgreSQL and back): the same
//! records without JSON between, in committed batches so a second run resumes, then the
//! vectors, then a check of counts and digests on both sides.
//!
//! [`ExchangeStore`] also makes and restores byte-level backups of the database, for users who
//! want the bytes rather than the records.

pub mod deferred;
pub mod export;
pub mod format;
pub mod import;
pub mod merge;
pub mod migrate;
pub mod plain;
pub mod store;

pub use deferred::ReplayReport;
pub use export::{ExportOptions, export};
pub use format::{Counts, Header, ObservationRecord, SlotRecord, SlotSeedsRecord};
pub use import::{CHECKED_PLAIN_RECORDS, ImportReport, Imported, KindReport, import};
pub use migrate::{KindCheck, MigrateProgress, MigrateStage, MigrationReport, migrate};
pub use plain::PlainMemory;
pub use store::{ExchangeStore, ExportItem};
