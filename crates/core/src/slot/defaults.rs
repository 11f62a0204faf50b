//! The default slots: the eight every store has unless deleted — `persona`, `user_preferences`
//! and `tool_guidelines` once (global), `project_context`, `guidance`, `pending_items`,
//! `session_patterns` and `self_notes` in each project — with their limits, pinning and
//! descriptions. Seeded empty the first time slots are used in a scope (`slot::operations`).

use jiff::Timestamp;

use crate::scope::Scope;
use crate::slot::model::{Slot, SlotLabel};

/// A slot every store has (unless deleted): its label, scope and settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultSlot {
    pub label: &'static str,
    /// Global, or one per project.
    pub global: bool,
    pub limit: usize,
    pub pinned: bool,
    pub description: &'static str,
}

impl DefaultSlot {
    pub fn find(label: &str) -> Option<&'static DefaultSlot> {
        DEFAULT_SLOTS.iter().find(|spec| spec.label == label)
    }

    /// The defaults of `scope`: the global ones, or those every project gets.
    pub fn of(scope: &Scope) -> impl Iterator<Item = &'static DefaultSlot> {
        let global = matches!(scope, Scope::Global);
        DEFAULT_SLOTS
            .iter()
            .filter(move |spec| spec.global == global)
    }

    /// The empty slot this default seeds in `scope`.
    pub fn seed(&self, scope: Scope, now: Timestamp) -> Slot {
        Slot {
            label: SlotLabel::new(self.label).expect("default labels are valid"),
            scope,
            content: String::new(),
            description: Some(self.description.to_string()),
            limit: self.limit,
            pinned: self.pinned,
            read_only: false,
            created_at: now,
            updated_at: now,
            reflected: Vec::new(),
        }
    }
}

/// Pending items, session patterns and project context are also written by reflection.
pub const PENDING_ITEMS: &str = "pending_items";
pub const SESSION_PATTERNS: &str = "session_patterns";
pub const PROJECT_CONTEXT: &str = "project_context";

/// The slots seeded on first use, in the order context shows them.
pub const DEFAULT_SLOTS: [DefaultSlot; 8] = [
    DefaultSlot {
        label: "persona",
        global: true,
        limit: 1_000,
        pinned: true,
        description: "Who the agent is when working with this user: role, tone, working habits.",
    },
    DefaultSlot {
        label: "user_preferences",
        global: true,
        limit: 2_000,
        pinned: true,
        description: "What the user prefers everywhere: style, tools, conventions, things to avoid.",
    },
    DefaultSlot {
        label: "tool_guidelines",
        global: true,
        limit: 1_500,
        pinned: true,
        description: "How to use the tools and commands of this machine, and what to avoid.",
    },
    DefaultSlot {
        label: PROJECT_CONTEXT,
        global: false,
        limit: 3_000,
        pinned: true,
        description: "What this project is: purpose, stack, layout, the files that matter. \
            Reflection adds the files sessions touch.",
    },
    DefaultSlot {
        label: "guidance",
        global: false,
        limit: 1_500,
        pinned: true,
        description: "Standing instructions for work in this project.",
    },
    DefaultSlot {
        label: PENDING_ITEMS,
        global: false,
        limit: 2_000,
        pinned: true,
        description: "Open work: TODOs and FIXMEs. Reflection adds those sessions wrote; remove \
            an item when it is done.",
    },
    DefaultSlot {
        label: SESSION_PATTERNS,
        global: false,
        limit: 1_500,
        pinned: false,
        description: "How sessions here go: tools used, commands run, errors met. Written by \
            reflection at the end of each session.",
    },
    DefaultSlot {
        label: "self_notes",
        global: false,
        limit: 1_500,
        pinned: false,
        description: "The agent's own notes on this project, kept between sessions.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::model::limit;

    #[test]
    fn the_defaults_have_distinct_labels_and_valid_limits() {
        let mut labels: Vec<&str> = DEFAULT_SLOTS.iter().map(|s| s.label).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), DEFAULT_SLOTS.len());
        for spec in DEFAULT_SLOTS {
            SlotLabel::new(spec.label).unwrap();
            limit(spec.limit).unwrap();
        }
        assert_eq!(DefaultSlot::of(&Scope::Global).count(), 3);
    }
}
