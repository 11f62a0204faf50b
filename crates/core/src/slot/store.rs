//! What a backend must provide for memory slots: [`SlotStore`] (reads) and [`SlotTx`] (writes,
//! inside one transaction).
//!
//! A slot is keyed by scope (a project, or global) and label. The store also remembers which
//! default slots were ever seeded in a scope, so seeding never overwrites a slot and a deleted
//! default stays deleted.

use crate::error::Result;
use crate::scope::Scope;
use crate::slot::{Slot, SlotLabel};

/// The read side of slot storage.
pub trait SlotStore: Send + Sync {
    /// The slots of these scopes, in no particular order.
    fn slots(&self, scopes: &[Scope]) -> Result<Vec<Slot>>;

    /// Which default slots were ever seeded in `scope` (see [`crate::slot`]).
    fn seeded_slots(&self, scope: &Scope) -> Result<Vec<SlotLabel>>;
}

/// The write side of slot storage, inside one transaction.
pub trait SlotTx {
    /// The slot with this label in this scope.
    fn slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<Option<Slot>>;

    /// Adds a slot, or overwrites the stored one with the same scope and label.
    fn put_slot(&mut self, slot: &Slot) -> Result<()>;

    /// Deletes a slot; `false` when there was none.
    fn delete_slot(&mut self, scope: &Scope, label: &SlotLabel) -> Result<bool>;

    /// Which default slots were ever seeded in `scope`.
    fn seeded_slots(&mut self, scope: &Scope) -> Result<Vec<SlotLabel>>;

    /// Records that the default `label` was seeded in `scope`.
    fn mark_slot_seeded(&mut self, scope: &Scope, label: &SlotLabel) -> Result<()>;
}
