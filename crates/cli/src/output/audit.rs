//! Text for the audit log (markdown shows the same text): one line per entry, newest first.

use std::fmt::Write as _;

use cairn_core::audit::AuditEntry;
use jiff::tz::TimeZone;

use super::local_time;

/// `2026-11-29 10:41  memory.purge  http  3f9a0c1b2d4e (claude-code)  acme  01JD8X…  `
pub fn render(entries: &[AuditEntry], tz: &TimeZone) -> String {
    let mut out = String::new();
    if entries.is_empty() {
        let _ = writeln!(out, "no changes logged (that match)");
        return out;
    }
    let action_width = entries
        .iter()
        .map(|e| e.entry.action.as_str().len())
        .max()
        .unwrap_or(0);
    for entry in entries {
        let entry = &entry.entry;
        let who = match (&entry.token, &entry.agent) {
            (Some(token), Some(agent)) => format!("{token} ({agent})"),
            (Some(token), None) => token.to_string(),
            (None, Some(agent)) => format!("local ({agent})"),
            (None, None) => "local".to_string(),
        };
        let project = entry.project.as_ref().map_or("global", |p| p.as_str());
        let mut line = format!(
            "{}  {:<action_width$}  {:<8}  {who}  {project}",
            local_time(entry.at, tz),
            entry.action.as_str(),
            entry.entry_point.as_str(),
        );
        for part in [&entry.target, &entry.detail] {
            if !part.is_empty() {
                let _ = write!(line, "  {part}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
