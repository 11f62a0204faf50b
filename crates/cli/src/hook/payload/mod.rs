//! Reading agents' hook payloads: JSON in an agent's shape turned into the [`EventKind`] cairn
//! records. Only this folder knows the shapes — Claude Code's, which Codex shares
//! ([`claude`]), and cairn's OpenCode plugin's ([`opencode`]) — and it depends on nothing of
//! the binary's own, so the fuzz target `hook_payloads` compiles it alone (`fuzz/`): any bytes
//! read as a payload give an event, an ignored event or an error, never a panic.

pub mod claude;
pub mod json;
pub mod opencode;
pub mod transcript;

use anyhow::{Context as _, Result};
use cairn_core::session::EventKind;
use serde_json::Value;

use claude::Parsed;

/// Which agent's payloads these are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Claude Code's and Codex's.
    Claude,
    /// cairn's OpenCode plugin's.
    OpenCode,
}

/// What the payload `raw` of `event` in an agent's `shape` says happened: its JSON and the
/// event it makes, or `None` for an event cairn knowingly ignores. Reads nothing but a Stop
/// event's transcript (a regular file only, see `cairn_core::input::open_regular`).
pub fn read(shape: Shape, event: &str, raw: &str) -> Result<Option<(Value, EventKind)>> {
    let payload: Value = if raw.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(raw).context("the hook payload is not JSON")?
    };
    let parsed = match shape {
        Shape::Claude => claude::parse(event, &payload)?,
        Shape::OpenCode => opencode::parse(event, &payload)?,
    };
    Ok(match parsed {
        Parsed::Event(kind) => Some((payload, kind)),
        Parsed::Ignored => None,
    })
}
