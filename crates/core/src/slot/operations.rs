//! The slot operations: list, get, create, append, replace, configure, delete, reset
//! and reflect (the model is in `slot::model`).
//!
//! Every change runs in one store transaction that first seeds the scope's missing defaults,
//! then reads the slot under the write lock, checks it and writes it. So an append is a
//! read-modify-write no other writer can interleave with: parallel appends all land. Text is
//! redacted before it is measured and stored. A change that would take a slot over its limit
//! is refused with [`Error::TooLarge`], a change to a read-only slot with [`Error::ReadOnly`];
//! either way nothing is written.

use jiff::Timestamp;
use serde::Serialize;

use crate::clock::Clock;
use crate::config::SlotsConfig;
use crate::error::{Error, Result};
use crate::memory::validate;
use crate::redact::redact;
use crate::scope::{ProjectName, Scope};
use crate::session::model::{SessionFilter, SessionKey};
use crate::session::recording::{RecordReport, Sessions};
use crate::slot::defaults::{
    DEFAULT_SLOTS, DefaultSlot, PENDING_ITEMS, PROJECT_CONTEXT, SESSION_PATTERNS,
};
use crate::slot::model::{
    self as slot, DEFAULT_LIMIT, MAX_DESCRIPTION_CHARS, MAX_LIMIT, Slot, SlotAddress, SlotLabel,
    place,
};
use crate::slot::reflection::{self, SlotChange};
use crate::store::{Store, StoreTx, in_transaction};

/// A slot to create, as an adapter received it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSlot {
    pub label: String,
    pub scope: Scope,
    pub content: String,
    pub description: Option<String>,
    /// Characters; [`DEFAULT_LIMIT`] when `None`.
    pub limit: Option<usize>,
    pub pinned: bool,
    pub read_only: bool,
}

/// A change of a slot's settings. `None` leaves a setting alone; a description of `Some("")`
/// removes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlotSettings {
    pub description: Option<String>,
    pub limit: Option<usize>,
    pub pinned: Option<bool>,
    pub read_only: Option<bool>,
}

/// What reflecting a session wrote into the project's slots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reflection {
    pub session: SessionKey,
    pub project: ProjectName,
    pub changes: Vec<SlotChange>,
}

/// The slot operations over one store; reflection reads sessions through [`Sessions`].
#[derive(Clone, Copy)]
pub struct Slots<'a> {
    store: &'a dyn Store,
    config: &'a SlotsConfig,
    clock: &'a Clock,
    sessions: Sessions<'a>,
}

/// What recording a batch of agent events did, and what the sessions that ended in it wrote
/// into their projects' slots.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Recorded {
    #[serde(flatten)]
    pub report: RecordReport,
    /// What the sessions that ended wrote into their project's slots.
    pub reflected: Vec<Reflection>,
}

impl<'a> Slots<'a> {
    pub fn new(
        store: &'a dyn Store,
        config: &'a SlotsConfig,
        clock: &'a Clock,
        sessions: Sessions<'a>,
    ) -> Self {
        Slots {
            store,
            config,
            clock,
            sessions,
        }
    }

    /// Reflects each session that ended in `report` into its project's slots, when
    /// `slots.reflect_on_session_end` is on.
    pub fn reflect_ended(&self, report: RecordReport) -> Result<Recorded> {
        let mut reflected = Vec::new();
        if self.config.reflect_on_session_end {
            for key in &report.ended {
                reflected.push(self.reflect_session(key)?);
            }
        }
        Ok(Recorded { report, reflected })
    }

    /// The slots a caller in `project` sees (the project's own, and the global ones it does not
    /// shadow), defaults first in their order, then by label. Seeds missing defaults.
    pub fn slots(&self, project: Option<&ProjectName>) -> Result<Vec<Slot>> {
        let scopes = scopes_of(project);
        self.ensure_seeded(&scopes)?;
        Ok(visible(self.store.slots(&scopes)?))
    }

    /// The slot a label means for a caller (see [`SlotAddress`]). Seeds missing defaults.
    pub fn slot(&self, address: &SlotAddress) -> Result<Slot> {
        let scopes = address.candidates()?;
        self.ensure_seeded(&scopes)?;
        let mut found = self.store.slots(&scopes)?;
        found.retain(|slot| slot.label == address.label);
        scopes
            .iter()
            .find_map(|scope| found.iter().find(|slot| slot.scope == *scope).cloned())
            .ok_or_else(|| missing(address, &scopes))
    }

    /// The pinned slots with content that a caller in `project` sees, in context order. Reads
    /// only: seeding adds nothing pinned with content.
    pub fn pinned_slots(&self, project: Option<&ProjectName>) -> Result<Vec<Slot>> {
        let mut slots = visible(self.store.slots(&scopes_of(project))?);
        slots.retain(|slot| slot.pinned && !slot.content.trim().is_empty());
        Ok(slots)
    }

    /// Creates a slot; refused when one with the label exists in that scope.
    pub fn create_slot(&self, new: NewSlot) -> Result<Slot> {
        let now = self.clock.timestamp();
        let label = SlotLabel::new(&new.label)?;
        let limit = slot::limit(new.limit.unwrap_or(DEFAULT_LIMIT))?;
        let mut created = Slot {
            label,
            scope: new.scope,
            content: String::new(),
            description: description(new.description.as_deref())?,
            limit,
            pinned: new.pinned,
            read_only: new.read_only,
            created_at: now,
            updated_at: now,
            reflected: Vec::new(),
        };
        let content = clean(&new.content)?;
        check_fits(&created, &content, "would hold")?;
        created.content = content;
        in_transaction(self.store, |tx| {
            seed_in(tx, &created.scope, now)?;
            if tx.slot(&created.scope, &created.label)?.is_some() {
                return Err(Error::Conflict {
                    field: "label".into(),
                    message: format!(
                        "slot '{}' already exists ({}); change it with replace or append, or \
                         delete it first",
                        created.label,
                        place(&created.scope)
                    ),
                });
            }
            tx.put_slot(&created)?;
            Ok(created.clone())
        })
    }

    /// Adds `text` as new lines at the end of the slot.
    pub fn append_slot(&self, address: &SlotAddress, text: &str) -> Result<Slot> {
        let addition = clean(text)?;
        if addition.is_empty() {
            return Err(Error::invalid("content", "is empty; say what to append"));
        }
        self.change_slot(address, |slot| {
            let content = match slot.content.is_empty() {
                true => addition.clone(),
                false => format!("{}\n{addition}", slot.content.trim_end()),
            };
            check_fits(slot, &content, "would hold")?;
            slot.content = content;
            Ok(())
        })
    }

    /// Replaces the slot's content (empty text empties it).
    pub fn replace_slot(&self, address: &SlotAddress, text: &str) -> Result<Slot> {
        let content = clean(text)?;
        self.change_slot(address, |slot| {
            check_fits(slot, &content, "would hold")?;
            slot.content = content.clone();
            Ok(())
        })
    }

    /// Changes a slot's settings. Allowed on a read-only slot: this is how it is unlocked.
    pub fn configure_slot(&self, address: &SlotAddress, settings: &SlotSettings) -> Result<Slot> {
        let limit = settings.limit.map(slot::limit).transpose()?;
        let new_description = settings
            .description
            .as_deref()
            .map(|text| description(Some(text)))
            .transpose()?;
        let now = self.clock.timestamp();
        in_transaction(self.store, |tx| {
            let mut slot = resolve_in(tx, address, now)?;
            if let Some(limit) = limit {
                if slot.chars() > limit {
                    return Err(Error::TooLarge {
                        field: "limit".into(),
                        message: format!(
                            "slot '{}' holds {} characters, more than {limit}; shorten it first",
                            slot.label,
                            slot.chars()
                        ),
                    });
                }
                slot.limit = limit;
            }
            if let Some(text) = &new_description {
                slot.description = text.clone();
            }
            slot.pinned = settings.pinned.unwrap_or(slot.pinned);
            slot.read_only = settings.read_only.unwrap_or(slot.read_only);
            slot.updated_at = now;
            tx.put_slot(&slot)?;
            Ok(slot)
        })
    }

    /// Deletes a slot. A deleted default stays deleted until it is reset.
    pub fn delete_slot(&self, address: &SlotAddress) -> Result<Slot> {
        let now = self.clock.timestamp();
        in_transaction(self.store, |tx| {
            let slot = resolve_in(tx, address, now)?;
            refuse_read_only(&slot)?;
            tx.delete_slot(&slot.scope, &slot.label)?;
            Ok(slot)
        })
    }

    /// With a label: puts that default slot back as it was seeded (empty, default settings),
    /// re-creating it if it was deleted. Without: re-creates every deleted default of the
    /// project and the global scope, leaving the others as they are. Returns the slots written.
    pub fn reset_slots(
        &self,
        project: Option<&ProjectName>,
        label: Option<&SlotLabel>,
    ) -> Result<Vec<Slot>> {
        let now = self.clock.timestamp();
        let specs: Vec<&DefaultSlot> = match label {
            Some(label) => vec![DefaultSlot::find(label.as_str()).ok_or_else(|| {
                Error::invalid(
                    "label",
                    format!(
                        "'{label}' is not a default slot ({}); only defaults can be reset",
                        DEFAULT_SLOTS.map(|s| s.label).join(", ")
                    ),
                )
            })?],
            None => DEFAULT_SLOTS.iter().collect(),
        };
        let mut targets = Vec::new();
        for spec in specs {
            let scope = match (spec.global, project) {
                (true, _) => Scope::Global,
                (false, Some(project)) => Scope::Project(project.clone()),
                (false, None) if label.is_some() => {
                    return Err(Error::invalid(
                        "project",
                        format!("'{}' is a project slot; name the project", spec.label),
                    ));
                }
                (false, None) => continue,
            };
            targets.push((spec, scope));
        }
        in_transaction(self.store, |tx| {
            let mut written = Vec::new();
            for (spec, scope) in &targets {
                let fresh = spec.seed(scope.clone(), now);
                match tx.slot(scope, &fresh.label)? {
                    Some(existing) if label.is_some() => refuse_read_only(&existing)?,
                    Some(_) => continue,
                    None => {}
                }
                tx.put_slot(&fresh)?;
                tx.mark_slot_seeded(scope, &fresh.label)?;
                written.push(fresh);
            }
            Ok(written)
        })
    }

    /// Writes what a session says into its project's slots (see `slot::reflection`). A slot
    /// that was deleted or is read-only is left alone, and the change says so.
    pub fn reflect_session(&self, key: &SessionKey) -> Result<Reflection> {
        let session = self.sessions.session(key)?;
        let observations = self
            .store
            .observations(key, self.sessions.observation_cutoff())?;
        let signals = reflection::signals(&session, &observations);
        let scope = Scope::Project(session.project.clone());
        let now = self.clock.timestamp();
        let writes = [
            (PENDING_ITEMS, signals.pending),
            (SESSION_PATTERNS, signals.pattern.into_iter().collect()),
            (PROJECT_CONTEXT, signals.files),
        ];
        let changes = in_transaction(self.store, |tx| {
            seed_in(tx, &scope, now)?;
            let mut changes = Vec::new();
            for (label, lines) in &writes {
                if lines.is_empty() {
                    continue;
                }
                let label = SlotLabel::new(label)?;
                let Some(mut slot) = tx.slot(&scope, &label)? else {
                    changes.push(skipped(&label, "the slot was deleted"));
                    continue;
                };
                if slot.read_only {
                    changes.push(skipped(&label, "the slot is read-only"));
                    continue;
                }
                let change = reflection::merge(&mut slot, lines);
                if !change.added.is_empty() || !change.dropped.is_empty() {
                    slot.updated_at = now;
                    tx.put_slot(&slot)?;
                }
                changes.push(change);
            }
            Ok(changes)
        })?;
        Ok(Reflection {
            session: session.key,
            project: session.project,
            changes,
        })
    }

    /// Reflects the most recently active session of `project` (see [`Self::reflect_session`]).
    pub fn reflect_latest_session(&self, project: &ProjectName) -> Result<Reflection> {
        let latest = self.store.sessions(&SessionFilter {
            project: Some(project.clone()),
            agent: None,
            id: None,
            limit: 1,
            offset: 0,
        })?;
        match latest.into_iter().next() {
            Some(session) => self.reflect_session(&session.key),
            None => Err(Error::Missing {
                field: "session".into(),
                message: format!("no session is recorded in project {project}; name one"),
            }),
        }
    }

    /// Seeds the missing defaults of `scopes`; writes only when one was never seeded.
    fn ensure_seeded(&self, scopes: &[Scope]) -> Result<()> {
        for scope in scopes {
            let seeded = self.store.seeded_slots(scope)?;
            if DefaultSlot::of(scope).any(|spec| !seeded.iter().any(|l| l.as_str() == spec.label)) {
                let now = self.clock.timestamp();
                in_transaction(self.store, |tx| seed_in(tx, scope, now))?;
            }
        }
        Ok(())
    }

    /// Reads the slot under the write lock, refuses a read-only one, applies `edit`, writes it.
    fn change_slot(
        &self,
        address: &SlotAddress,
        mut edit: impl FnMut(&mut Slot) -> Result<()>,
    ) -> Result<Slot> {
        let now = self.clock.timestamp();
        in_transaction(self.store, |tx| {
            let mut slot = resolve_in(tx, address, now)?;
            refuse_read_only(&slot)?;
            edit(&mut slot)?;
            slot.prune_reflected();
            slot.updated_at = now;
            tx.put_slot(&slot)?;
            Ok(slot)
        })
    }
}

/// The scopes a caller in `project` reads, in order of precedence.
fn scopes_of(project: Option<&ProjectName>) -> Vec<Scope> {
    let mut scopes: Vec<Scope> = project.cloned().map(Scope::Project).into_iter().collect();
    scopes.push(Scope::Global);
    scopes
}

/// The slots of several scopes as a reader sees them: one per label, a project's shadowing the
/// global one, defaults first in their order, then by label.
fn visible(mut slots: Vec<Slot>) -> Vec<Slot> {
    slots.sort_by_key(|slot| matches!(slot.scope, Scope::Global));
    let mut seen = std::collections::HashSet::new();
    slots.retain(|slot| seen.insert(slot.label.clone()));
    let rank = |slot: &Slot| {
        DEFAULT_SLOTS
            .iter()
            .position(|spec| spec.label == slot.label.as_str())
            .unwrap_or(DEFAULT_SLOTS.len())
    };
    slots.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.label.cmp(&b.label)));
    slots
}

/// Creates the defaults of `scope` that were never seeded there; never overwrites a slot.
fn seed_in(tx: &mut dyn StoreTx, scope: &Scope, now: Timestamp) -> Result<()> {
    let seeded = tx.seeded_slots(scope)?;
    for spec in DefaultSlot::of(scope) {
        let label = SlotLabel::new(spec.label)?;
        if seeded.contains(&label) {
            continue;
        }
        if tx.slot(scope, &label)?.is_none() {
            tx.put_slot(&spec.seed(scope.clone(), now))?;
        }
        tx.mark_slot_seeded(scope, &label)?;
    }
    Ok(())
}

/// The slot `address` means, read inside the transaction, after seeding its scopes.
fn resolve_in(tx: &mut dyn StoreTx, address: &SlotAddress, now: Timestamp) -> Result<Slot> {
    let scopes = address.candidates()?;
    for scope in &scopes {
        seed_in(tx, scope, now)?;
    }
    for scope in &scopes {
        if let Some(slot) = tx.slot(scope, &address.label)? {
            return Ok(slot);
        }
    }
    Err(missing(address, &scopes))
}

fn missing(address: &SlotAddress, scopes: &[Scope]) -> Error {
    let places: Vec<String> = scopes.iter().map(place).collect();
    let hint = match DefaultSlot::find(address.label.as_str()) {
        Some(_) => "; it is a default that was deleted: resetting it brings it back".to_string(),
        None => "; list the slots to see their labels".to_string(),
    };
    Error::Missing {
        field: "label".into(),
        message: format!(
            "no slot '{}' ({}){hint}",
            address.label,
            places.join(" or ")
        ),
    }
}

fn refuse_read_only(slot: &Slot) -> Result<()> {
    if !slot.read_only {
        return Ok(());
    }
    Err(Error::ReadOnly {
        field: "label".into(),
        message: format!(
            "slot '{}' ({}) is read-only; nothing was changed. Its owner can unlock it by \
             setting read_only to false",
            slot.label,
            place(&slot.scope),
        ),
    })
}

/// A slot from elsewhere (an import) as a write would store it: a limit in range, content
/// trimmed, redacted and within the limit, a description trimmed, redacted and short enough.
pub(crate) fn checked(mut slot: Slot) -> Result<Slot> {
    slot.limit = slot::limit(slot.limit)?;
    slot.description = description(slot.description.as_deref())?;
    let content = clean(&std::mem::take(&mut slot.content))?;
    check_fits(&slot, &content, "would hold")?;
    slot.content = content;
    Ok(slot)
}

/// Refuses `content` when it is longer than the slot's limit.
fn check_fits(slot: &Slot, content: &str, verb: &str) -> Result<()> {
    let chars = content.chars().count();
    if chars <= slot.limit {
        return Ok(());
    }
    let now = match slot.chars() {
        0 => String::new(),
        held => format!(" (it holds {held} now)"),
    };
    Err(Error::TooLarge {
        field: "content".into(),
        message: format!(
            "slot '{}' {verb} {chars} characters; its limit is {}{now}. Nothing was written: \
             shorten the text, replace the slot with a condensed version, or raise its limit \
             (at most {MAX_LIMIT})",
            slot.label, slot.limit,
        ),
    })
}

/// Slot text as stored: trimmed and redacted; a NUL is refused.
fn clean(text: &str) -> Result<String> {
    validate::refuse_nul("content", text)?;
    Ok(redact(text.trim()).into_owned())
}

/// A description: trimmed, empty means none, redacted, at most [`MAX_DESCRIPTION_CHARS`].
fn description(raw: Option<&str>) -> Result<Option<String>> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        return Err(Error::invalid(
            "description",
            format!("is {chars} characters; the limit is {MAX_DESCRIPTION_CHARS}"),
        ));
    }
    validate::refuse_nul("description", text)?;
    Ok(Some(redact(text).into_owned()))
}

fn skipped(label: &SlotLabel, why: &str) -> SlotChange {
    SlotChange {
        label: label.to_string(),
        skipped: Some(why.into()),
        ..SlotChange::default()
    }
}
