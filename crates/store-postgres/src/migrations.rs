//! Versioned schema migrations, tracked in the table `cairn_schema`.
//!
//! Each migration is an SQL file applied once, in order, inside one transaction that holds a
//! lock on the schema's migrations (an advisory lock), so several servers starting against a
//! new database apply each migration exactly once. Migrations are only ever added, never
//! edited. A database written by a newer cairn is refused rather than guessed at. The
//! extensions (`vector`, `pg_trgm`) are created when missing; a user who may not create them
//! is told what to ask the database's owner.

use postgres::Client;

use crate::error::PostgresError;

/// `(version, sql)`, in order; the last version is the schema this build writes.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../migrations/0001_initial.sql")),
    (2, include_str!("../migrations/0002_access_tokens.sql")),
    (3, include_str!("../migrations/0003_memories_holding.sql")),
    (
        4,
        include_str!("../migrations/0004_memories_holding_parts.sql"),
    ),
    (
        5,
        include_str!("../migrations/0005_vocabulary_trigrams_gin.sql"),
    ),
    (6, include_str!("../migrations/0006_sentence_vectors.sql")),
    (7, include_str!("../migrations/0007_unit_states.sql")),
    (8, include_str!("../migrations/0008_audit_log.sql")),
    (9, include_str!("../migrations/0009_deferred_relations.sql")),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// The advisory lock class of cairn's locks (`cairn` in ASCII, read as a number).
pub(crate) const LOCK_CLASS: i32 = 0x6361_6972;

/// Brings the schema on `client`'s search path up to [`SCHEMA_VERSION`].
pub fn migrate(client: &mut Client) -> Result<(), PostgresError> {
    // Nearly every open finds the schema current: say so in one round trip.
    // (A new schema has no `cairn_schema` yet: that error only means "migrate".)
    let current = client.query_one("SELECT max(version) FROM cairn_schema", &[]);
    if matches!(current, Ok(row) if row.get::<_, Option<i64>>(0) == Some(SCHEMA_VERSION)) {
        return Ok(());
    }
    for extension in ["vector", "pg_trgm"] {
        let present: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)",
                &[&extension],
            )?
            .get(0);
        if !present
            && let Err(source) =
                client.batch_execute(&format!("CREATE EXTENSION IF NOT EXISTS {extension}"))
        {
            return Err(PostgresError::MissingExtension { extension, source });
        }
    }
    let mut tx = client.transaction()?;
    // One lock per schema: migrations of different schemas (tests, tenants) run side by side.
    tx.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
        &[&(LOCK_CLASS - 1)],
    )?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS cairn_schema (version BIGINT NOT NULL)")?;
    let current: i64 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM cairn_schema", &[])?
        .get(0);
    if current > SCHEMA_VERSION {
        return Err(PostgresError::SchemaTooNew {
            found: current,
            known: SCHEMA_VERSION,
        });
    }
    for (number, sql) in MIGRATIONS.iter().filter(|(n, _)| *n > current) {
        tracing::debug!(migration = number, "applying schema migration");
        tx.batch_execute(sql)?;
        tx.execute("INSERT INTO cairn_schema (version) VALUES ($1)", &[number])?;
    }
    tx.commit()?;
    Ok(())
}
