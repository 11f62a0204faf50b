//! agentmemory's REST routes, mounted beside `/v1` with the same auth: a client written for
//! agentmemory (its vision search and its memory slots) talks to cairn unchanged.
//!
//! Each route reads the same core input as its `/v1` twin (agentmemory's camelCase names —
//! `queryText`, `topK`, `sessionId`, `sizeLimit`, `readOnly` — are aliases on those inputs, and
//! a slot's label travels in the query or the body, where agentmemory puts it) and calls the
//! same `Api` operation, answering with the same documents. Nothing here decides anything.
//!
//! | agentmemory | cairn |
//! | --- | --- |
//! | `POST /agentmemory/vision-search` | `POST /v1/vision/search` |
//! | `POST /agentmemory/vision-embed` `{imageRef}` | `POST /v1/vision/embed` |
//! | `GET /agentmemory/slots` | `GET /v1/slots` |
//! | `GET /agentmemory/slot?label=` | `GET /v1/slots/{label}` |
//! | `POST /agentmemory/slot` | `POST /v1/slots` (pinned unless `pinned: false`) |
//! | `POST /agentmemory/slot/append` `{label, text}` | `POST /v1/slots/{label}/append` |
//! | `POST /agentmemory/slot/replace` `{label, content}` | `PUT /v1/slots/{label}` |
//! | `DELETE /agentmemory/slot?label=` | `DELETE /v1/slots/{label}` |
//! | `POST /agentmemory/slot/reflect` `{sessionId}` | `POST /v1/sessions/{agent}/{id}/reflect` |

use axum::Json;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{delete, get, post};
use cairn_core::api::{
    ReflectInput, SlotCreateInput, SlotEditInput, SlotInput, SlotProjectInput, VisionEmbedInput,
    VisionSearchInput, slot_answer,
};
use serde_json::{Value, json};

use crate::auth::Authorized;
use crate::error::ApiError;
use crate::handlers::{
    blocking, create_slot, list_slots, slot_response, vision_embed, vision_search,
};
use crate::input::{JsonBody, QueryInput};
use crate::route::{RequestBody, Route};

async fn get_slot(
    request: Authorized,
    QueryInput(input): QueryInput<SlotInput>,
) -> Result<Json<Value>, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.slot(caller, &input.label, &input.target)
    })
    .await?;
    Ok(Json(slot_answer(None, &slot)))
}

async fn append_slot(
    request: Authorized,
    JsonBody(input): JsonBody<SlotEditInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.append_slot(caller, &input.label, &input.text)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "appended", &slot))
}

async fn replace_slot(
    request: Authorized,
    JsonBody(input): JsonBody<SlotEditInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.replace_slot(caller, &input.label, &input.text)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "replaced", &slot))
}

async fn reflect_slots(
    request: Authorized,
    JsonBody(input): JsonBody<ReflectInput>,
) -> Result<Json<Value>, ApiError> {
    let reflection = blocking(&request, move |api, caller| {
        api.reflect_named(caller, input)
    })
    .await?;
    Ok(Json(json!(reflection)))
}

async fn delete_slot(
    request: Authorized,
    QueryInput(input): QueryInput<SlotInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| {
        api.delete_slot(caller, &input.label, &input.target)
    })
    .await?;
    Ok(slot_response(StatusCode::OK, "deleted", &slot))
}

/// agentmemory's routes, as entries of the one route table (so the OpenAPI document lists
/// them too).
pub fn routes() -> Vec<Route> {
    use cairn_core::api::schema;
    vec![
        Route {
            method: Method::POST,
            path: "/agentmemory/vision-search",
            summary: "agentmemory's vision search (queryText, queryImageRef, queryImageBase64, topK, sessionId): POST /v1/vision/search.",
            body: RequestBody::Json(schema::<VisionSearchInput>),
            query: None,
            success: &[(200, "ranked images, as /v1/vision/search answers")],
            authenticated: true,
            handler: post(vision_search),
        },
        Route {
            method: Method::POST,
            path: "/agentmemory/vision-embed",
            summary: "agentmemory's vision embed (imageRef, sessionId, observationId): POST /v1/vision/embed.",
            body: RequestBody::Json(schema::<VisionEmbedInput>),
            query: None,
            success: &[(
                200,
                "the image and what was made, as /v1/vision/embed answers",
            )],
            authenticated: true,
            handler: post(vision_embed),
        },
        Route {
            method: Method::GET,
            path: "/agentmemory/slots",
            summary: "agentmemory's slot list: GET /v1/slots.",
            body: RequestBody::None,
            query: Some(schema::<SlotProjectInput>),
            success: &[(200, "slots")],
            authenticated: true,
            handler: get(list_slots),
        },
        Route {
            method: Method::GET,
            path: "/agentmemory/slot",
            summary: "agentmemory's slot read (?label=): GET /v1/slots/{label}.",
            body: RequestBody::None,
            query: Some(schema::<SlotInput>),
            success: &[(200, "the slot")],
            authenticated: true,
            handler: get(get_slot),
        },
        Route {
            method: Method::POST,
            path: "/agentmemory/slot",
            summary: "agentmemory's slot create (label, content, description, sizeLimit, pinned, readOnly, scope; pinned unless pinned is false): POST /v1/slots.",
            body: RequestBody::Json(schema::<SlotCreateInput>),
            query: None,
            success: &[(201, "created")],
            authenticated: true,
            handler: post(create_slot),
        },
        Route {
            method: Method::DELETE,
            path: "/agentmemory/slot",
            summary: "agentmemory's slot delete (?label=): DELETE /v1/slots/{label}.",
            body: RequestBody::None,
            query: Some(schema::<SlotInput>),
            success: &[(200, "deleted")],
            authenticated: true,
            handler: delete(delete_slot),
        },
        Route {
            method: Method::POST,
            path: "/agentmemory/slot/append",
            summary: "agentmemory's slot append ({label, text}): POST /v1/slots/{label}/append.",
            body: RequestBody::Json(schema::<SlotEditInput>),
            query: None,
            success: &[(200, "appended")],
            authenticated: true,
            handler: post(append_slot),
        },
        Route {
            method: Method::POST,
            path: "/agentmemory/slot/replace",
            summary: "agentmemory's slot replace ({label, content}): PUT /v1/slots/{label}.",
            body: RequestBody::Json(schema::<SlotEditInput>),
            query: None,
            success: &[(200, "replaced")],
            authenticated: true,
            handler: post(replace_slot),
        },
        Route {
            method: Method::POST,
            path: "/agentmemory/slot/reflect",
            summary: "agentmemory's slot reflection ({sessionId}: AGENT/ID or an id one agent's session has; maxObservations taken and left): POST /v1/sessions/{agent}/{id}/reflect.",
            body: RequestBody::Json(schema::<ReflectInput>),
            query: None,
            success: &[(200, "what the session wrote into its project's slots")],
            authenticated: true,
            handler: post(reflect_slots),
        },
    ]
}
