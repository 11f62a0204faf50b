//! How an imported relation, slot, slot seed, session or observation meets what the store holds. (A
//! memory record's rule is the memory domain's: `memory::write::import_one`.)
//!
//! Every kind is keyed, and a stored state newer than the record is kept, so importing twice
//! changes nothing. One exception makes a restored slot win: a slot nobody has written to yet
//! (empty, never changed since it was seeded) gives way to an imported slot that was written to,
//! or opening the new store once before importing would silently keep the empty defaults.

use crate::error::{Error, Result};
use crate::exchange::{ObservationRecord, SlotRecord, SlotSeedsRecord};
use crate::memory::WriteStatus;
use crate::redact::redact;
use crate::relation::Relation;
use crate::relation::operations::checked as checked_verdict;
use crate::session::{Session, SessionKey, SessionTx};
use crate::slot::operations::checked;
use crate::slot::{Slot, SlotTx};
use crate::store::StoreTx;

/// A relation record with its verdicts checked as every verdict is.
pub fn checked_relation(mut relation: Relation) -> Result<Relation> {
    relation.verdict = relation.verdict.map(checked_verdict).transpose()?;
    relation.history = relation
        .history
        .into_iter()
        .map(checked_verdict)
        .collect::<Result<_>>()?;
    if relation.source == relation.target {
        return Err(Error::invalid(
            "target",
            "is the relation's source; a relation joins two memories",
        ));
    }
    Ok(relation)
}

/// What became of a (checked) relation record.
pub enum Placement {
    /// Written, or already held as it is (or newer).
    Applied(WriteStatus),
    /// A memory of it is not in the store: why, naming it.
    Missing(String),
    /// Both memories are here, but the relation cannot join them.
    Refused { field: &'static str, why: String },
}

/// Writes a checked relation by judgment id when both its memories are in the store and its
/// scope; a stored state newer than the record is kept.
pub fn place(tx: &mut dyn StoreTx, relation: &Relation) -> Result<Placement> {
    let mut memories = Vec::with_capacity(2);
    for (field, id) in [("source", relation.source), ("target", relation.target)] {
        match tx.get(&id)? {
            Some(memory) => memories.push((field, memory)),
            None => {
                return Ok(Placement::Missing(format!(
                    "memory {id} (its {field}) is not in the store"
                )));
            }
        }
    }
    for (field, memory) in memories {
        if memory.scope != relation.scope {
            return Ok(Placement::Refused {
                field,
                why: format!(
                    "memory {} is not in the relation's scope: pairs across projects are refused",
                    memory.id
                ),
            });
        }
    }
    let Some(current) = tx.relation(&relation.id)? else {
        tx.put_relation(relation)?;
        return Ok(Placement::Applied(WriteStatus::Created));
    };
    if current == *relation || relation.updated_at <= current.updated_at {
        return Ok(Placement::Applied(WriteStatus::Unchanged));
    }
    tx.put_relation(relation)?;
    Ok(Placement::Applied(WriteStatus::Updated))
}

/// Validates and redacts a slot record as every slot write is checked.
pub fn slot(record: SlotRecord) -> Result<Slot> {
    checked(Slot::from(record))
}

/// Imports one validated slot by scope and label.
pub fn import_slot(tx: &mut dyn SlotTx, slot: &Slot) -> Result<WriteStatus> {
    let Some(current) = tx.slot(&slot.scope, &slot.label)? else {
        tx.put_slot(slot)?;
        return Ok(WriteStatus::Created);
    };
    let untouched = |slot: &Slot| slot.content.is_empty() && slot.created_at == slot.updated_at;
    let newer = slot.updated_at > current.updated_at;
    if current == *slot || !(newer || untouched(&current) && !untouched(slot)) {
        return Ok(WriteStatus::Unchanged);
    }
    tx.put_slot(slot)?;
    Ok(WriteStatus::Updated)
}

/// Records that a scope was given these default slots; `Created` when any was new to it.
pub fn import_seeds(tx: &mut dyn SlotTx, record: &SlotSeedsRecord) -> Result<WriteStatus> {
    let seeded = tx.seeded_slots(&record.project)?;
    let mut status = WriteStatus::Unchanged;
    for label in record.labels.iter().filter(|l| !seeded.contains(l)) {
        tx.mark_slot_seeded(&record.project, label)?;
        status = WriteStatus::Created;
    }
    Ok(status)
}

/// Validates and redacts a session record.
pub fn session(mut session: Session) -> Result<Session> {
    session.key = SessionKey::new(&session.key.agent, &session.key.id)?;
    for text in [
        &mut session.first_prompt,
        &mut session.summary,
        &mut session.cwd,
    ]
    .into_iter()
    .flatten()
    {
        *text = redact(text).into_owned();
    }
    Ok(session)
}

/// Imports one validated session by key.
pub fn import_session(tx: &mut dyn SessionTx, session: &Session) -> Result<WriteStatus> {
    let Some(current) = tx.session(&session.key)? else {
        tx.put_session(session)?;
        return Ok(WriteStatus::Created);
    };
    if current == *session || session.last_seen_at <= current.last_seen_at {
        return Ok(WriteStatus::Unchanged);
    }
    tx.put_session(session)?;
    Ok(WriteStatus::Updated)
}

/// Imports one observation by event id; its session must be stored (its record comes first).
pub fn import_observation(
    tx: &mut dyn SessionTx,
    record: ObservationRecord,
) -> Result<WriteStatus> {
    let ObservationRecord {
        session,
        mut observation,
    } = record;
    if tx.session(&session)?.is_none() {
        return Err(Error::Missing {
            field: "session".into(),
            message: format!(
                "no session {session} is stored or imported before this observation; \
                 a session's line must come before its observations"
            ),
        });
    }
    for text in [&mut observation.input, &mut observation.output]
        .into_iter()
        .flatten()
    {
        *text = redact(text).into_owned();
    }
    Ok(if tx.add_observation(&session, &observation)? {
        WriteStatus::Created
    } else {
        WriteStatus::Unchanged
    })
}
