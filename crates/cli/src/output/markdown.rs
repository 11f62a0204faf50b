//! Markdown output for agents: headings per memory with the id an agent can `get` again, the
//! metadata as one compact line, then the content verbatim.

use std::fmt::Write as _;

use cairn_core::memory::PruneRule;
use cairn_core::{Memory, Scope};
use jiff::tz::TimeZone;

use super::relations::lines_of;
use super::{View, explanation, local_time, preview, within_budget};

pub fn render(view: &View<'_>, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        View::Write(outcome) => {
            let _ = writeln!(out, "**{}** `{}`\n", outcome.status, outcome.memory.id);
            memory(&mut out, &outcome.memory, tz, 3);
            if !outcome.candidates.is_empty() {
                let _ = writeln!(out, "**Judgment required**: this memory may contradict:\n");
                for c in &outcome.candidates {
                    let _ = writeln!(
                        out,
                        "- `{}` {} (score {:.2}, judgment `{}`): {}",
                        c.id.handle(),
                        c.title,
                        c.score,
                        c.judgment_id,
                        c.reason
                    );
                }
                out.push('\n');
            }
        }
        View::Memories {
            memories: list,
            relations,
            images: _,
        } => {
            for m in list.iter() {
                memory(&mut out, m, tz, 3);
                annotations(&mut out, &lines_of(m, relations));
            }
        }
        View::Histories(list) => {
            for h in list.iter() {
                memory(&mut out, &h.memory, tz, 3);
                if !h.revisions.is_empty() {
                    let _ = writeln!(out, "#### History\n");
                    for r in h.revisions.iter().rev() {
                        let _ = writeln!(
                            out,
                            "- #{} ({}): {}",
                            r.number,
                            local_time(r.written_at, tz),
                            one_line(&r.content)
                        );
                    }
                    out.push('\n');
                }
            }
        }
        View::Listing {
            memories, total, ..
        } => {
            let _ = writeln!(out, "## Memories ({} of {total})\n", memories.len());
            memories.iter().for_each(|m| memory(&mut out, m, tz, 3));
        }
        View::Search {
            query,
            results,
            explain,
            budget,
        } => {
            let hits = &results.hits;
            let _ = writeln!(
                out,
                "## Search: {query} ({} result{})\n",
                hits.len(),
                if hits.len() == 1 { "" } else { "s" }
            );
            let blocks: Vec<String> = hits
                .iter()
                .map(|hit| {
                    let mut block = String::new();
                    memory(&mut block, &hit.memory, tz, 3);
                    annotations(&mut block, &hit.annotations);
                    if *explain {
                        let _ = writeln!(block, "_explain: {}_\n", explanation(hit));
                    }
                    block
                })
                .collect();
            out.push_str(&within_budget(blocks, *budget, |n| {
                format!("_{n} more result(s) left out to stay within the token budget._\n")
            }));
        }
        View::Forgotten { memory: m, purged } => {
            let _ = writeln!(
                out,
                "**{}** `{}`",
                if *purged { "purged" } else { "forgotten" },
                m.id
            );
        }
        View::Unforgotten(m) => {
            let _ = writeln!(out, "**restored** `{}`", m.id);
        }
        View::Prune(report) => {
            let verb = if report.deleted {
                "Deleted"
            } else {
                "Would delete"
            };
            let which = match report.rule {
                PruneRule::Expired(_) => "expired memories".to_string(),
                PruneRule::CreatedBefore(at) => {
                    format!("memories created before {}", local_time(at, tz))
                }
            };
            let _ = writeln!(out, "## {verb} {} {which}\n", report.memories.len());
            report
                .memories
                .iter()
                .for_each(|m| memory(&mut out, m, tz, 3));
        }
        View::Stats {
            stats,
            location,
            tags,
            agents,
            images,
        } => {
            let _ = writeln!(out, "## cairn store\n");
            let _ = writeln!(out, "- location: `{location}`");
            let _ = writeln!(
                out,
                "- memories: {} visible, {} forgotten, {} expired",
                stats.memories, stats.forgotten, stats.expired
            );
            if images.images > 0 {
                let _ = writeln!(
                    out,
                    "- images: {} ({})",
                    images.images,
                    super::text::bytes(images.bytes)
                );
            }
            let list = |items: Vec<String>| items.join(", ");
            let _ = writeln!(
                out,
                "- categories: {}",
                list(
                    stats
                        .by_category
                        .iter()
                        .map(|c| format!("{} {}", c.name, c.count))
                        .collect()
                )
            );
            let _ = writeln!(
                out,
                "- projects: {}",
                list(
                    stats
                        .by_project
                        .iter()
                        .map(|c| format!("{} {}", c.name, c.count))
                        .collect()
                )
            );
            if *agents {
                let _ = writeln!(
                    out,
                    "- agents: {}",
                    list(
                        stats
                            .by_agent
                            .iter()
                            .map(|c| format!("{} {}", c.name, c.count))
                            .collect()
                    )
                );
            }
            if let Some(tags) = tags {
                let _ = writeln!(
                    out,
                    "- tags: {}",
                    list(
                        tags.iter()
                            .map(|t| format!("{} {}", t.tag, t.count))
                            .collect()
                    )
                );
            }
        }
        View::Tags(tags) => tags.iter().for_each(|t| {
            let _ = writeln!(out, "- {} ({})", t.tag, t.count);
        }),
        View::Imported(report) => {
            let _ = writeln!(out, "{}.", sentence(&super::text::imported(report)));
        }
        View::Migrated(report) => {
            let _ = writeln!(out, "{}", super::text::migrated(report));
        }
        View::Exported { counts, to } => {
            let _ = writeln!(
                out,
                "{} to `{to}`.",
                sentence(&super::text::exported(counts))
            );
        }
        View::BackedUp { file } => {
            let _ = writeln!(out, "Backed up the store to `{file}`.");
        }
        View::Restored { from, previous } => {
            let _ = writeln!(
                out,
                "{}.",
                sentence(&super::text::restored(from, *previous))
            );
        }
        View::Session(view) => out.push_str(&super::sessions::render(view, tz)),
        View::Slot(view) => out.push_str(&super::slots::render(view)),
        View::Relation(view) => out.push_str(&super::relations::render(view, tz)),
        View::Files(view) => out.push_str(&super::files::render(view)),
        View::Image(view) => out.push_str(&super::vision::render(view)),
        View::Health(report) => out.push_str(&super::health::render(report)),
        View::Token(view) => out.push_str(&super::tokens::render(view, tz)),
        View::Audit(entries) => out.push_str(&super::audit::render(entries, tz)),
        View::Model(_) | View::Embedded(_) | View::VectorIndex(_) => {
            out.push_str(&super::text::model_lines(view))
        }
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn memory(out: &mut String, m: &Memory, tz: &TimeZone, level: usize) {
    let title = m.title.clone().unwrap_or_else(|| preview(&m.content, 60));
    let _ = writeln!(out, "{} {title} (`{}`)\n", "#".repeat(level), m.id.handle());
    let mut meta = vec![
        m.category.to_string(),
        format!("importance {}", m.importance.get()),
    ];
    meta.push(match &m.scope {
        Scope::Global => "global".into(),
        Scope::Project(p) => format!("project {p}"),
    });
    if !m.tags.is_empty() {
        meta.push(format!(
            "tags: {}",
            m.tags
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    meta.push(format!("created {}", local_time(m.created_at, tz)));
    if let Some(expires) = m.expires_at {
        meta.push(format!("expires {}", local_time(expires, tz)));
    }
    let _ = writeln!(out, "_{}_ · id `{}`\n", meta.join(" · "), m.id);
    let _ = writeln!(out, "{}\n", m.content.trim_end());
}

/// A memory's relation lines, each on its own line, as parsers expect them.
fn annotations(out: &mut String, lines: &[cairn_core::relation::Annotation]) {
    if lines.is_empty() {
        return;
    }
    for annotation in lines {
        let _ = writeln!(out, "{annotation}");
    }
    out.push('\n');
}

/// A text line as a sentence: its first letter upper-case.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
