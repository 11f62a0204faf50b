//! The relation operations: writes that look for conflict candidates, verdicts, comparisons,
//! listings and the scan, over one store.
//!
//! [`Relations`] wraps the memory operations: a store, update or extraction is the memory
//! domain's write, and then — once it committed, so a detection that fails never fails the
//! write (it is logged) — a look for candidates (`relation::candidates`) and one short transaction
//! that records a pending relation per candidate (a pair already related in either direction
//! is never recorded twice). With a model whose vectors the store holds, a write from a person
//! or agent ([`Detection::Full`]) embeds its text first, searches by meaning too, and stores
//! that vector with the relations, so the embedding queue has nothing left to do for it.
//! Hooks and imports detect by words alone ([`Detection::Words`]): they never load a model.

use std::collections::HashSet;

use jiff::Timestamp;

use crate::config::ConflictsConfig;
use crate::embedding::{
    Embedder, MemoryVector, Passage, SentenceVectors, VectorSpace, embedding_text,
};
use crate::error::{Error, Result};
use crate::id::{IdRef, MemoryId, RelationId, RelationRef};
use crate::memory::validate;
use crate::memory::{
    ConflictCandidate, ListQuery, Memories, Memory, MemoryFilter, MemoryPatch, NewMemory, SortKey,
    SortOrder, WriteOutcome,
};
use crate::redact::redact;
use crate::relation::candidates::{Detector, Neighbour};
use crate::relation::disagreement::{Reading, disagreement};
use crate::relation::model::{Actor, Relation, RelationKind, Verdict};
use crate::relation::store::{RelationFilter, RelationStats, RelationView};
use crate::scope::{Scope, ScopeFilter};
use crate::store::{Store, in_transaction};

/// The longest reason or evidence a verdict may carry, in characters.
pub const MAX_VERDICT_TEXT_CHARS: usize = 2_000;

/// How a write looks for candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detection {
    /// By words and, with a model, by meaning (a person or agent writing).
    Full,
    /// By words only (hooks, imports: they never load a model).
    Words,
}

/// A verdict as asked for, before validation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewVerdict {
    pub relation: Option<RelationKind>,
    pub reason: Option<String>,
    pub evidence: Option<String>,
    pub confidence: Option<f64>,
    pub actor: Actor,
}

/// What a comparison did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareStatus {
    /// A new relation holds the verdict.
    Created,
    /// The actor's earlier verdict on the pair (or the pair's pending judgment) was replaced.
    Updated,
    /// The actor had said exactly this already.
    Unchanged,
    /// `not_conflict`: nothing was written.
    NotRecorded,
}

/// The result of `compare`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Compared {
    pub status: CompareStatus,
    pub relation: Option<RelationView>,
}

/// A pair a scan found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScannedPair {
    /// The newer memory.
    pub source: MemoryId,
    pub source_title: String,
    /// The older memory.
    pub target: MemoryId,
    pub target_title: String,
    pub score: f64,
    /// How the newer disagrees with the older.
    pub reason: String,
    /// The pending judgment recorded for it (`--apply`).
    pub judgment_id: Option<RelationId>,
}

/// What a scan found and recorded.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScanReport {
    /// Memories looked at.
    pub memories: u64,
    pub pairs: Vec<ScannedPair>,
    /// Pending judgments written (0 for a dry run).
    pub recorded: u64,
    pub applied: bool,
}

/// The relation operations over one store.
pub struct Relations<'a> {
    memories: Memories<'a>,
    config: &'a ConflictsConfig,
    embedder: Option<&'a dyn Embedder>,
}

impl<'a> Relations<'a> {
    pub fn new(
        memories: Memories<'a>,
        config: &'a ConflictsConfig,
        embedder: Option<&'a dyn Embedder>,
    ) -> Self {
        Relations {
            memories,
            config,
            embedder,
        }
    }

    fn store(&self) -> &'a dyn Store {
        self.memories.backend()
    }

    fn now(&self) -> Timestamp {
        self.memories.timestamp()
    }

    /// Stores a memory, then records its conflict candidates.
    pub fn store_memory(&self, new: NewMemory, detection: Detection) -> Result<WriteOutcome> {
        let outcome = self.memories.store(new)?;
        Ok(self.detect(outcome, detection))
    }

    /// Updates a memory, then records its conflict candidates when the patch touches its text
    /// (they depend on nothing else).
    pub fn update(&self, target: &IdRef, patch: MemoryPatch) -> Result<WriteOutcome> {
        let touches_text = patch.content.is_some() || patch.title.is_some();
        let outcome = self.memories.update(target, patch)?;
        Ok(match touches_text {
            true => self.detect(outcome, Detection::Full),
            false => outcome,
        })
    }

    /// After a write that stored text: finds the candidates and records one pending relation
    /// for each, returning them in the outcome. The write has committed, so a failure here
    /// (the store busy, say) is logged and leaves the outcome without candidates instead of
    /// turning a stored memory into an error; `conflicts scan` finds the pair later.
    pub fn detect(&self, mut outcome: WriteOutcome, detection: Detection) -> WriteOutcome {
        if !self.config.detect || !outcome.status.stored_text() {
            return outcome;
        }
        match self.record_candidates(&outcome.memory, detection) {
            Ok(candidates) => outcome.candidates = candidates,
            Err(error) => tracing::warn!(
                %error,
                memory = %outcome.memory.id,
                "the write was stored, but its conflict candidates could not be recorded"
            ),
        }
        outcome
    }

    /// Finds the candidates of `memory` and records a pending relation for each (and, with
    /// vectors embedded now, stores them).
    fn record_candidates(
        &self,
        memory: &Memory,
        detection: Detection,
    ) -> Result<Vec<ConflictCandidate>> {
        let now = self.now();
        let passage = match detection {
            Detection::Full => self.passage_of(memory),
            Detection::Words => None,
        };
        let related = self.related_to(&memory.id, now)?;
        let found = self.detector(now).candidates(
            memory,
            passage.as_ref().map(|p| p.vector.as_slice()),
            &related,
        )?;
        if found.is_empty() && passage.is_none() {
            return Ok(Vec::new());
        }
        let stored = passage.map(|passage| MemoryVector {
            id: memory.id,
            updated_at: memory.updated_at,
            vector: passage.vector,
            sentences: SentenceVectors::encode(&passage.sentences),
        });
        in_transaction(self.store(), |tx| {
            if let Some(stored) = &stored {
                tx.put_embeddings(VectorSpace::Text, std::slice::from_ref(stored))?;
            }
            let mut candidates = Vec::new();
            for neighbour in &found {
                // Under the write lock: another process may have related the pair meanwhile.
                if !tx
                    .relations_between(&memory.id, &neighbour.memory.id)?
                    .is_empty()
                {
                    continue;
                }
                let relation = Relation::pending(
                    memory.id,
                    neighbour.memory.id,
                    memory.scope.clone(),
                    Some(neighbour.score),
                    now,
                );
                tx.put_relation(&relation)?;
                candidates.push(candidate(&relation, neighbour));
            }
            Ok(candidates)
        })
    }

    /// The memory's vector and sentence vectors in the text space, embedded now, when a model
    /// is at hand and the store's vectors are that model's. A model that fails leaves detection
    /// to words (the write has happened; the embedding queue will try again).
    fn passage_of(&self, memory: &Memory) -> Option<Passage> {
        let embedder = self.embedder?;
        let stored = self.store().embedding_model(VectorSpace::Text).ok()??;
        if &stored != embedder.identity() {
            return None;
        }
        let text = embedding_text(memory.title.as_deref(), &memory.content);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            embedder.embed_passages(&[&text])
        }))
        .ok()?
        .ok()?
        .pop()
    }

    fn detector(&self, now: Timestamp) -> Detector<'a> {
        Detector {
            store: self.store(),
            now,
            max: self.config.max_candidates,
            floor: None,
        }
    }

    /// The memories already related to `id`, in either direction.
    fn related_to(&self, id: &MemoryId, now: Timestamp) -> Result<HashSet<MemoryId>> {
        Ok(self
            .store()
            .relations_of(&[*id], now)?
            .into_iter()
            .map(|view| view.relation.other(id))
            .collect())
    }

    /// The judgment `reference` names (a full id or a prefix of one).
    pub fn resolve(&self, reference: &RelationRef) -> Result<RelationId> {
        let missing = |what: &str| Error::Missing {
            field: "judgment_id".into(),
            message: format!("no judgment matches '{what}'"),
        };
        match reference {
            RelationRef::Full(id) => match self.store().relation(id, self.now())? {
                Some(_) => Ok(*id),
                None => Err(missing(&id.to_string())),
            },
            RelationRef::Prefix(prefix) => {
                let mut ids = self.store().relation_ids_with_prefix(prefix, 20)?;
                match ids.len() {
                    0 => Err(missing(prefix)),
                    1 => Ok(ids.remove(0)),
                    _ => Err(Error::invalid(
                        "judgment_id",
                        format!(
                            "'{prefix}' matches {} judgments; give more characters",
                            ids.len()
                        ),
                    )),
                }
            }
        }
    }

    /// Settles a judgment: the verdict replaces the current one, which moves to the history.
    /// The same verdict again changes nothing.
    pub fn judge(&self, reference: &RelationRef, verdict: NewVerdict) -> Result<RelationView> {
        let now = self.now();
        let verdict = validated(verdict, now)?;
        let id = self.resolve(reference)?;
        in_transaction(self.store(), |tx| {
            let mut relation = tx.relation(&id)?.ok_or_else(|| Error::Missing {
                field: "judgment_id".into(),
                message: format!("no judgment matches '{id}'"),
            })?;
            if relation
                .verdict
                .as_ref()
                .is_some_and(|v| v.same_as(&verdict))
            {
                return Ok(());
            }
            relation.judge(verdict.clone());
            tx.put_relation(&relation)
        })?;
        self.view(&id, now)
    }

    /// Records a verdict on two memories directly: one relation per pair and actor (a pending
    /// judgment of the pair is settled by it); `not_conflict` writes nothing. Both memories
    /// must be visible and in the same scope.
    pub fn compare(&self, a: &IdRef, b: &IdRef, verdict: NewVerdict) -> Result<Compared> {
        let now = self.now();
        let verdict = validated(verdict, now)?;
        let newer = self.memories.resolve(a, false)?;
        let older = self.memories.resolve(b, false)?;
        if newer.id == older.id {
            return Err(Error::invalid(
                "b",
                "is the same memory as a; compare two memories",
            ));
        }
        if newer.scope != older.scope {
            return Err(Error::invalid(
                "b",
                format!(
                    "{} is in {} and {} in {}: pairs across projects are refused",
                    newer.id.handle(),
                    scope_name(&newer.scope),
                    older.id.handle(),
                    scope_name(&older.scope)
                ),
            ));
        }
        if verdict.relation == RelationKind::NotConflict {
            return Ok(Compared {
                status: CompareStatus::NotRecorded,
                relation: None,
            });
        }
        let key = verdict.actor.key();
        let (status, id) = in_transaction(self.store(), |tx| {
            let existing = tx.relations_between(&newer.id, &older.id)?;
            let own = existing
                .iter()
                .find(|r| r.verdict.as_ref().is_some_and(|v| v.actor.key() == key))
                .or_else(|| existing.iter().find(|r| r.verdict.is_none()));
            let Some(found) = own else {
                let mut relation =
                    Relation::pending(newer.id, older.id, newer.scope.clone(), None, now);
                relation.judge(verdict.clone());
                tx.put_relation(&relation)?;
                return Ok((CompareStatus::Created, relation.id));
            };
            let mut relation = found.clone();
            if relation
                .verdict
                .as_ref()
                .is_some_and(|v| v.same_as(&verdict))
            {
                return Ok((CompareStatus::Unchanged, relation.id));
            }
            relation.judge(verdict.clone());
            tx.put_relation(&relation)?;
            Ok((CompareStatus::Updated, relation.id))
        })?;
        Ok(Compared {
            status,
            relation: Some(self.view(&id, now)?),
        })
    }

    fn view(&self, id: &RelationId, now: Timestamp) -> Result<RelationView> {
        self.store()
            .relation(id, now)?
            .ok_or_else(|| Error::Missing {
                field: "judgment_id".into(),
                message: format!("no judgment matches '{id}'"),
            })
    }

    /// One judgment with both memories' headlines and, while both are there, how they
    /// disagree.
    pub fn show(&self, reference: &RelationRef) -> Result<RelationView> {
        let id = self.resolve(reference)?;
        let mut view = self.view(&id, self.now())?;
        let (source, target) = (view.relation.source, view.relation.target);
        let memories = self.store().get(&[source, target])?;
        let reading = |id: MemoryId| {
            memories
                .iter()
                .find(|m| m.id == id)
                .map(|m| Reading::of(m.title.as_deref(), &m.content))
        };
        if let (Some(newer), Some(older)) = (reading(source), reading(target)) {
            view.reason = disagreement(&newer, &older, true).map(|d| d.describe());
        }
        Ok(view)
    }

    /// Relations under the filter, the most recently changed first.
    pub fn list(&self, filter: &RelationFilter) -> Result<Vec<RelationView>> {
        validate::page(filter.limit, 0)?;
        self.store().relations(filter, self.now())
    }

    /// The relations of these memories (both directions), for annotations and `get`.
    pub fn relations_of(&self, ids: &[MemoryId]) -> Result<Vec<RelationView>> {
        self.store().relations_of(ids, self.now())
    }

    pub fn stats(&self, scope: Option<&Scope>) -> Result<RelationStats> {
        self.store().relation_stats(scope)
    }

    /// Walks the visible memories of `scope`, oldest first, for pairs that were never related,
    /// by words and by the memories' stored vectors; with `apply`, records a pending judgment
    /// for each of the best `max_insert`. `progress(done, total)` follows the walk.
    pub fn scan(
        &self,
        scope: &Scope,
        apply: bool,
        max_insert: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<ScanReport> {
        let now = self.now();
        let store = self.store();
        let filter = MemoryFilter::in_scope(ScopeFilter::only(scope));
        let total = store.count(&filter, now)?;
        let detector = self.detector(now);
        let mut pairs: Vec<ScannedPair> = Vec::new();
        let mut paired: HashSet<(MemoryId, MemoryId)> = HashSet::new();
        let mut done = 0u64;
        let page = 500;
        loop {
            let memories = store.list(
                &ListQuery {
                    filter: filter.clone(),
                    sort: SortKey::Created,
                    order: SortOrder::Asc,
                    limit: page,
                    offset: done as usize,
                },
                now,
            )?;
            if memories.is_empty() {
                break;
            }
            let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
            let vectors: std::collections::HashMap<MemoryId, Vec<f32>> = store
                .vectors(VectorSpace::Text, &ids)?
                .into_iter()
                .collect();
            for memory in &memories {
                let related = self.related_to(&memory.id, now)?;
                let vector = vectors.get(&memory.id).map(Vec::as_slice);
                for neighbour in detector.candidates(memory, vector, &related)? {
                    let (newer, older) = newer_first(memory, &neighbour.memory);
                    if !paired.insert(ordered(newer.id, older.id)) {
                        continue;
                    }
                    pairs.push(ScannedPair {
                        source: newer.id,
                        source_title: newer.headline().to_string(),
                        target: older.id,
                        target_title: older.headline().to_string(),
                        score: neighbour.score,
                        reason: neighbour
                            .disagreement
                            .as_ref()
                            .map(|d| d.describe())
                            .unwrap_or_default(),
                        judgment_id: None,
                    });
                }
                done += 1;
                progress(done, total);
            }
        }
        pairs.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut recorded = 0;
        if apply {
            let take = pairs.len().min(max_insert);
            let chosen = &mut pairs[..take];
            recorded = in_transaction(store, |tx| {
                let mut written = 0;
                for pair in chosen.iter_mut() {
                    if !tx.relations_between(&pair.source, &pair.target)?.is_empty() {
                        continue;
                    }
                    let relation = Relation::pending(
                        pair.source,
                        pair.target,
                        scope.clone(),
                        Some(pair.score),
                        now,
                    );
                    tx.put_relation(&relation)?;
                    pair.judgment_id = Some(relation.id);
                    written += 1;
                }
                Ok(written)
            })?;
        }
        Ok(ScanReport {
            memories: done,
            pairs,
            recorded,
            applied: apply,
        })
    }
}

/// The candidate a write reports for a recorded relation.
fn candidate(relation: &Relation, neighbour: &Neighbour) -> ConflictCandidate {
    ConflictCandidate {
        judgment_id: relation.id,
        id: neighbour.memory.id,
        title: neighbour.memory.headline().to_string(),
        category: neighbour.memory.category,
        score: (neighbour.score * 10_000.0).round() / 10_000.0,
        reason: neighbour
            .disagreement
            .as_ref()
            .map(|d| d.describe())
            .unwrap_or_default(),
    }
}

fn newer_first<'m>(a: &'m Memory, b: &'m Memory) -> (&'m Memory, &'m Memory) {
    if (a.created_at, a.id) >= (b.created_at, b.id) {
        (a, b)
    } else {
        (b, a)
    }
}

fn ordered(a: MemoryId, b: MemoryId) -> (MemoryId, MemoryId) {
    if a <= b { (a, b) } else { (b, a) }
}

fn scope_name(scope: &Scope) -> String {
    match scope {
        Scope::Global => "the global scope".into(),
        Scope::Project(project) => format!("project '{project}'"),
    }
}

/// A verdict as asked for, checked: a relation is required, then [`checked`].
fn validated(verdict: NewVerdict, now: Timestamp) -> Result<Verdict> {
    let relation = verdict.relation.ok_or_else(|| {
        let names: Vec<_> = RelationKind::ALL.iter().map(|k| k.as_str()).collect();
        Error::invalid(
            "relation",
            format!("is required; one of: {}", names.join(", ")),
        )
    })?;
    checked(Verdict {
        relation,
        reason: verdict.reason,
        evidence: verdict.evidence,
        confidence: verdict.confidence,
        actor: verdict.actor,
        judged_at: now,
    })
}

/// A verdict cleaned as every verdict is stored, whether given now or imported: texts are
/// trimmed, redacted and bounded, confidence is clamped to 0–1, the actor's labels are checked
/// like any label.
pub fn checked(verdict: Verdict) -> Result<Verdict> {
    let text = |field: &str, raw: Option<String>| -> Result<Option<String>> {
        let Some(raw) = raw.map(|t| t.trim().to_string()).filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        let chars = raw.chars().count();
        if chars > MAX_VERDICT_TEXT_CHARS {
            return Err(Error::TooLarge {
                field: field.into(),
                message: format!("is {chars} characters; the limit is {MAX_VERDICT_TEXT_CHARS}"),
            });
        }
        Ok(Some(redact(&raw).into_owned()))
    };
    let confidence = match verdict.confidence {
        Some(c) if c.is_nan() => {
            return Err(Error::invalid("confidence", "is not a number; give 0 to 1"));
        }
        Some(c) => Some(c.clamp(0.0, 1.0)),
        None => None,
    };
    let actor = Actor {
        kind: verdict.actor.kind,
        name: validate::label("actor", verdict.actor.name.as_deref())?,
        model: validate::label("model", verdict.actor.model.as_deref())?,
        session: validate::label("session", verdict.actor.session.as_deref())?,
    };
    Ok(Verdict {
        reason: text("reason", verdict.reason)?,
        evidence: text("evidence", verdict.evidence)?,
        confidence,
        actor,
        ..verdict
    })
}
