//! What a backend checks and repairs of its own: [`HealthStore`].

use crate::error::{Error, Result};
use crate::health::model::{Finding, Repair};

/// The backend's own health: its files, indexes and derived rows.
pub trait HealthStore: Send + Sync {
    /// The backend's checks. With `quick`, only what costs nothing in proportion to the
    /// store's size (the schema version, free disk, permissions); without, everything (the
    /// file's integrity, foreign keys, the full-text index against its table, vectors against
    /// memories, the vector index file). Never writes.
    fn check_health(&self, quick: bool) -> Result<Vec<Finding>> {
        let _ = quick;
        Ok(Vec::new())
    }

    /// Does `repair` on the backend's derived data; returns what was done, for people.
    fn repair(&self, repair: Repair) -> Result<String> {
        Err(Error::Unavailable {
            what: format!("the repair {repair:?}"),
            hint: "this store has nothing of that kind to repair".into(),
        })
    }
}
