//! `cairn doctor` at the front door: the store's checks and repairs, for the operator, and the
//! quick checks a server's health endpoint shows anyone who may reach it.

use super::{Api, Caller};
use crate::access::Access;
use crate::error::Result;
use crate::health::HealthReport;

impl Api {
    /// `cairn doctor`: every check of the whole store (the cheap ones alone with `quick`).
    pub fn examine(&self, caller: &Caller, quick: bool) -> Result<HealthReport> {
        caller.access.whole_store("a health check")?;
        self.domains.doctor().examine(quick)
    }

    /// `cairn doctor --repair`: repairs what `report` found that is derived; the report comes
    /// back with what was done, and the store examined again.
    pub fn repair(&self, caller: &Caller, report: &HealthReport) -> Result<HealthReport> {
        caller.access.whole_store("a repair")?;
        let repaired = self.domains.doctor().repair(report);
        let mut after = self.domains.doctor().examine(report.quick)?;
        after.repaired = repaired;
        Ok(after)
    }

    /// The quick checks for a server's health endpoint, for anyone who may reach it: the
    /// store's location is left out unless the caller (if it could be told) may see the whole
    /// store.
    pub fn quick_health(&self, caller: Option<&Caller>) -> Result<HealthReport> {
        let mut report = self.domains.doctor().examine(true)?;
        if caller.is_none_or(|caller| caller.access != Access::Full) {
            report.location = String::new();
        }
        Ok(report)
    }
}
