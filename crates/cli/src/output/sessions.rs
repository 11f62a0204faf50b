//! Text for the session views (sessions, observations, context, extraction). Markdown shows the
//! same text: it is already what an agent reads well.

use std::fmt::Write as _;

use cairn_core::WriteOutcome;
use cairn_core::WriteStatus;
use cairn_core::context::Context;
use cairn_core::session::ObservationHit;
use cairn_core::session::{Observation, Session};
use jiff::tz::TimeZone;

use super::{local_time, preview};
use crate::history::HistoryReport;

/// Session views: what agents did, and what cairn tells them.
pub enum SessionView<'a> {
    Context(&'a Context),
    Sessions(&'a [Session]),
    Session {
        session: &'a Session,
        observations: &'a [Observation],
    },
    Observations(&'a [ObservationHit]),
    Extracted(&'a [WriteOutcome]),
    /// What importing an agent's history did (`cairn import --agent`).
    HistoryImported(&'a HistoryReport),
}

pub fn render(view: &SessionView<'_>, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        SessionView::Context(context) if context.text.is_empty() => {
            out.push_str("nothing to say yet: no memories in this project\n")
        }
        SessionView::Context(context) => out.push_str(&context.text),
        SessionView::Sessions([]) => out.push_str("no sessions recorded\n"),
        SessionView::Sessions(sessions) => {
            for s in sessions.iter() {
                let state = match s.ended_at {
                    Some(_) => "ended",
                    None => "open",
                };
                let _ = writeln!(
                    out,
                    "{}  {}  {state}  {}  {}",
                    local_time(s.last_seen_at, tz),
                    s.key,
                    s.project,
                    preview(s.first_prompt.as_deref().unwrap_or("-"), 60)
                );
            }
        }
        SessionView::Session {
            session,
            observations,
        } => session_detail(&mut out, session, observations, tz),
        SessionView::Observations([]) => out.push_str("no observations found\n"),
        SessionView::Observations(hits) => {
            for hit in hits.iter() {
                let _ = writeln!(out, "{}  {}", hit.session, hit.project);
                observation(&mut out, &hit.observation, tz);
            }
        }
        SessionView::Extracted([]) => out.push_str("no *Remember*: lines found; nothing stored\n"),
        SessionView::Extracted(outcomes) => {
            for o in outcomes.iter() {
                let verb = match o.status {
                    WriteStatus::Created => "created",
                    WriteStatus::Duplicate => "duplicate",
                    WriteStatus::Updated => "updated",
                    WriteStatus::Unchanged => "unchanged",
                };
                let tags: Vec<&str> = o.memory.tags.iter().map(|t| t.as_str()).collect();
                let expires = o
                    .memory
                    .expires_at
                    .map(|at| format!(", expires {}", local_time(at, tz)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{verb} {} [{}{expires}] {}",
                    o.memory.id.handle(),
                    tags.join(","),
                    preview(&o.memory.content, 70)
                );
            }
        }
        SessionView::HistoryImported(report) => history_imported(&mut out, report),
    }
    out
}

fn history_imported(out: &mut String, r: &HistoryReport) {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if r.found == 0 {
        let _ = writeln!(out, "no {} sessions found at {}", r.agent, r.location);
    } else {
        imported_sessions(out, r);
    }
    if r.skipped_lines > 0 {
        let named: Vec<String> = r
            .skipped_in
            .iter()
            .map(|(name, n)| format!("{name} ({n})"))
            .collect();
        let _ = writeln!(
            out,
            "skipped {} line{} that could not be read: {}",
            r.skipped_lines,
            s(r.skipped_lines),
            named.join(", ")
        );
    }
    for why in &r.unreadable {
        let _ = writeln!(out, "could not read {why}");
    }
    for followed in &r.instructions {
        if followed.files.is_empty() && followed.dropped == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "instructions of {}: {} piece{} {}, {} dropped, {} unchanged ({})",
            followed.project,
            followed.indexed,
            s(followed.indexed),
            if r.dry_run { "to index" } else { "indexed" },
            followed.dropped,
            followed.unchanged,
            followed.files.join(", ")
        );
        for warning in &followed.warnings {
            let _ = writeln!(out, "could not read {}: {}", warning.file, warning.reason);
        }
    }
    if r.beyond_retention > 0 {
        let _ = writeln!(
            out,
            "{} session{} ended before sessions.retention_days: {} observations are hidden as \
             the hooks' would be by now; summaries and remembered facts are kept",
            r.beyond_retention,
            s(r.beyond_retention),
            if r.beyond_retention == 1 {
                "its"
            } else {
                "their"
            }
        );
    }
}

fn imported_sessions(out: &mut String, r: &HistoryReport) {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    let _ = write!(
        out,
        "{} {} of {} {} session{} from {}",
        if r.dry_run {
            "would import"
        } else {
            "imported"
        },
        r.imported,
        r.found,
        r.agent,
        s(r.found),
        r.location
    );
    let mut left: Vec<String> = Vec::new();
    if r.already_recorded > 0 {
        left.push(format!("{} already recorded", r.already_recorded));
    }
    if r.not_selected > 0 {
        left.push(format!("{} not selected", r.not_selected));
    }
    if r.empty > 0 {
        left.push(format!("{} empty", r.empty));
    }
    if !left.is_empty() {
        let _ = write!(out, " ({})", left.join(", "));
    }
    if r.dry_run {
        let _ = writeln!(out, ": {} events; nothing written", r.events);
    } else {
        let _ = writeln!(
            out,
            ": {} observation{}, {} fact{} remembered, {} summar{} ({:.1} s)",
            r.observations,
            s(r.observations),
            r.remembered,
            s(r.remembered),
            r.summarized,
            if r.summarized == 1 { "y" } else { "ies" },
            r.seconds
        );
    }
}

fn session_detail(out: &mut String, s: &Session, observations: &[Observation], tz: &TimeZone) {
    let _ = writeln!(out, "session {}  ({})", s.key, s.project);
    let _ = writeln!(
        out,
        "started {}, last active {}{}",
        local_time(s.started_at, tz),
        local_time(s.last_seen_at, tz),
        s.ended_at
            .map(|at| format!(", ended {}", local_time(at, tz)))
            .unwrap_or_default()
    );
    if let Some(cwd) = &s.cwd {
        let _ = writeln!(out, "in {cwd}");
    }
    if let Some(summary) = &s.summary {
        let by = s.summary_by.map(|b| b.as_str()).unwrap_or("cairn");
        let _ = writeln!(out, "\nsummary (by {by}):\n{summary}");
    }
    let _ = writeln!(out, "\n{} observations", observations.len());
    for o in observations {
        observation(out, o, tz);
    }
}

fn observation(out: &mut String, o: &Observation, tz: &TimeZone) {
    let tool = o
        .tool
        .as_deref()
        .map(|t| format!(" {t}"))
        .unwrap_or_default();
    let text = o
        .input
        .as_deref()
        .or(o.output.as_deref())
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {} {}{tool}{}: {}",
        local_time(o.at, tz),
        o.kind.as_str(),
        if o.error { " (error)" } else { "" },
        preview(text, 90)
    );
}
