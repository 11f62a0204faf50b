//! Markdown workspaces in PostgreSQL: which projects write their memories to files, and which
//! file holds each memory's unit.

use std::path::PathBuf;

use cairn_core::files::{FilesStore, FilesTx, UnitLocation, UnitState, Workspace};
use cairn_core::{MemoryId, ProjectName, Result};
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, time};
use crate::error::{SqlResult, corrupt};
use crate::sql::Sql;
use crate::tx::PostgresTx;

const WORKSPACE_COLUMNS: &str = "project, root, dir, created_at, stamp, head";
const LOCATION_COLUMNS: &str = "memory_id, project, file, raw_hash, state";

fn workspace_from_row(row: &Row) -> Result<Workspace> {
    Ok(Workspace {
        project: ProjectName::new(&get::<String>(row, 0)?).map_err(corrupt)?,
        root: PathBuf::from(get::<String>(row, 1)?),
        dir: get(row, 2)?,
        created_at: time(get(row, 3)?)?,
        synced_stamp: get(row, 4)?,
        synced_head: get(row, 5)?,
    })
}

fn location_from_row(row: &Row) -> Result<UnitLocation> {
    Ok(UnitLocation {
        id: get::<String>(row, 0)?.parse().map_err(corrupt)?,
        project: ProjectName::new(&get::<String>(row, 1)?).map_err(corrupt)?,
        file: get(row, 2)?,
        raw_hash: get(row, 3)?,
        state: UnitState::parse(&get::<String>(row, 4)?),
    })
}

impl FilesStore for PostgresStore {
    fn workspace(&self, project: &ProjectName) -> Result<Option<Workspace>> {
        self.reader()?
            .query_opt(
                &format!("SELECT {WORKSPACE_COLUMNS} FROM file_workspaces WHERE project = $1"),
                &[&project.as_str()],
            )
            .sql()?
            .map(|row| workspace_from_row(&row))
            .transpose()
    }

    fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.reader()?
            .query(
                &format!("SELECT {WORKSPACE_COLUMNS} FROM file_workspaces ORDER BY project"),
                &[],
            )
            .sql()?
            .iter()
            .map(workspace_from_row)
            .collect()
    }

    fn unit_locations(&self, project: &ProjectName) -> Result<Vec<UnitLocation>> {
        self.reader()?
            .query(
                &format!("SELECT {LOCATION_COLUMNS} FROM file_units WHERE project = $1"),
                &[&project.as_str()],
            )
            .sql()?
            .iter()
            .map(location_from_row)
            .collect()
    }

    fn locations_of(&self, ids: &[MemoryId]) -> Result<Vec<UnitLocation>> {
        let ids: Vec<String> = ids.iter().map(MemoryId::to_string).collect();
        self.reader()?
            .query(
                &format!("SELECT {LOCATION_COLUMNS} FROM file_units WHERE memory_id = ANY($1)"),
                &[&ids],
            )
            .sql()?
            .iter()
            .map(location_from_row)
            .collect()
    }
}

impl FilesTx for PostgresTx<'_, '_> {
    fn put_workspace(&mut self, workspace: &Workspace) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO file_workspaces (project, root, dir, created_at, stamp, head) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (project) DO UPDATE SET \
                 root = excluded.root, dir = excluded.dir, created_at = excluded.created_at, \
                 stamp = excluded.stamp, head = excluded.head",
                &[
                    &workspace.project.as_str(),
                    &workspace.root.to_string_lossy().as_ref(),
                    &workspace.dir,
                    &millis(workspace.created_at),
                    &workspace.synced_stamp,
                    &workspace.synced_head,
                ],
            )
            .sql()?;
        Ok(())
    }

    fn set_stamp(&mut self, project: &ProjectName, stamp: i64) -> Result<()> {
        self.tx
            .execute(
                "UPDATE file_workspaces SET stamp = $2 WHERE project = $1",
                &[&project.as_str(), &stamp],
            )
            .sql()?;
        Ok(())
    }

    fn set_head(&mut self, project: &ProjectName, head: Option<&str>) -> Result<()> {
        self.tx
            .execute(
                "UPDATE file_workspaces SET head = $2 WHERE project = $1",
                &[&project.as_str(), &head],
            )
            .sql()?;
        Ok(())
    }

    fn change_stamp(&mut self, project: &ProjectName, delta: i64) -> Result<()> {
        self.tx
            .execute(
                "UPDATE file_workspaces SET stamp = stamp # $2 \
                 WHERE project = $1 AND stamp IS NOT NULL",
                &[&project.as_str(), &delta],
            )
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
                .execute(
                    &format!("DELETE FROM {table} WHERE project = $1{also}"),
                    &[&project.as_str()],
                )
                .sql()?;
        }
        Ok(())
    }

    fn put_location(&mut self, location: &UnitLocation) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO file_units (memory_id, project, file, raw_hash, state) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (memory_id) DO UPDATE SET \
                 project = excluded.project, file = excluded.file, raw_hash = excluded.raw_hash, \
                 state = excluded.state",
                &[
                    &location.id.to_string(),
                    &location.project.as_str(),
                    &location.file,
                    &location.raw_hash,
                    &location.state.as_str(),
                ],
            )
            .sql()?;
        Ok(())
    }

    fn remove_location(&mut self, id: &MemoryId) -> Result<()> {
        self.tx
            .execute(
                "DELETE FROM file_units WHERE memory_id = $1",
                &[&id.to_string()],
            )
            .sql()?;
        Ok(())
    }
}
