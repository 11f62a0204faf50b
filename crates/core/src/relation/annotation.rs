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
//! One verdict line per other memory: where several judges related the same pair, the verdict
//! judged last speaks for it (two judges saying `supersedes` make one line, not two; a later
//! `compatible` leaves none), as it does for ranking ([`successors`]); a pending judgment of
//! the pair adds its `contested` line beside it.
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
        let mut seen = std::collections::HashSet::new();
        let mut own: Vec<Annotation> = current(id, relations)
            .into_iter()
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
            // Several pending judgments of one pair read as one contested line.
            .filter(|line| seen.insert((line.other, line.kind)))
            .collect();
        own.sort_by_key(|a| (a.kind, a.other));
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

/// The relations of `id` that speak for their pair now: for each other memory, the verdict
/// judged last (several judges may have related the same pair; the latest stands, whatever it
/// says), and every pending judgment.
fn current<'a>(id: &MemoryId, relations: &'a [RelationView]) -> Vec<&'a RelationView> {
    let mut touching: Vec<&RelationView> = relations
        .iter()
        .filter(|v| v.relation.source == *id || v.relation.target == *id)
        .collect();
    touching.sort_by_key(|v| std::cmp::Reverse(v.relation.updated_at));
    let mut judged = std::collections::HashSet::new();
    touching
        .into_iter()
        .filter(|v| v.relation.kind().is_none() || judged.insert(v.relation.other(id)))
        .collect()
}

/// The visible memories that supersede `id`, from its relations: those whose latest verdict on
/// the pair says so.
pub fn successors(id: &MemoryId, relations: &[RelationView]) -> Vec<MemoryId> {
    current(id, relations)
        .into_iter()
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

    /// A relation from `source` to `target` judged `kind` by `judge` at `second`.
    fn judged(
        source: MemoryId,
        target: MemoryId,
        kind: RelationKind,
        judge: &str,
        second: i64,
    ) -> RelationView {
        let at = jiff::Timestamp::from_second(second).unwrap();
        let mut relation = crate::relation::Relation::pending(
            source,
            target,
            crate::scope::Scope::Global,
            None,
            at,
        );
        relation.judge(crate::relation::Verdict {
            relation: kind,
            reason: None,
            evidence: None,
            confidence: None,
            actor: crate::relation::Actor {
                name: Some(judge.into()),
                ..Default::default()
            },
            judged_at: at,
        });
        RelationView {
            relation,
            source_title: Some("the source".into()),
            target_title: Some("the target".into()),
            reason: None,
        }
    }

    #[test]
    fn several_judges_of_one_pair_make_one_line_the_latest_verdicts() {
        let (new, old, other) = (
            MemoryId::generate(),
            MemoryId::generate(),
            MemoryId::generate(),
        );
        let mut pending = judged(new, old, RelationKind::Supersedes, "nobody", 50);
        pending.relation.verdict = None;
        let relations = [
            judged(new, old, RelationKind::Supersedes, "ana", 10),
            judged(new, old, RelationKind::Supersedes, "ben", 20),
            judged(new, other, RelationKind::Supersedes, "ana", 30),
            judged(new, other, RelationKind::ConflictsWith, "ben", 40),
            pending,
        ];
        let lines = annotations(&[new, old], &relations);
        let text = |id: &MemoryId| -> Vec<String> {
            lines[id].iter().map(|line| line.to_string()).collect()
        };
        assert_eq!(
            text(&new),
            [
                format!("supersedes: #{} (the target)", old.handle()),
                format!("conflicts: #{} (the target)", other.handle()),
                format!("conflict: contested by #{} (pending)", old.handle()),
            ]
        );
        assert_eq!(
            text(&old),
            [
                format!("superseded_by: #{} (the source)", new.handle()),
                format!("conflict: contested by #{} (pending)", new.handle()),
            ]
        );
    }

    #[test]
    fn the_verdict_judged_last_decides_ranking_and_lines_alike() {
        let (new, old) = (MemoryId::generate(), MemoryId::generate());
        let mut relations = vec![judged(new, old, RelationKind::Supersedes, "ana", 10)];
        assert_eq!(successors(&old, &relations), [new]);
        // A later judge says they conflict: nothing supersedes the old memory any more.
        relations.push(judged(new, old, RelationKind::ConflictsWith, "ben", 20));
        assert_eq!(successors(&old, &relations), []);
        assert_eq!(
            annotations(&[old], &relations)[&old][0].kind,
            AnnotationKind::Conflicts
        );
        // Then one says both hold: no line, and still no successor.
        relations.push(judged(new, old, RelationKind::Compatible, "cy", 30));
        assert_eq!(successors(&old, &relations), []);
        assert!(annotations(&[old], &relations).is_empty());
        // And the latest says the new one replaces it after all.
        relations.push(judged(new, old, RelationKind::Supersedes, "dee", 40));
        assert_eq!(successors(&old, &relations), [new]);
    }

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
