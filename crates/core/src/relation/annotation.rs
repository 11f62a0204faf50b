//! Annotations: the lines a search result carries about its relations, in a fixed format that
//! parsers can rely on.
//!
//! ```text
//! supersedes: #<handle> (<title>)
//! superseded_by: #<handle> (<title>)
//! conflicts: #<handle> (<title>)
//! conflict: contested by #<handle> (pending)
//! ```
//!
//! `<title>` is the other memory's headline, or `deleted` once it is gone or hidden. A pending
//! judgment reads `contested by` on both of its memories; `related`, `compatible`, `scoped` and
//! `not_conflict` verdicts add no line. A memory's lines come in that order (supersedes,
//! superseded_by, conflicts, contested), then by the other memory's handle. A pending
//! judgment annotates for `conflicts.annotate_pending_days` after it was found (the search
//! pipeline leaves older ones out); answers that must stay small carry [`one_line`].

use std::collections::HashMap;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::id::MemoryId;
use crate::relation::model::RelationKind;
use crate::relation::store::RelationView;

/// What a relation says about the memory it annotates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AnnotationKind {
    Supersedes,
    SupersededBy,
    Conflicts,
    Contested,
}

/// One annotation line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub kind: AnnotationKind,
    pub other: MemoryId,
    /// The other memory's headline; `None` once it is gone or hidden.
    pub other_title: Option<String>,
}

impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let handle = self.other.handle();
        let title = self.other_title.as_deref().unwrap_or("deleted");
        match self.kind {
            AnnotationKind::Supersedes => write!(f, "supersedes: #{handle} ({title})"),
            AnnotationKind::SupersededBy => write!(f, "superseded_by: #{handle} ({title})"),
            AnnotationKind::Conflicts => write!(f, "conflicts: #{handle} ({title})"),
            AnnotationKind::Contested => write!(f, "conflict: contested by #{handle} (pending)"),
        }
    }
}

/// An annotation serialises as its line.
impl Serialize for Annotation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The annotations of each of `ids` from the relations touching them.
pub fn annotations(
    ids: &[MemoryId],
    relations: &[RelationView],
) -> HashMap<MemoryId, Vec<Annotation>> {
    let mut lines: HashMap<MemoryId, Vec<Annotation>> = HashMap::new();
    for id in ids {
        let mut own: Vec<Annotation> = relations
            .iter()
            .filter(|v| v.relation.source == *id || v.relation.target == *id)
            .filter_map(|view| {
                let relation = &view.relation;
                let kind = match relation.kind() {
                    None => AnnotationKind::Contested,
                    Some(RelationKind::Supersedes) if relation.source == *id => {
                        AnnotationKind::Supersedes
                    }
                    Some(RelationKind::Supersedes) => AnnotationKind::SupersededBy,
                    Some(RelationKind::ConflictsWith) => AnnotationKind::Conflicts,
                    Some(_) => return None,
                };
                Some(Annotation {
                    kind,
                    other: relation.other(id),
                    other_title: view.other_title(id).map(str::to_string),
                })
            })
            .collect();
        own.sort_by_key(|a| (a.kind, a.other));
        own.dedup();
        if !own.is_empty() {
            lines.insert(*id, own);
        }
    }
    lines
}

/// A memory's annotations as one short line, for answers that must stay small (MCP): the
/// other memories by handle only, grouped by kind — `supersedes #a; contested by #b, #c
/// (pending)`. `None` without annotations.
pub fn one_line(annotations: &[Annotation]) -> Option<String> {
    let mut parts = Vec::new();
    for kind in [
        AnnotationKind::Supersedes,
        AnnotationKind::SupersededBy,
        AnnotationKind::Conflicts,
        AnnotationKind::Contested,
    ] {
        let handles: Vec<String> = annotations
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| format!("#{}", a.other.handle()))
            .collect();
        if handles.is_empty() {
            continue;
        }
        let handles = handles.join(", ");
        parts.push(match kind {
            AnnotationKind::Supersedes => format!("supersedes {handles}"),
            AnnotationKind::SupersededBy => format!("superseded by {handles}"),
            AnnotationKind::Conflicts => format!("conflicts with {handles}"),
            AnnotationKind::Contested => format!("contested by {handles} (pending)"),
        });
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The visible memories that supersede `id`, from its relations.
pub fn successors(id: &MemoryId, relations: &[RelationView]) -> Vec<MemoryId> {
    relations
        .iter()
        .filter(|v| {
            v.relation.target == *id
                && v.relation.kind() == Some(RelationKind::Supersedes)
                && v.source_title.is_some()
        })
        .map(|v| v.relation.source)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_groups_the_other_memories_by_kind() {
        let line = |kind, other| Annotation {
            kind,
            other,
            other_title: Some("a title that stays out".into()),
        };
        let (a, b, c) = (
            MemoryId::generate(),
            MemoryId::generate(),
            MemoryId::generate(),
        );
        let found = one_line(&[
            line(AnnotationKind::Supersedes, a),
            line(AnnotationKind::Contested, b),
            line(AnnotationKind::Contested, c),
        ])
        .unwrap();
        assert_eq!(
            found,
            format!(
                "supersedes #{}; contested by #{}, #{} (pending)",
                a.handle(),
                b.handle(),
                c.handle()
            )
        );
        assert_eq!(one_line(&[]), None);
    }
}
