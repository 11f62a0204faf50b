//! The after-write work of a long-lived process, run on a background thread.
//!
//! `cairn serve` and `cairn mcp` live for hours, so they do not finish each write's work at the
//! end of the write as the CLI does. Instead every write *nudges* one worker thread, which
//! looks at pending images (their look hash, and their text when an OCR model is installed:
//! the image domain's
//! [`ImageReading`](crate::image::ImageReading)) and then embeds pending memories (the
//! [`Embeddings`](crate::embedding::Embeddings) queue, when an embedding model is installed), until nothing is left, and then sleeps until the next nudge. Reading
//! comes first because an image's text changes the searchable text of the memories that show
//! it, which are then embedded with it. Nudges that arrive while it works fold into one more
//! pass, so a burst of writes costs a few batches, not one run per write. It also wakes on its
//! own every [`IDLE_SWEEP`], which picks up what another process (a CLI import, a hook) wrote
//! to the same store.
//!
//! The worker also loads the embedding model when it starts, so a server's first search is as
//! fast as the rest. A failed run is logged and retried on the next wake; the work stays
//! pending and lexical search still finds the memories. [`Worker::shutdown`] lets the current
//! batch finish and joins the thread, so nothing is half-written when a server stops.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use super::domains::Domains;

/// How often an idle worker looks for work written by other processes.
pub const IDLE_SWEEP: Duration = Duration::from_secs(30);

/// A handle on the background thread.
pub struct Worker {
    nudges: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker, or returns `None` when the store keeps no images and has no
    /// embedding model (nothing to do after a write).
    pub(crate) fn spawn(domains: Arc<Domains>) -> Option<Self> {
        if domains.embedder.is_none() && domains.image_dir.is_none() {
            return None;
        }
        let (nudges, wakes) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("cairn-worker".into())
            .spawn(move || {
                // Load the weights now, so the first search does not pay for it.
                if let Some(embedder) = &domains.embedder
                    && let Err(error) = embedder.embed(&["warm up"])
                {
                    tracing::warn!(%error, "the embedding model failed to load");
                }
                // Runs until every sender is gone (after a last pass for their final nudges).
                while let Ok(()) | Err(RecvTimeoutError::Timeout) = wakes.recv_timeout(IDLE_SWEEP) {
                    while wakes.try_recv().is_ok() {}
                    pass(&domains);
                }
            })
            .expect("the worker thread starts");
        // The first pass picks up whatever was pending before this process started.
        let _ = nudges.send(());
        Some(Worker {
            nudges: Some(nudges),
            thread: Some(thread),
        })
    }

    /// Asks for a pass soon (after a write).
    pub fn nudge(&self) {
        if let Some(nudges) = &self.nudges {
            let _ = nudges.send(());
        }
    }

    /// Lets the current pass finish, then stops the thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.nudges.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One pass: images looked at (and read), then memories embedded.
fn pass(domains: &Domains) {
    if domains.image_dir.is_some() {
        match domains.reading().read_pending(&mut |_| {}) {
            Ok(report) => {
                for failure in &report.failures {
                    tracing::warn!(%failure, "a model failed; its images wait for it");
                }
            }
            Err(error) => tracing::warn!(%error, "looking at images failed; will retry"),
        }
    }
    if domains.embedder.is_some()
        && let Err(error) = domains.embeddings().embed_pending(&mut |_| {})
    {
        tracing::warn!(%error, "background embedding failed; will retry");
    }
}
