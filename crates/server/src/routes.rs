//! The REST routes under `/v1` (and agentmemory's, from [`crate::agentmemory`]): one table that
//! builds both the router and the OpenAPI document, so a route cannot exist without being
//! documented.
//!
//! Each handler reads a core [`api`](cairn_core::api) input, calls the matching [`Api`](cairn_core::api::Api)
//! operation (the one MCP's tool calls) on tokio's blocking pool (SQLite calls block), and answers with the same JSON documents the CLI's
//! `--format json` prints.

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post, put};
use cairn_core::api::{
    AddInput, AddOutcome, AuditInput, CompareInput, ConflictsInput, ContextInput, DeferredInput,
    ExportInput, FilterInput, Found, ListInput, MemoryDocument, PatchInput, ScanInput, SearchInput,
    SessionSummaryInput, SessionsInput, SlotCreateInput, SlotProjectInput, SlotSettingsInput,
    SlotTarget, SlotTextInput, StoreInput, VerdictInput, VisionEmbedInput, VisionSearchInput,
    attach_images, documents_with_images, hit_document, relation_document, slot_answer,
    slots_answer, write_document,
};
use cairn_core::exchange::ImportReport;
use cairn_core::{Error, IdRef, WriteOutcome, WriteStatus};
use futures_util::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::auth::Authorized;
use crate::error::ApiError;
use crate::handlers::{
    blocking, create_slot, list_slots, slot_response, vision_embed, vision_search,
};
use crate::input::{JsonBody, QueryInput};
use crate::route::{RequestBody, Route};

fn write_response(outcome: &WriteOutcome) -> Response {
    let status = match outcome.status {
        WriteStatus::Created => StatusCode::CREATED,
        _ => StatusCode::OK,
    };
    let body = write_document(outcome);
    (status, Json(body)).into_response()
}

/// Up, and the doctor's quick checks: `status` is `ok` when nothing needs attention, else
/// `degraded` with the findings. The store's location only for a caller who may see the whole
/// store (the local user on loopback, the operator's token).
async fn health(State(state): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    let caller = crate::auth::optional_caller(&state, &headers).await;
    let checked = crate::auth::blocking(state.api.clone(), move |api| {
        api.quick_health(caller.as_ref())
    })
    .await;
    let report = match checked {
        Ok(report) => report,
        Err(error) => return error.into_response(),
    };
    let mut body = json!({
        "status": if report.healthy() { "ok" } else { "degraded" },
        "version": env!("CARGO_PKG_VERSION"),
        "semantic_search": state.api.has_model(),
        "checked": report.checked,
        "findings": report.findings,
    });
    if !report.location.is_empty() {
        body["store"] = json!(report.location);
    }
    Json(body).into_response()
}

async fn create_memory(
    request: Authorized,
    JsonBody(input): JsonBody<StoreInput>,
) -> Result<Response, ApiError> {
    let outcome = blocking(&request, move |api, caller| api.store(caller, input)).await?;
    Ok(write_response(&outcome))
}

async fn add_memory(
    request: Authorized,
    JsonBody(input): JsonBody<AddInput>,
) -> Result<Response, ApiError> {
    let outcome = blocking(&request, move |api, caller| api.add(caller, input)).await?;
    let status = match outcome {
        AddOutcome::Created(_) => StatusCode::CREATED,
        AddOutcome::Duplicate { .. } => StatusCode::OK,
        AddOutcome::Failed { .. } => StatusCode::UNPROCESSABLE_ENTITY,
    };
    Ok((status, Json(outcome)).into_response())
}

async fn list_memories(
    request: Authorized,
    QueryInput(input): QueryInput<ListInput>,
) -> Result<Json<Value>, ApiError> {
    let (listing, images) = blocking(&request, move |api, caller| {
        let listing = api.list(caller, input)?;
        let images = api.images_of(caller, &listing.memories)?;
        Ok((listing, images))
    })
    .await?;
    let memories = documents_with_images(&listing.memories, &images, MemoryDocument::of);
    Ok(Json(json!({"total": listing.total, "memories": memories})))
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetQuery {
    /// Also return the memory's earlier states, oldest first.
    #[serde(default)]
    history: bool,
}

async fn get_memory(
    request: Authorized,
    Path(id): Path<String>,
    QueryInput(query): QueryInput<GetQuery>,
) -> Result<Json<Value>, ApiError> {
    blocking(&request, move |api, caller| {
        let target = IdRef::parse(&id)?;
        if query.history {
            let history = api.history(caller, &target)?;
            return Ok(Json(json!({
                "memory": MemoryDocument::of(&history.memory),
                "revisions": history.revisions,
            })));
        }
        let memory = api.resolve(caller, &target, false)?;
        let mut document = json!(MemoryDocument::of(&memory));
        let shown = std::slice::from_ref(&memory);
        attach_images(&mut document, &memory.id, &api.images_of(caller, shown)?);
        let relations = api.relations_of(caller, shown)?;
        document["relations"] = relations.iter().map(relation_document).collect();
        Ok(Json(document))
    })
    .await
}

async fn patch_memory(
    request: Authorized,
    Path(id): Path<String>,
    JsonBody(input): JsonBody<PatchInput>,
) -> Result<Response, ApiError> {
    let outcome = blocking(&request, move |api, caller| api.update(caller, &id, input)).await?;
    Ok(write_response(&outcome))
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteQuery {
    /// Delete for good, history included, instead of hiding it.
    #[serde(default)]
    purge: bool,
}

async fn delete_memory(
    request: Authorized,
    Path(id): Path<String>,
    QueryInput(query): QueryInput<DeleteQuery>,
) -> Result<Json<Value>, ApiError> {
    let memory = blocking(&request, move |api, caller| {
        api.forget(caller, &id, query.purge)
    })
    .await?;
    let status = if query.purge { "purged" } else { "forgotten" };
    Ok(Json(
        json!({"status": status, "memory": MemoryDocument::of(&memory)}),
    ))
}

async fn restore_memory(
    request: Authorized,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let memory = blocking(&request, move |api, caller| api.restore_memory(caller, &id)).await?;
    Ok(Json(
        json!({"status": "restored", "memory": MemoryDocument::of(&memory)}),
    ))
}

async fn run_search(request: Authorized, input: SearchInput) -> Result<Json<Value>, ApiError> {
    let query = input.query.clone();
    let found = blocking(&request, move |api, caller| api.search(caller, input)).await?;
    Ok(Json(match found {
        Found::Memories(results) => json!({
            "query": query,
            "mode": results.mode,
            "matched_words": results.matched_words,
            "results": results.hits.iter().map(hit_document).collect::<Vec<_>>(),
            "notices": results.notices,
        }),
        Found::Observations(hits) => json!({ "query": query, "observations": hits }),
    }))
}

async fn context_get(
    request: Authorized,
    QueryInput(input): QueryInput<ContextInput>,
) -> Result<Json<Value>, ApiError> {
    let context = blocking(&request, move |api, caller| api.context(caller, input)).await?;
    Ok(Json(json!(context)))
}

async fn context_post(
    request: Authorized,
    JsonBody(input): JsonBody<ContextInput>,
) -> Result<Json<Value>, ApiError> {
    let context = blocking(&request, move |api, caller| api.context(caller, input)).await?;
    Ok(Json(json!(context)))
}

async fn list_sessions(
    request: Authorized,
    QueryInput(input): QueryInput<SessionsInput>,
) -> Result<Json<Value>, ApiError> {
    let sessions = blocking(&request, move |api, caller| api.sessions(caller, input)).await?;
    Ok(Json(json!({ "sessions": sessions })))
}

async fn get_session(
    request: Authorized,
    Path((agent, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let (session, observations) = blocking(&request, move |api, caller| {
        api.session(caller, &agent, &id)
    })
    .await?;
    Ok(Json(
        json!({ "session": session, "observations": observations }),
    ))
}

async fn session_summary(
    request: Authorized,
    JsonBody(input): JsonBody<SessionSummaryInput>,
) -> Result<Response, ApiError> {
    let outcome = blocking(&request, move |api, caller| {
        api.session_summary(caller, input)
    })
    .await?;
    Ok(write_response(&outcome))
}

async fn reflect_session(
    request: Authorized,
    Path((agent, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let reflection = blocking(&request, move |api, caller| {
        api.reflect(caller, &agent, &id)
    })
    .await?;
    Ok(Json(json!(reflection)))
}

async fn get_slot(
    request: Authorized,
    Path(label): Path<String>,
    QueryInput(target): QueryInput<SlotTarget>,
) -> Result<Json<Value>, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.slot(caller, &label, &target)
    })
    .await?;
    Ok(Json(slot_answer(None, &slot)))
}

async fn replace_slot(
    request: Authorized,
    Path(label): Path<String>,
    JsonBody(input): JsonBody<SlotTextInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.replace_slot(caller, &label, &input)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "replaced", &slot))
}

async fn append_slot(
    request: Authorized,
    Path(label): Path<String>,
    JsonBody(input): JsonBody<SlotTextInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.append_slot(caller, &label, &input)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "appended", &slot))
}

async fn configure_slot(
    request: Authorized,
    Path(label): Path<String>,
    JsonBody(input): JsonBody<SlotSettingsInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.configure_slot(caller, &label, &input)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "configured", &slot))
}

async fn delete_slot(
    request: Authorized,
    Path(label): Path<String>,
    QueryInput(target): QueryInput<SlotTarget>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.delete_slot(caller, &label, &target)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "deleted", &slot))
}

async fn reset_slot(
    request: Authorized,
    Path(label): Path<String>,
    QueryInput(input): QueryInput<SlotProjectInput>,
) -> Result<Json<Value>, ApiError> {
    let slots = blocking(&request, move |api, caller| {
        api.reset_slots(caller, Some(&label), &input)
    })
    .await?;
    Ok(Json(slots_answer(&slots)))
}

async fn search_get(
    request: Authorized,
    QueryInput(input): QueryInput<SearchInput>,
) -> Result<Json<Value>, ApiError> {
    run_search(request, input).await
}

async fn search_post(
    request: Authorized,
    JsonBody(input): JsonBody<SearchInput>,
) -> Result<Json<Value>, ApiError> {
    run_search(request, input).await
}

async fn thumbnail(request: Authorized, Path(id): Path<String>) -> Result<Response, ApiError> {
    let png = blocking(&request, move |api, caller| api.thumbnail(caller, &id)).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // An image's id is its content's hash: the same URL always means the same picture.
            (
                header::CACHE_CONTROL,
                "private, max-age=31536000, immutable",
            ),
        ],
        png,
    )
        .into_response())
}

async fn tags(
    request: Authorized,
    QueryInput(input): QueryInput<FilterInput>,
) -> Result<Json<Value>, ApiError> {
    let tags = blocking(&request, move |api, caller| api.tags(caller, input)).await?;
    Ok(Json(json!({"tags": tags})))
}

async fn audit(
    request: Authorized,
    QueryInput(input): QueryInput<AuditInput>,
) -> Result<Json<Value>, ApiError> {
    let entries = blocking(&request, move |api, caller| api.audit(caller, input)).await?;
    Ok(Json(json!({"entries": entries})))
}

async fn stats(request: Authorized) -> Result<Json<Value>, ApiError> {
    let stats = blocking(&request, |api, caller| api.stats(caller)).await?;
    Ok(Json(json!(stats)))
}

/// Streams the export (a header, then every record) as JSON Lines while the store reads them.
async fn export(request: Authorized, QueryInput(input): QueryInput<ExportInput>) -> Response {
    let (lines, mut received) = tokio::sync::mpsc::channel::<Result<Bytes, Error>>(64);
    let Authorized { api, caller } = request;
    tokio::task::spawn_blocking(move || {
        let result = api.export(&caller, input.options(), &mut |line| {
            lines
                .blocking_send(Ok(Bytes::copy_from_slice(line)))
                .map_err(|_| Error::Io(std::io::Error::other("the client went away")))
        });
        if let Err(error) = result {
            let _ = lines.blocking_send(Err(error));
        }
    });
    // An export refused before its header (a token's scope, the store) answers with its own
    // status; after it, the status is sent, and ending the body with an error tells the client
    // the export is incomplete.
    let first = match received.recv().await {
        Some(Err(error)) => return ApiError::from(error).into_response(),
        first => first,
    };
    let rest = tokio_stream::wrappers::ReceiverStream::new(received);
    let lines = futures_util::stream::iter(first)
        .chain(rest)
        .map_err(|error| std::io::Error::other(error.to_string()));
    let body = Body::from_stream(lines);
    ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response()
}

/// Reads JSON Lines as they arrive; all or nothing, like `cairn import`.
async fn import(
    State(state): State<AppState>,
    request: Authorized,
    body: Body,
) -> Result<Json<ImportReport>, ApiError> {
    let limit = state.options.max_import_bytes;
    // A streamed body escapes axum's `DefaultBodyLimit`: count it here.
    let limited = Body::new(http_body_util::Limited::new(body, limit));
    let stream = limited.into_data_stream().map_err(std::io::Error::other);
    let reader = tokio_util::io::StreamReader::new(stream);
    let caller = request.caller.clone();
    let imported = tokio::task::spawn_blocking(move || {
        let bridge = tokio_util::io::SyncIoBridge::new(reader);
        request
            .api
            .import(&caller, &mut std::io::BufReader::new(bridge), &mut |_| {})
    })
    .await
    .map_err(ApiError::internal)?;
    match imported {
        Ok(report) => Ok(Json(report)),
        // The body was cut off (over the limit, or silent too long): the import rolled back.
        Err(Error::Io(io)) if crate::input::timed_out(&io) => Err(ApiError::body_timed_out()),
        Err(Error::Io(io)) if io.to_string().contains("length limit exceeded") => {
            Err(ApiError::from(Error::TooLarge {
                field: "body".into(),
                message: format!(
                    "the import is over the limit of {limit} bytes (server.max_import_bytes); \
                     nothing was imported"
                ),
            }))
        }
        Err(error) => Err(error.into()),
    }
}

async fn list_conflicts(
    request: Authorized,
    QueryInput(input): QueryInput<ConflictsInput>,
) -> Result<Json<Value>, ApiError> {
    let relations = blocking(&request, move |api, caller| api.conflicts(caller, input)).await?;
    let documents: Vec<Value> = relations.iter().map(relation_document).collect();
    Ok(Json(json!({ "conflicts": documents })))
}

async fn conflict_stats(
    request: Authorized,
    QueryInput(input): QueryInput<ConflictsInput>,
) -> Result<Json<Value>, ApiError> {
    let stats = blocking(&request, move |api, caller| {
        api.conflict_stats(caller, &input)
    })
    .await?;
    Ok(Json(json!(stats)))
}

async fn get_conflict(
    request: Authorized,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let relation = blocking(&request, move |api, caller| api.conflict(caller, &id)).await?;
    Ok(Json(json!({ "relation": relation_document(&relation) })))
}

async fn judge_conflict(
    request: Authorized,
    Path(id): Path<String>,
    JsonBody(input): JsonBody<VerdictInput>,
) -> Result<Json<Value>, ApiError> {
    let relation = blocking(&request, move |api, caller| {
        api.judge_id(caller, &id, input)
    })
    .await?;
    Ok(Json(
        json!({ "status": "judged", "relation": relation_document(&relation) }),
    ))
}

async fn compare_memories(
    request: Authorized,
    JsonBody(input): JsonBody<CompareInput>,
) -> Result<Json<Value>, ApiError> {
    let compared = blocking(&request, move |api, caller| api.compare(caller, input)).await?;
    Ok(Json(json!({
        "status": compared.status,
        "relation": compared.relation.as_ref().map(relation_document),
    })))
}

async fn scan_conflicts(
    request: Authorized,
    JsonBody(input): JsonBody<ScanInput>,
) -> Result<Json<Value>, ApiError> {
    let report = blocking(&request, move |api, caller| {
        api.scan_conflicts(caller, input, &mut |_, _| {})
    })
    .await?;
    Ok(Json(json!(report)))
}

async fn list_deferred(
    request: Authorized,
    QueryInput(input): QueryInput<DeferredInput>,
) -> Result<Json<Value>, ApiError> {
    let deferred = blocking(&request, move |api, caller| {
        api.deferred_relations(caller, &input)
    })
    .await?;
    Ok(Json(json!({ "deferred": deferred })))
}

async fn get_deferred(
    request: Authorized,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let deferred = blocking(&request, move |api, caller| {
        api.deferred_relation(caller, &id)
    })
    .await?;
    Ok(Json(json!({ "deferred": deferred })))
}

async fn discard_deferred(
    request: Authorized,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let deferred = blocking(&request, move |api, caller| {
        api.discard_deferred(caller, &id)
    })
    .await?;
    Ok(Json(json!({ "status": "discarded", "deferred": deferred })))
}

async fn replay_deferred(request: Authorized) -> Result<Json<Value>, ApiError> {
    let report = blocking(&request, |api, caller| api.replay_deferred(caller)).await?;
    Ok(Json(json!(report)))
}

async fn openapi() -> Json<Value> {
    Json(crate::openapi::document(&routes()))
}

/// Every REST route: `/v1`'s, then agentmemory's beside them ([`crate::agentmemory`]).
pub fn routes() -> Vec<Route> {
    let mut routes = v1_routes();
    routes.extend(crate::agentmemory::routes());
    routes
}

fn v1_routes() -> Vec<Route> {
    use cairn_core::api::schema;
    vec![
        Route {
            method: Method::GET,
            path: "/v1/conflicts",
            summary: "Relations between memories, most recently changed first: pending judgments (a write's candidates) and settled ones, with both memories' titles.",
            body: RequestBody::None,
            query: Some(schema::<ConflictsInput>),
            success: &[(200, "the relations")],
            authenticated: true,
            handler: get(list_conflicts),
        },
        Route {
            method: Method::GET,
            path: "/v1/conflicts/stats",
            summary: "How many relations there are, pending and judged, and judged ones per relation.",
            body: RequestBody::None,
            query: Some(schema::<ConflictsInput>),
            success: &[(200, "the counts")],
            authenticated: true,
            handler: get(conflict_stats),
        },
        Route {
            method: Method::GET,
            path: "/v1/conflicts/{id}",
            summary: "One relation by judgment id or handle, with its verdict and history.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "the relation")],
            authenticated: true,
            handler: get(get_conflict),
        },
        Route {
            method: Method::POST,
            path: "/v1/conflicts/{id}/judge",
            summary: "Settle a judgment: relation (supersedes, conflicts_with, scoped, compatible, related, not_conflict), reason, evidence, confidence and who judged. A new verdict keeps the earlier one in the history.",
            body: RequestBody::Json(schema::<VerdictInput>),
            query: None,
            success: &[(200, "judged")],
            authenticated: true,
            handler: post(judge_conflict),
        },
        Route {
            method: Method::POST,
            path: "/v1/conflicts/compare",
            summary: "Record a verdict on two memories of one project directly; one relation per pair and judge, not_conflict records nothing.",
            body: RequestBody::Json(schema::<CompareInput>),
            query: None,
            success: &[(200, "created, updated, unchanged or not_recorded")],
            authenticated: true,
            handler: post(compare_memories),
        },
        Route {
            method: Method::POST,
            path: "/v1/conflicts/scan",
            summary: "Walk one project for pairs of memories never checked; with apply, record a pending judgment for the best max_insert of them.",
            body: RequestBody::Json(schema::<ScanInput>),
            query: None,
            success: &[(200, "the pairs found and how many were recorded")],
            authenticated: true,
            handler: post(scan_conflicts),
        },
        Route {
            method: Method::GET,
            path: "/v1/conflicts/deferred",
            summary: "Relations an import kept because a memory of theirs is not in the store yet, the first kept first: status deferred (waiting) or dead (its memories arrived in other projects), limit 1–500. The operator's alone.",
            body: RequestBody::None,
            query: Some(schema::<DeferredInput>),
            success: &[(200, "the deferred relations")],
            authenticated: true,
            handler: get(list_deferred),
        },
        Route {
            method: Method::GET,
            path: "/v1/conflicts/deferred/{id}",
            summary: "One deferred relation by its full judgment id: the relation as imported, why it waits, its tries.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "the deferred relation")],
            authenticated: true,
            handler: get(get_deferred),
        },
        Route {
            method: Method::DELETE,
            path: "/v1/conflicts/deferred/{id}",
            summary: "Drop one deferred relation (waiting or dead) from the queue.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "discarded")],
            authenticated: true,
            handler: delete(discard_deferred),
        },
        Route {
            method: Method::POST,
            path: "/v1/conflicts/deferred/replay",
            summary: "Try every waiting relation again: those whose memories are both here are applied and leave the queue (every import that brings memories does this too).",
            body: RequestBody::None,
            query: None,
            success: &[(200, "how many were tried, applied, still waiting and dead")],
            authenticated: true,
            handler: post(replay_deferred),
        },
        Route {
            method: Method::GET,
            path: "/v1/health",
            summary: "Whether the server runs, its version, and whether semantic search is on. No token needed.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "running")],
            authenticated: false,
            handler: get(health),
        },
        Route {
            method: Method::POST,
            path: "/v1/memories",
            summary: "Store a memory. 201 when created; 200 when it was a duplicate (nothing written) or revised an existing memory through its topic_key.",
            body: RequestBody::Json(schema::<StoreInput>),
            query: None,
            success: &[(201, "created"), (200, "duplicate or updated")],
            authenticated: true,
            handler: post(create_memory),
        },
        Route {
            method: Method::POST,
            path: "/v1/memories/add",
            summary: "The memory_add contract: text (required) and an optional category; the answer's action is created (201; the unit's file when the project keeps markdown files), duplicate (200; nothing written) or failed (422; error, a code such as text_required, with field and message; nothing written). Units are named UNIT:<id>, text of the files outside units RAW:<id>; without a category, the one the wording names, else other.",
            body: RequestBody::Json(schema::<AddInput>),
            query: None,
            success: &[(201, "created"), (200, "duplicate"), (422, "failed")],
            authenticated: true,
            handler: post(add_memory),
        },
        Route {
            method: Method::GET,
            path: "/v1/memories",
            summary: "List memories under filters, newest first by default, each with the images it shows.",
            body: RequestBody::None,
            query: Some(schema::<ListInput>),
            success: &[(200, "a page of memories and the total")],
            authenticated: true,
            handler: get(list_memories),
        },
        Route {
            method: Method::GET,
            path: "/v1/memories/{id}",
            summary: "One memory by full id or short handle, with its images and its relations to other memories (judged or pending); ?history=true answers its earlier states instead.",
            body: RequestBody::None,
            query: Some(schema::<GetQuery>),
            success: &[(200, "the memory")],
            authenticated: true,
            handler: get(get_memory),
        },
        Route {
            method: Method::PATCH,
            path: "/v1/memories/{id}",
            summary: "Change the fields given; the previous state is kept in the history.",
            body: RequestBody::Json(schema::<PatchInput>),
            query: None,
            success: &[(200, "updated or unchanged")],
            authenticated: true,
            handler: patch(patch_memory),
        },
        Route {
            method: Method::DELETE,
            path: "/v1/memories/{id}",
            summary: "Forget a memory (hidden from every read); ?purge=true deletes it for good.",
            body: RequestBody::None,
            query: Some(schema::<DeleteQuery>),
            success: &[(200, "forgotten or purged")],
            authenticated: true,
            handler: delete(delete_memory),
        },
        Route {
            method: Method::POST,
            path: "/v1/memories/{id}/restore",
            summary: "Bring back a forgotten memory as it was (forgotten through cairn, or because its unit was cut from a markdown file). 409 when a live memory now holds its text or topic key.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "restored")],
            authenticated: true,
            handler: post(restore_memory),
        },
        Route {
            method: Method::GET,
            path: "/v1/search",
            summary: "Search by keyword, near-spelling and meaning; list parameters take comma-separated values.",
            body: RequestBody::None,
            query: Some(schema::<SearchInput>),
            success: &[(200, "ranked results")],
            authenticated: true,
            handler: get(search_get),
        },
        Route {
            method: Method::POST,
            path: "/v1/search",
            summary: "The same search with a JSON body.",
            body: RequestBody::Json(schema::<SearchInput>),
            query: None,
            success: &[(200, "ranked results")],
            authenticated: true,
            handler: post(search_post),
        },
        Route {
            method: Method::POST,
            path: "/v1/vision/search",
            summary: "Find images by the words they show (OCR) or their memories say, and by how they look like a query image (image_ref: a stored image's id; image_base64: inline). Copies of one screen come back once.",
            body: RequestBody::Json(schema::<VisionSearchInput>),
            query: None,
            success: &[(
                200,
                "ranked images, each with its signals, read text, memories and copies",
            )],
            authenticated: true,
            handler: post(vision_search),
        },
        Route {
            method: Method::POST,
            path: "/v1/vision/embed",
            summary: "Look at one stored image now (image_ref: its id): hash its look, read its text and make its look and CLIP vectors with the models installed, instead of waiting for the background pass.",
            body: RequestBody::Json(schema::<VisionEmbedInput>),
            query: None,
            success: &[(200, "the image as stored after it, and what was made")],
            authenticated: true,
            handler: post(vision_embed),
        },
        Route {
            method: Method::GET,
            path: "/v1/images/{id}/thumbnail",
            summary: "A stored image's thumbnail: a PNG at most 256 pixels a side (the viewer's gallery).",
            body: RequestBody::None,
            query: None,
            success: &[(200, "the thumbnail (image/png)")],
            authenticated: true,
            handler: get(thumbnail),
        },
        Route {
            method: Method::GET,
            path: "/v1/context",
            summary: "What a new or compacted session should know: decisions, recent sessions and relevant memories, packed into a token budget.",
            body: RequestBody::None,
            query: Some(schema::<ContextInput>),
            success: &[(200, "the context text, its items and token count")],
            authenticated: true,
            handler: get(context_get),
        },
        Route {
            method: Method::POST,
            path: "/v1/context",
            summary: "The same context with a JSON body.",
            body: RequestBody::Json(schema::<ContextInput>),
            query: None,
            success: &[(200, "the context text, its items and token count")],
            authenticated: true,
            handler: post(context_post),
        },
        Route {
            method: Method::GET,
            path: "/v1/sessions",
            summary: "Agent sessions recorded by hooks, the latest active first.",
            body: RequestBody::None,
            query: Some(schema::<SessionsInput>),
            success: &[(200, "sessions")],
            authenticated: true,
            handler: get(list_sessions),
        },
        Route {
            method: Method::GET,
            path: "/v1/sessions/{agent}/{id}",
            summary: "One session with its observations (within the retention period).",
            body: RequestBody::None,
            query: None,
            success: &[(200, "the session and its observations")],
            authenticated: true,
            handler: get(get_session),
        },
        Route {
            method: Method::POST,
            path: "/v1/sessions/summary",
            summary: "Store an agent's own summary of its session (the given session_id, else the project's most recently active session); it is kept over cairn's derived summary.",
            body: RequestBody::Json(schema::<SessionSummaryInput>),
            query: None,
            success: &[(201, "created"), (200, "updated")],
            authenticated: true,
            handler: post(session_summary),
        },
        Route {
            method: Method::POST,
            path: "/v1/sessions/{agent}/{id}/reflect",
            summary: "Write what a recorded session says into its project's slots: TODO/FIXME items into pending_items, its tool, command and error counts into session_patterns, the files it touched into project_context. Cairn does this by itself when a session ends.",
            body: RequestBody::None,
            query: None,
            success: &[(
                200,
                "what was added to, dropped from or skipped in each slot",
            )],
            authenticated: true,
            handler: post(reflect_session),
        },
        Route {
            method: Method::GET,
            path: "/v1/slots",
            summary: "The memory slots of a project (the caller's by default) and the global ones it does not shadow; missing defaults are seeded first.",
            body: RequestBody::None,
            query: Some(schema::<SlotProjectInput>),
            success: &[(200, "slots")],
            authenticated: true,
            handler: get(list_slots),
        },
        Route {
            method: Method::POST,
            path: "/v1/slots",
            summary: "Create a slot. 409 when one with the label exists in that scope; 413 when the content is over the limit.",
            body: RequestBody::Json(schema::<SlotCreateInput>),
            query: None,
            success: &[(201, "created")],
            authenticated: true,
            handler: post(create_slot),
        },
        Route {
            method: Method::GET,
            path: "/v1/slots/{label}",
            summary: "One slot: the project's if it has one, else the global slot of that label (?scope= picks one).",
            body: RequestBody::None,
            query: Some(schema::<SlotTarget>),
            success: &[(200, "the slot")],
            authenticated: true,
            handler: get(get_slot),
        },
        Route {
            method: Method::PUT,
            path: "/v1/slots/{label}",
            summary: "Replace a slot's content. 413 over its limit and 403 for a read-only slot; nothing is written then.",
            body: RequestBody::Json(schema::<SlotTextInput>),
            query: None,
            success: &[(200, "replaced")],
            authenticated: true,
            handler: put(replace_slot),
        },
        Route {
            method: Method::PATCH,
            path: "/v1/slots/{label}",
            summary: "Change a slot's description, limit, pinned or read-only setting (read_only false unlocks it).",
            body: RequestBody::Json(schema::<SlotSettingsInput>),
            query: None,
            success: &[(200, "configured")],
            authenticated: true,
            handler: patch(configure_slot),
        },
        Route {
            method: Method::DELETE,
            path: "/v1/slots/{label}",
            summary: "Delete a slot (403 when read-only). A deleted default stays deleted until reset.",
            body: RequestBody::None,
            query: Some(schema::<SlotTarget>),
            success: &[(200, "deleted")],
            authenticated: true,
            handler: delete(delete_slot),
        },
        Route {
            method: Method::POST,
            path: "/v1/slots/{label}/append",
            summary: "Add lines at the end of a slot. 413 when it would exceed its limit and 403 for a read-only slot; nothing is written then. Parallel appends all land.",
            body: RequestBody::Json(schema::<SlotTextInput>),
            query: None,
            success: &[(200, "appended")],
            authenticated: true,
            handler: post(append_slot),
        },
        Route {
            method: Method::POST,
            path: "/v1/slots/{label}/reset",
            summary: "Put a default slot back as it was seeded: empty, default settings; re-created if it was deleted.",
            body: RequestBody::None,
            query: Some(schema::<SlotProjectInput>),
            success: &[(200, "the slot written")],
            authenticated: true,
            handler: post(reset_slot),
        },
        Route {
            method: Method::GET,
            path: "/v1/tags",
            summary: "Tags in use under filters, most used first.",
            body: RequestBody::None,
            query: Some(schema::<FilterInput>),
            success: &[(200, "tags and their counts")],
            authenticated: true,
            handler: get(tags),
        },
        Route {
            method: Method::GET,
            path: "/v1/audit",
            summary: "The log of changes, newest first: who (a token id, or none for the operator) stored, changed, forgot or purged which memory, judged which pair, edited which slot, issued or revoked which token, when and through which entry point. The operator's alone.",
            body: RequestBody::None,
            query: Some(schema::<AuditInput>),
            success: &[(200, "entries")],
            authenticated: true,
            handler: get(audit),
        },
        Route {
            method: Method::GET,
            path: "/v1/stats",
            summary: "Counts over the whole store.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "counts")],
            authenticated: true,
            handler: get(stats),
        },
        Route {
            method: Method::GET,
            path: "/v1/export",
            summary: "Everything the store holds, streamed as JSON Lines: a header (format, version, counts), then memories with history (forgotten and expired ones too), slots and slot seeds; sessions and observations with sessions=true.",
            body: RequestBody::None,
            query: Some(schema::<ExportInput>),
            success: &[(
                200,
                "application/x-ndjson: a header line, then one record per line",
            )],
            authenticated: true,
            handler: get(export),
        },
        Route {
            method: Method::POST,
            path: "/v1/import",
            summary: "Read an export (any version), plain records ({\"content\": …}, stored like new memories in the server's project) or both, as JSON Lines or one JSON array, streamed; all or nothing, and importing twice changes nothing.",
            body: RequestBody::JsonLines,
            query: None,
            success: &[(
                200,
                "per kind of record, what was created, updated and left unchanged",
            )],
            authenticated: true,
            handler: post(import),
        },
        Route {
            method: Method::GET,
            path: "/v1/openapi.json",
            summary: "This document.",
            body: RequestBody::None,
            query: None,
            success: &[(200, "OpenAPI 3.1")],
            authenticated: false,
            handler: get(openapi),
        },
    ]
}
