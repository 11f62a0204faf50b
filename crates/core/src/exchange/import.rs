//! Reading an import: JSON Lines (an export of any version, plain records, or both mixed) or one
//! JSON array of records, in one transaction.

use std::collections::BTreeSet;
use std::io::BufRead;

use jiff::{Timestamp, Zoned};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::config::Limits;
use crate::error::{Error, RecordAt, Result};
use crate::exchange::format::Record;
use crate::exchange::format::{FORMAT, KINDS, VERSION};
use crate::exchange::{Counts, Header, PlainMemory, deferred, merge};
use crate::id::{MemoryId, RelationId};
use crate::input::{BOM, Bounded, MAX_RECORD_BYTES};
use crate::memory::MemoryRecord;
use crate::memory::write::{import_many, store_in, validate_record};
use crate::memory::{WriteOutcome, WriteStatus};
use crate::scope::Scope;
use crate::store::{Store, StoreTx, in_transaction};

/// What an import did with the records of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct KindReport {
    pub created: u64,
    /// Known records whose imported state was newer than the stored one.
    pub updated: u64,
    /// Known records (or duplicates of stored memories): nothing written.
    pub unchanged: u64,
}

impl KindReport {
    fn count(&mut self, status: WriteStatus) {
        match status {
            WriteStatus::Created => self.created += 1,
            WriteStatus::Updated => self.updated += 1,
            _ => self.unchanged += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.created + self.updated + self.unchanged
    }
}

impl ImportReport {
    /// Records written (or found unchanged) of every kind together.
    pub fn records_written(&self) -> u64 {
        self.kinds().iter().map(|(_, kind)| kind.total()).sum()
    }
}

/// What an import did, per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ImportReport {
    /// Records read (a header and blank lines are not counted).
    pub records: u64,
    /// Memory records and plain memories.
    pub memories: KindReport,
    pub relations: KindReport,
    pub slots: KindReport,
    pub slot_seeds: KindReport,
    pub sessions: KindReport,
    pub observations: KindReport,
    /// Pending judgments recorded for plain records that may contradict stored memories.
    pub conflict_candidates: u64,
    /// Plain records stored beyond the first [`CHECKED_PLAIN_RECORDS`], not checked for
    /// conflicts (`cairn conflicts scan` does it).
    pub unchecked: u64,
    /// Relation records kept in the deferred queue: a memory of theirs is not in the store
    /// (`cairn conflicts deferred` lists them; they are applied when it arrives).
    pub relations_deferred: u64,
    /// Deferred relations (of earlier imports, or earlier in this file) applied at the end of
    /// this import, now that their memories are here.
    pub deferred_applied: u64,
}

/// The most plain records of one import checked for conflicts (by words, after the import
/// committed): checking costs a write up to a few milliseconds, so a bulk import leaves the
/// rest to a scan.
pub const CHECKED_PLAIN_RECORDS: usize = 1_000;

/// What an import did, and the plain records it stored, to be checked for conflicts.
#[derive(Debug)]
pub struct Imported {
    pub report: ImportReport,
    /// Plain records stored or revised (at most [`CHECKED_PLAIN_RECORDS`]).
    pub stored: Vec<WriteOutcome>,
}

impl ImportReport {
    /// Every kind with its name, for reports.
    pub fn kinds(&self) -> [(&'static str, KindReport); 6] {
        let reports = [
            self.memories,
            self.relations,
            self.slots,
            self.slot_seeds,
            self.sessions,
            self.observations,
        ];
        std::array::from_fn(|i| (KINDS[i], reports[i]))
    }
}

/// The settings of one import.
pub struct Importer<'a> {
    pub store: &'a dyn Store,
    pub limits: &'a Limits,
    /// Where a plain record without `project` goes.
    pub default_scope: Scope,
    /// Dates in plain records are read against this.
    pub now: Zoned,
}

/// Imports `input` in one transaction: any bad record rolls back everything and is reported
/// with its position. `progress` is called every few hundred records and at the end.
pub fn import(
    importer: &Importer<'_>,
    input: &mut dyn BufRead,
    progress: &mut dyn FnMut(&ImportReport),
) -> Result<Imported> {
    let imported = in_transaction(importer.store, |tx| {
        let mut reading = Reading {
            importer,
            tx,
            writer: RecordWriter::new(importer.limits, importer.now.timestamp()),
            header: None,
            stored: Vec::new(),
            progress: &mut *progress,
        };
        let (array, blank_lines) = opening(input)?;
        if array {
            let bounded = Bounded {
                field: "json",
                limit: MAX_ARRAY_BYTES,
                setting: "the most one JSON array of records may hold; JSON Lines has no limit",
            };
            let text = bounded.read_text(input, "the import")?;
            let elements: Vec<serde_json::Value> =
                serde_json::from_str(&text).map_err(|e| Error::invalid("json", e))?;
            for (index, element) in elements.iter().enumerate() {
                reading.record(&element.to_string(), RecordAt::Element(index as u64 + 1))?;
            }
        } else {
            let mut line = Vec::new();
            let mut number = blank_lines;
            loop {
                let at = RecordAt::Line(number + 1);
                let bounded = Bounded {
                    field: "line",
                    limit: MAX_RECORD_BYTES,
                    setting: "the most one record may hold",
                };
                let more = bounded
                    .read_line(input, &mut line, "this line")
                    .map_err(|e| at_record(at, e))?;
                if !more {
                    break;
                }
                number += 1;
                let text = std::str::from_utf8(&line).map_err(|e| {
                    at_record(
                        at,
                        Error::InvalidUtf8 {
                            field: "line".into(),
                            message: format!(
                                "is not UTF-8 text (the byte at offset {} of the line is not)",
                                e.valid_up_to()
                            ),
                        },
                    )
                })?;
                if !text.trim().is_empty() {
                    reading.record(text, at)?;
                }
            }
        }
        reading.finish()
    })?;
    progress(&imported.report);
    Ok(imported)
}

/// The most a JSON array of records may hold: it is read whole before its first record.
pub const MAX_ARRAY_BYTES: u64 = 256 << 20;

/// An error of the record at `at`; a failure to read the input itself stays as it is (a
/// server looks into it for a body cut off by its limit).
fn at_record(at: RecordAt, error: Error) -> Error {
    match error {
        Error::Io(_) => error,
        other => Error::ImportRecord {
            at,
            source: Box::new(other),
        },
    }
}

/// How many memory records in a row an import holds back to write together.
pub const MEMORY_RUN: usize = 500;

/// Writes export records into a transaction as an import does — validated, merged with what
/// is stored (an item already there is unchanged, a newer state wins) — counting them.
/// Import and [`migrate`](mod@crate::exchange::migrate) share it.
///
/// Memory records in a row are validated as they come (an error names its record) and held
/// back, up to [`MEMORY_RUN`], to be written together (`write::import_many`: one existence
/// check and one bulk insert for the new ones). Any other record, and [`flush`](Self::flush),
/// writes them first, so every write still sees the ones before it. The caller flushes before
/// its transaction commits.
pub(crate) struct RecordWriter<'l> {
    limits: &'l Limits,
    /// When a relation record missing a memory is first kept.
    now: Timestamp,
    /// The judgment ids of the relation records kept in the deferred queue.
    deferred: BTreeSet<RelationId>,
    /// The memories this import created (by their records' ids): what deferred relations may
    /// have waited for.
    arrived: Vec<MemoryId>,
    pub report: ImportReport,
    /// Export records read per kind.
    pub read: Counts,
    held: Vec<MemoryRecord>,
}

impl<'l> RecordWriter<'l> {
    pub fn new(limits: &'l Limits, now: Timestamp) -> Self {
        RecordWriter {
            limits,
            now,
            deferred: BTreeSet::new(),
            arrived: Vec::new(),
            report: ImportReport::default(),
            read: Counts::default(),
            held: Vec::new(),
        }
    }

    /// Writes `record`, or holds it back with the memory records before it.
    pub fn write(&mut self, tx: &mut dyn StoreTx, record: Record) -> Result<()> {
        if !matches!(record, Record::Memory(_)) {
            self.flush(tx)?;
        }
        let report = &mut self.report;
        match record {
            Record::Memory(record) => {
                self.held.push(validate_record(record, self.limits)?);
                self.read.memories += 1;
                if self.held.len() >= MEMORY_RUN {
                    self.flush(tx)?;
                }
            }
            Record::Relation(relation) => {
                self.read.relations += 1;
                match deferred::import_relation(tx, &relation, self.now)? {
                    Some(status) => report.relations.count(status),
                    None => {
                        self.deferred.insert(relation.id);
                    }
                }
            }
            Record::Slot(record) => {
                let slot = merge::slot(record)?;
                self.read.slots += 1;
                report.slots.count(merge::import_slot(tx, &slot)?);
            }
            Record::SlotSeeds(seeds) => {
                self.read.slot_seeds += 1;
                report.slot_seeds.count(merge::import_seeds(tx, &seeds)?);
            }
            Record::Session(session) => {
                let session = merge::session(session)?;
                self.read.sessions += 1;
                report.sessions.count(merge::import_session(tx, &session)?);
            }
            Record::Observation(record) => {
                self.read.observations += 1;
                report
                    .observations
                    .count(merge::import_observation(tx, record)?);
            }
        }
        Ok(())
    }

    /// Writes the memory records held back.
    pub fn flush(&mut self, tx: &mut dyn StoreTx) -> Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let ids: Vec<MemoryId> = held.iter().map(|record| record.memory.id).collect();
        for (status, id) in import_many(tx, held)?.into_iter().zip(ids) {
            if status == WriteStatus::Created {
                self.arrived.push(id);
            }
            self.report.memories.count(status);
        }
        Ok(())
    }
}

/// Skips the white space before the first record: whether that record opens a JSON array,
/// and how many lines the skipped space held (so line numbers stay true).
fn opening(input: &mut dyn BufRead) -> Result<(bool, u64)> {
    let mut lines = 0;
    let mut skipped = 0u64;
    // A byte order mark some editors write first.
    if input.fill_buf()?.starts_with(BOM.as_bytes()) {
        input.consume(BOM.len());
    }
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok((false, lines));
        }
        if skipped > MAX_RECORD_BYTES {
            return Err(Error::TooLarge {
                field: "json".into(),
                message: format!(
                    "the import opens with over {MAX_RECORD_BYTES} bytes of white space; \
                     nothing was imported"
                ),
            });
        }
        let blank = buffer
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        lines += buffer[..blank].iter().filter(|b| **b == b'\n').count() as u64;
        let opens = buffer.get(blank).map(|b| *b == b'[');
        skipped += blank as u64;
        input.consume(blank);
        if let Some(opens) = opens {
            return Ok((opens, lines));
        }
    }
}

/// Just enough of a record to know what it is.
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "type")]
    kind: Option<String>,
    format: Option<IgnoredAny>,
    id: Option<IgnoredAny>,
}

/// One import under way, inside its transaction.
struct Reading<'i, 't> {
    importer: &'i Importer<'i>,
    tx: &'t mut dyn StoreTx,
    /// Writes the export records, and counts them per kind: what was read, to check against
    /// the header, and what was written.
    writer: RecordWriter<'i>,
    header: Option<Header>,
    stored: Vec<WriteOutcome>,
    progress: &'t mut dyn FnMut(&ImportReport),
}

impl Reading<'_, '_> {
    fn record(&mut self, text: &str, at: RecordAt) -> Result<()> {
        let first = self.writer.report.records == 0 && self.header.is_none();
        self.read_record(text, first)
            .map_err(|source| Error::ImportRecord {
                at,
                source: Box::new(source),
            })?;
        if self.writer.report.records > 0 && self.writer.report.records.is_multiple_of(512) {
            (self.progress)(&self.writer.report);
        }
        Ok(())
    }

    fn read_record(&mut self, text: &str, first: bool) -> Result<()> {
        let json = |e: serde_json::Error| Error::invalid("json", e);
        let peek: Peek = serde_json::from_str(text).map_err(json)?;
        if peek.format.is_some() {
            return self.header(serde_json::from_str(text).map_err(json)?, first);
        }
        self.writer.report.records += 1;
        let importer = self.importer;
        match (peek.kind.as_deref(), peek.id.is_some()) {
            // Version 1 wrote memory records without a type.
            (Some("memory"), _) | (None, true) => {
                let record = Record::Memory(serde_json::from_str(text).map_err(json)?);
                self.writer.write(self.tx, record)?;
            }
            (None, false) => {
                let plain: PlainMemory = serde_json::from_str(text).map_err(json)?;
                let now = &importer.now;
                let memory = plain.into_candidate(&importer.default_scope, importer.limits, now)?;
                // Its rules (same topic, same content) must see the memory records before it.
                self.writer.flush(self.tx)?;
                let outcome = store_in(self.tx, &memory, now.timestamp())?;
                self.writer.report.memories.count(outcome.status);
                if outcome.status.stored_text() {
                    match self.stored.len() < CHECKED_PLAIN_RECORDS {
                        true => self.stored.push(outcome),
                        false => self.writer.report.unchecked += 1,
                    }
                }
            }
            (Some(kind @ ("relation" | "slot" | "slot_seeds" | "session" | "observation")), _) => {
                let record = match kind {
                    "relation" => Record::Relation(serde_json::from_str(text).map_err(json)?),
                    "slot" => Record::Slot(serde_json::from_str(text).map_err(json)?),
                    "slot_seeds" => Record::SlotSeeds(serde_json::from_str(text).map_err(json)?),
                    "session" => Record::Session(serde_json::from_str(text).map_err(json)?),
                    _ => Record::Observation(serde_json::from_str(text).map_err(json)?),
                };
                self.writer.write(self.tx, record)?;
            }
            (Some(other), _) => {
                return Err(Error::invalid(
                    "type",
                    format!(
                        "'{other}' is not a record type (memory, relation, slot, slot_seeds, \
                         session, observation)"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn header(&mut self, header: Header, first: bool) -> Result<()> {
        if !first {
            return Err(Error::invalid(
                "format",
                "a header may only open the file; this one follows other records",
            ));
        }
        if header.format != FORMAT {
            return Err(Error::invalid(
                "format",
                format!("'{}' is not a cairn export ('{FORMAT}')", header.format),
            ));
        }
        if header.version > VERSION {
            return Err(Error::invalid(
                "version",
                format!(
                    "the file is format {} (written by cairn {}); this cairn reads formats up to \
                     {VERSION}: upgrade cairn to import it",
                    header.version, header.cairn
                ),
            ));
        }
        self.header = Some(header);
        Ok(())
    }

    /// The report, once the records read match what the header announced.
    fn finish(mut self) -> Result<Imported> {
        self.writer.flush(self.tx)?;
        if let Some(header) = &self.header {
            let announced = header.counts.named();
            for ((kind, expected), (_, read)) in announced.into_iter().zip(self.writer.read.named())
            {
                if expected != read {
                    return Err(Error::invalid(
                        "counts",
                        format!(
                            "the header announces {expected} {kind} but the file holds {read}: \
                             it is incomplete (cut off while written or copied?); nothing was \
                             imported"
                        ),
                    ));
                }
            }
        }
        let writer = &mut self.writer;
        if !writer.arrived.is_empty() {
            let replayed = deferred::replay_naming(self.tx, &writer.arrived, writer.now)?;
            writer.report.deferred_applied = replayed.applied;
        }
        for id in &writer.deferred {
            if self.tx.deferred(id)?.is_some() {
                writer.report.relations_deferred += 1;
            }
        }
        Ok(Imported {
            report: self.writer.report,
            stored: self.stored,
        })
    }
}
