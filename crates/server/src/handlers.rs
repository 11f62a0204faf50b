//! Handlers more than one table of routes uses: `/v1`'s ([`crate::routes`]) and
//! agentmemory's ([`crate::agentmemory`]) — the same input, the same `Api` operation, the same
//! answer.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cairn_core::Error;
use cairn_core::api::{
    Api, Caller, SlotCreateInput, SlotProjectInput, VisionEmbedInput, VisionSearchInput,
    slot_answer, slots_answer,
};
use serde_json::{Value, json};

use crate::auth::Authorized;
use crate::error::ApiError;
use crate::input::{JsonBody, QueryInput};

/// Runs blocking work against the API for the request's caller (the service blocks on its
/// store).
pub(crate) async fn blocking<T: Send + 'static>(
    request: &Authorized,
    work: impl FnOnce(&Api, &Caller) -> Result<T, Error> + Send + 'static,
) -> Result<T, ApiError> {
    let caller = request.caller.clone();
    crate::auth::blocking(request.api.clone(), move |api| work(api, &caller)).await
}

pub(crate) fn slot_response(
    status: StatusCode,
    verb: &str,
    slot: &cairn_core::slot::Slot,
) -> Response {
    (status, Json(slot_answer(Some(verb), slot))).into_response()
}

pub(crate) async fn list_slots(
    request: Authorized,
    QueryInput(input): QueryInput<SlotProjectInput>,
) -> Result<Json<Value>, ApiError> {
    let slots = blocking(&request, move |api, caller| api.slots(caller, &input)).await?;
    Ok(Json(slots_answer(&slots)))
}

pub(crate) async fn create_slot(
    request: Authorized,
    JsonBody(input): JsonBody<SlotCreateInput>,
) -> Result<Response, ApiError> {
    let slot = blocking(&request, move |api, caller| api.create_slot(caller, input)).await?;
    Ok(slot_response(StatusCode::CREATED, "created", &slot))
}

pub(crate) async fn vision_embed(
    request: Authorized,
    JsonBody(input): JsonBody<VisionEmbedInput>,
) -> Result<Json<Value>, ApiError> {
    let looked = blocking(&request, move |api, caller| api.embed_image(caller, input)).await?;
    Ok(Json(json!(looked)))
}

pub(crate) async fn vision_search(
    request: Authorized,
    JsonBody(input): JsonBody<VisionSearchInput>,
) -> Result<Json<Value>, ApiError> {
    let found = blocking(&request, move |api, caller| {
        api.vision_search(caller, input)
    })
    .await?;
    Ok(Json(json!(found)))
}
