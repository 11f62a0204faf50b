//! Text for the deferred relations (`cairn conflicts deferred`): the queue a line each, one in
//! full, and what a replay did. Markdown shows the same text; JSON is the records themselves.

use std::fmt::Write as _;

use cairn_core::exchange::ReplayReport;
use cairn_core::relation::DeferredRelation;
use jiff::tz::TimeZone;

use super::{local_time, state};

/// What `cairn conflicts deferred` shows.
pub enum DeferredView {
    List(Vec<DeferredRelation>),
    /// One in full: as it stands (`status: None`), or what was done to it (`discarded`).
    One {
        status: Option<&'static str>,
        deferred: Box<DeferredRelation>,
    },
    Replay(ReplayReport),
}

pub fn render(view: &DeferredView, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        DeferredView::List(list) => {
            for deferred in list {
                let r = &deferred.relation;
                let _ = writeln!(
                    out,
                    "{}  {:<8}  #{} -> #{}  {}  tries {}  {}",
                    r.id,
                    deferred.status.as_str(),
                    r.source.handle(),
                    r.target.handle(),
                    state(&deferred.relation),
                    deferred.attempts,
                    deferred.last_error
                );
            }
            if list.is_empty() {
                out.push_str("no deferred relations\n");
            }
        }
        DeferredView::One { status, deferred } => {
            let r = &deferred.relation;
            if let Some(status) = status {
                let _ = writeln!(out, "{status} {}", r.id);
            }
            let _ = writeln!(out, "judgment {}  {}", r.id, deferred.status.as_str());
            let _ = writeln!(out, "  newer    {}", r.source);
            let _ = writeln!(out, "  older    {}", r.target);
            let _ = writeln!(out, "  project  {}", r.scope);
            let _ = writeln!(out, "  verdict  {}", state(&deferred.relation));
            if let Some(reason) = r.verdict.as_ref().and_then(|v| v.reason.as_deref()) {
                let _ = writeln!(out, "  reason   {reason}");
            }
            let tries = match deferred.attempts {
                0 => "not tried since".to_string(),
                n => format!(
                    "tried {n} time{} since, last {}",
                    if n == 1 { "" } else { "s" },
                    local_time(deferred.last_tried_at, tz)
                ),
            };
            let _ = writeln!(
                out,
                "  kept     {}, {tries}",
                local_time(deferred.first_seen_at, tz)
            );
            let _ = writeln!(out, "  why      {}", deferred.last_error);
        }
        DeferredView::Replay(report) => {
            let _ = writeln!(
                out,
                "{} tried: {} applied, {} still waiting, {} dead",
                report.retried, report.applied, report.waiting, report.dead
            );
        }
    }
    out
}
