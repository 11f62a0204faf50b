//! `cairn reindex …` started on its own, for work no one should wait for: a hook's kept
//! screenshot read by the OCR model, a damaged vector index rebuilt after a search found it.
//! The process is detached (its output goes nowhere, it carries the hook guard so no hook
//! fires inside it); a failure to start is logged, and the work stays for the next command or
//! server that does it.

use std::path::Path;
use std::process::{Command, Stdio};

use cairn_core::session::HOOK_GUARD_ENV;

/// Starts `cairn --db DB reindex ARGS… --quiet` and returns at once.
pub fn reindex(db: &Path, args: &[&str], what: &str) {
    let started = std::env::current_exe().and_then(|cairn| {
        Command::new(cairn)
            .arg("--db")
            .arg(db)
            .arg("reindex")
            .args(args)
            .arg("--quiet")
            .env(HOOK_GUARD_ENV, "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    });
    if let Err(error) = started {
        tracing::warn!(%error, "could not start {what} in the background; it waits for the next run");
    }
}
