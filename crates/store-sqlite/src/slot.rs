//! Memory slots in SQLite (tables of migration 6).
//!
//! `slots` is keyed by project (`''` for global) and label, so a project's slot and the global
//! slot of the same label are two rows; which one a reader sees is the service's rule.
//! `slot_seeds` remembers every default ever seeded per scope, so a deleted default stays
//! deleted.

use cairn_core::slot::{Slot, SlotLabel};
use cairn_core::slot::{SlotStore, SlotTx};
use cairn_core::{Result, Scope};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::SqliteStore;
use crate::columns::{corrupt, millis, project_column, scope_from_column, time};
use crate::error::SqlResult;
use crate::tx::SqliteTx;

const SLOT_COLUMNS: &str = "project, label, content, description, size_limit, pinned, \
     read_only, created_at, updated_at, reflected";

fn slot_from_row(row: &Row<'_>) -> rusqlite::Result<Slot> {
    let reflected: String = row.get(9)?;
    Ok(Slot {
        scope: scope_from_column(&row.get::<_, String>(0)?)?,
        label: SlotLabel::new(&row.get::<_, String>(1)?).map_err(corrupt)?,
        content: row.get(2)?,
        description: row.get(3)?,
        limit: row.get::<_, i64>(4)?.try_into().map_err(corrupt)?,
        pinned: row.get(5)?,
        read_only: row.get(6)?,
        created_at: time(row.get(7)?)?,
        updated_at: time(row.get(8)?)?,
        reflected: reflected.lines().map(String::from).collect(),
    })
}

pub fn slots(conn: &Connection, scopes: &[Scope]) -> Result<Vec<Slot>> {
    if scopes.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; scopes.len()].join(", ");
    let values = scopes
        .iter()
        .map(|scope| Value::Text(project_column(scope).into()));
    conn.prepare_cached(&format!(
        "SELECT {SLOT_COLUMNS} FROM slots WHERE project IN ({marks}) ORDER BY project, label"
    ))
    .sql()?
    .query_map(params_from_iter(values), slot_from_row)
    .sql()?
    .collect::<rusqlite::Result<_>>()
    .sql()
}

pub fn slot(conn: &Connection, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>> {
    conn.prepare_cached(&format!(
        "SELECT {SLOT_COLUMNS} FROM slots WHERE project = ?1 AND label = ?2"
    ))
    .sql()?
    .query_row(
        params![project_column(scope), label.as_str()],
        slot_from_row,
    )
    .optional()
    .sql()
}

pub fn put_slot(conn: &Connection, slot: &Slot) -> Result<()> {
    conn.prepare_cached(&format!(
        "INSERT OR REPLACE INTO slots ({SLOT_COLUMNS}) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    ))
    .sql()?
    .execute(params![
        project_column(&slot.scope),
        slot.label.as_str(),
        slot.content,
        slot.description,
        slot.limit as i64,
        slot.pinned,
        slot.read_only,
        millis(slot.created_at),
        millis(slot.updated_at),
        slot.reflected.join("\n"),
    ])
    .sql()?;
    Ok(())
}

pub fn delete_slot(conn: &Connection, scope: &Scope, label: &SlotLabel) -> Result<bool> {
    let deleted = conn
        .prepare_cached("DELETE FROM slots WHERE project = ?1 AND label = ?2")
        .sql()?
        .execute(params![project_column(scope), label.as_str()])
        .sql()?;
    Ok(deleted > 0)
}

pub fn seeded_slots(conn: &Connection, scope: &Scope) -> Result<Vec<SlotLabel>> {
    conn.prepare_cached("SELECT label FROM slot_seeds WHERE project = ?1 ORDER BY label")
        .sql()?
        .query_map([project_column(scope)], |row| {
            SlotLabel::new(&row.get::<_, String>(0)?).map_err(corrupt)
        })
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()
}

pub fn mark_slot_seeded(conn: &Connection, scope: &Scope, label: &SlotLabel) -> Result<()> {
    conn.prepare_cached("INSERT OR IGNORE INTO slot_seeds (project, label) VALUES (?1, ?2)")
        .sql()?
        .execute(params![project_column(scope), label.as_str()])
        .sql()?;
    Ok(())
}

impl SlotStore for SqliteStore {
    fn slots(&self, scopes: &[Scope]) -> Result<Vec<Slot>> {
        slots(&self.reader(), scopes)
    }

    fn seeded_slots(&self, scope: &Scope) -> Result<Vec<SlotLabel>> {
        seeded_slots(&self.reader(), scope)
    }
}

impl SlotTx for SqliteTx<'_, '_> {
    fn slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>> {
        slot(&self.tx, scope, label)
    }

    fn put_slot(&mut self, slot: &Slot) -> Result<()> {
        put_slot(&self.tx, slot)
    }

    fn delete_slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<bool> {
        delete_slot(&self.tx, scope, label)
    }

    fn seeded_slots(&mut self, scope: &Scope) -> Result<Vec<SlotLabel>> {
        seeded_slots(&self.tx, scope)
    }

    fn mark_slot_seeded(&mut self, scope: &Scope, label: &SlotLabel) -> Result<()> {
        mark_slot_seeded(&self.tx, scope, label)
    }
}
