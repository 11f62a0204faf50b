//! Any bytes as an agent's hook payload, for every event name of every agent shape: an event,
//! an ignored event or an error — never a panic. The reader is the binary's own source
//! (`crates/cli/src/hook/payload/`), compiled here alone: it depends on nothing else of the
//! binary.
#![no_main]

#[path = "../../crates/cli/src/hook/payload/mod.rs"]
mod payload;

use libfuzzer_sys::fuzz_target;

const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "SubagentStop",
    "Stop",
    "SessionEnd",
    "session.created",
    "session.idle",
    "tool.execute.after",
    "chat.message",
    "unknown",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for shape in [payload::Shape::Claude, payload::Shape::OpenCode] {
        for event in EVENTS {
            let _ = payload::read(shape, event, text);
        }
    }
});
