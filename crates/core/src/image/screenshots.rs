//! Screenshots that tools return, kept as memories of the session that saw them.
//!
//! An agent's tool may answer with pictures (a browser tool's screenshot, an image file read):
//! a hook hands them over with its `ToolUse` event ([`EventKind::ToolUse::images`]), and after
//! the event is recorded each becomes a memory of the event's project and session, tagged
//! `screenshot`, saying which tool returned it for which input. Its words come later, from the
//! after-write pass (its look and, with the OCR model, its text), so the hook stays fast. The
//! same picture from the same call again is a duplicate (nothing written); a picture the store
//! refuses (too large, not an image) is logged and left out, and never fails the event.

use crate::image::input::ImageSource;
use crate::memory::model::Source;
use crate::memory::new::NewMemory;
use crate::scope::Scope;
use crate::session::model::{AgentEvent, EventKind};

/// At most this many pictures of one tool call are kept.
pub const MAX_PER_CALL: usize = 4;

/// How much of the tool's input a screenshot's memory quotes.
const INPUT_CHARS: usize = 200;

/// The memories (with their pictures) the screenshots of `event` become; none for any other
/// event.
pub fn screenshot_memories(event: &AgentEvent) -> Vec<(NewMemory, ImageSource)> {
    let EventKind::ToolUse {
        tool,
        input,
        images,
        ..
    } = &event.kind
    else {
        return Vec::new();
    };
    let quoted: String = input.split_whitespace().collect::<Vec<_>>().join(" ");
    let quoted: String = quoted.chars().take(INPUT_CHARS).collect();
    let content = match quoted.is_empty() {
        true => format!("Screenshot returned by the tool {tool}"),
        false => format!("Screenshot returned by the tool {tool} for: {quoted}"),
    };
    images
        .iter()
        .take(MAX_PER_CALL)
        .map(|image| {
            let mut memory = NewMemory::new(
                content.clone(),
                Scope::Project(event.project.clone()),
                Source::Hook,
            );
            memory.tags = vec!["screenshot".into()];
            memory.entered_by = Some(event.session.agent.clone());
            memory.session_id = Some(event.session.id.clone());
            (memory, ImageSource::Inline(image.clone()))
        })
        .collect()
}
