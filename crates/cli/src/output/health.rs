//! Text for `cairn doctor` (markdown shows the same text): each finding with what it means and
//! what repairs it, problems first; then what a repair did.

use std::fmt::Write as _;

use cairn_core::health::{HealthReport, Severity};

pub fn render(report: &HealthReport) -> String {
    let mut out = String::new();
    report_text(&mut out, report);
    out
}

fn report_text(out: &mut String, report: &HealthReport) {
    for line in &report.repaired {
        let _ = writeln!(out, "repaired: {line}");
    }
    let what = if report.quick {
        "quick checks"
    } else {
        "checks"
    };
    let _ = writeln!(
        out,
        "{}{}: {}",
        report.location,
        if report.location.is_empty() { "" } else { " " }.to_string() + what,
        report.checked.join(", ")
    );
    if report.findings.is_empty() {
        out.push_str("healthy: nothing to report\n");
        return;
    }
    for finding in &report.findings {
        let label = match finding.severity {
            Severity::Problem => "problem",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let _ = writeln!(out, "{label} [{}]: {}", finding.check, finding.found);
        let _ = writeln!(out, "  what it means: {}", finding.meaning);
        if let Some(command) = &finding.command {
            let _ = writeln!(out, "  to repair: {command}");
        }
    }
    if report.healthy() {
        out.push_str("healthy: notes only\n");
    }
}
