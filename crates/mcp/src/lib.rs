//! cairn's Model Context Protocol server.
//!
//! [`CairnMcp`] is one MCP server over core's [`Api`]: it offers the memory tools of its
//! [`ToolProfile`] (see [`tools`]; `engram` offers engram's tool names instead, see [`engram`])
//! and every memory as a resource `cairn://memory/{id}` (see
//! [`resources`]). It speaks stdio for an agent that starts `cairn mcp` itself
//! ([`serve_stdio`]), and streamable HTTP for `cairn serve`, which mounts [`http_service`] at
//! `/mcp`.
//!
//! Over HTTP, each request carries its own [`Caller`] — the server's auth layer decides it from
//! the request's token and puts it in the request's extensions — so one MCP session's calls
//! are checked with the token each call presented; over stdio the context's caller (the local
//! user, full access) is used.
//!
//! Nothing here decides anything about memories. A tool call parses its arguments into one of
//! core's [`api`](cairn_core::api) inputs, calls the matching [`Api`] operation on a blocking
//! thread (SQLite calls block), and returns compact JSON. The service's errors become tool results marked
//! `isError`; only a call to a tool that does not exist is a protocol error. All MCP types stay
//! inside this crate.

mod arguments;
pub mod engram;
pub mod resources;
pub mod stdio;
pub mod tools;

use std::sync::Arc;

use cairn_core::Error;
use cairn_core::api::{Api, Caller};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

pub use cairn_core::config::ToolProfile;

/// What the server tells a client about itself on connecting.
const INSTRUCTIONS: &str = "cairn is this user's persistent memory across coding sessions. \
Search it (memory_search) before work that may overlap earlier work; store (memory_store) \
decisions, root causes, preferences and discoveries as you make them, one fact per call; \
correct (memory_update) rather than duplicate. After a compaction or restart, recover with \
memory_context; before the session ends, record memory_session_summary. Screenshots are \
found by the words they show or by a picture (memory_vision_search).";

/// Everything a tool call needs, shared by every connection.
#[derive(Clone)]
pub struct McpContext {
    pub api: Api,
    /// The caller over stdio. Over HTTP each request's own caller is used instead (see the
    /// crate's documentation).
    pub caller: Caller,
    pub profile: ToolProfile,
}

/// One MCP server session.
#[derive(Clone)]
pub struct CairnMcp {
    context: McpContext,
}

impl CairnMcp {
    pub fn new(context: McpContext) -> Self {
        CairnMcp { context }
    }

    /// Who is calling: over HTTP, the caller the server's auth layer attached to this request
    /// (a request without one is refused, never served as the context's caller); over stdio,
    /// the context's.
    fn caller(&self, request: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
        match request.extensions.get::<http::request::Parts>() {
            None => Ok(self.context.caller.clone()),
            Some(parts) => match parts.extensions.get::<Caller>() {
                // The request's access and project; the source stays MCP's.
                Some(caller) => Ok(Caller {
                    source: self.context.caller.source,
                    ..caller.clone()
                }),
                None => Err(ErrorData::internal_error(
                    "this MCP endpoint is served without cairn's auth layer; nothing was done",
                    None,
                )),
            },
        }
    }

    /// Runs a blocking piece of work against the service on tokio's blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&McpContext) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let context = self.context.clone();
        tokio::task::spawn_blocking(move || work(&context))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }
}

/// A tool failure as a model should read it: what was wrong and how to fix the call.
fn tool_error(error: &Error) -> CallToolResult {
    let hint = match error {
        Error::Invalid { .. } | Error::TooLarge { .. } => " Fix that argument and call again.",
        Error::NotFound { .. } => " Search for it (memory_search) to find its current id.",
        Error::AmbiguousHandle { .. } => " Give more characters of the id.",
        Error::Missing { field, .. } if field == "label" => {
            " memory_slot_list shows the slots there are."
        }
        Error::Conflict { .. } => " Change the existing one with memory_slot_replace instead.",
        Error::ReadOnly { .. } => " Leave it as it is; only the user can unlock it.",
        Error::Unavailable { .. } => " Use mode lexical meanwhile.",
        Error::Busy { .. } => " Call again in a moment.",
        Error::Forbidden { .. } => " Stay within the project this server's token is for.",
        _ => "",
    };
    CallToolResult::error(vec![ContentBlock::text(format!("{error}.{hint}"))])
}

impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("cairn", env!("CARGO_PKG_VERSION"))
                    .with_title("cairn memory")
                    .with_description("Persistent, local-first memory for coding agents"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::tools(
            self.context.profile,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools::offers(self.context.profile, &name) {
            return Err(ErrorData::invalid_params(
                format!("no tool named '{name}'; tools/list names the tools this server offers"),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let mut caller = self.caller(&context)?;
        // Memories say which agent stored them: the client's own name from its handshake.
        let agent = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .filter(|name| !name.trim().is_empty());
        let result = self
            .blocking(move |context| {
                caller.agent = caller.agent.or(agent);
                tools::call(&context.api, &caller, &name, arguments)
            })
            .await?;
        Ok(match result {
            Ok(value) => CallToolResult::success(vec![ContentBlock::text(value.to_string())]),
            Err(error) => tool_error(&error),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = self.caller(&context)?;
        let listed = self
            .blocking(move |context| resources::recent(&context.api, &caller))
            .await?;
        listed
            .map(ListResourcesResult::with_all_items)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let caller = self.caller(&context)?;
        let uri = request.uri;
        let read = self
            .blocking(move |context| resources::read(&context.api, &caller, &uri))
            .await?;
        read.map(Into::into).map_err(|error| match error {
            Error::Invalid { .. }
            | Error::NotFound { .. }
            | Error::AmbiguousHandle { .. }
            | Error::Forbidden { .. } => ErrorData::resource_not_found(error.to_string(), None),
            other => ErrorData::internal_error(other.to_string(), None),
        })
    }
}

/// Serves MCP on standard input and output until the client disconnects, every line checked
/// first (see [`stdio`]). Logs must go to stderr: stdout carries the protocol.
pub async fn serve_stdio(context: McpContext) -> Result<(), Error> {
    let io = |error: &dyn std::fmt::Display| Error::Io(std::io::Error::other(error.to_string()));
    stdio::framed(
        tokio::io::stdin(),
        tokio::io::stdout(),
        |input, output| async move {
            let running = CairnMcp::new(context)
                .serve((input, output))
                .await
                .map_err(|error| io(&error))?;
            running.waiting().await.map_err(|error| io(&error))?;
            Ok::<(), Error>(())
        },
    )
    .await?
}

/// The streamable-HTTP MCP endpoint as a tower service, to be mounted at `/mcp`. `allowed_hosts`
/// are the `Host` values it answers (loopback names unless the server binds elsewhere);
/// cancelling `shutdown` ends every session.
pub fn http_service(
    context: McpContext,
    allowed_hosts: Vec<String>,
    shutdown: tokio_util::sync::CancellationToken,
) -> StreamableHttpService<CairnMcp, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = allowed_hosts;
    config.cancellation_token = shutdown;
    StreamableHttpService::new(
        move || Ok(CairnMcp::new(context.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}
