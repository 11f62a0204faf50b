//! Memory slots: labelled, size-limited blocks of text an agent keeps and edits.
//!
//! A memory is one fact found by search; a [`Slot`] is a standing block that is *always* at hand:
//! who the agent is (`persona`), what the user likes (`user_preferences`), what this project is
//! (`project_context`), what is still open (`pending_items`). A slot has a [`SlotLabel`], a
//! content of at most `limit` characters (default [`DEFAULT_LIMIT`], never more than
//! [`MAX_LIMIT`]), an optional description telling the agent what belongs in it, and two
//! switches: *pinned* slots are injected at the top of every session's context, *read-only*
//! slots refuse every change until someone unlocks them.
//!
//! A slot is global or belongs to one project. Reads resolve a label the way shell variables
//! shadow: the current project's slot if it has one, else the global slot of that label.
//!
//! The [`DEFAULT_SLOTS`](crate::slot::DEFAULT_SLOTS) are created, empty, the first time slots are used in a scope. Seeding is
//! recorded per scope and label, so it never overwrites a slot and a default that was deleted
//! stays deleted until it is reset. The operations are in `slot::operations`; what session
//! reflection writes into slots is in `slot::reflection`.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
use crate::scope::{ProjectName, Scope};

/// A slot's size limit when its creator names none, in characters.
pub const DEFAULT_LIMIT: usize = 2_000;
/// The largest size limit a slot may have, in characters.
pub const MAX_LIMIT: usize = 20_000;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// A slot's name: a lowercase letter, then lowercase letters, digits and `_`; at most 64.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotLabel(String);

impl SlotLabel {
    pub const MAX_CHARS: usize = 64;

    pub fn new(raw: &str) -> Result<Self> {
        let label = raw.trim();
        let mut chars = label.chars();
        let well_formed = chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !well_formed {
            return Err(Error::invalid(
                "label",
                format!(
                    "'{label}' is not a slot label: use a lowercase letter, then lowercase \
                     letters, digits and _ (like project_context)"
                ),
            ));
        }
        if label.len() > Self::MAX_CHARS {
            return Err(Error::invalid(
                "label",
                format!(
                    "is {} characters; the limit is {}",
                    label.len(),
                    Self::MAX_CHARS
                ),
            ));
        }
        Ok(SlotLabel(label.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SlotLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for SlotLabel {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SlotLabel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        SlotLabel::new(&String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// A size limit in characters: 1 to [`MAX_LIMIT`].
pub fn limit(chars: usize) -> Result<usize> {
    if (1..=MAX_LIMIT).contains(&chars) {
        Ok(chars)
    } else {
        Err(Error::invalid(
            "limit",
            format!("{chars} characters is out of range 1..={MAX_LIMIT}"),
        ))
    }
}

/// One slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub label: SlotLabel,
    pub scope: Scope,
    pub content: String,
    /// What belongs in the slot, for the agent that edits it.
    pub description: Option<String>,
    /// Most characters the content may hold.
    pub limit: usize,
    /// Injected at the top of every session's context.
    pub pinned: bool,
    /// Refuses append, replace, delete and reset.
    pub read_only: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The lines of the content that reflection wrote, oldest first: the ones given up first
    /// when reflection needs room (see `slot::reflection`).
    pub reflected: Vec<String>,
}

impl Slot {
    /// Characters the content holds.
    pub fn chars(&self) -> usize {
        self.content.chars().count()
    }

    /// `project` or `global`.
    pub fn scope_kind(&self) -> &'static str {
        match self.scope {
            Scope::Global => "global",
            Scope::Project(_) => "project",
        }
    }

    /// Forgets reflected lines the content no longer holds (removed or edited since): they are
    /// no longer reflection's to drop.
    pub fn prune_reflected(&mut self) {
        let lines: Vec<&str> = self.content.lines().collect();
        self.reflected.retain(|line| lines.contains(&line.as_str()));
    }
}

/// Where a slot lives, for people: `global` or `project acme`.
pub fn place(scope: &Scope) -> String {
    match scope {
        Scope::Global => "global".into(),
        Scope::Project(project) => format!("project {project}"),
    }
}

/// Which scope an operation means by a label (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SlotScope {
    /// The project's own slot.
    Project,
    /// The global slot, even where a project slot shadows it.
    Global,
}

/// A slot as an operation names it: a label, the project the caller works in, and optionally
/// which scope is meant; without one, the project's slot shadows the global slot.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotAddress {
    pub label: SlotLabel,
    pub project: Option<ProjectName>,
    pub scope: Option<SlotScope>,
}

impl SlotAddress {
    /// The scopes to look in, in order of precedence.
    pub fn candidates(&self) -> Result<Vec<Scope>> {
        let project = self.project.clone().map(Scope::Project);
        match (self.scope, project) {
            (Some(SlotScope::Global), _) => Ok(vec![Scope::Global]),
            (Some(SlotScope::Project), Some(project)) => Ok(vec![project]),
            (Some(SlotScope::Project), None) => Err(Error::invalid(
                "scope",
                "project needs a project; name one (project) or ask for the global slot",
            )),
            (None, Some(project)) => Ok(vec![project, Scope::Global]),
            (None, None) => Ok(vec![Scope::Global]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_a_lowercase_letter_then_letters_digits_and_underscores() {
        for good in ["persona", "a", "notes_2", "x_y_z"] {
            assert_eq!(SlotLabel::new(good).unwrap().as_str(), good);
        }
        for bad in ["", "2notes", "_x", "Persona", "my-slot", "a b", "café"] {
            let error = SlotLabel::new(bad).unwrap_err();
            assert_eq!(error.field(), Some("label"), "{bad}");
        }
        assert!(SlotLabel::new(&"a".repeat(64)).is_ok());
        let long = SlotLabel::new(&"a".repeat(65)).unwrap_err();
        assert!(long.to_string().contains("limit is 64"), "{long}");
    }

    #[test]
    fn limits_are_between_one_and_the_hard_cap() {
        assert_eq!(limit(1).unwrap(), 1);
        assert_eq!(limit(MAX_LIMIT).unwrap(), MAX_LIMIT);
        assert!(limit(0).is_err());
        let error = limit(MAX_LIMIT + 1).unwrap_err();
        assert_eq!(error.field(), Some("limit"));
        assert!(error.to_string().contains("20000"), "{error}");
    }

    #[test]
    fn an_address_without_scope_looks_in_the_project_then_global() {
        let project = ProjectName::new("acme").unwrap();
        let address = |scope| SlotAddress {
            label: SlotLabel::new("guidance").unwrap(),
            project: Some(project.clone()),
            scope,
        };
        assert_eq!(
            address(None).candidates().unwrap(),
            vec![Scope::Project(project.clone()), Scope::Global]
        );
        assert_eq!(
            address(Some(SlotScope::Global)).candidates().unwrap(),
            vec![Scope::Global]
        );
        let no_project = SlotAddress {
            project: None,
            ..address(Some(SlotScope::Project))
        };
        assert_eq!(no_project.candidates().unwrap_err().field(), Some("scope"));
    }
}
