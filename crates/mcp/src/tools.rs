//! The memory tools: their names, descriptions written for a model, input schemas, and what each
//! call does.
//!
//! Every tool takes one of core's [`api`](cairn_core::api) input types, so its schema is derived
//! from the same struct the REST API takes and the same conversion turns it into a service
//! request. A call whose arguments do not fit the schema, or that the service refuses, is not a
//! protocol error: it comes back as a tool result marked `isError`, whose text names the field
//! and says how to fix the call, because a model can read that and try again.

use std::sync::Arc;

use cairn_core::Error;
use cairn_core::api::{
    AddInput, Api, Caller, CompactMemory, CompareInput, ConflictsInput, ContextInput, FilterInput,
    ForgetInput, Found, GetInput, JudgeInput, ListInput, SearchInput, SessionSummaryInput,
    SlotCreateInput, SlotEditInput, SlotInput, SlotProjectInput, StoreInput, UpdateInput,
    VisionEmbedInput, VisionSearchInput, compact_observations, compact_search, compact_write,
    documents_with_images, relation_document, slot_answer, slots_answer,
};
use cairn_core::config::ToolProfile;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::arguments::arguments;

/// What a tool does to the store, for the protocol's hints.
#[derive(Clone, Copy)]
enum Effect {
    ReadOnly,
    /// Changes something, and the same call again changes nothing more.
    Idempotent,
    /// Adds; never removes.
    Additive,
    /// Hides or replaces what was there.
    Destructive,
}

/// One tool: how it is described and what it runs.
struct ToolSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    profile: ToolProfile,
    effect: Effect,
    schema: fn() -> JsonObject,
}

const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "memory_store",
        title: "Remember something",
        description: "Save one durable piece of knowledge so later sessions can find it: a \
            decision and its reason, a root cause and its fix, a user preference, a configuration \
            fact, a discovery about the codebase.\n\
            Use it right after you learn something a future session would otherwise have to \
            rediscover, and whenever the user says \"remember\".\n\
            Do not use it for passing chatter, whole files or logs, or secrets (they are \
            redacted). One fact per call. If a memory about the same subject should be revised \
            over time, give it a `topic_key`: storing again with that key updates it.\n\
            Storing the same content twice is harmless (the answer says `duplicate`). When the \
            answer says `judgment_required: true`, its `candidates` are older memories this one \
            may contradict or replace: settle each with memory_judge.\n\
            A screenshot or diagram worth keeping goes in `image` (a data URL or base64 of a \
            PNG, JPEG, GIF or WebP); say what it shows in `content`.\n\
            Example: {\"content\": \"The API rate limit is 600 requests per minute per token; \
            the client retries 429s with backoff\", \"category\": \"fact\", \"tags\": [\"api\", \
            \"rate-limit\"]}",
        profile: ToolProfile::Core,
        effect: Effect::Additive,
        schema: cairn_core::api::schema::<StoreInput>,
    },
    ToolSpec {
        name: "memory_search",
        title: "Search memories",
        description: "Find stored memories by keywords, near-spellings and meaning, best first. \
            Each hit carries its id, a short handle, its content and a score.\n\
            Use it before starting work that may overlap earlier work, when the user refers to \
            something decided or learned before, and before storing (to update instead of \
            duplicating).\n\
            Not for reading a memory whose id you already have: use memory_get.\n\
            The query can be plain words or a question; `\"exact phrase\"`, `prefix*`, `AND`, \
            `OR` and `NOT` work too. Filters narrow the search (project, tags, category, dates).\n\
            Example: {\"query\": \"why did we choose rusqlite\", \"limit\": 5}",
        profile: ToolProfile::Core,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<SearchInput>,
    },
    ToolSpec {
        name: "memory_get",
        title: "Read memories by id",
        description: "Read one or several memories in full by id or short handle (the 8-character \
            `handle` that search and list return).\n\
            Use it when a search hit or a context item looks relevant and you need all of it.\n\
            Not for finding memories: use memory_search.\n\
            Example: {\"ids\": [\"3f9a0c1b\", \"77e2d4aa\"]}",
        profile: ToolProfile::Core,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<GetInput>,
    },
    ToolSpec {
        name: "memory_update",
        title: "Correct a memory",
        description: "Change a stored memory in place; its previous state stays in its history. \
            Only the fields you give change; `tags` replaces every tag; `\"\"` clears `title` or \
            `topic_key`; `expires: \"never\"` removes an expiry.\n\
            Use it when a memory is outdated or partly wrong.\n\
            Not for adding a new fact (use memory_store) or removing one (use memory_forget).\n\
            Example: {\"id\": \"3f9a0c1b\", \"content\": \"The API rate limit is 1,200 requests \
            per minute since the March upgrade\", \"importance\": 4}",
        profile: ToolProfile::Core,
        effect: Effect::Idempotent,
        schema: cairn_core::api::schema::<UpdateInput>,
    },
    ToolSpec {
        name: "memory_forget",
        title: "Forget a memory",
        description: "Hide a memory so it no longer appears in search, get or list.\n\
            Use it when the user asks to forget something, or a memory is plainly false and no \
            correction makes sense.\n\
            Not for a memory that is only partly wrong: use memory_update.\n\
            Example: {\"id\": \"3f9a0c1b\"}",
        profile: ToolProfile::Core,
        effect: Effect::Destructive,
        schema: cairn_core::api::schema::<ForgetInput>,
    },
    ToolSpec {
        name: "memory_context",
        title: "Recover project context",
        description: "Get what this project's memory says matters now: important decisions and \
            preferences, summaries of recent sessions, and the memories most related to what you \
            are doing, packed into a token budget (default 2000). Each item starts with a memory \
            id for memory_get.\n\
            Use it at the start of work, and always after the conversation was compacted or \
            restarted.\n\
            Not for a specific question: use memory_search.\n\
            Example: {\"query\": \"fix the flaky login test\", \"files\": [\"src/login.rs\"], \
            \"budget\": 1500}",
        profile: ToolProfile::Core,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<ContextInput>,
    },
    ToolSpec {
        name: "memory_session_summary",
        title: "Summarise this session",
        description: "Store your summary of this session so the next one can pick up where you \
            stopped: the goal, what you discovered, what you accomplished, the next steps and \
            the files that matter. It replaces the summary cairn derives by itself.\n\
            Use it once before the session ends, or before you hand over.\n\
            Not for single facts: use memory_store.\n\
            Example: {\"goal\": \"Make login retries idempotent\", \"discoveries\": [\"the \
            session cache is shared between tests\"], \"accomplished\": [\"retry keys in \
            src/login.rs\"], \"next_steps\": [\"run the e2e suite\"], \"files\": \
            [\"src/login.rs\"]}",
        profile: ToolProfile::Core,
        effect: Effect::Idempotent,
        schema: cairn_core::api::schema::<SessionSummaryInput>,
    },
    ToolSpec {
        name: "memory_judge",
        title: "Settle a possible conflict",
        description: "Say what a new memory is to an older one that a write flagged. When \
            memory_store or memory_update answers `judgment_required: true`, each of its \
            `candidates` is a stored memory the new one may contradict, refine or replace, with \
            a `judgment_id`; read both, then judge each: `supersedes` (the new one replaces the \
            old; the old is kept as history and ranks below it), `conflicts_with` (they \
            disagree and you cannot tell which holds: ask the user), `scoped` (both hold in \
            different contexts), `compatible`, `related`, or `not_conflict` (unrelated).\n\
            Use it right after the write, with a one-sentence reason and, when you have it, \
            evidence (a commit, a file, what the user said).\n\
            Not for pairs nothing flagged: use memory_compare (extended tools).\n\
            Example: {\"judgment_id\": \"5b1e07c2-…\", \"relation\": \"supersedes\", \
            \"reason\": \"the event store moved to MySQL in March\", \"confidence\": 0.9}",
        profile: ToolProfile::Core,
        effect: Effect::Idempotent,
        schema: cairn_core::api::schema::<JudgeInput>,
    },
    ToolSpec {
        name: "memory_vision_search",
        title: "Find images",
        description: "Find stored images (screenshots, diagrams) by the words they show (their \
            text is read by OCR) or their memories say, by what the words describe (when a CLIP, \
            SigLIP or MobileCLIP model is installed: \"a red error banner\"), and by how they \
            look like a picture you give; copies of one screen come back once. Each hit has the image id, its file and \
            thumbnail, its read text, the signals that found it with scores, the query words \
            found in the image, and the memories that show it.\n\
            Use it to find an earlier screenshot of an error, dialog or page: by its words \
            (`query_text`), or by a picture: a stored image's id (`image_ref`) or one you have \
            (`image_base64`: data URL or base64).\n\
            Not for memories in general: use memory_search (it finds image memories by their \
            text too).\n\
            Example: {\"query_text\": \"connection refused 5432\", \"top_k\": 5}",
        profile: ToolProfile::Core,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<VisionSearchInput>,
    },
    ToolSpec {
        name: "memory_add",
        title: "Add a memory (markdown-first)",
        description: "Add one piece of knowledge as text, optionally with a category \
            (preference, fact, decision, entity, other). In a project that keeps its memories \
            in markdown files the memory becomes a unit of today's file. Answers with `action`: \
            `created` (memoryId `UNIT:<id>`, kind UNIT, RAW or MEMORY, path of the file, \
            category, text), `duplicate` (nothing written; `existing` holds the same text) or \
            `failed` (`error`: a code such as `text_required`; nothing written). Without a \
            category, the one the wording names, else other.\n\
            Use it for a quick fact without tags or titles.\n\
            Not for revising a memory: use memory_update; for tags, title or expiry use \
            memory_store.\n\
            Example: {\"text\": \"The staging database is PostgreSQL 16\", \"category\": \"fact\"}",
        profile: ToolProfile::All,
        effect: Effect::Additive,
        schema: cairn_core::api::schema::<AddInput>,
    },
    ToolSpec {
        name: "memory_vision_embed",
        title: "Look at an image now",
        description: "Look at one stored image now instead of waiting for the background \
            pass: hash its look, read its text (OCR) and make its look and CLIP vectors with \
            the models installed, so memory_vision_search finds it at once. Answers with the \
            image (its id, size and read text) and what was made (`report`: the models and \
            counts; `failures` names a model that failed).\n\
            Use it right after storing a screenshot you will search for in this session.\n\
            Not for storing an image: memory_store takes one.\n\
            Example: {\"image_ref\": \"3f9a0c1b…\"} (the full 64-digit id results give)",
        profile: ToolProfile::All,
        effect: Effect::Idempotent,
        schema: cairn_core::api::schema::<VisionEmbedInput>,
    },
    ToolSpec {
        name: "memory_compare",
        title: "Relate two memories",
        description: "Record what one memory (`a`, the newer) is to another (`b`, the older) \
            of the same project, without a flagged candidate: `supersedes`, `conflicts_with`, \
            `scoped`, `compatible`, `related`; `not_conflict` records nothing. Your verdict on a \
            pair is one record: saying it again changes nothing, saying something else \
            replaces it and keeps the earlier one in its history.\n\
            Use it when you notice two memories disagree or one is outdated.\n\
            Not for a candidate a write reported: use memory_judge with its judgment_id.\n\
            Example: {\"a\": \"77e2d4aa\", \"b\": \"3f9a0c1b\", \"relation\": \
            \"supersedes\", \"reason\": \"staging moved to spot nodes\"}",
        profile: ToolProfile::All,
        effect: Effect::Idempotent,
        schema: cairn_core::api::schema::<CompareInput>,
    },
    ToolSpec {
        name: "memory_conflicts",
        title: "List possible conflicts",
        description: "List relations between memories, most recently changed first: pending \
            judgments waiting for a verdict (`status: pending`) and settled ones, each with \
            both memories' titles.\n\
            Use it to settle what earlier sessions left pending.\n\
            Not for finding memories: use memory_search.\n\
            Example: {\"status\": \"pending\", \"limit\": 10}",
        profile: ToolProfile::All,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<ConflictsInput>,
    },
    ToolSpec {
        name: "memory_list",
        title: "List recent memories",
        description: "List memories without a query, newest first, under optional filters \
            (project, tags, category, dates).\n\
            Use it to browse what is known about a project or tag.\n\
            Not for finding something specific: use memory_search.\n\
            Example: {\"limit\": 10, \"tags\": [\"docker\"]}",
        profile: ToolProfile::All,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<ListInput>,
    },
    ToolSpec {
        name: "memory_tags",
        title: "List tags",
        description: "List the tags in use and how many memories carry each, most used first, \
            under optional filters.\n\
            Use it to pick tags that already exist before storing, or to see what a project's \
            memory covers.\n\
            Example: {\"project\": \"billing-api\"}",
        profile: ToolProfile::All,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<FilterInput>,
    },
    ToolSpec {
        name: "memory_stats",
        title: "Store statistics",
        description: "Count the memories in the store: in total, by project, by category, by \
            agent, and how many wait for an embedding.\n\
            Use it to check that memory works or to report its size.\n\
            Example: {}",
        profile: ToolProfile::All,
        effect: Effect::ReadOnly,
        schema: empty_schema,
    },
    ToolSpec {
        name: "memory_slot_list",
        title: "List memory slots",
        description: "List the memory slots of this project and the global ones: labelled \
            blocks that stay at hand across sessions (persona, user_preferences, \
            tool_guidelines, project_context, guidance, pending_items, session_patterns, \
            self_notes, and any created). Each shows its content, how many characters it holds \
            and its limit, and whether it is pinned (shown at every session start) or \
            read-only.\n\
            Use it to see what the slots hold before editing one.\n\
            Not for searching memories: use memory_search.\n\
            Example: {}",
        profile: ToolProfile::All,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<SlotProjectInput>,
    },
    ToolSpec {
        name: "memory_slot_get",
        title: "Read a memory slot",
        description: "Read one slot by label. The project's slot shadows a global slot of the \
            same label unless `scope` says otherwise.\n\
            Use it to read a slot in full before appending to or rewriting it.\n\
            Not for memories: use memory_get.\n\
            Example: {\"label\": \"pending_items\"}",
        profile: ToolProfile::Core,
        effect: Effect::ReadOnly,
        schema: cairn_core::api::schema::<SlotInput>,
    },
    ToolSpec {
        name: "memory_slot_create",
        title: "Create a memory slot",
        description: "Create a new labelled slot for standing knowledge that should always be at \
            hand, with a size limit (default 2000 characters). A project slot (the default) \
            shadows a global one of the same label.\n\
            Use it for a kind of knowledge no existing slot covers.\n\
            Not for single facts: use memory_store.\n\
            Example: {\"label\": \"api_conventions\", \"content\": \"Errors are RFC 7807 \
            problem documents\", \"pinned\": true}",
        profile: ToolProfile::All,
        effect: Effect::Additive,
        schema: cairn_core::api::schema::<SlotCreateInput>,
    },
    ToolSpec {
        name: "memory_slot_append",
        title: "Add to a memory slot",
        description: "Add lines at the end of a slot. Refused, and nothing written, when the \
            slot would exceed its limit: then condense it with memory_slot_replace.\n\
            Use it to note an open item in pending_items, a user preference in \
            user_preferences, a fact about the project in project_context.\n\
            Not for facts that only matter now and then: use memory_store.\n\
            Example: {\"label\": \"pending_items\", \"content\": \"- retry the flaky e2e \
            test after the fix lands\"}",
        profile: ToolProfile::Core,
        effect: Effect::Additive,
        schema: cairn_core::api::schema::<SlotEditInput>,
    },
    ToolSpec {
        name: "memory_slot_replace",
        title: "Rewrite a memory slot",
        description: "Replace a slot's whole content (an empty text empties it). Refused, and \
            nothing written, over the slot's limit.\n\
            Use it to condense a full slot, or to remove items that are done.\n\
            Not for adding a line: use memory_slot_append.\n\
            Example: {\"label\": \"pending_items\", \"content\": \"- ship 1.4\\n- update \
            the changelog\"}",
        profile: ToolProfile::Core,
        effect: Effect::Destructive,
        schema: cairn_core::api::schema::<SlotEditInput>,
    },
    ToolSpec {
        name: "memory_slot_delete",
        title: "Delete a memory slot",
        description: "Delete a slot and its content. A deleted default slot stays deleted until \
            the user resets it.\n\
            Use it only when the user asks.\n\
            Not for emptying a slot: replace it with \"\".\n\
            Example: {\"label\": \"release_checklist\"}",
        profile: ToolProfile::All,
        effect: Effect::Destructive,
        schema: cairn_core::api::schema::<SlotInput>,
    },
];

fn empty_schema() -> JsonObject {
    match json!({"type": "object", "properties": {}, "additionalProperties": false}) {
        Value::Object(object) => object,
        _ => unreachable!("a literal object"),
    }
}

/// The tools of `profile`, in a stable order.
pub fn tools(profile: ToolProfile) -> Vec<Tool> {
    if profile == ToolProfile::Engram {
        return crate::engram::TOOLS
            .iter()
            .map(|tool| {
                let annotations = match tool.read_only {
                    true => ToolAnnotations::new().read_only(true),
                    false => ToolAnnotations::new()
                        .read_only(false)
                        .destructive(false)
                        .idempotent(false),
                };
                Tool::new(tool.name, tool.description, Arc::new((tool.schema)()))
                    .annotate(annotations.open_world(false))
            })
            .collect();
    }
    TOOLS
        .iter()
        .filter(|spec| profile == ToolProfile::All || spec.profile == ToolProfile::Core)
        .map(|spec| {
            let annotations = match spec.effect {
                Effect::ReadOnly => ToolAnnotations::new().read_only(true),
                Effect::Idempotent => ToolAnnotations::new()
                    .read_only(false)
                    .destructive(false)
                    .idempotent(true),
                Effect::Additive => ToolAnnotations::new()
                    .read_only(false)
                    .destructive(false)
                    .idempotent(false),
                Effect::Destructive => ToolAnnotations::new()
                    .read_only(false)
                    .destructive(true)
                    .idempotent(true),
            };
            Tool::new(spec.name, spec.description, Arc::new((spec.schema)()))
                .with_title(spec.title)
                .annotate(annotations.open_world(false))
        })
        .collect()
}

/// Whether `name` is a tool of `profile`.
pub fn offers(profile: ToolProfile, name: &str) -> bool {
    if profile == ToolProfile::Engram {
        return crate::engram::offers(name);
    }
    TOOLS.iter().any(|spec| {
        spec.name == name && (profile == ToolProfile::All || spec.profile == ToolProfile::Core)
    })
}

fn compact(memories: &[cairn_core::Memory]) -> Vec<CompactMemory<'_>> {
    memories.iter().map(CompactMemory::of).collect()
}

/// Runs tool `name` (which must be offered) with `args`. Blocking: call it off the async
/// runtime.
pub fn call(api: &Api, caller: &Caller, name: &str, args: JsonObject) -> Result<Value, Error> {
    match name {
        "memory_store" => Ok(compact_write(&api.store(caller, arguments(args)?)?)),
        "memory_search" => Ok(match api.search(caller, arguments(args)?)? {
            Found::Memories(results) => compact_search(&results),
            Found::Observations(hits) => compact_observations(&hits),
        }),
        "memory_context" => {
            let context = api.context(caller, arguments(args)?)?;
            Ok(json!({
                "context": context.text,
                "tokens": context.tokens,
                "budget": context.budget,
                "ids": context.items.iter().map(|i| i.id.to_string()).collect::<Vec<_>>(),
            }))
        }
        "memory_session_summary" => Ok(compact_write(
            &api.session_summary(caller, arguments(args)?)?,
        )),
        "memory_get" => {
            let memories = api.get(caller, &arguments(args)?)?;
            let images = api.images_of(caller, &memories)?;
            let documents = documents_with_images(&memories, &images, CompactMemory::of);
            Ok(json!({"memories": documents}))
        }
        "memory_update" => {
            let input: UpdateInput = arguments(args)?;
            Ok(compact_write(&api.update(
                caller,
                &input.id,
                input.patch,
            )?))
        }
        "memory_forget" => {
            let input: ForgetInput = arguments(args)?;
            let memory = api.forget(caller, &input.id, false)?;
            Ok(json!({"status": "forgotten", "memory": CompactMemory::of(&memory)}))
        }
        "memory_judge" => {
            let relation = api.judge(caller, arguments(args)?)?;
            Ok(json!({"status": "judged", "relation": relation_document(&relation)}))
        }
        "memory_add" => {
            let outcome = api.add(caller, arguments(args)?)?;
            Ok(serde_json::to_value(outcome).expect("an add outcome serialises"))
        }
        "memory_compare" => {
            let compared = api.compare(caller, arguments(args)?)?;
            Ok(json!({
                "status": compared.status,
                "relation": compared.relation.as_ref().map(relation_document),
            }))
        }
        "memory_conflicts" => {
            let relations = api.conflicts(caller, arguments(args)?)?;
            let documents: Vec<Value> = relations.iter().map(relation_document).collect();
            Ok(json!({"conflicts": documents}))
        }
        "memory_list" => {
            let listing = api.list(caller, arguments(args)?)?;
            Ok(json!({"total": listing.total, "memories": compact(&listing.memories)}))
        }
        "memory_vision_search" => Ok(json!(api.vision_search(caller, arguments(args)?)?)),
        "memory_vision_embed" => Ok(json!(api.embed_image(caller, arguments(args)?)?)),
        "memory_tags" => Ok(json!({"tags": api.tags(caller, arguments(args)?)?})),
        "memory_stats" => {
            if let Some(name) = args.keys().next() {
                return Err(Error::invalid(
                    "arguments",
                    format!("memory_stats takes no arguments; '{name}' is not one"),
                ));
            }
            Ok(serde_json::to_value(api.stats(caller)?).expect("stats serialise"))
        }
        "memory_slot_list" => {
            let slots = api.slots(caller, &arguments(args)?)?;
            Ok(slots_answer(&slots))
        }
        "memory_slot_get" => {
            let input: SlotInput = arguments(args)?;
            let slot = api.slot(caller, &input.label, &input.target)?;
            Ok(slot_answer(None, &slot))
        }
        "memory_slot_create" => {
            let slot = api.create_slot(caller, arguments(args)?)?;
            Ok(slot_answer(Some("created"), &slot))
        }
        "memory_slot_append" => {
            let input: SlotEditInput = arguments(args)?;
            let slot = api.append_slot(caller, &input.label, &input.text)?;
            Ok(slot_answer(Some("appended"), &slot))
        }
        "memory_slot_replace" => {
            let input: SlotEditInput = arguments(args)?;
            let slot = api.replace_slot(caller, &input.label, &input.text)?;
            Ok(slot_answer(Some("replaced"), &slot))
        }
        "memory_slot_delete" => {
            let input: SlotInput = arguments(args)?;
            let slot = api.delete_slot(caller, &input.label, &input.target)?;
            Ok(slot_answer(Some("deleted"), &slot))
        }
        engram if crate::engram::offers(engram) => crate::engram::call(api, caller, engram, args),
        other => Err(Error::invalid("name", format!("no tool named '{other}'"))),
    }
}
