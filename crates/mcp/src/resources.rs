//! Memories as MCP resources: `cairn://memory/{id}`.
//!
//! A client that prefers resources to tools can list the most recently updated memories of the
//! caller's scope and read any memory by id or short handle. A read returns the memory as JSON
//! (every stored field plus its handle), the same document the REST API returns.

use cairn_core::api::{Api, Caller, ListInput, MemoryDocument, OrderInput, SortInput};
use cairn_core::{Error, IdRef};
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

/// The URI scheme and path of a memory resource.
pub const PREFIX: &str = "cairn://memory/";
/// How many memories `resources/list` names.
pub const LISTED: usize = 50;

/// The template clients fill in with an id or handle.
pub fn template() -> ResourceTemplate {
    ResourceTemplate::new(format!("{PREFIX}{{id}}"), "memory")
        .with_title("A cairn memory")
        .with_description("One memory by full id or short handle, as JSON")
        .with_mime_type("application/json")
}

/// The most recently updated memories the caller can see.
pub fn recent(api: &Api, caller: &Caller) -> Result<Vec<Resource>, Error> {
    let input = ListInput {
        sort: SortInput::Updated,
        order: OrderInput::Desc,
        limit: Some(LISTED),
        ..ListInput::default()
    };
    Ok(api
        .list(caller, input)?
        .memories
        .iter()
        .map(|memory| {
            let name = memory.title.clone().unwrap_or_else(|| {
                let mut line: String = memory.content.lines().next().unwrap_or("").into();
                if line.chars().count() > 60 {
                    line = line.chars().take(59).collect::<String>() + "…";
                }
                line
            });
            Resource::new(format!("{PREFIX}{}", memory.id), name)
                .with_description(format!(
                    "{} memory, {}",
                    memory.category,
                    memory.id.handle()
                ))
                .with_mime_type("application/json")
        })
        .collect())
}

/// Reads `cairn://memory/{id}`.
pub fn read(api: &Api, caller: &Caller, uri: &str) -> Result<ReadResourceResult, Error> {
    let id = uri.strip_prefix(PREFIX).ok_or_else(|| {
        Error::invalid(
            "uri",
            format!("'{uri}' is not a memory; use {PREFIX}{{id}}"),
        )
    })?;
    let memory = api.resolve(caller, &IdRef::parse(id)?, false)?;
    let text = serde_json::to_string(&MemoryDocument::of(&memory)).expect("memories serialise");
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json"),
    ]))
}
