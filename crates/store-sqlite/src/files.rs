//! Markdown workspaces in SQLite (tables of migration 9): which projects write their memories
//! to files, and which file holds each memory's unit.

use std::path::PathBuf;

use cairn_core::files::{FilesStore, FilesTx, UnitLocation, UnitState, Workspace};
use cairn_core::{MemoryId, ProjectName, Result};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::SqliteStore;
use crate::columns::{corrupt, millis, time};
use crate::error::SqlResult;
use crate::tx::SqliteTx;

const WORKSPACE_COLUMNS: &str = "project, root, dir, created_at, stamp, head";
const LOCATION_COLUMNS: &str = "memory_id, project, file, raw_hash, state";

fn workspace_from_row(row: &Row<'_>) -> rusqlite::Result<Workspace> {
    Ok(Workspace {
        project: ProjectName::new(&row.get::<_, String>(0)?).map_err(corrupt)?,
        root: PathBuf::from(row.get::<_, String>(1)?),
        dir: row.get(2)?,
        created_at: time(row.get(3)?)?,
        synced_stamp: row.get(4)?,
        synced_head: row.get(5)?,
    })
}

fn location_from_row(row: &Row<'_>) -> rusqlite::Result<UnitLocation> {
    Ok(UnitLocation {
        id: row.get::<_, String>(0)?.parse().map_err(corrupt)?,
        project: ProjectName::new(&row.get::<_, String>(1)?).map_err(corrupt)?,
        file: row.get(2)?,
        raw_hash: row.get(3)?,
        state: UnitState::parse(&row.get::<_, String>(4)?),
    })
}

fn workspace(conn: &Connection, project: &ProjectName) -> Result<Option<Workspace>> {
    conn.prepare_cached(&format!(
        "SELECT {WORKSPACE_COLUMNS} FROM file_workspaces WHERE project = ?1"
    ))
    .sql()?
    .query_row([project.as_str()], workspace_from_row)
    .optional()
    .sql()
}

fn workspaces(conn: &Connection) -> Result<Vec<Workspace>> {
    conn.prepare_cached(&format!(
        "SELECT {WORKSPACE_COLUMNS} FROM file_workspaces ORDER BY project"
    ))
    .sql()?
    .query_map([], workspace_from_row)
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

impl FilesStore for SqliteStore {
    fn workspace(&self, project: &ProjectName) -> Result<Option<Workspace>> {
        workspace(&self.reader(), project)
    }

    fn workspaces(&self) -> Result<Vec<Workspace>> {
        workspaces(&self.reader())
    }

    fn unit_locations(&self, project: &ProjectName) -> Result<Vec<UnitLocation>> {
        self.reader()
            .prepare_cached(&format!(
                "SELECT {LOCATION_COLUMNS} FROM file_units WHERE project = ?1"
            ))
            .sql()?
            .query_map([project.as_str()], location_from_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn locations_of(&self, ids: &[MemoryId]) -> Result<Vec<UnitLocation>> {
        let conn = self.reader();
        let mut found = Vec::new();
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let values = chunk.iter().map(|id| Value::Text(id.to_string()));
            let rows: Vec<UnitLocation> = conn
                .prepare_cached(&format!(
                    "SELECT {LOCATION_COLUMNS} FROM file_units WHERE memory_id IN ({marks})"
                ))
                .sql()?
                .query_map(params_from_iter(values), location_from_row)
                .sql()?
                .collect::<rusqlite::Result<_>>()
                .sql()?;
            found.extend(rows);
        }
        Ok(found)
    }
}

impl FilesTx for SqliteTx<'_, '_> {
    fn put_workspace(&mut self, workspace: &Workspace) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO file_workspaces \
                 (project, root, dir, created_at, stamp, head) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .sql()?
            .execute(params![
                workspace.project.as_str(),
                workspace.root.to_string_lossy(),
                workspace.dir,
                millis(workspace.created_at),
                workspace.synced_stamp,
                workspace.synced_head
            ])
            .sql()?;
        Ok(())
    }

    fn set_stamp(&mut self, project: &ProjectName, stamp: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE file_workspaces SET stamp = ?2 WHERE project = ?1")
            .sql()?
            .execute(params![project.as_str(), stamp])
            .sql()?;
        Ok(())
    }

    fn set_head(&mut self, project: &ProjectName, head: Option<&str>) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE file_workspaces SET head = ?2 WHERE project = ?1")
            .sql()?
            .execute(params![project.as_str(), head])
            .sql()?;
        Ok(())
    }

    fn change_stamp(&mut self, project: &ProjectName, delta: i64) -> Result<()> {
        // XOR, which SQLite lacks, as (a | b) - (a & b): never overflows.
        self.tx
            .prepare_cached(
                "UPDATE file_workspaces SET stamp = (stamp | ?2) - (stamp & ?2) \
                 WHERE project = ?1 AND stamp IS NOT NULL",
            )
            .sql()?
            .execute(params![project.as_str(), delta])
            .sql()?;
        Ok(())
    }

    fn remove_workspace(&mut self, project: &ProjectName) -> Result<()> {
        // A followed file's locations (absolute paths) are not the workspace's: they stay.
        for (table, also) in [
            ("file_workspaces", ""),
            ("file_units", " AND file NOT LIKE '/%'"),
        ] {
            self.tx
                .prepare_cached(&format!("DELETE FROM {table} WHERE project = ?1{also}"))
                .sql()?
                .execute([project.as_str()])
                .sql()?;
        }
        Ok(())
    }

    fn put_location(&mut self, location: &UnitLocation) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO file_units (memory_id, project, file, raw_hash, state) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .sql()?
            .execute(params![
                location.id.to_string(),
                location.project.as_str(),
                location.file,
                location.raw_hash,
                location.state.as_str()
            ])
            .sql()?;
        Ok(())
    }

    fn remove_location(&mut self, id: &MemoryId) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM file_units WHERE memory_id = ?1")
            .sql()?
            .execute([id.to_string()])
            .sql()?;
        Ok(())
    }
}
