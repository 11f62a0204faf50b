//! The PostgreSQL store's part of `cairn doctor`: nothing of its own to check yet.
//!
//! PostgreSQL keeps its own files sound (WAL, page checksums when the cluster has them,
//! foreign keys enforced on every write), derives the full-text column itself and keeps the
//! schema current on every open, so the checks the SQLite store runs over its file have no
//! counterpart here; the cross-domain checks (the vector index's state, pending work, images,
//! markdown files) run for both stores in core's `health` domain. A damaged PostgreSQL
//! database is the database administrator's to recover (`pg_dump` what can be read), and
//! `cairn migrate-store` copies a store into a new one.

use cairn_core::health::HealthStore;

use crate::PostgresStore;

impl HealthStore for PostgresStore {}
