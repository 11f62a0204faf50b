//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Each migration is an SQL file applied once, in order, inside one immediate transaction that
//! re-reads the version after taking the write lock, so several processes opening a new store at
//! once apply each migration exactly once. Migrations are only ever added, never edited.
//! Opening a database written by a newer cairn is refused rather than guessed at.
//!
//! An upgrade keeps a way back: before a database file is migrated, it is copied whole with
//! SQLite's online backup to `<db>.v<old version>.bak` (the two newest such copies are kept),
//! and the caller says so once ([`Upgrade`]); a migration that fails names its step and that
//! copy, never its SQL. `cairn restore` takes such a copy.

use std::path::{Path, PathBuf};

use rusqlite::backup::{Backup, StepResult};
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
    (20, include_str!("../migrations/0020_audit_log.sql")),
    (
        21,
        include_str!("../migrations/0021_deferred_relations.sql"),
    ),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// What a migration does, from its file's first comment line (`-- cairn schema v19: …`).
fn step_name(sql: &'static str) -> &'static str {
    sql.lines()
        .next()
        .and_then(|line| line.strip_prefix("-- "))
        .map_or("a schema change", |line| {
            line.split_once(": ").map_or(line, |(_, what)| what)
        })
}

fn version(conn: &Connection) -> Result<u32, SqliteError> {
    Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// An upgrade this process made: from which schema, and where the database as it was is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    pub from: u32,
    pub to: u32,
    pub backup: PathBuf,
}

/// How many `.v<N>.bak` copies are kept beside a database.
const KEPT_BACKUPS: usize = 2;

/// Brings the schema of the database file at `path` up to [`SCHEMA_VERSION`], first copying an
/// older database to `<db>.v<old>.bak`. `None` when nothing was upgraded (current already, or
/// new).
pub fn migrate_file(conn: &mut Connection, path: &Path) -> Result<Option<Upgrade>, SqliteError> {
    let current = version(conn)?;
    if current == SCHEMA_VERSION || current == 0 || current > SCHEMA_VERSION {
        migrate(conn)?;
        return Ok(None);
    }
    let backup = backup_name(path, current);
    if !backup.exists() {
        keep_copy(conn, &backup, current)?;
    }
    prune_backups(path);
    migrate(conn).map_err(|error| match error {
        SqliteError::Migration {
            step, name, source, ..
        } => SqliteError::Migration {
            path: path.to_path_buf(),
            step,
            name,
            backup: Some(backup.clone()),
            source,
        },
        other => other,
    })?;
    Ok(Some(Upgrade {
        from: current,
        to: SCHEMA_VERSION,
        backup,
    }))
}

/// `<db>.v<version>.bak`.
pub fn backup_name(path: &Path, version: u32) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".v{version}.bak"));
    PathBuf::from(name)
}

/// Copies the database whole to `backup`, unless another process migrated it meanwhile (then
/// that process kept the copy).
fn keep_copy(conn: &Connection, backup: &Path, version_then: u32) -> Result<(), SqliteError> {
    let mut staged = backup.as_os_str().to_owned();
    staged.push(format!(".{}.partial", std::process::id()));
    let staged = PathBuf::from(staged);
    let copied = (|| -> Result<bool, SqliteError> {
        let mut target = Connection::open(&staged)?;
        match Backup::new(conn, &mut target)?.step(-1)? {
            StepResult::Done => {}
            _ => {
                return Err(SqliteError::Sql(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                    Some("the database stayed locked while it was being copied".into()),
                )));
            }
        }
        let copied_version = version(&target)?;
        target.close().map_err(|(_, e)| SqliteError::from(e))?;
        Ok(copied_version == version_then)
    })();
    let placed = match copied {
        Ok(true) => match std::fs::hard_link(&staged, backup) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(SqliteError::Open {
                path: backup.to_path_buf(),
                source: Box::new(e),
            }),
            _ => Ok(()),
        },
        Ok(false) => Ok(()),
        Err(error) => Err(error),
    };
    let _ = std::fs::remove_file(&staged);
    placed
}

/// Deletes all but the newest [`KEPT_BACKUPS`] `.v<N>.bak` copies beside the database.
fn prune_backups(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!("{}.v", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return;
    };
    let mut copies: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            let number = file
                .strip_prefix(&prefix)?
                .strip_suffix(".bak")?
                .parse()
                .ok()?;
            Some((number, entry.path()))
        })
        .collect();
    copies.sort();
    let extra = copies.len().saturating_sub(KEPT_BACKUPS);
    for (_, copy) in copies.into_iter().take(extra) {
        let _ = std::fs::remove_file(copy);
    }
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
        let failed = |source| SqliteError::Migration {
            path: PathBuf::new(),
            step: *number,
            name: step_name(sql),
            backup: None,
            source: Box::new(source),
        };
        tx.execute_batch(sql).map_err(failed)?;
        tx.pragma_update(None, "user_version", number)
            .map_err(failed)?;
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
