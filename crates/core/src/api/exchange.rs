//! Moving data at the front door: export, import, backup, restore and migration to another
//! store, for a caller with the whole store. Over the network `GET /v1/export` takes an
//! [`ExportInput`] as its query; `POST /v1/import` takes the stream itself.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Api, Caller};
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::exchange::ExportOptions;
use crate::exchange::import::Importer;
use crate::exchange::{Counts, ImportReport, MigrateProgress, MigrationReport};
use crate::image::ImageDir;
use crate::scope::Scope;

/// Query of `GET /v1/export`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ExportInput {
    /// Also export sessions and their observations (what agents did).
    pub sessions: bool,
}

impl ExportInput {
    pub fn options(&self) -> ExportOptions {
        ExportOptions {
            sessions: self.sessions,
        }
    }
}

impl Api {
    pub fn import(
        &self,
        caller: &Caller,
        input: &mut dyn BufRead,
        progress: &mut dyn FnMut(&ImportReport),
    ) -> Result<ImportReport> {
        caller.access.whole_store("an import")?;
        let scope = caller
            .default_project
            .clone()
            .map_or(Scope::Global, Scope::Project);
        let importer = Importer {
            store: self.domains.store.as_ref(),
            limits: &self.domains.config.limits,
            default_scope: scope,
            now: self.domains.now(),
        };
        let imported = crate::exchange::import(&importer, input, progress)?;
        self.domains.sync_all_files();
        let mut report = imported.report;
        for outcome in self.domains.detect_by_words(imported.stored) {
            report.conflict_candidates += outcome.candidates.len() as u64;
        }
        self.written(report.memories.created + report.memories.updated > 0);
        let mut written: Vec<String> = report
            .kinds()
            .iter()
            .filter(|(_, kind)| kind.created + kind.updated > 0)
            .map(|(name, kind)| {
                format!("{name} {} created, {} updated", kind.created, kind.updated)
            })
            .collect();
        if report.relations_deferred > 0 {
            written.push(format!("relations {} deferred", report.relations_deferred));
        }
        if report.deferred_applied > 0 {
            written.push(format!(
                "deferred relations {} applied",
                report.deferred_applied
            ));
        }
        if !written.is_empty() {
            let change = Change::new(AuditAction::Import, caller.default_project.as_ref())
                .saying(written.join("; "));
            self.audited(caller, change);
        }
        Ok(report)
    }

    /// Streams the export, one line per call to `sink`; returns the counts of its header.
    pub fn export(
        &self,
        caller: &Caller,
        options: ExportOptions,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<Counts> {
        caller.access.whole_store("an export")?;
        crate::exchange::export(self.domains.store.as_ref(), options, sink)
    }

    /// Moves everything this store holds into `target`, in committed batches (a second run
    /// resumes), then checks both sides; see [`crate::exchange::migrate()`].
    pub fn migrate_store(
        &self,
        caller: &Caller,
        target: &dyn crate::store::Store,
        progress: &mut dyn FnMut(MigrateProgress),
    ) -> Result<MigrationReport> {
        caller.access.whole_store("moving the store")?;
        let domains = &self.domains;
        crate::exchange::migrate(
            domains.store.as_ref(),
            target,
            &domains.config.limits,
            domains.now().timestamp(),
            progress,
        )
    }

    /// Writes a consistent copy of the database to `file` (which must not exist).
    pub fn backup(&self, file: &Path) -> Result<()> {
        self.domains.store.backup(file)?;
        if let Some(images) = &self.domains.image_dir {
            let target = ImageDir::beside(file);
            images.copy_into(&target).map_err(|error| Error::Storage {
                message: format!(
                    "the database was backed up to {}, but its images could not be copied to {}: {error}",
                    file.display(),
                    target.root().display()
                ),
                source: None,
            })?;
        }
        Ok(())
    }

    /// Replaces everything the store holds with the backup in `file`, having saved what it
    /// held beside it; returns where (`None` for a store without a file). Memories restored
    /// need no embedding run of their own: their vectors come with them.
    pub fn restore(&self, file: &Path) -> Result<Option<PathBuf>> {
        // The backup's images join the image directory first, so every image the restored
        // records name has its file; the current images stay.
        if let Some(images) = &self.domains.image_dir {
            ImageDir::beside(file).copy_into(images)?;
        }
        self.domains.store.restore(file)
    }
}
