//! The answers: a memory as scripts see it (every field, for REST and the CLI's JSON) and as a
//! model reads it (compact, for MCP).

use std::path::PathBuf;

use serde::Serialize;

use crate::id::MemoryId;
use crate::image::Image;

use crate::memory::{Category, Memory, WriteOutcome};
use crate::relation::RelationView;
use crate::scope::ProjectName;
use crate::search::{SearchHit, SearchResults};
use crate::session::ObservationHit;
use crate::slot::Slot;
use crate::tag::Tag;

/// A slot as scripts and models see it (REST, MCP and the CLI's JSON).
#[derive(Debug, Serialize)]
pub struct SlotDocument<'a> {
    pub label: &'a str,
    /// `project` or `global`.
    pub scope: &'static str,
    /// The project of a project slot.
    pub project: Option<&'a str>,
    pub content: &'a str,
    /// Characters the content holds.
    pub chars: usize,
    pub limit: usize,
    pub description: Option<&'a str>,
    pub pinned: bool,
    pub read_only: bool,
    pub created_at: jiff::Timestamp,
    pub updated_at: jiff::Timestamp,
}

impl<'a> SlotDocument<'a> {
    pub fn of(slot: &'a Slot) -> Self {
        SlotDocument {
            label: slot.label.as_str(),
            scope: slot.scope_kind(),
            project: slot.scope.project().map(ProjectName::as_str),
            content: &slot.content,
            chars: slot.chars(),
            limit: slot.limit,
            description: slot.description.as_deref(),
            pinned: slot.pinned,
            read_only: slot.read_only,
            created_at: slot.created_at,
            updated_at: slot.updated_at,
        }
    }
}

/// The answer of a slot operation, the same through REST, MCP and the CLI's JSON:
/// `{"slot": …}` for a read, `{"status": "appended", "slot": …}` for a write.
pub fn slot_answer(status: Option<&str>, slot: &Slot) -> serde_json::Value {
    match status {
        None => serde_json::json!({ "slot": SlotDocument::of(slot) }),
        Some(status) => serde_json::json!({ "status": status, "slot": SlotDocument::of(slot) }),
    }
}

/// The answer of a listing or reset of slots: `{"slots": […]}`.
pub fn slots_answer(slots: &[Slot]) -> serde_json::Value {
    let documents: Vec<SlotDocument<'_>> = slots.iter().map(SlotDocument::of).collect();
    serde_json::json!({ "slots": documents })
}

/// An image a memory shows, as scripts and people see it: its record and, where this store
/// keeps its images on this machine, its file.
#[derive(Debug, Clone, Serialize)]
pub struct ImageDocument {
    /// The memory that shows it.
    #[serde(skip)]
    pub memory: MemoryId,
    #[serde(flatten)]
    pub image: Image,
    pub file: Option<PathBuf>,
}

/// Adds `images` to a memory's document when it shows any (one shape for REST, MCP and the
/// CLI's JSON).
pub fn attach_images(document: &mut serde_json::Value, id: &MemoryId, images: &[ImageDocument]) {
    let shown: Vec<&ImageDocument> = images.iter().filter(|i| i.memory == *id).collect();
    if !shown.is_empty() {
        document["images"] = serde_json::json!(shown);
    }
}

/// Each memory's document (as `document` makes it: full or compact) with the images it shows.
pub fn documents_with_images<'m, T: Serialize>(
    memories: &'m [Memory],
    images: &[ImageDocument],
    document: impl Fn(&'m Memory) -> T,
) -> Vec<serde_json::Value> {
    memories
        .iter()
        .map(|memory| {
            let mut value = serde_json::json!(document(memory));
            attach_images(&mut value, &memory.id, images);
            value
        })
        .collect()
}

/// A memory as scripts see it: every stored field plus its short handle. The CLI's JSON output
/// and the REST API return this.
#[derive(Debug, Serialize)]
pub struct MemoryDocument<'a> {
    pub handle: String,
    #[serde(flatten)]
    pub memory: &'a Memory,
}

impl<'a> MemoryDocument<'a> {
    pub fn of(memory: &'a Memory) -> Self {
        MemoryDocument {
            handle: memory.id.handle(),
            memory,
        }
    }
}

/// One search hit as scripts see it: the memory, its fused score, each signal's part and the
/// annotation lines of its relations.
pub fn hit_document(hit: &SearchHit) -> serde_json::Value {
    let mut document = serde_json::json!({
        "memory": MemoryDocument::of(&hit.memory),
        "score": hit.score,
        "signals": hit.signals,
        "boosts": hit.boosts,
        "annotations": hit.annotations,
    });
    if !hit.images.is_empty() {
        document["images"] = serde_json::json!(hit.images);
    }
    document
}

/// The answer to a write as scripts see it (REST, the CLI's JSON): the status, the memory, the
/// image a write with an image stored, and when the write found memories it may contradict,
/// `judgment_required: true` and the candidates with their judgment ids.
pub fn write_document(outcome: &WriteOutcome) -> serde_json::Value {
    let mut answer = serde_json::json!({
        "status": outcome.status,
        "memory": MemoryDocument::of(&outcome.memory),
    });
    add_write_details(&mut answer, outcome);
    answer
}

fn add_write_details(answer: &mut serde_json::Value, outcome: &WriteOutcome) {
    if let Some(image) = &outcome.image {
        answer["image"] = serde_json::json!(image);
    }
    if !outcome.candidates.is_empty() {
        answer["judgment_required"] = true.into();
        answer["candidates"] = serde_json::json!(outcome.candidates);
    }
}

/// A relation as scripts and models see it: the relation with its `status` (pending or
/// judged) and both memories' headlines (`null` once a memory is gone or hidden).
pub fn relation_document(view: &RelationView) -> serde_json::Value {
    let mut value = serde_json::to_value(view).expect("relations serialise");
    value["status"] = serde_json::json!(view.relation.status());
    value
}

/// A memory as a model reads it: the fields that help decide whether it matters, nothing about
/// storage. MCP tools return this.
#[derive(Debug, Serialize)]
pub struct CompactMemory<'a> {
    pub id: String,
    pub handle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    pub content: &'a str,
    pub category: Category,
    #[serde(skip_serializing_if = "<[Tag]>::is_empty")]
    pub tags: &'a [Tag],
    /// The project, or `null` for a global memory.
    pub project: Option<&'a str>,
    pub importance: u8,
    pub updated: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

impl<'a> CompactMemory<'a> {
    pub fn of(memory: &'a Memory) -> Self {
        CompactMemory {
            id: memory.id.to_string(),
            handle: memory.id.handle(),
            title: memory.title.as_deref(),
            content: &memory.content,
            category: memory.category,
            tags: &memory.tags,
            project: memory.scope.project().map(ProjectName::as_str),
            importance: memory.importance.get(),
            updated: memory.updated_at.to_string(),
            expires: memory.expires_at.map(|t| t.to_string()),
        }
    }
}

/// The answer to a write, in the compact form.
pub fn compact_write(outcome: &WriteOutcome) -> serde_json::Value {
    let mut answer = serde_json::json!({
        "status": outcome.status,
        "memory": CompactMemory::of(&outcome.memory),
    });
    add_write_details(&mut answer, outcome);
    answer
}

/// The answer to a search, in the compact form: each hit with its fused score and, when it
/// has relations, one short line of them (`relations`).
pub fn compact_search(results: &SearchResults) -> serde_json::Value {
    let hit = |hit: &SearchHit| {
        let mut value = serde_json::to_value(CompactMemory::of(&hit.memory)).expect("serialises");
        value["score"] = serde_json::json!((hit.score * 10_000.0).round() / 10_000.0);
        if let Some(line) = crate::relation::one_line(&hit.annotations) {
            value["relations"] = serde_json::json!(line);
        }
        if !hit.images.is_empty() {
            value["images"] = serde_json::json!(hit.images);
        }
        value
    };
    serde_json::json!({
        "mode": results.mode,
        "results": results.hits.iter().map(hit).collect::<Vec<_>>(),
        "notices": results.notices,
    })
}

/// Observations found by search, as a model reads them.
pub fn compact_observations(hits: &[ObservationHit]) -> serde_json::Value {
    let hit = |hit: &ObservationHit| {
        let o = &hit.observation;
        serde_json::json!({
            "session": hit.session.to_string(),
            "project": hit.project,
            "at": o.at.to_string(),
            "kind": o.kind,
            "tool": o.tool,
            "input": o.input,
            "output": o.output,
            "files": o.files,
            "error": o.error,
        })
    };
    serde_json::json!({ "observations": hits.iter().map(hit).collect::<Vec<_>>() })
}
