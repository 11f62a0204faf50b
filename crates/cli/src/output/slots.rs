//! Text for the slot views. Markdown shows the same text, with a slot's content as it is.

use std::fmt::Write as _;

use cairn_core::slot::Reflection;
use cairn_core::slot::{Slot, place};

use super::preview;

/// Slot views: a project's slots and what reflection did to them.
pub enum SlotView<'a> {
    Slots(&'a [Slot]),
    /// One slot: shown in full (`status: None`), or what a write did to it.
    Slot {
        status: Option<&'a str>,
        slot: &'a Slot,
    },
    /// The default slots `slot reset` wrote.
    SlotsReset(&'a [Slot]),
    Reflection(&'a Reflection),
}

pub fn render(view: &SlotView<'_>) -> String {
    let mut out = String::new();
    match view {
        SlotView::Slots(slots) => {
            let width = slots
                .iter()
                .map(|s| s.label.as_str().len())
                .max()
                .unwrap_or(0);
            for slot in slots.iter() {
                let content = match slot.content.trim() {
                    "" => "(empty)".to_string(),
                    text => preview(text, 60),
                };
                let _ = writeln!(
                    out,
                    "{:width$}  {:7}  {:9}  {:>11}  {content}",
                    slot.label.as_str(),
                    slot.scope_kind(),
                    flags(slot),
                    format!("{}/{}", slot.chars(), slot.limit),
                );
            }
        }
        SlotView::Slot { status: None, slot } => {
            let _ = writeln!(out, "{}", heading(slot));
            if let Some(description) = &slot.description {
                let _ = writeln!(out, "{description}");
            }
            let _ = writeln!(out);
            match slot.content.is_empty() {
                true => out.push_str("(empty)\n"),
                false => {
                    let _ = writeln!(out, "{}", slot.content);
                }
            }
        }
        SlotView::Slot {
            status: Some(status),
            slot,
        } => {
            let _ = writeln!(out, "{status} {}", heading(slot));
        }
        SlotView::SlotsReset([]) => out.push_str("every default slot is there; nothing to reset\n"),
        SlotView::SlotsReset(slots) => {
            for slot in slots.iter() {
                let _ = writeln!(out, "reset {}", heading(slot));
            }
        }
        SlotView::Reflection(reflection) => reflection_text(&mut out, reflection),
    }
    out
}

fn flags(slot: &Slot) -> String {
    let mut flags = Vec::new();
    if slot.pinned {
        flags.push("pinned");
    }
    if slot.read_only {
        flags.push("read-only");
    }
    flags.join(",")
}

/// `pending_items (project acme, pinned, 52/2000 characters)`.
fn heading(slot: &Slot) -> String {
    let place = place(&slot.scope);
    let flags = flags(slot);
    let flags = if flags.is_empty() {
        String::new()
    } else {
        format!(", {}", flags.replace(',', ", "))
    };
    format!(
        "{} ({place}{flags}, {}/{} characters)",
        slot.label,
        slot.chars(),
        slot.limit
    )
}

fn reflection_text(out: &mut String, reflection: &Reflection) {
    let _ = writeln!(
        out,
        "reflected session {} into project {}",
        reflection.session, reflection.project
    );
    if reflection.changes.is_empty() {
        out.push_str("  nothing to write: no TODOs, tool uses or files in its observations\n");
    }
    for change in &reflection.changes {
        if let Some(why) = &change.skipped {
            let _ = writeln!(out, "  {}: skipped, {why}", change.label);
            continue;
        }
        let _ = writeln!(
            out,
            "  {}: {} added, {} older dropped, {} left out",
            change.label,
            change.added.len(),
            change.dropped.len(),
            change.left_out.len()
        );
        for line in &change.added {
            let _ = writeln!(out, "    + {line}");
        }
    }
}
