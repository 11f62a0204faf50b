//! `cairn serve`: the HTTP server (REST under /v1, MCP at /mcp) until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use cairn_core::api::Caller;
use cairn_core::{ProjectName, Source};
use cairn_server::{AppState, ServerOptions};

use super::Outcome;
use super::mcp::tool_profile;
use crate::app::App;
use crate::args::ServeArgs;

pub fn run(app: &App, args: &ServeArgs) -> Result<Outcome> {
    let bind_text = args.bind.as_deref().unwrap_or(&app.config.server.bind);
    let bind: SocketAddr = bind_text.parse().map_err(|_| {
        cairn_core::Error::invalid(
            "bind",
            format!("'{bind_text}' is not an address and port such as 127.0.0.1:7437"),
        )
    })?;
    let token = args
        .token
        .clone()
        .or_else(|| app.config.server.token.clone());
    cairn_server::check_exposure(&bind, token.as_deref())?;
    let state = AppState {
        api: app.api.clone(),
        caller: Caller {
            default_project: args.project.as_deref().map(ProjectName::new).transpose()?,
            source: Source::Http,
            agent: None,
        },
        tools: tool_profile(app, args.tools),
        options: Arc::new(ServerOptions {
            bind,
            token,
            max_body_bytes: app.config.server.max_body_bytes,
            max_import_bytes: app.config.server.max_import_bytes,
        }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .with_context(|| format!("cannot listen on {bind}"))?;
        let address = listener.local_addr()?;
        // Always said, even with --quiet: with --bind …:0 it is the only way to learn the port.
        let _ = writeln!(
            std::io::stderr(),
            "cairn listening on http://{address} (REST under /v1, MCP at /mcp); Ctrl-C stops"
        );
        if !app.api.has_model() {
            app.out.notice(&format!(
                "note: semantic search is off; {}",
                crate::commands::HOW_TO_ENABLE
            ));
        }
        cairn_server::serve(listener, state, stop_signal())
            .await
            .context("the server failed")
    })?;
    // Requests have finished; the embedding pass in progress finishes when the last handle on
    // the api (the app's) is dropped.
    drop(runtime);
    Ok(Outcome::Done)
}

/// Ctrl-C, or SIGTERM from a service manager.
async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => return interrupt.await,
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    interrupt.await;
}
