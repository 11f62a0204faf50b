//! `cairn serve`: the HTTP server (the viewer at /, REST under /v1, MCP at /mcp) until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use cairn_core::api::Caller;
use cairn_core::{ProjectName, Source};
use cairn_server::{AppState, ServerOptions};

use super::mcp::tool_profile;
use crate::app::App;
use crate::args::ServeArgs;
use crate::outcome::Outcome;

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
    cairn_server::check_exposure(&bind, token.as_deref(), app.api.tokens_required()?)?;
    let state = AppState {
        api: app.api.clone(),
        caller: Caller {
            default_project: args.project.as_deref().map(ProjectName::new).transpose()?,
            ..Caller::local(Source::Http)
        },
        tools: tool_profile(app, args.tools),
        options: Arc::new(ServerOptions {
            bind,
            token,
            // Large enough for a memory with an inline image (`images.max_bytes`).
            max_body_bytes: app.config.server.max_body_bytes.max(
                cairn_core::image::input::inline_body_allowance(app.config.images.max_bytes),
            ),
            max_import_bytes: app.config.server.max_import_bytes,
            allowed_origins: app.config.server.allowed_origins.clone(),
            read_timeout: std::time::Duration::from_secs(
                app.config.server.read_timeout_secs.max(1),
            ),
        }),
    };
    let watcher = FilesWatcher::start(app.api.clone());
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
            "cairn listening on http://{address} (the viewer at /, REST under /v1, MCP at /mcp); Ctrl-C stops"
        );
        if !app.api.has_model() {
            app.out.notice(&format!(
                "note: semantic search is off; {}",
                crate::app::HOW_TO_ENABLE
            ));
        }
        cairn_server::serve(listener, state, stop_signal())
            .await
            .context("the server failed")
    })?;
    // Requests have finished; the embedding pass in progress finishes when the last handle on
    // the api (the app's) is dropped.
    drop(runtime);
    watcher.stop();
    Ok(Outcome::Done)
}

/// How often the server looks for hand edits in the projects' markdown files.
const FILES_POLL: Duration = Duration::from_secs(2);

/// A thread that syncs the markdown workspaces whose files changed (one directory walk each
/// per poll when nothing did), so hand edits and `git pull`s reach the server without a
/// command.
struct FilesWatcher {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: std::thread::JoinHandle<()>,
}

impl FilesWatcher {
    fn start(api: cairn_core::api::Api) -> Self {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let signal = stop.clone();
        let thread = std::thread::spawn(move || {
            let (stopped, wake) = &*signal;
            let mut guard = stopped.lock().unwrap_or_else(|p| p.into_inner());
            while !*guard {
                drop(guard);
                match api.refresh_files() {
                    Ok(reports) => {
                        for report in reports {
                            tracing::info!(project = %report.project, updated = report.updated,
                                created = report.created, forgotten = report.forgotten,
                                "memory files changed; synced");
                        }
                    }
                    Err(error) => tracing::warn!(%error, "memory files not synced"),
                }
                guard = stopped.lock().unwrap_or_else(|p| p.into_inner());
                guard = wake
                    .wait_timeout(guard, FILES_POLL)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        });
        FilesWatcher { stop, thread }
    }

    fn stop(self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap_or_else(|p| p.into_inner()) = true;
        wake.notify_all();
        let _ = self.thread.join();
    }
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
