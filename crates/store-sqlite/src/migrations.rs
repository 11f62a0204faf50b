//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Each migration is an SQL file applied once, in order, inside one immediate transaction that
//! re-reads the version after taking the write lock, so several processes opening a new store at
//! once apply each migration exactly once. Migrations are only ever added, never edited.
//! Opening a database written by a newer cairn is refused rather than guessed at.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::SqliteError;

/// `(version, sql)`, in order; the last version is the schema this build writes.
const MIGRATIONS: &[(u32, &str)] = &[
    (1, include_str!("../migrations/0001_initial.sql")),
    (2, include_str!("../migrations/0002_vectors.sql")),
    (3, include_str!("../migrations/0003_vector_clock.sql")),
    (4, include_str!("../migrations/0004_sessions.sql")),
    (5, include_str!("../migrations/0005_project_order.sql")),
    (6, include_str!("../migrations/0006_slots.sql")),
    (7, include_str!("../migrations/0007_vector_spaces.sql")),
    (8, include_str!("../migrations/0008_relations.sql")),
    (9, include_str!("../migrations/0009_files.sql")),
    (10, include_str!("../migrations/0010_project_category.sql")),
    (11, include_str!("../migrations/0011_images.sql")),
    (12, include_str!("../migrations/0012_image_text.sql")),
    (13, include_str!("../migrations/0013_image_look.sql")),
    (
        14,
        include_str!("../migrations/0014_image_look_vectors.sql"),
    ),
    (
        15,
        include_str!("../migrations/0015_pending_image_work.sql"),
    ),
    (
        16,
        include_str!("../migrations/0016_image_clip_vectors.sql"),
    ),
    (17, include_str!("../migrations/0017_access_tokens.sql")),
    (18, include_str!("../migrations/0018_sentence_vectors.sql")),
    (19, include_str!("../migrations/0019_unit_states.sql")),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

fn version(conn: &Connection) -> Result<u32, SqliteError> {
    Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// Brings the schema up to [`SCHEMA_VERSION`].
pub fn migrate(conn: &mut Connection) -> Result<(), SqliteError> {
    if version(conn)? == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = version(&tx)?;
    if current > SCHEMA_VERSION {
        return Err(SqliteError::SchemaTooNew {
            found: current,
            known: SCHEMA_VERSION,
        });
    }
    for (number, sql) in MIGRATIONS.iter().filter(|(n, _)| *n > current) {
        tracing::debug!(migration = number, "applying schema migration");
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", number)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_in_order_from_one() {
        for (index, (number, _)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*number as usize, index + 1);
        }
    }

    #[test]
    fn migrating_twice_changes_nothing_and_newer_schemas_are_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert!(matches!(err, SqliteError::SchemaTooNew { .. }), "{err}");
    }

    #[test]
    fn memories_from_before_vectors_are_queued_for_embedding() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO memories (id, content, category, project, content_hash, source, \
             importance, created_at, updated_at) VALUES ('x', 'old memory', 'fact', '', 0, \
             'cli', 3, 0, 0)",
            [],
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let queued: i64 = conn
            .query_row("SELECT count(*) FROM embedding_queue", [], |row| row.get(0))
            .unwrap();
        assert_eq!(queued, 1);
    }
}
