//! Memory slots in PostgreSQL: `slots` keyed by project (`''` for global) and label, and
//! `slot_seeds`, every default ever seeded per scope (so a deleted default stays deleted).

use cairn_core::slot::{Slot, SlotLabel};
use cairn_core::slot::{SlotStore, SlotTx};
use cairn_core::{Result, Scope};
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, project_column, scope_from_column, time};
use crate::error::{SqlResult, corrupt};
use crate::sql::Sql;
use crate::tx::PostgresTx;

const SLOT_COLUMNS: &str = "project, label, content, description, size_limit, pinned, \
     read_only, created_at, updated_at, reflected";

fn slot_from_row(row: &Row) -> Result<Slot> {
    let reflected: String = get(row, 9)?;
    Ok(Slot {
        scope: scope_from_column(&get::<String>(row, 0)?)?,
        label: SlotLabel::new(&get::<String>(row, 1)?).map_err(corrupt)?,
        content: get(row, 2)?,
        description: get(row, 3)?,
        limit: get::<i64>(row, 4)?.try_into().map_err(corrupt)?,
        pinned: get(row, 5)?,
        read_only: get(row, 6)?,
        created_at: time(get(row, 7)?)?,
        updated_at: time(get(row, 8)?)?,
        reflected: reflected.lines().map(String::from).collect(),
    })
}

pub fn slots(client: &mut impl Sql, scopes: &[Scope]) -> Result<Vec<Slot>> {
    let projects: Vec<String> = scopes.iter().map(project_column).collect();
    client
        .query(
            &format!(
                "SELECT {SLOT_COLUMNS} FROM slots WHERE project = ANY($1) ORDER BY project, label"
            ),
            &[&projects],
        )
        .sql()?
        .iter()
        .map(slot_from_row)
        .collect()
}

pub fn seeded_slots(client: &mut impl Sql, scope: &Scope) -> Result<Vec<SlotLabel>> {
    client
        .query(
            "SELECT label FROM slot_seeds WHERE project = $1 ORDER BY label",
            &[&project_column(scope)],
        )
        .sql()?
        .iter()
        .map(|row| SlotLabel::new(&get::<String>(row, 0)?).map_err(corrupt))
        .collect()
}

impl SlotStore for PostgresStore {
    fn slots(&self, scopes: &[Scope]) -> Result<Vec<Slot>> {
        slots(&mut *self.reader()?, scopes)
    }

    fn seeded_slots(&self, scope: &Scope) -> Result<Vec<SlotLabel>> {
        seeded_slots(&mut *self.reader()?, scope)
    }
}

impl SlotTx for PostgresTx<'_, '_> {
    fn slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>> {
        self.tx
            .query_opt(
                &format!("SELECT {SLOT_COLUMNS} FROM slots WHERE project = $1 AND label = $2"),
                &[&project_column(scope), &label.as_str()],
            )
            .sql()?
            .map(|row| slot_from_row(&row))
            .transpose()
    }

    fn put_slot(&mut self, slot: &Slot) -> Result<()> {
        self.tx
            .execute(
                &format!(
                    "INSERT INTO slots ({SLOT_COLUMNS}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                     ON CONFLICT (project, label) DO UPDATE SET content = excluded.content, \
                     description = excluded.description, size_limit = excluded.size_limit, \
                     pinned = excluded.pinned, read_only = excluded.read_only, \
                     created_at = excluded.created_at, updated_at = excluded.updated_at, \
                     reflected = excluded.reflected"
                ),
                &[
                    &project_column(&slot.scope),
                    &slot.label.as_str(),
                    &slot.content,
                    &slot.description,
                    &(slot.limit as i64),
                    &slot.pinned,
                    &slot.read_only,
                    &millis(slot.created_at),
                    &millis(slot.updated_at),
                    &slot.reflected.join("\n"),
                ],
            )
            .sql()?;
        Ok(())
    }

    fn delete_slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<bool> {
        let deleted = self
            .tx
            .execute(
                "DELETE FROM slots WHERE project = $1 AND label = $2",
                &[&project_column(scope), &label.as_str()],
            )
            .sql()?;
        Ok(deleted > 0)
    }

    fn seeded_slots(&mut self, scope: &Scope) -> Result<Vec<SlotLabel>> {
        seeded_slots(&mut self.tx, scope)
    }

    fn mark_slot_seeded(&mut self, scope: &Scope, label: &SlotLabel) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO slot_seeds (project, label) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&project_column(scope), &label.as_str()],
            )
            .sql()?;
        Ok(())
    }
}
