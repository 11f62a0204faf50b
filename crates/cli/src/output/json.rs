//! JSON output: stable shapes for scripts. One document per command, newline-terminated.

use cairn_core::Memory;
use cairn_core::api::{
    MemoryDocument, attach_images, documents_with_images, hit_document, relation_document,
    slot_answer, slots_answer, write_document,
};

use super::relations::lines_of;
use serde_json::{Value, json};

use super::View;

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
        View::Relations(list) => {
            json!({ "conflicts": list.iter().map(relation_document).collect::<Vec<_>>() })
        }
        View::Relation { status, relation } => match status {
            Some(status) => json!({ "status": status, "relation": relation_document(relation) }),
            None => json!({ "relation": relation_document(relation) }),
        },
        View::RelationStats(stats) => json!(stats),
        View::Compared(compared) => json!({
            "status": compared.status,
            "relation": compared.relation.as_ref().map(relation_document),
        }),
        View::Scan(report) => json!(report),
        View::Added(outcome) => json!(outcome),
        View::FilesSynced(reports) => json!(reports),
        View::Health(report) => json!(report),
        View::FilesExported(export) => json!(export),
        View::Workspaces(workspaces) => json!(
            workspaces
                .iter()
                .map(|w| json!({
                    "project": w.project,
                    "directory": w.directory(),
                    "created_at": w.created_at,
                }))
                .collect::<Vec<_>>()
        ),
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
        View::Context(context) => json!(context),
        View::Sessions(sessions) => json!(sessions),
        View::HistoryImported(report) => json!(report),
        View::Session {
            session,
            observations,
        } => json!({ "session": session, "observations": observations }),
        View::Observations(hits) => json!(hits),
        View::Vision(found) => json!(found),
        View::ImagesRead(report) => json!(report),
        View::Extracted(outcomes) => Value::Array(
            outcomes
                .iter()
                .map(|o| json!({ "status": o.status, "memory": memory(&o.memory) }))
                .collect(),
        ),
        View::Slots(slots) | View::SlotsReset(slots) => slots_answer(slots),
        View::Slot { status, slot } => slot_answer(*status, slot),
        View::Reflection(reflection) => json!(reflection),
        View::TokenIssued(issued) => json!(issued),
        View::Tokens(tokens) => json!({ "tokens": tokens }),
        View::TokenRevoked(token) => json!({ "status": "revoked", "token": token }),
    };
    let mut text = serde_json::to_string_pretty(&value).expect("values serialise");
    text.push('\n');
    text
}
