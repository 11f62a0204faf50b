//! Writing an export: the header, then every record of the store's snapshot, one line each.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::exchange::format::{
    FORMAT, Header, ObservationRecord, Record, SlotSeedsRecord, VERSION,
};
use crate::exchange::{Counts, ExchangeStore, ExportItem};
use crate::memory::MemoryRecord;

/// What an export includes beside memories and slots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Sessions and their observations too (what agents did; off by default).
    pub sessions: bool,
}

/// Streams the export of `store` to `sink`, one line (ending in a newline) per call: the header,
/// then the records. Returns the counts the header announced.
pub fn export(
    store: &dyn ExchangeStore,
    options: ExportOptions,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Counts> {
    let mut buffer = Vec::with_capacity(4096);
    let mut announced = Counts::default();
    store.export(options.sessions, &mut |item| {
        if let ExportItem::Counts(counts) = &item {
            announced = *counts;
        }
        buffer.clear();
        serde_json::to_writer(&mut buffer, &line(item, options))
            .map_err(|e| Error::Io(e.into()))?;
        buffer.push(b'\n');
        sink(&buffer)
    })?;
    Ok(announced)
}

/// One line as written: the header or a record.
#[derive(Serialize)]
#[serde(untagged)]
enum Line {
    Header(Header),
    Record(Record),
}

fn line(item: ExportItem, options: ExportOptions) -> Line {
    match item {
        ExportItem::Counts(counts) => Line::Header(Header {
            format: FORMAT.into(),
            version: VERSION,
            cairn: env!("CARGO_PKG_VERSION").into(),
            sessions: options.sessions,
            counts,
        }),
        item => Line::Record(record_of(item).expect("only the counts are not a record")),
    }
}

/// An exported item as its record; `None` for the counts (the header's part).
pub(crate) fn record_of(item: ExportItem) -> Option<Record> {
    Some(match item {
        ExportItem::Counts(_) => return None,
        ExportItem::Memory(memory, revisions) => Record::Memory(MemoryRecord { memory, revisions }),
        ExportItem::Relation(relation) => Record::Relation(Box::new(relation)),
        ExportItem::Slot(slot) => Record::Slot(slot.into()),
        ExportItem::SlotSeeds(project, labels) => {
            Record::SlotSeeds(SlotSeedsRecord { project, labels })
        }
        ExportItem::Session(session) => Record::Session(session),
        ExportItem::Observation(session, observation) => Record::Observation(ObservationRecord {
            session,
            observation,
        }),
    })
}
