//! `cairn mcp`: the MCP server on standard input and output.

use anyhow::{Context, Result};
use cairn_core::Source;
use cairn_core::api::Caller;
use cairn_core::config::ToolProfile;
use cairn_mcp::McpContext;

use crate::app::App;
use crate::args::{McpArgs, ToolsArg};
use crate::outcome::Outcome;

pub fn run(app: &App, args: &McpArgs) -> Result<Outcome> {
    let default_project = if args.project.global {
        None
    } else {
        Some(app.project(&args.project)?)
    };
    let context = McpContext {
        api: app.api.clone(),
        caller: Caller {
            default_project,
            ..Caller::local(Source::Mcp)
        },
        profile: tool_profile(app, args.tools),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(cairn_mcp::serve_stdio(context))?;
    // The client is gone. Dropping the last handle on the api (the app's) lets the embedding
    // worker's pass finish.
    drop(runtime);
    Ok(Outcome::Done)
}

/// `--tools`, else `mcp.tools` from the config.
pub fn tool_profile(app: &App, flag: Option<ToolsArg>) -> ToolProfile {
    flag.map_or(app.config.mcp.tools, ToolProfile::from)
}
