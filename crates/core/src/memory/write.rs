//! The write path: the rules every write applies inside its transaction, whichever operation
//! or domain asks (a store, an update, an import, a fact extracted from an agent's answer, a
//! session summary).
//!
//! A candidate is validated, normalised and redacted before the transaction opens
//! (`candidate`); inside it, `store_in` decides what the write means — the same topic key in
//! the scope revises that memory (`updated`, the previous state kept as a revision), the same
//! normalised content is a `duplicate` (nothing written), anything else is `created`.

use std::collections::HashSet;

use jiff::Timestamp;

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::memory::filter::Visibility;
use crate::memory::model::{Importance, Memory, WriteOutcome, WriteStatus};
use crate::memory::new::{MemoryPatch, NewMemory};
use crate::memory::normalise::{content_hash, same_content};
use crate::memory::record::MemoryRecord;
use crate::memory::store::MemoryTx;
use crate::memory::validate;

/// A new memory as it would be stored at `now`: validated, normalised and redacted.
pub(crate) fn candidate(new: NewMemory, limits: &Limits, now: Timestamp) -> Result<Memory> {
    let content = validate::content(&new.content, limits)?;
    Ok(Memory {
        id: MemoryId::generate(),
        content,
        title: validate::title(new.title.as_deref(), limits)?,
        category: new.category,
        tags: validate::tags(&new.tags, limits)?,
        scope: new.scope,
        topic_key: validate::topic_key(new.topic_key.as_deref())?,
        entered_by: validate::label("entered_by", new.entered_by.as_deref())?,
        session_id: validate::label("session_id", new.session_id.as_deref())?,
        source: new.source,
        importance: new
            .importance
            .map(Importance::new)
            .transpose()?
            .unwrap_or_default(),
        created_at: now,
        updated_at: now,
        expires_at: validate::expiry(new.expires_at, now)?,
        deleted_at: None,
    })
}

pub(crate) fn apply_patch(
    current: &Memory,
    patch: &MemoryPatch,
    limits: &Limits,
    now: Timestamp,
) -> Result<Memory> {
    let mut next = current.clone();
    if let Some(content) = &patch.content {
        next.content = validate::content(content, limits)?;
    }
    if let Some(title) = &patch.title {
        next.title = validate::title(title.as_deref(), limits)?;
    }
    if let Some(category) = patch.category {
        next.category = category;
    }
    if let Some(tags) = &patch.tags {
        next.tags = validate::tags(tags, limits)?;
    }
    if let Some(importance) = patch.importance {
        next.importance = Importance::new(importance)?;
    }
    if let Some(expires) = patch.expires_at {
        next.expires_at = validate::expiry(expires, now)?;
    }
    if let Some(key) = &patch.topic_key {
        next.topic_key = validate::topic_key(key.as_deref())?;
    }
    next.updated_at = now;
    Ok(next)
}

/// The write rules of `store`, applied to an imported record and each of its revisions.
pub(crate) fn validate_record(mut record: MemoryRecord, limits: &Limits) -> Result<MemoryRecord> {
    let memory = &mut record.memory;
    memory.content = validate::content(&memory.content, limits)?;
    memory.title = validate::title(memory.title.as_deref(), limits)?;
    memory.entered_by = validate::label("entered_by", memory.entered_by.as_deref())?;
    memory.session_id = validate::label("session_id", memory.session_id.as_deref())?;
    validate::tags(&memory.tags, limits)?;
    let mut numbers = HashSet::new();
    for revision in &mut record.revisions {
        if !numbers.insert(revision.number) {
            return Err(Error::invalid(
                format!("revisions[{}].number", revision.number),
                "two revisions of the memory carry this number; each must be new",
            ));
        }
        revision.content = validate::content(&revision.content, limits)
            .map_err(|e| Error::invalid(format!("revisions[{}].content", revision.number), e))?;
        revision.title = validate::title(revision.title.as_deref(), limits)?;
    }
    Ok(record)
}

/// The memory `id` as the transaction sees it, if it is visible at `now`.
pub(crate) fn visible_in(tx: &mut dyn MemoryTx, id: &MemoryId, now: Timestamp) -> Result<Memory> {
    tx.get(id)?
        .filter(|m| Visibility::VISIBLE.shows(m, now))
        .ok_or_else(|| Error::NotFound { id: id.to_string() })
}

/// Makes a forgotten memory visible again, unless a live memory of its scope now stands for it
/// (the same text, or its topic key): then nothing changes and that one is named.
pub(crate) fn unforget(tx: &mut dyn MemoryTx, id: &MemoryId, now: Timestamp) -> Result<Memory> {
    let mut memory = tx
        .get(id)?
        .ok_or_else(|| Error::NotFound { id: id.to_string() })?;
    if memory.deleted_at.is_none() {
        return Err(Error::invalid(
            "id",
            format!(
                "memory {} is not forgotten; there is nothing to undo",
                id.handle()
            ),
        ));
    }
    let by_key = match &memory.topic_key {
        Some(key) => tx.find_by_topic(&memory.scope, key, now)?,
        None => None,
    };
    let twin = by_key.or(tx
        .find_by_content_hash(&memory.scope, content_hash(&memory.content), now)?
        .into_iter()
        .find(|m| same_content(&m.content, &memory.content)));
    if let Some(twin) = twin.filter(|twin| twin.id != *id) {
        return Err(Error::Conflict {
            field: "id".into(),
            message: format!(
                "memory {} stands for memory {} now (the same text or topic key, and live); \
                 change that one instead",
                twin.id.handle(),
                id.handle()
            ),
        });
    }
    memory.deleted_at = None;
    tx.replace(&memory)?;
    Ok(memory)
}

/// The store rules inside the transaction: topic key first, then content duplicate, then new.
pub(crate) fn store_in(
    tx: &mut dyn MemoryTx,
    candidate: &Memory,
    now: Timestamp,
) -> Result<WriteOutcome> {
    if let Some(key) = &candidate.topic_key
        && let Some(current) = tx.find_by_topic(&candidate.scope, key, now)?
    {
        let revised = Memory {
            id: current.id,
            created_at: current.created_at,
            deleted_at: None,
            ..candidate.clone()
        };
        if same_state(&current, &revised) {
            return Ok(WriteOutcome::new(WriteStatus::Duplicate, current));
        }
        revise(tx, &current, revised.clone())?;
        return Ok(WriteOutcome::new(WriteStatus::Updated, revised));
    }
    let duplicate = tx
        .find_by_content_hash(&candidate.scope, content_hash(&candidate.content), now)?
        .into_iter()
        .find(|m| same_content(&m.content, &candidate.content));
    if let Some(existing) = duplicate {
        return Ok(WriteOutcome::new(WriteStatus::Duplicate, existing));
    }
    tx.insert(candidate)?;
    Ok(WriteOutcome::new(WriteStatus::Created, candidate.clone()))
}

/// Keeps `current` as the next revision and writes `revised` in its place.
pub(crate) fn revise(tx: &mut dyn MemoryTx, current: &Memory, revised: Memory) -> Result<()> {
    let number = tx
        .revisions(&current.id)?
        .last()
        .map_or(1, |r| r.number + 1);
    tx.add_revision(&current.id, &current.to_revision(number))?;
    tx.replace(&revised)
}

/// True when two states of a memory differ in nothing a revision records.
pub(crate) fn same_state(a: &Memory, b: &Memory) -> bool {
    a.content == b.content
        && a.title == b.title
        && a.category == b.category
        && a.tags == b.tags
        && a.importance == b.importance
        && a.expires_at == b.expires_at
        && a.topic_key == b.topic_key
}

/// Imports validated records as [`import_one`] imports each in turn, in fewer statements: the
/// first record of each id not yet stored goes into one [`MemoryTx::insert_many`], then the
/// others (ids already stored, ids repeated) are imported one by one, in order. Returns each
/// record's status, in the records' order.
pub(crate) fn import_many(
    tx: &mut dyn MemoryTx,
    records: Vec<MemoryRecord>,
) -> Result<Vec<WriteStatus>> {
    let ids: Vec<MemoryId> = records.iter().map(|r| r.memory.id).collect();
    let mut taken: HashSet<MemoryId> = tx.stored_ids(&ids)?.into_iter().collect();
    let mut new = Vec::new();
    let mut rest = Vec::new();
    let mut statuses = vec![WriteStatus::Created; records.len()];
    for (index, record) in records.into_iter().enumerate() {
        match taken.insert(record.memory.id) {
            true => new.push(record),
            false => rest.push((index, record)),
        }
    }
    tx.insert_many(&new)?;
    for (index, record) in rest {
        statuses[index] = import_one(tx, record)?;
    }
    Ok(statuses)
}

/// Imports one validated record by id: new, newer (replace and merge history) or not newer.
pub(crate) fn import_one(tx: &mut dyn MemoryTx, record: MemoryRecord) -> Result<WriteStatus> {
    let MemoryRecord { memory, revisions } = record;
    let Some(current) = tx.get(&memory.id)? else {
        tx.insert(&memory)?;
        for revision in &revisions {
            tx.add_revision(&memory.id, revision)?;
        }
        return Ok(WriteStatus::Created);
    };
    if memory.updated_at <= current.updated_at {
        return Ok(WriteStatus::Unchanged);
    }
    // Merge both histories and the state being replaced, by time, renumbered from 1.
    let mut history = tx.revisions(&current.id)?;
    history.push(current.to_revision(0));
    for revision in revisions {
        history.push(revision);
    }
    history.sort_by_key(|r| r.written_at);
    history.dedup_by(|a, b| a.written_at == b.written_at && a.content == b.content);
    history.retain(|r| !(r.written_at == memory.updated_at && r.content == memory.content));
    // Replaced in place, not purged and inserted: the memory keeps its relations.
    tx.replace(&memory)?;
    tx.clear_revisions(&memory.id)?;
    for (index, mut revision) in history.into_iter().enumerate() {
        revision.number = index as u32 + 1;
        tx.add_revision(&memory.id, &revision)?;
    }
    Ok(WriteStatus::Updated)
}
