//! JSON output: stable shapes for scripts. One document per command, newline-terminated.

use cairn_core::Memory;
use cairn_core::api::{
    MemoryDocument, attach_images, documents_with_images, hit_document, relation_document,
    slot_answer, slots_answer, write_document,
};

use super::relations::lines_of;
use serde_json::{Value, json};

use super::{
    DeferredView, FilesView, ImageView, RelationsView, SessionView, SlotView, TokenView, View,
};

fn memory(m: &Memory) -> Value {
    serde_json::to_value(MemoryDocument::of(m)).expect("memories serialise")
}

fn memories(list: &[Memory]) -> Value {
    Value::Array(list.iter().map(memory).collect())
}

pub fn render(view: &View<'_>) -> String {
    let value = match view {
        View::Write(outcome) => write_document(outcome),
        View::Memories {
            memories: list,
            relations,
            images,
        } => Value::Array(
            list.iter()
                .map(|m| {
                    let mut value = memory(m);
                    value["annotations"] = json!(lines_of(m, relations));
                    attach_images(&mut value, &m.id, images);
                    value
                })
                .collect(),
        ),
        View::Health(report) => json!(report),
        View::Histories(list) => Value::Array(
            list.iter()
                .map(|h| json!({ "memory": memory(&h.memory), "revisions": h.revisions }))
                .collect(),
        ),
        View::Listing {
            memories: list,
            total,
            images,
        } => {
            json!({ "total": total, "memories": documents_with_images(list, images, memory) })
        }
        View::Search {
            query,
            results,
            budget,
            ..
        } => {
            let items: Vec<Value> = results.hits.iter().map(hit_document).collect();
            let texts: Vec<String> = items.iter().map(Value::to_string).collect();
            let keep = budget.map_or(items.len(), |b| cairn_core::tokens::fit(&texts, b));
            json!({
                "query": query,
                "mode": results.mode,
                "matched_words": results.matched_words,
                "results": items[..keep],
                "left_out_for_budget": items.len() - keep,
            })
        }
        View::Forgotten { memory: m, purged } => json!({
            "status": if *purged { "purged" } else { "forgotten" },
            "memory": memory(m),
        }),
        View::Unforgotten(m) => json!({"status": "restored", "memory": memory(m)}),
        View::Prune(report) => json!({
            "deleted": report.deleted,
            "rule": report.rule,
            "count": report.memories.len(),
            "memories": memories(&report.memories),
        }),
        View::Stats {
            stats,
            location,
            tags,
            agents,
            images,
        } => {
            let mut value = serde_json::to_value(stats).expect("stats serialise");
            value["location"] = json!(location);
            value["images"] = json!(images);
            if let Some(tags) = tags {
                value["top_tags"] = json!(tags);
            }
            if !agents {
                value
                    .as_object_mut()
                    .expect("stats are an object")
                    .remove("by_agent");
            }
            value
        }
        View::Tags(tags) => json!(tags),
        View::Imported(report) => json!(report),
        View::Migrated(report) => json!({ "verified": report.verified(), "report": report }),
        View::Exported { counts, to } => json!({ "exported": counts, "to": to }),
        View::BackedUp { file } => json!({ "backup": file }),
        View::Restored { from, previous } => json!({ "restored": from, "previous": previous }),
        View::Model(model) => json!(model),
        View::Embedded(report) => json!(report),
        View::VectorIndex(report) => json!({ "vector_index": report }),
        View::Session(view) => sessions(view),
        View::Slot(view) => slots(view),
        View::Relation(view) => relations(view),
        View::Files(view) => files(view),
        View::Image(view) => vision(view),
        View::Token(view) => tokens(view),
        View::Audit(entries) => json!({ "entries": entries }),
    };
    let mut text = serde_json::to_string_pretty(&value).expect("values serialise");
    text.push('\n');
    text
}

fn sessions(view: &SessionView<'_>) -> Value {
    match view {
        SessionView::Context(context) => json!(context),
        SessionView::Sessions(sessions) => json!(sessions),
        SessionView::HistoryImported(report) => json!(report),
        SessionView::Session {
            session,
            observations,
        } => json!({ "session": session, "observations": observations }),
        SessionView::Observations(hits) => json!(hits),
        SessionView::Extracted(outcomes) => Value::Array(
            outcomes
                .iter()
                .map(|o| json!({ "status": o.status, "memory": memory(&o.memory) }))
                .collect(),
        ),
    }
}

fn slots(view: &SlotView<'_>) -> Value {
    match view {
        SlotView::Slots(slots) | SlotView::SlotsReset(slots) => slots_answer(slots),
        SlotView::Slot { status, slot } => slot_answer(*status, slot),
        SlotView::Reflection(reflection) => json!(reflection),
    }
}

fn relations(view: &RelationsView<'_>) -> Value {
    match view {
        RelationsView::Relations(list) => {
            json!({ "conflicts": list.iter().map(relation_document).collect::<Vec<_>>() })
        }
        RelationsView::Relation { status, relation } => match status {
            Some(status) => json!({ "status": status, "relation": relation_document(relation) }),
            None => json!({ "relation": relation_document(relation) }),
        },
        RelationsView::RelationStats(stats) => json!(stats),
        RelationsView::Compared(compared) => json!({
            "status": compared.status,
            "relation": compared.relation.as_ref().map(relation_document),
        }),
        RelationsView::Scan(report) => json!(report),
        RelationsView::Deferred(view) => match view {
            DeferredView::List(list) => json!({ "deferred": list }),
            DeferredView::One { status, deferred } => match status {
                Some(status) => json!({ "status": status, "deferred": deferred }),
                None => json!({ "deferred": deferred }),
            },
            DeferredView::Replay(report) => json!(report),
        },
    }
}

fn files(view: &FilesView<'_>) -> Value {
    match view {
        FilesView::Added(outcome) => json!(outcome),
        FilesView::FilesSynced(reports) => json!(reports),
        FilesView::FilesExported(export) => json!(export),
        FilesView::Workspaces(workspaces) => json!(
            workspaces
                .iter()
                .map(|w| json!({
                    "project": w.project,
                    "directory": w.directory(),
                    "created_at": w.created_at,
                }))
                .collect::<Vec<_>>()
        ),
    }
}

fn vision(view: &ImageView<'_>) -> Value {
    match view {
        ImageView::Vision(found) => json!(found),
        ImageView::ImagesRead(report) => json!(report),
        ImageView::ImageLooked(looked) => json!(looked),
    }
}

fn tokens(view: &TokenView<'_>) -> Value {
    match view {
        TokenView::TokenIssued(issued) => json!(issued),
        TokenView::Tokens(tokens) => json!({ "tokens": tokens }),
        TokenView::TokenRevoked(token) => json!({ "status": "revoked", "token": token }),
    }
}
