//! The service: every operation's behaviour, once, for every entry point.
//!
//! Adapters (CLI, MCP, HTTP, hooks) turn their input into the request types here and format
//! what comes back; nothing else. The service validates and redacts input ([`crate::validate`]),
//! decides what a write means (created, duplicate, updated) inside one store transaction, keeps
//! history, hides forgotten and expired memories from every read, and runs search through the
//! signal/fusion pipeline of [`crate::search`].

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;

use jiff::{Timestamp, Zoned};
use serde::Serialize;

use crate::clock::Clock;
use crate::config::Limits;
use crate::config::SearchConfig;
use crate::config::{ContextConfig, SessionsConfig, SlotsConfig};
use crate::embedding::Embedder;
use crate::error::{Error, Result};
use crate::exchange::{ImportReport, MemoryRecord};
use crate::id::{IdRef, MemoryId};
use crate::memory::{Category, Importance, Memory, Revision, Source, WriteOutcome, WriteStatus};
use crate::normalise::{content_hash, same_content};
use crate::scope::Scope;
use crate::search::fusion::Fusion;
use crate::search::fuzzy::{FuzzySignal, FuzzyWords};
use crate::search::semantic::SemanticSignal;
use crate::search::{
    Boosts, FuzzyMode, LexicalSignal, SearchHit, SearchMode, SearchQuery, SearchRequest,
    SearchResults, Signal, SignalKind,
};
use crate::sessions::Summarizer;
use crate::store::{ListQuery, MemoryFilter, Store, StoreStats, StoreTx, TagCount};
use crate::validate;

/// A new memory as an adapter received it; the service validates and normalises it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    pub content: String,
    pub title: Option<String>,
    pub category: Category,
    pub tags: Vec<String>,
    pub scope: Scope,
    pub topic_key: Option<String>,
    pub entered_by: Option<String>,
    pub session_id: Option<String>,
    pub source: Source,
    /// 1–5; 3 when unsaid.
    pub importance: Option<i64>,
    pub expires_at: Option<Timestamp>,
}

impl NewMemory {
    /// A memory with just content, in `scope`, from `source`; everything else default.
    pub fn new(content: impl Into<String>, scope: Scope, source: Source) -> Self {
        NewMemory {
            content: content.into(),
            title: None,
            category: Category::default(),
            tags: Vec::new(),
            scope,
            topic_key: None,
            entered_by: None,
            session_id: None,
            source,
            importance: None,
            expires_at: None,
        }
    }
}

/// A change to an existing memory. `None` leaves a field alone; `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryPatch {
    pub content: Option<String>,
    pub title: Option<Option<String>>,
    pub category: Option<Category>,
    /// Replaces all tags.
    pub tags: Option<Vec<String>>,
    pub importance: Option<i64>,
    pub expires_at: Option<Option<Timestamp>>,
    pub topic_key: Option<Option<String>>,
}

/// What `prune` found and whether it deleted it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PruneReport {
    /// The expired memories, oldest expiry first.
    pub memories: Vec<Memory>,
    /// False for a dry run.
    pub deleted: bool,
    pub before: Timestamp,
}

/// A memory with its previous states.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryHistory {
    pub memory: Memory,
    pub revisions: Vec<Revision>,
}

/// The one place where cairn's behaviour lives.
pub struct MemoryService {
    pub(crate) store: Box<dyn Store>,
    limits: Limits,
    search: SearchConfig,
    clock: Clock,
    fusion: Fusion,
    /// Semantic search's model, when one is installed (see `embedding_queue`).
    pub(crate) embedder: Option<Arc<dyn Embedder>>,
    pub(crate) embed_batch: usize,
    pub(crate) sessions: SessionsConfig,
    pub(crate) context: ContextConfig,
    pub(crate) slots: SlotsConfig,
    /// Writes session summaries when configured (see `sessions`).
    pub(crate) summarizer: Option<Arc<dyn Summarizer>>,
}

impl MemoryService {
    pub fn new(store: Box<dyn Store>, limits: Limits) -> Self {
        Self::with_clock(store, limits, Clock::system())
    }

    pub fn with_clock(store: Box<dyn Store>, limits: Limits, clock: Clock) -> Self {
        MemoryService {
            store,
            limits,
            search: SearchConfig::default(),
            clock,
            fusion: Fusion::default(),
            embedder: None,
            embed_batch: 64,
            sessions: SessionsConfig::default(),
            context: ContextConfig::default(),
            slots: SlotsConfig::default(),
            summarizer: None,
        }
    }

    /// Uses these search defaults and ranking weights instead of the built-in ones.
    pub fn with_search_config(mut self, search: SearchConfig) -> Self {
        self.search = search;
        self
    }

    /// Now in the user's time zone: adapters resolve relative dates against this.
    /// The search settings (weights, default page size, thresholds) in use.
    pub fn search_config(&self) -> &SearchConfig {
        &self.search
    }

    pub fn now(&self) -> Zoned {
        self.clock.now()
    }

    pub(crate) fn now_ts(&self) -> Timestamp {
        self.clock.now().timestamp()
    }

    pub fn store_location(&self) -> String {
        self.store.location()
    }

    /// Runs `work` in one store transaction and returns what it produced.
    pub(crate) fn in_transaction<T>(
        &self,
        mut work: impl FnMut(&mut dyn StoreTx) -> Result<T>,
    ) -> Result<T> {
        let mut produced = None;
        self.store.write(&mut |tx| {
            produced = Some(work(tx)?);
            Ok(())
        })?;
        Ok(produced.expect("a store runs the work once before it commits"))
    }

    /// Stores a memory: `created`, `duplicate` (same content in the scope; nothing written) or
    /// `updated` (same topic key in the scope; revised in place, previous state kept).
    pub fn store(&self, new: NewMemory) -> Result<WriteOutcome> {
        let now = self.now_ts();
        let candidate = self.candidate(new, now)?;
        self.in_transaction(|tx| store_in(tx, &candidate, now))
    }

    /// A new memory as it would be stored at `now`: validated, normalised and redacted.
    pub(crate) fn candidate(&self, new: NewMemory, now: Timestamp) -> Result<Memory> {
        let content = validate::content(&new.content, &self.limits)?;
        Ok(Memory {
            id: MemoryId::generate(),
            content,
            title: validate::title(new.title.as_deref(), &self.limits)?,
            category: new.category,
            tags: validate::tags(&new.tags, &self.limits)?,
            scope: new.scope,
            topic_key: validate::topic_key(new.topic_key.as_deref())?,
            entered_by: validate::label("entered_by", new.entered_by.as_deref())?,
            session_id: validate::label("session_id", new.session_id.as_deref())?,
            source: new.source,
            importance: new
                .importance
                .map(Importance::new)
                .transpose()?
                .unwrap_or_default(),
            created_at: now,
            updated_at: now,
            expires_at: validate::expiry(new.expires_at, now)?,
            deleted_at: None,
        })
    }

    /// Applies a patch to a visible memory, keeping its previous state in the history.
    pub fn update(&self, target: &IdRef, patch: MemoryPatch) -> Result<WriteOutcome> {
        let now = self.now_ts();
        let id = self.resolve(target, false)?.id;
        self.in_transaction(|tx| {
            let current = visible_in(tx, &id, now)?;
            let revised = self.apply_patch(&current, &patch, now)?;
            if let Some(key) = revised
                .topic_key
                .as_ref()
                .filter(|k| Some(*k) != current.topic_key.as_ref())
                && let Some(other) = tx.find_by_topic(&revised.scope, key, now)?
            {
                return Err(Error::invalid(
                    "topic_key",
                    format!(
                        "'{key}' already names memory {} in this scope",
                        other.id.handle()
                    ),
                ));
            }
            if same_state(&current, &revised) {
                return Ok(WriteOutcome {
                    status: WriteStatus::Unchanged,
                    memory: current,
                });
            }
            revise(tx, &current, revised.clone())?;
            Ok(WriteOutcome {
                status: WriteStatus::Updated,
                memory: revised,
            })
        })
    }

    fn apply_patch(&self, current: &Memory, patch: &MemoryPatch, now: Timestamp) -> Result<Memory> {
        let mut next = current.clone();
        if let Some(content) = &patch.content {
            next.content = validate::content(content, &self.limits)?;
        }
        if let Some(title) = &patch.title {
            next.title = validate::title(title.as_deref(), &self.limits)?;
        }
        if let Some(category) = patch.category {
            next.category = category;
        }
        if let Some(tags) = &patch.tags {
            next.tags = validate::tags(tags, &self.limits)?;
        }
        if let Some(importance) = patch.importance {
            next.importance = Importance::new(importance)?;
        }
        if let Some(expires) = patch.expires_at {
            next.expires_at = validate::expiry(expires, now)?;
        }
        if let Some(key) = &patch.topic_key {
            next.topic_key = validate::topic_key(key.as_deref())?;
        }
        next.updated_at = now;
        Ok(next)
    }

    /// Finds a memory by id or handle. Hidden (forgotten or expired) memories are found only
    /// when `include_hidden` is set.
    pub fn resolve(&self, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        let now = self.now_ts();
        let shown = |m: &Memory| include_hidden || m.is_visible_at(now);
        match target {
            IdRef::Full(id) => self
                .store
                .get(&[*id])?
                .into_iter()
                .find(|m| shown(m))
                .ok_or_else(|| Error::NotFound { id: id.to_string() }),
            IdRef::Prefix(prefix) => {
                let ids = self.store.ids_with_prefix(prefix, 20)?;
                let mut found: Vec<Memory> = self
                    .store
                    .get(&ids)?
                    .into_iter()
                    .filter(|m| shown(m))
                    .collect();
                match found.len() {
                    0 => Err(Error::NotFound { id: prefix.clone() }),
                    1 => Ok(found.remove(0)),
                    _ => {
                        let mut candidates: Vec<String> =
                            found.iter().map(|m| m.id.to_string()).collect();
                        candidates.sort();
                        Err(Error::AmbiguousHandle {
                            prefix: prefix.clone(),
                            candidates,
                        })
                    }
                }
            }
        }
    }

    /// Visible memories, in the order asked for.
    pub fn get(&self, targets: &[IdRef]) -> Result<Vec<Memory>> {
        targets.iter().map(|t| self.resolve(t, false)).collect()
    }

    /// A visible memory and its previous states.
    pub fn history(&self, target: &IdRef) -> Result<MemoryHistory> {
        let memory = self.resolve(target, false)?;
        let revisions = self.store.revisions(&memory.id)?;
        Ok(MemoryHistory { memory, revisions })
    }

    /// Soft-deletes a visible memory; it disappears from every read but can still be exported
    /// and purged.
    pub fn forget(&self, target: &IdRef) -> Result<Memory> {
        let now = self.now_ts();
        let id = self.resolve(target, false)?.id;
        self.in_transaction(|tx| {
            // Re-read under the write lock, so a change made since `resolve` is kept.
            let mut memory = visible_in(tx, &id, now)?;
            memory.deleted_at = Some(now);
            tx.replace(&memory)?;
            Ok(memory)
        })
    }

    /// Removes a memory for good, in whatever state, with its history.
    pub fn purge(&self, target: &IdRef) -> Result<Memory> {
        let memory = self.resolve(target, true)?;
        self.store.write(&mut |tx| tx.purge(&[memory.id]))?;
        Ok(memory)
    }

    pub fn list(&self, query: &ListQuery) -> Result<Vec<Memory>> {
        validate::page(query.limit, query.offset)?;
        self.store.list(query, self.now_ts())
    }

    pub fn count(&self, filter: &MemoryFilter) -> Result<u64> {
        self.store.count(filter, self.now_ts())
    }

    /// The mode a search runs in: the one asked for, else hybrid when a model is present and
    /// lexical otherwise. Asking for meaning without a model is an error that says how to get one.
    pub fn search_mode(&self, asked: Option<SearchMode>) -> Result<SearchMode> {
        match (asked, &self.embedder) {
            (Some(mode), None) if mode.is_semantic() => Err(Error::Unavailable {
                what: format!("{mode} search"),
                hint: crate::embedding::HOW_TO_ENABLE.into(),
            }),
            (Some(mode), _) => Ok(mode),
            (None, Some(_)) => Ok(SearchMode::Hybrid),
            (None, None) => Ok(SearchMode::Lexical),
        }
    }

    /// Runs the signals of the mode under the filter — lexical; fuzzy when asked for or when
    /// lexical finds too little; semantic when a model is present — fuses their rankings, adds
    /// the recency and importance boosts, and returns the requested page.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResults> {
        validate::page(request.limit, request.offset)?;
        let threshold = request.threshold.unwrap_or(self.search.fuzzy_threshold);
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(
                "threshold",
                format!("{threshold} is outside 0..=1"),
            ));
        }
        let mode = self.search_mode(request.mode)?;
        let query = SearchQuery::parse(&request.query, request.strict)?;
        let now = self.now_ts();
        let mut notices = Vec::new();
        let depth = request.offset + request.limit;
        let store = self.store.as_ref();
        // The model runs only if its vectors are the store's; otherwise say why meaning is off.
        let embedder = match (mode.is_semantic(), &self.embedder) {
            (true, Some(embedder)) => match self.store.embedding_model()? {
                Some(stored) if &stored != embedder.identity() => {
                    notices.push(format!(
                        "meaning was not used: this store's vectors come from {stored}, not the \
                         installed {}; run `cairn reindex --embeddings`",
                        embedder.identity()
                    ));
                    None
                }
                _ => Some(embedder.as_ref()),
            },
            _ => None,
        };
        let mut rankings = Vec::new();
        let mut matched_words = Vec::new();
        std::thread::scope(|scope| -> Result<()> {
            // Embedding the query is the slowest step: it runs beside the lexical signals.
            let query_vector = embedder.map(|embedder| {
                let text = query.text.as_str();
                scope.spawn(move || embedder.embed(&[text]))
            });
            let mut exact_found = 0;
            let mut unknown_words = Vec::new();
            if matches!(mode, SearchMode::Lexical | SearchMode::Hybrid) {
                let probe = depth.max(self.search.fuzzy_min_results);
                let mut lexical = LexicalSignal.rank(store, &query, &request.filter, now, probe)?;
                exact_found = lexical.hits.len();
                unknown_words = lexical.unknown_words;
                lexical.hits.truncate(depth);
                matched_words.extend(lexical.matched_words);
                rankings.push((
                    SignalKind::Lexical,
                    self.search.lexical_weight,
                    lexical.hits,
                ));
            }
            let fuzzy_words = match (mode, request.fuzzy) {
                (SearchMode::Semantic, _) => None,
                (SearchMode::Fuzzy, _) | (_, FuzzyMode::Always) => Some(FuzzyWords::AllBare),
                (_, FuzzyMode::Never) => None,
                (_, FuzzyMode::Auto) if exact_found < self.search.fuzzy_min_results => {
                    Some(FuzzyWords::AllBare)
                }
                (_, FuzzyMode::Auto) => {
                    (!unknown_words.is_empty()).then(|| FuzzyWords::Only(unknown_words.clone()))
                }
            };
            if let Some(words) = fuzzy_words {
                let signal = FuzzySignal { threshold, words };
                let fuzzy = signal.rank(store, &query, &request.filter, now, depth)?;
                matched_words.extend(fuzzy.matched_words);
                rankings.push((SignalKind::Fuzzy, self.search.fuzzy_weight, fuzzy.hits));
            }
            if let Some(embedding) = query_vector {
                let vector = embedding
                    .join()
                    .map_err(|_| Error::Model {
                        message: "the model failed while embedding the query".into(),
                    })??
                    .pop()
                    .unwrap_or_default();
                let signal = SemanticSignal {
                    query_vector: &vector,
                    min_similarity: self.search.semantic_min_similarity,
                };
                let semantic = signal.rank(store, &query, &request.filter, now, depth)?;
                rankings.push((
                    SignalKind::Semantic,
                    self.search.semantic_weight,
                    semantic.hits,
                ));
            }
            Ok(())
        })?;
        let fused = self.fusion.fuse(rankings);
        let ids: Vec<MemoryId> = fused.iter().map(|f| f.id).collect();
        let mut loaded: HashMap<MemoryId, Memory> = self
            .store
            .get(&ids)?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        let mut hits: Vec<SearchHit> = fused
            .into_iter()
            .filter_map(|fused| {
                let memory = loaded.remove(&fused.id)?;
                let boosts = self.boosts(&memory, now);
                let score =
                    fused.score + (boosts.recency + boosts.importance) * self.fusion.first_place();
                Some(SearchHit {
                    memory,
                    score,
                    signals: fused.signals,
                    boosts,
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        let hits = hits
            .into_iter()
            .skip(request.offset)
            .take(request.limit)
            .collect();
        let mut seen = std::collections::HashSet::new();
        matched_words.retain(|word| seen.insert(word.clone()));
        Ok(SearchResults {
            hits,
            matched_words,
            mode: Some(mode),
            notices,
        })
    }

    /// The recency and importance boosts of a memory, in first-place votes.
    fn boosts(&self, memory: &Memory, now: Timestamp) -> Boosts {
        let age_days = (now.as_millisecond() - memory.updated_at.as_millisecond()).max(0) as f64
            / 86_400_000.0;
        let half_life = self.search.recency_half_life_days.max(f64::MIN_POSITIVE);
        Boosts {
            recency: self.search.recency_weight * 0.5f64.powf(age_days / half_life),
            importance: self.search.importance_weight * (f64::from(memory.importance.get()) - 3.0)
                / 2.0,
        }
    }

    /// Finds memories that expired at or before `before` (default now) and, unless `dry_run`,
    /// deletes them for good. `before` may not lie in the future.
    pub fn prune(&self, before: Option<Timestamp>, dry_run: bool) -> Result<PruneReport> {
        let now = self.now_ts();
        let before = before.unwrap_or(now);
        if before > now {
            return Err(Error::invalid(
                "before",
                format!(
                    "{before} is in the future; prune removes only memories that have already expired"
                ),
            ));
        }
        if dry_run {
            let memories = self.store.expired(before)?;
            return Ok(PruneReport {
                memories,
                deleted: false,
                before,
            });
        }
        let memories = self.in_transaction(|tx| {
            let memories = tx.expired(before)?;
            let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
            tx.purge(&ids)?;
            Ok(memories)
        })?;
        Ok(PruneReport {
            memories,
            deleted: true,
            before,
        })
    }

    pub fn stats(&self) -> Result<StoreStats> {
        self.store.stats(self.now_ts())
    }

    pub fn tags(&self, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        self.store.tag_counts(filter, self.now_ts())
    }

    /// Streams every memory with its history to `sink`; returns how many were written.
    pub fn export(&self, sink: &mut dyn FnMut(&MemoryRecord) -> Result<()>) -> Result<u64> {
        let mut count = 0;
        self.store.export(&mut |memory, revisions| {
            count += 1;
            sink(&MemoryRecord { memory, revisions })
        })?;
        Ok(count)
    }

    /// Imports JSON Lines in one transaction: any bad line rolls back everything and is
    /// reported with its line number. `progress` is called every few hundred records.
    pub fn import(
        &self,
        input: &mut dyn BufRead,
        progress: &mut dyn FnMut(&ImportReport),
    ) -> Result<ImportReport> {
        let report = self.in_transaction(|tx| {
            let mut report = ImportReport::default();
            let mut line = String::new();
            let mut number = 0u64;
            loop {
                line.clear();
                if input.read_line(&mut line)? == 0 {
                    break;
                }
                number += 1;
                if line.trim().is_empty() {
                    continue;
                }
                let at_line = |source: Error| Error::ImportLine {
                    line: number,
                    source: Box::new(source),
                };
                let record: MemoryRecord =
                    serde_json::from_str(&line).map_err(|e| at_line(Error::invalid("json", e)))?;
                let record = self.validate_record(record).map_err(at_line)?;
                match import_one(tx, record)? {
                    WriteStatus::Created => report.created += 1,
                    WriteStatus::Updated => report.updated += 1,
                    _ => report.unchanged += 1,
                }
                report.records += 1;
                if report.records % 512 == 0 {
                    progress(&report);
                }
            }
            Ok(report)
        })?;
        progress(&report);
        Ok(report)
    }

    /// The write rules of `store`, applied to an imported record and each of its revisions.
    fn validate_record(&self, mut record: MemoryRecord) -> Result<MemoryRecord> {
        let memory = &mut record.memory;
        memory.content = validate::content(&memory.content, &self.limits)?;
        memory.title = validate::title(memory.title.as_deref(), &self.limits)?;
        memory.entered_by = validate::label("entered_by", memory.entered_by.as_deref())?;
        memory.session_id = validate::label("session_id", memory.session_id.as_deref())?;
        validate::tags(&memory.tags, &self.limits)?;
        for revision in &mut record.revisions {
            revision.content = validate::content(&revision.content, &self.limits).map_err(|e| {
                Error::invalid(format!("revisions[{}].content", revision.number), e)
            })?;
            revision.title = validate::title(revision.title.as_deref(), &self.limits)?;
        }
        Ok(record)
    }
}

/// The memory `id` as the transaction sees it, if it is visible at `now`.
fn visible_in(tx: &mut dyn StoreTx, id: &MemoryId, now: Timestamp) -> Result<Memory> {
    tx.get(id)?
        .filter(|m| m.is_visible_at(now))
        .ok_or_else(|| Error::NotFound { id: id.to_string() })
}

/// The store rules inside the transaction: topic key first, then content duplicate, then new.
pub(crate) fn store_in(
    tx: &mut dyn StoreTx,
    candidate: &Memory,
    now: Timestamp,
) -> Result<WriteOutcome> {
    if let Some(key) = &candidate.topic_key
        && let Some(current) = tx.find_by_topic(&candidate.scope, key, now)?
    {
        let revised = Memory {
            id: current.id,
            created_at: current.created_at,
            deleted_at: None,
            ..candidate.clone()
        };
        if same_state(&current, &revised) {
            return Ok(WriteOutcome {
                status: WriteStatus::Duplicate,
                memory: current,
            });
        }
        revise(tx, &current, revised.clone())?;
        return Ok(WriteOutcome {
            status: WriteStatus::Updated,
            memory: revised,
        });
    }
    let duplicate = tx
        .find_by_content_hash(&candidate.scope, content_hash(&candidate.content), now)?
        .into_iter()
        .find(|m| same_content(&m.content, &candidate.content));
    if let Some(existing) = duplicate {
        return Ok(WriteOutcome {
            status: WriteStatus::Duplicate,
            memory: existing,
        });
    }
    tx.insert(candidate)?;
    Ok(WriteOutcome {
        status: WriteStatus::Created,
        memory: candidate.clone(),
    })
}

/// Keeps `current` as the next revision and writes `revised` in its place.
fn revise(tx: &mut dyn StoreTx, current: &Memory, revised: Memory) -> Result<()> {
    let number = tx
        .revisions(&current.id)?
        .last()
        .map_or(1, |r| r.number + 1);
    tx.add_revision(&current.id, &current.to_revision(number))?;
    tx.replace(&revised)
}

/// True when two states of a memory differ in nothing a revision records.
fn same_state(a: &Memory, b: &Memory) -> bool {
    a.content == b.content
        && a.title == b.title
        && a.category == b.category
        && a.tags == b.tags
        && a.importance == b.importance
        && a.expires_at == b.expires_at
        && a.topic_key == b.topic_key
}

/// Imports one validated record by id: new, newer (replace and merge history) or not newer.
fn import_one(tx: &mut dyn StoreTx, record: MemoryRecord) -> Result<WriteStatus> {
    let MemoryRecord { memory, revisions } = record;
    let Some(current) = tx.get(&memory.id)? else {
        tx.insert(&memory)?;
        for revision in &revisions {
            tx.add_revision(&memory.id, revision)?;
        }
        return Ok(WriteStatus::Created);
    };
    if memory.updated_at <= current.updated_at {
        return Ok(WriteStatus::Unchanged);
    }
    // Merge both histories and the state being replaced, by time, renumbered from 1.
    let mut history = tx.revisions(&current.id)?;
    history.push(current.to_revision(0));
    for revision in revisions {
        history.push(revision);
    }
    history.sort_by_key(|r| r.written_at);
    history.dedup_by(|a, b| a.written_at == b.written_at && a.content == b.content);
    history.retain(|r| !(r.written_at == memory.updated_at && r.content == memory.content));
    tx.purge(&[current.id])?;
    tx.insert(&memory)?;
    for (index, mut revision) in history.into_iter().enumerate() {
        revision.number = index as u32 + 1;
        tx.add_revision(&memory.id, &revision)?;
    }
    Ok(WriteStatus::Updated)
}
