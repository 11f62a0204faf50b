//! [`Doctor`]: every check, and the repairs of what is derived.

use std::collections::HashSet;

use crate::embedding::VectorSpace;
use crate::error::Result;
use crate::files::Files;
use crate::health::model::{Finding, HealthReport, Repair, Severity};
use crate::image::{ImageDir, ImageId, PendingWork};
use crate::store::Store;

/// The checks over one store.
pub struct Doctor<'a> {
    store: &'a dyn Store,
    images: Option<&'a ImageDir>,
    files: Files<'a>,
    /// Whether an embedding model is installed (pending memories then get embedded).
    has_model: bool,
}

impl<'a> Doctor<'a> {
    pub fn new(
        store: &'a dyn Store,
        images: Option<&'a ImageDir>,
        files: Files<'a>,
        has_model: bool,
    ) -> Self {
        Doctor {
            store,
            images,
            files,
            has_model,
        }
    }

    /// Runs every check (the cheap ones alone with `quick`) and explains what it finds.
    pub fn examine(&self, quick: bool) -> Result<HealthReport> {
        let mut report = HealthReport {
            location: self.store.location(),
            quick,
            checked: Vec::new(),
            findings: self.store.check_health(quick)?,
            repaired: Vec::new(),
        };
        report
            .checked
            .extend(["database", "schema", "disk", "permissions"]);
        if report
            .findings
            .iter()
            .any(|f| f.repair == Some(Repair::RecoverDatabase))
        {
            // A damaged file fails whatever reads its tables: the damage is the finding.
            return Ok(report);
        }
        if !quick {
            report.checked.extend(["full_text", "vectors"]);
        }
        report.checked.push("vector_index");
        let reported = report.findings.iter().any(|f| f.check == "vector_index");
        if let Some(why) = self
            .store
            .vector_index_damage(VectorSpace::Text)
            .filter(|_| !reported)
        {
            report.findings.push(Finding::vector_index_unusable(&why));
        }
        report.checked.push("queues");
        self.queues(&mut report.findings)?;
        if !quick {
            if let Some(images) = self.images {
                report.checked.push("images");
                self.images(images, &mut report.findings)?;
            }
            report.checked.push("files");
            self.workspaces(&mut report.findings)?;
        }
        report.findings.sort_by_key(|f| f.severity);
        Ok(report)
    }

    /// Repairs what the findings of `report` say `--repair` repairs, each once; returns what
    /// was done. A repair that fails is said and the others still run.
    pub fn repair(&self, report: &HealthReport) -> Vec<String> {
        let mut done = Vec::new();
        let mut seen = HashSet::new();
        for repair in report.findings.iter().filter_map(|f| f.repair) {
            if !seen.insert(repair) {
                continue;
            }
            let outcome = match repair {
                Repair::RebuildVectorIndex => self
                    .store
                    .update_vector_index(VectorSpace::Text, true, &mut |_, _| {})
                    .map(|built| match built {
                        Some(report) => format!(
                            "rebuilt the vector index: {} vectors in {:.1} s",
                            report.indexed, report.seconds
                        ),
                        None => "the vector index is not needed at this size: removed from \
                                 use; searches scan exactly"
                            .to_string(),
                    }),
                Repair::RemoveThumbnails => self.remove_thumbnails(),
                other => self.store.repair(other),
            };
            done.push(match outcome {
                Ok(line) => line,
                Err(error) => format!("could not {}: {error}", describe(repair)),
            });
        }
        done
    }

    fn queues(&self, findings: &mut Vec<Finding>) -> Result<()> {
        let counts = self.store.embedding_counts(VectorSpace::Text)?;
        if counts.pending > 0 {
            let (severity, meaning, command) = match self.has_model {
                true => (
                    Severity::Note,
                    "keyword search finds them already; the next command that embeds (or a \
                     running server) gives them their vectors",
                    "cairn reindex --embeddings (or any command that writes)",
                ),
                false => (
                    Severity::Note,
                    "no embedding model is installed, so search is by keyword and spelling \
                     only",
                    "cairn model install",
                ),
            };
            findings.push(
                Finding::new(
                    "queues",
                    severity,
                    format!("{} memories wait for their embedding", counts.pending),
                    meaning,
                )
                .handled_by(command),
            );
        }
        let (waiting, dead) = self.store.deferred_counts()?;
        if waiting + dead > 0 {
            findings.push(
                Finding::new(
                    "queues",
                    Severity::Note,
                    format!(
                        "imported relations wait for their memories: {waiting} waiting, {dead} \
                         dead"
                    ),
                    "an import kept them because a memory of theirs is not in the store; the \
                     import that brings it applies them (dead ones joined memories of \
                     different projects)",
                )
                .handled_by("cairn conflicts deferred"),
            );
        }
        let images = self.store.image_totals(&PendingWork::default())?;
        if images.unhashed > 0 {
            findings.push(
                Finding::new(
                    "queues",
                    Severity::Note,
                    format!("{} images wait to be looked at", images.unhashed),
                    "they are found by their memories' words; by their look once done",
                )
                .handled_by("cairn reindex --images"),
            );
        }
        Ok(())
    }

    fn images(&self, dir: &ImageDir, findings: &mut Vec<Finding>) -> Result<()> {
        let mut missing = Vec::new();
        let mut recorded = HashSet::new();
        for image in self.store.images()? {
            if !dir.path(&image.id, image.format).is_file() {
                missing.push(image.id.short().to_string());
            }
            recorded.insert(image.id);
        }
        if !missing.is_empty() {
            findings.push(Finding::new(
                "images",
                Severity::Problem,
                format!(
                    "{} stored images have no file in {} (first: {})",
                    missing.len(),
                    dir.root().display(),
                    missing[..missing.len().min(3)].join(", ")
                ),
                "their memories keep their words and what was read from them, but the pictures \
                 cannot be shown or searched by look; a backup's images directory \
                 (<backup>-images) holds them if one was made",
            ));
        }
        let stray = stray_thumbnails(dir, &recorded);
        if stray > 0 {
            findings.push(
                Finding::new(
                    "images",
                    Severity::Note,
                    format!("{stray} thumbnails belong to no stored image"),
                    "they only take room",
                )
                .repaired_by(Repair::RemoveThumbnails),
            );
        }
        Ok(())
    }

    fn workspaces(&self, findings: &mut Vec<Finding>) -> Result<()> {
        for workspace in self.files.workspaces()? {
            let directory = workspace.directory();
            if !directory.is_dir() {
                findings.push(
                    Finding::new(
                        "files",
                        Severity::Warning,
                        format!(
                            "the memory files of project {} are gone ({} does not exist)",
                            workspace.project,
                            directory.display()
                        ),
                        "its memories are kept in the store; new ones are not written to files \
                         until the directory is back",
                    )
                    .handled_by(format!(
                        "cairn files init --project {} (in the project's repository)",
                        workspace.project
                    )),
                );
                continue;
            }
            let preview = self.files.sync(&workspace, true)?;
            if !preview.forgets.is_empty() {
                findings.push(
                    Finding::new(
                        "files",
                        Severity::Warning,
                        format!(
                            "a sync of project {}'s files would forget {} memories whose units \
                             were cut (first: {})",
                            workspace.project,
                            preview.forgets.len(),
                            preview.forgets[0].headline
                        ),
                        "if that was not meant, put the units back before the next sync; \
                         otherwise the memories can be brought back one by one",
                    )
                    .handled_by("cairn files sync --dry-run, then cairn forget --undo ID"),
                );
            }
            let waiting = preview.created + preview.imported + preview.updated + preview.written;
            if waiting > 0 {
                findings.push(
                    Finding::new(
                        "files",
                        Severity::Note,
                        format!(
                            "project {}'s files and store differ in {waiting} units a sync \
                             would bring in line",
                            workspace.project
                        ),
                        "the next sync (at session start, or in a running server) does it",
                    )
                    .handled_by("cairn files sync"),
                );
            }
        }
        Ok(())
    }

    fn remove_thumbnails(&self) -> Result<String> {
        let Some(dir) = self.images else {
            return Ok("no image directory".into());
        };
        let recorded: HashSet<ImageId> = self.store.images()?.into_iter().map(|i| i.id).collect();
        let mut removed = 0;
        for file in thumbnails(dir) {
            if !thumbnail_id(&file).is_some_and(|id| recorded.contains(&id))
                && std::fs::remove_file(&file).is_ok()
            {
                removed += 1;
            }
        }
        Ok(format!(
            "removed {removed} thumbnails of images no longer stored"
        ))
    }
}

fn describe(repair: Repair) -> &'static str {
    match repair {
        Repair::RebuildFullText => "rebuild the full-text index",
        Repair::DeleteOrphans => "delete rows pointing at nothing",
        Repair::RequeueEmbeddings => "queue memories for embedding",
        Repair::RebuildVectorIndex => "rebuild the vector index",
        Repair::RemoveThumbnails => "remove stray thumbnails",
        Repair::RecoverDatabase => "recover the database",
    }
}

/// Every thumbnail file under the image directory (`thumbs/ab/<id>.png`).
fn thumbnails(dir: &ImageDir) -> Vec<std::path::PathBuf> {
    walk(&dir.root().join("thumbs"))
        .into_iter()
        .filter(|path| path.is_file())
        .collect()
}

fn stray_thumbnails(dir: &ImageDir, recorded: &HashSet<ImageId>) -> usize {
    thumbnails(dir)
        .iter()
        .filter(|file| !thumbnail_id(file).is_some_and(|id| recorded.contains(&id)))
        .count()
}

/// The image a thumbnail file is of, from its name.
fn thumbnail_id(file: &std::path::Path) -> Option<ImageId> {
    ImageId::parse(file.file_stem()?.to_str()?).ok()
}

/// Every path under `dir`, two levels deep (the image directory's layout).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return paths;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Ok(inner) = std::fs::read_dir(&path) {
                paths.extend(inner.flatten().map(|e| e.path()));
            }
        } else {
            paths.push(path);
        }
    }
    paths
}
