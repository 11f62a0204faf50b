//! Moving everything one store holds into another: `cairn migrate-store`, SQLite to
//! PostgreSQL and back.
//!
//! The source's export snapshot
//! ([`ExchangeStore::export`](crate::exchange::ExchangeStore::export), sessions included) is
//! streamed item by item — no JSON in between — into the target in batches of [`BATCH`]
//! records, each batch its own transaction written exactly as an import writes
//! (`import::RecordWriter`: validated, merged with what is there). So an interrupted move keeps what it committed, and
//! running it again passes over those records (each is found unchanged) and finishes the rest.
//! Then the vectors of every moved memory follow (sentence vectors with them), with their
//! space's model, and the access tokens (their hashes: the same secrets keep working; a token
//! revoked in the source is revoked in the target), and the relations waiting in the deferred
//! queue for a memory (`relation::deferred`), as they wait. Last, both stores are read again and
//! compared kind by kind: how many records, and a digest of them as the export writes them (the
//! sum of each record's SHA-256, so the order two databases list them in does not matter), and
//! the same for each vector space's vectors (with their sentence vectors) and for the tokens.
//!
//! Not moved: images (their files stay in the image directory of the machine that stored
//! them) and markdown workspaces (the files are the truth; `cairn files init` again); the
//! report counts the images left.

use std::collections::HashMap;

use jiff::Timestamp;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::access::{AccessToken, TokenId};
use crate::config::Limits;
use crate::embedding::{MemoryVector, SentenceVectors, VectorSpace};
use crate::error::{Error, Result};
use crate::exchange::export::record_of;
use crate::exchange::format::KINDS;
use crate::exchange::format::Record;
use crate::exchange::import::RecordWriter;
use crate::exchange::{ExportItem, ImportReport};
use crate::id::MemoryId;
use crate::image::PendingWork;
use crate::relation::DeferredFilter;
use crate::store::{Store, in_transaction};

/// Records per transaction of a move.
pub const BATCH: usize = 1_000;

/// Memories whose vectors are read and written at once.
const VECTOR_BATCH: usize = 500;

/// Which part of a move is under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MigrateStage {
    Records,
    Vectors,
    Check,
}

impl MigrateStage {
    pub fn as_str(self) -> &'static str {
        match self {
            MigrateStage::Records => "moving records",
            MigrateStage::Vectors => "moving vectors",
            MigrateStage::Check => "checking",
        }
    }
}

/// How far a move is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrateProgress {
    pub stage: MigrateStage,
    pub done: u64,
    pub total: u64,
}

/// One kind of record (or one vector space) in both stores after a move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KindCheck {
    /// `memories`, `relations`, … or `vectors:<space>`.
    pub kind: String,
    pub source: u64,
    pub target: u64,
    pub source_digest: String,
    pub target_digest: String,
    /// Counts and digests agree.
    pub same: bool,
}

/// What a move did, and what the check found.
#[derive(Debug, Clone, Serialize)]
pub struct MigrationReport {
    /// Records written per kind: created, updated (the target held an older state) or
    /// unchanged (already there, as on a second run).
    pub moved: ImportReport,
    /// Vectors copied, all spaces together.
    pub vectors: u64,
    /// Access tokens the target did not hold yet.
    pub tokens: u64,
    /// Relations waiting for their memories, copied as they wait (a later import there
    /// applies them).
    pub deferred_relations: u64,
    pub check: Vec<KindCheck>,
    /// Images the source holds, not moved (see the module's documentation).
    pub images_left: u64,
}

impl MigrationReport {
    /// True when every kind has the same count and digest in both stores.
    pub fn verified(&self) -> bool {
        self.check.iter().all(|kind| kind.same)
    }
}

/// Moves everything `source` holds into `target` (see the module's documentation).
pub fn migrate(
    source: &dyn Store,
    target: &dyn Store,
    limits: &Limits,
    now: Timestamp,
    progress: &mut dyn FnMut(MigrateProgress),
) -> Result<MigrationReport> {
    // The same store, or the same database opened twice (an in-memory database is its own).
    let same_database = source.location() == target.location() && source.location() != ":memory:";
    if std::ptr::addr_eq(source, target) || same_database {
        return Err(Error::invalid(
            "to",
            format!(
                "{} is the store being moved; name another",
                target.location()
            ),
        ));
    }
    for &space in VectorSpace::ALL {
        if let Some(model) = source.embedding_model(space)? {
            in_transaction(target, |tx| tx.set_embedding_model(space, &model))?;
        }
    }
    let (moved, memories) = move_records(source, target, limits, now, progress)?;
    let vectors = move_vectors(source, target, &memories, progress)?;
    let tokens = move_tokens(source, target)?;
    let deferred_relations = move_deferred(source, target)?;
    let check = compare(source, target, progress)?;
    Ok(MigrationReport {
        moved,
        vectors,
        tokens,
        deferred_relations,
        check,
        images_left: source.image_totals(&PendingWork::default())?.images,
    })
}

/// The records, batch by batch; returns the report and every memory moved with its
/// `updated_at` (what a vector is stored against).
fn move_records(
    source: &dyn Store,
    target: &dyn Store,
    limits: &Limits,
    now: Timestamp,
    progress: &mut dyn FnMut(MigrateProgress),
) -> Result<(ImportReport, Vec<(MemoryId, Timestamp)>)> {
    let mut writer = RecordWriter::new(limits, now);
    let mut memories = Vec::new();
    let mut batch: Vec<Record> = Vec::with_capacity(BATCH);
    let mut total = 0;
    let write = |batch: &mut Vec<Record>, writer: &mut RecordWriter| {
        let mut records = Some(std::mem::take(batch));
        in_transaction(target, |tx| {
            for record in records.take().unwrap_or_default() {
                writer.write(tx, record)?;
            }
            writer.flush(tx)
        })
    };
    source.export(true, &mut |item| {
        if let ExportItem::Counts(counts) = &item {
            total = counts.named().iter().map(|(_, n)| n).sum();
            return Ok(());
        }
        if let ExportItem::Memory(memory, _) = &item {
            memories.push((memory.id, memory.updated_at));
        }
        batch.extend(record_of(item));
        if batch.len() >= BATCH {
            write(&mut batch, &mut writer)?;
            progress(MigrateProgress {
                stage: MigrateStage::Records,
                done: writer.report.records_written(),
                total,
            });
        }
        Ok(())
    })?;
    write(&mut batch, &mut writer)?;
    let mut report = writer.report;
    report.records = report.records_written();
    progress(MigrateProgress {
        stage: MigrateStage::Records,
        done: report.records,
        total,
    });
    Ok((report, memories))
}

fn move_vectors(
    source: &dyn Store,
    target: &dyn Store,
    memories: &[(MemoryId, Timestamp)],
    progress: &mut dyn FnMut(MigrateProgress),
) -> Result<u64> {
    let mut copied = 0;
    for &space in VectorSpace::ALL {
        if source.embedding_model(space)?.is_none() {
            continue;
        }
        for (index, chunk) in memories.chunks(VECTOR_BATCH).enumerate() {
            let written: HashMap<MemoryId, Timestamp> = chunk.iter().copied().collect();
            let ids: Vec<MemoryId> = chunk.iter().map(|(id, _)| *id).collect();
            let mut sentences: HashMap<MemoryId, SentenceVectors> =
                source.sentence_vectors(space, &ids)?.into_iter().collect();
            let vectors: Vec<_> = source
                .vectors(space, &ids)?
                .into_iter()
                .map(|(id, vector)| MemoryVector {
                    id,
                    updated_at: written[&id],
                    vector,
                    sentences: sentences.remove(&id).unwrap_or_default(),
                })
                .collect();
            copied += in_transaction(target, |tx| tx.put_embeddings(space, &vectors))? as u64;
            progress(MigrateProgress {
                stage: MigrateStage::Vectors,
                done: ((index + 1) * VECTOR_BATCH).min(memories.len()) as u64,
                total: memories.len() as u64,
            });
        }
    }
    Ok(copied)
}

/// The tokens the target lacks, with their hashes; revocations the target lacks. Returns how
/// many tokens were added.
fn move_tokens(source: &dyn Store, target: &dyn Store) -> Result<u64> {
    let tokens = source.access_tokens_with_hashes()?;
    let present: HashMap<TokenId, AccessToken> = target
        .access_tokens()?
        .into_iter()
        .map(|token| (token.id.clone(), token))
        .collect();
    let mut added = 0;
    in_transaction(target, |tx| {
        for (token, hash) in &tokens {
            let there = present.get(&token.id);
            if there.is_none() {
                tx.insert_access_token(token, hash)?;
                added += 1;
            }
            let live_there = there.is_none_or(|there| there.revoked_at.is_none());
            if let (Some(at), true) = (token.revoked_at, live_there) {
                tx.revoke_access_token(&token.id, at)?;
            }
        }
        Ok(())
    })?;
    Ok(added)
}

/// The deferred relations (`relation::deferred`), as they stand; the target's own entry for
/// a judgment id gives way to the source's.
fn move_deferred(source: &dyn Store, target: &dyn Store) -> Result<u64> {
    let waiting = source.deferred_relations(&DeferredFilter {
        status: None,
        limit: i64::MAX as usize,
    })?;
    in_transaction(target, |tx| {
        waiting
            .iter()
            .try_for_each(|deferred| tx.put_deferred(deferred))
    })?;
    Ok(waiting.len() as u64)
}

/// A multiset digest: how many items, and the sum of the first 128 bits of each one's SHA-256.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    count: u64,
    sum: u128,
}

impl Tally {
    fn add(&mut self, bytes: &[u8]) {
        let hash = Sha256::digest(bytes);
        let head: [u8; 16] = hash[..16].try_into().expect("32 bytes");
        self.count += 1;
        self.sum = self.sum.wrapping_add(u128::from_le_bytes(head));
    }
}

/// One store's tallies: each record kind, the tokens, then each vector space over the vectors of `ids`
/// (collected from this store's own memories first when `collect`: the source's pass).
fn tally(store: &dyn Store, ids: &mut Vec<MemoryId>, collect: bool) -> Result<Vec<Tally>> {
    let mut kinds = vec![Tally::default(); KINDS.len()];
    let mut line = Vec::with_capacity(4096);
    store.export(true, &mut |item| {
        let kind = match &item {
            ExportItem::Counts(_) => return Ok(()),
            ExportItem::Memory(memory, _) => {
                if collect {
                    ids.push(memory.id);
                }
                0
            }
            ExportItem::Relation(_) => 1,
            ExportItem::Slot(_) => 2,
            ExportItem::SlotSeeds(..) => 3,
            ExportItem::Session(_) => 4,
            ExportItem::Observation(..) => 5,
        };
        line.clear();
        serde_json::to_writer(&mut line, &record_of(item)).map_err(|e| Error::Io(e.into()))?;
        kinds[kind].add(&line);
        Ok(())
    })?;
    let mut tokens = Tally::default();
    for (token, hash) in store.access_tokens_with_hashes()? {
        line.clear();
        serde_json::to_writer(&mut line, &token).map_err(|e| Error::Io(e.into()))?;
        line.extend_from_slice(hash.to_hex().as_bytes());
        tokens.add(&line);
    }
    kinds.push(tokens);
    for &space in VectorSpace::ALL {
        let mut vectors = Tally::default();
        for chunk in ids.chunks(VECTOR_BATCH) {
            let mut sentences: HashMap<MemoryId, SentenceVectors> =
                store.sentence_vectors(space, chunk)?.into_iter().collect();
            for (id, vector) in store.vectors(space, chunk)? {
                line.clear();
                line.extend_from_slice(id.to_string().as_bytes());
                line.extend(vector.iter().flat_map(|x| x.to_le_bytes()));
                if let Some(sentences) = sentences.remove(&id) {
                    line.extend_from_slice(sentences.as_bytes());
                }
                vectors.add(&line);
            }
        }
        kinds.push(vectors);
    }
    Ok(kinds)
}

fn compare(
    source: &dyn Store,
    target: &dyn Store,
    progress: &mut dyn FnMut(MigrateProgress),
) -> Result<Vec<KindCheck>> {
    progress(MigrateProgress {
        stage: MigrateStage::Check,
        done: 0,
        total: 2,
    });
    let mut ids = Vec::new();
    let before = tally(source, &mut ids, true)?;
    progress(MigrateProgress {
        stage: MigrateStage::Check,
        done: 1,
        total: 2,
    });
    let after = tally(target, &mut ids, false)?;
    progress(MigrateProgress {
        stage: MigrateStage::Check,
        done: 2,
        total: 2,
    });
    let names = KINDS
        .iter()
        .map(|kind| kind.to_string())
        .chain(["tokens".to_string()])
        .chain(
            VectorSpace::ALL
                .iter()
                .map(|s| format!("vectors:{}", s.as_str())),
        );
    Ok(names
        .zip(before.iter().zip(&after))
        .map(|(kind, (source, target))| KindCheck {
            kind,
            source: source.count,
            target: target.count,
            source_digest: format!("{:032x}", source.sum),
            target_digest: format!("{:032x}", target.sum),
            same: source == target,
        })
        .collect())
}
