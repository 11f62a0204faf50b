//! Text for the relation views (markdown shows the same text), and the annotation lines a
//! memory shown in full carries.

use std::fmt::Write as _;

use cairn_core::Memory;
use cairn_core::relation::{Annotation, RelationView, Verdict, annotations};
use cairn_core::relation::{Compared, RelationStats, ScanReport};
use jiff::tz::TimeZone;

use super::{local_time, preview, state};

/// The annotation lines of `memory` from `relations` (its own and others').
pub fn lines_of(memory: &Memory, relations: &[RelationView]) -> Vec<Annotation> {
    annotations(&[memory.id], relations)
        .remove(&memory.id)
        .unwrap_or_default()
}

/// Relation views: judgments between memories, their counts and a scan.
pub enum RelationsView<'a> {
    Relations(&'a [RelationView]),
    /// One relation: shown in full (`status: None`), or what a verdict did to it.
    Relation {
        status: Option<&'a str>,
        relation: &'a RelationView,
    },
    RelationStats(&'a RelationStats),
    Compared(&'a Compared),
    Scan(&'a ScanReport),
    /// Relations an import keeps until their memories come.
    Deferred(&'a super::DeferredView),
}

pub fn render(view: &RelationsView<'_>, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        RelationsView::Deferred(view) => return super::deferred::render(view, tz),
        RelationsView::Relations(list) => {
            for relation in list.iter() {
                let _ = writeln!(out, "{}", row(relation));
            }
            if list.is_empty() {
                out.push_str("no conflicts recorded\n");
            }
        }
        RelationsView::Relation { status, relation } => {
            if let Some(status) = status {
                let _ = writeln!(out, "{status} {}", relation.relation.id.handle());
            }
            detail(&mut out, relation, tz);
        }
        RelationsView::RelationStats(stats) => {
            let _ = writeln!(
                out,
                "{} relations: {} pending, {} judged",
                stats.total, stats.pending, stats.judged
            );
            for count in &stats.by_relation {
                let _ = writeln!(out, "  {:<15} {}", count.name, count.count);
            }
        }
        RelationsView::Compared(compared) => {
            let _ = writeln!(out, "{}", compared_status(compared.status));
            if let Some(relation) = &compared.relation {
                detail(&mut out, relation, tz);
            }
        }
        RelationsView::Scan(report) => {
            let _ = writeln!(
                out,
                "{} memories scanned, {} pair{} never checked; {}",
                report.memories,
                report.pairs.len(),
                if report.pairs.len() == 1 { "" } else { "s" },
                match report.applied {
                    true => format!("{} pending judgments recorded", report.recorded),
                    false => "nothing written (--apply records them)".to_string(),
                }
            );
            for pair in &report.pairs {
                let _ = writeln!(
                    out,
                    "{:.2}  #{} {}  ->  #{} {}{}",
                    pair.score,
                    pair.source.handle(),
                    preview(&pair.source_title, 40),
                    pair.target.handle(),
                    preview(&pair.target_title, 40),
                    pair.judgment_id
                        .map(|id| format!("  (judgment {})", id.handle()))
                        .unwrap_or_default()
                );
                if !pair.reason.is_empty() {
                    let _ = writeln!(out, "      {}", pair.reason);
                }
            }
        }
    }
    out
}

fn compared_status(status: cairn_core::relation::CompareStatus) -> &'static str {
    use cairn_core::relation::CompareStatus;
    match status {
        CompareStatus::Created => "recorded",
        CompareStatus::Updated => "updated: the earlier verdict is kept in the history",
        CompareStatus::Unchanged => "unchanged: you had said exactly this",
        CompareStatus::NotRecorded => "not_conflict: nothing recorded",
    }
}

fn title(title: Option<&str>) -> String {
    title.map_or_else(|| "(deleted)".into(), |t| preview(t, 40))
}

/// One relation on one line: judgment, state, newer -> older, score.
fn row(view: &RelationView) -> String {
    let r = &view.relation;
    let score = r
        .score
        .map(|s| format!("  (score {s:.2})"))
        .unwrap_or_default();
    format!(
        "{}  {:<14}  #{} {}  ->  #{} {}{score}",
        r.id.handle(),
        state(&view.relation),
        r.source.handle(),
        title(view.source_title.as_deref()),
        r.target.handle(),
        title(view.target_title.as_deref()),
    )
}

fn detail(out: &mut String, view: &RelationView, tz: &TimeZone) {
    let r = &view.relation;
    let _ = writeln!(out, "judgment {}  {}", r.id, state(&view.relation));
    let _ = writeln!(
        out,
        "  newer  #{}  {}",
        r.source.handle(),
        title(view.source_title.as_deref())
    );
    let _ = writeln!(
        out,
        "  older  #{}  {}",
        r.target.handle(),
        title(view.target_title.as_deref())
    );
    if let Some(score) = r.score {
        let _ = writeln!(
            out,
            "  found  {}, score {score:.2}",
            local_time(r.created_at, tz)
        );
    }
    if let Some(reason) = &view.reason {
        let _ = writeln!(out, "  why    {reason}");
    }
    if let Some(verdict) = &r.verdict {
        let _ = writeln!(out, "verdict: {}", verdict_line(verdict, tz));
    }
    if !r.history.is_empty() {
        let _ = writeln!(out, "earlier verdicts:");
        for verdict in r.history.iter().rev() {
            let _ = writeln!(out, "  {}", verdict_line(verdict, tz));
        }
    }
}

fn verdict_line(verdict: &Verdict, tz: &TimeZone) -> String {
    let mut text = format!(
        "{} by {}{} at {}",
        verdict.relation,
        verdict.actor.kind.as_str(),
        verdict
            .actor
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default(),
        local_time(verdict.judged_at, tz)
    );
    if let Some(confidence) = verdict.confidence {
        let _ = write!(text, ", confidence {confidence:.2}");
    }
    if let Some(reason) = &verdict.reason {
        let _ = write!(text, ": {reason}");
    }
    if let Some(evidence) = &verdict.evidence {
        let _ = write!(text, " (evidence: {evidence})");
    }
    text
}
