//! Text output for people: compact lines for lists, labelled blocks for single memories.

use std::fmt::Write as _;

use cairn_core::embedding::VectorIndexReport;
use cairn_core::exchange::{Counts, ImportReport, MigrationReport};
use cairn_core::memory::{NamedCount, PruneRule};
use cairn_core::search::SearchHit;
use cairn_core::search::snippet::snippet;
use cairn_core::{Memory, Scope, WriteStatus};
use jiff::tz::TimeZone;

use super::relations::lines_of;
use super::{
    ClipView, LookView, OcrView, Style, View, explanation, image_shape, local_time, preview,
    within_budget,
};

pub fn render(view: &View<'_>, style: &Style) -> String {
    let tz = &style.tz;
    let mut out = String::new();
    match view {
        View::Write(outcome) if style.quiet => line(&mut out, &outcome.memory.id.to_string()),
        View::Write(outcome) => {
            let m = &outcome.memory;
            let handle = m.id.handle();
            let message = match outcome.status {
                WriteStatus::Created => format!("created {handle} in {}", scope(&m.scope)),
                WriteStatus::Duplicate => format!(
                    "duplicate {handle}: the same content is already stored in {}; nothing written",
                    scope(&m.scope)
                ),
                WriteStatus::Updated => {
                    format!(
                        "updated {handle}: revised in place; the previous version is in its history"
                    )
                }
                WriteStatus::Unchanged => format!("unchanged {handle}: nothing to change"),
            };
            line(&mut out, &message);
            if let Some(image) = &outcome.image {
                line(
                    &mut out,
                    &format!("  image {} ({})", image.id.short(), image_shape(image)),
                );
            }
            candidates(&mut out, outcome);
        }
        View::Memories {
            memories: list,
            relations,
            images,
        } => {
            for (index, m) in list.iter().enumerate() {
                if index > 0 {
                    out.push('\n');
                }
                detail(&mut out, m, tz);
                for shown in images.iter().filter(|i| i.memory == m.id) {
                    let image = &shown.image;
                    let file = shown
                        .file
                        .as_ref()
                        .map_or_else(|| image.id.to_string(), |f| f.display().to_string());
                    line(
                        &mut out,
                        &format!("  image      {file} ({})", image_shape(image)),
                    );
                    let read = image.text.as_deref().unwrap_or("").lines();
                    for (index, text) in read.filter(|l| !l.trim().is_empty()).enumerate() {
                        let label = if index == 0 { "reads" } else { "" };
                        line(&mut out, &format!("  {label:<10} {}", text.trim()));
                    }
                }
                let lines = lines_of(m, relations);
                if !lines.is_empty() {
                    out.push('\n');
                    for annotation in lines {
                        line(&mut out, &annotation.to_string());
                    }
                }
            }
        }
        View::Histories(list) => {
            for (index, h) in list.iter().enumerate() {
                if index > 0 {
                    out.push('\n');
                }
                detail(&mut out, &h.memory, tz);
                match h.revisions.len() {
                    0 => line(&mut out, "\nhistory: no earlier versions"),
                    n => {
                        line(
                            &mut out,
                            &format!("\nhistory: {n} earlier version{}", plural(n)),
                        );
                        for r in h.revisions.iter().rev() {
                            line(
                                &mut out,
                                &format!(
                                    "  #{:<3} {}  {}",
                                    r.number,
                                    local_time(r.written_at, tz),
                                    preview(&r.content, 70)
                                ),
                            );
                        }
                    }
                }
            }
        }
        View::Listing {
            memories, total, ..
        } => {
            for m in memories.iter() {
                line(&mut out, &row(m, tz));
            }
            if !style.quiet {
                let shown = memories.len() as u64;
                if *total == 0 {
                    line(&mut out, "no memories match");
                } else if shown < *total {
                    line(
                        &mut out,
                        &format!("{shown} shown of {total}; use --offset and --limit for more"),
                    );
                }
            }
        }
        View::Search {
            results,
            explain,
            budget,
            ..
        } => {
            let blocks: Vec<String> = results
                .hits
                .iter()
                .enumerate()
                .map(|(index, hit)| {
                    search_block(index, hit, &results.matched_words, *explain, style)
                })
                .collect();
            out.push_str(&within_budget(blocks, *budget, |n| {
                format!(
                    "… {n} more result{} left out to stay within --budget\n",
                    plural(n)
                )
            }));
            if results.hits.is_empty() && !style.quiet {
                line(&mut out, "no memories match");
            }
        }
        View::Forgotten {
            memory,
            purged: false,
        } => line(
            &mut out,
            &format!(
                "forgotten {h}: hidden from every read; `cairn forget {h} --purge` deletes it for good",
                h = memory.id.handle()
            ),
        ),
        View::Forgotten {
            memory,
            purged: true,
        } => line(
            &mut out,
            &format!(
                "purged {}: deleted for good, with its history",
                memory.id.handle()
            ),
        ),
        View::Unforgotten(memory) => line(
            &mut out,
            &format!(
                "restored {}: visible again, as it was when it was forgotten",
                memory.id.handle()
            ),
        ),
        View::Prune(report) => {
            let n = report.memories.len();
            let which = match report.rule {
                PruneRule::Expired(_) => format!("expired memor{}", ies(n)),
                PruneRule::CreatedBefore(at) => {
                    format!("memor{} created before {}", ies(n), local_time(at, tz))
                }
            };
            let head = match (n, report.deleted) {
                (0, _) => format!("no {which}"),
                (n, false) => format!("would delete {n} {which} (dry run; nothing deleted):"),
                (n, true) => format!("deleted {n} {which}:"),
            };
            line(&mut out, &head);
            for m in &report.memories {
                let when = match report.rule {
                    PruneRule::Expired(_) => {
                        let at = m.expires_at.map(|t| local_time(t, tz)).unwrap_or_default();
                        format!("expired {at}")
                    }
                    PruneRule::CreatedBefore(_) => {
                        format!("created {}", local_time(m.created_at, tz))
                    }
                };
                line(
                    &mut out,
                    &format!("  {}  {when}  {}", m.id.handle(), preview(&m.content, 60)),
                );
            }
        }
        View::Stats {
            stats,
            location,
            tags,
            agents,
            images,
        } => {
            let size = stats
                .size_bytes
                .map(|b| format!(" ({})", bytes(b)))
                .unwrap_or_default();
            line(&mut out, &format!("store       {location}{size}"));
            line(
                &mut out,
                &format!(
                    "memories    {} visible, {} forgotten, {} expired, {} earlier versions",
                    stats.memories, stats.forgotten, stats.expired, stats.revisions
                ),
            );
            if let (Some(oldest), Some(newest)) = (stats.oldest, stats.newest) {
                line(
                    &mut out,
                    &format!(
                        "span        {} to {}",
                        local_time(oldest, tz),
                        local_time(newest, tz)
                    ),
                );
            }
            if images.images > 0 {
                line(
                    &mut out,
                    &format!("images      {} ({})", images.images, bytes(images.bytes)),
                );
            }
            counts(&mut out, "categories", &stats.by_category);
            counts(&mut out, "projects", &stats.by_project);
            if *agents {
                counts(&mut out, "agents", &stats.by_agent);
            }
            if let Some(tags) = tags {
                let named: Vec<NamedCount> = tags
                    .iter()
                    .map(|t| NamedCount {
                        name: t.tag.to_string(),
                        count: t.count,
                    })
                    .collect();
                counts(&mut out, "tags", &named);
            }
            if stats.expired > 0 && !style.quiet {
                line(
                    &mut out,
                    "hint: `cairn prune` deletes expired memories for good",
                );
            }
        }
        View::Tags(tags) => {
            let width = tags
                .iter()
                .map(|t| t.tag.as_str().chars().count())
                .max()
                .unwrap_or(0);
            for t in tags.iter() {
                line(
                    &mut out,
                    &format!("{:<width$}  {}", t.tag.as_str(), t.count),
                );
            }
        }
        View::Session(view) => out.push_str(&super::sessions::render(view, &style.tz)),
        View::Slot(view) => out.push_str(&super::slots::render(view)),
        View::Relation(view) => out.push_str(&super::relations::render(view, &style.tz)),
        View::Files(view) => out.push_str(&super::files::render(view)),
        View::Image(view) => out.push_str(&super::vision::render(view)),
        View::Health(report) => out.push_str(&super::health::render(report)),
        View::Token(view) => out.push_str(&super::tokens::render(view, &style.tz)),
        View::Audit(entries) => out.push_str(&super::audit::render(entries, &style.tz)),
        View::Model(_) | View::Embedded(_) | View::VectorIndex(_) => {
            out.push_str(&model_lines(view))
        }
        View::Imported(_) | View::Exported { .. } if style.quiet => {}
        View::Imported(report) => line(&mut out, &imported(report)),
        View::Migrated(report) => line(&mut out, &migrated(report)),
        View::Exported { counts, to } => line(&mut out, &format!("{} to {to}", exported(counts))),
        View::BackedUp { file } => line(&mut out, &format!("backed up the store to {file}")),
        View::Restored { from, previous } => line(&mut out, &restored(from, *previous)),
    }
    out
}

/// `imported 12 records: memories 10 created, 2 unchanged; slots 2 updated`: each kind that
/// had records, each count that is not zero.
/// Per kind with records, what was done with them: `memories 3 created, 1 unchanged`.
fn kind_counts(report: &ImportReport) -> Vec<String> {
    report
        .kinds()
        .iter()
        .filter(|(_, counted)| counted.total() > 0)
        .map(|(kind, counted)| {
            let parts: Vec<String> = [
                ("created", counted.created),
                ("updated", counted.updated),
                ("unchanged", counted.unchanged),
            ]
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(what, n)| format!("{n} {what}"))
            .collect();
            format!("{} {}", kind.replace('_', " "), parts.join(", "))
        })
        .collect()
}

/// What `cairn migrate-store` did: the records and vectors moved, the check, what stayed.
pub fn migrated(report: &MigrationReport) -> String {
    let records = report.moved.records;
    let mut text = format!(
        "moved {records} record{} ({}), {} vector{} and {} access token{}",
        plural(records as usize),
        kind_counts(&report.moved).join("; "),
        report.vectors,
        plural(report.vectors as usize),
        report.tokens,
        plural(report.tokens as usize)
    );
    let counted: Vec<String> = report
        .check
        .iter()
        .map(|kind| match kind.same {
            true => format!("{} {}", kind.kind.replace('_', " "), kind.source),
            false => format!(
                "{} DIFFER: {} in the source, {} in the target (digests {} and {})",
                kind.kind.replace('_', " "),
                kind.source,
                kind.target,
                kind.source_digest,
                kind.target_digest
            ),
        })
        .collect();
    let verdict = match report.verified() {
        true => "both stores hold the same",
        false => "the stores differ",
    };
    if report.deferred_relations > 0 {
        let n = report.deferred_relations;
        let _ = write!(
            text,
            "\nand {n} deferred relation{} (waiting for their memories)",
            plural(n as usize)
        );
    }
    let _ = write!(text, "\ncheck: {verdict}: {}", counted.join(", "));
    if report.images_left > 0 {
        let _ = write!(
            text,
            "\nnot moved: {} image{} (their files stay in the source's image directory)",
            report.images_left,
            plural(report.images_left as usize)
        );
    }
    text
}

pub fn imported(report: &ImportReport) -> String {
    let kinds = kind_counts(report);
    let records = report.records;
    let head = format!("imported {records} record{}", plural(records as usize));
    let mut text = match kinds.is_empty() {
        true => head,
        false => format!("{head}: {}", kinds.join("; ")),
    };
    if report.conflict_candidates > 0 {
        let n = report.conflict_candidates;
        text.push_str(&format!(
            "\n{n} possible conflict{} with stored memories: cairn conflicts list --status pending",
            plural(n as usize)
        ));
    }
    if report.unchecked > 0 {
        text.push_str(&format!(
            "\n{} plain records were not checked for conflicts (only the first {} are): \
             cairn conflicts scan --apply",
            report.unchecked,
            cairn_core::exchange::CHECKED_PLAIN_RECORDS
        ));
    }
    if report.deferred_applied > 0 {
        let n = report.deferred_applied;
        text.push_str(&format!(
            "
{n} deferred relation{} applied: their memories are here now",
            plural(n as usize)
        ));
    }
    if report.relations_deferred > 0 {
        let n = report.relations_deferred;
        text.push_str(&format!(
            "
{n} relation{} deferred: a memory of {} is not in the store; applied when an \
             import brings it (cairn conflicts deferred)",
            plural(n as usize),
            if n == 1 { "it" } else { "each" }
        ));
    }
    text
}

pub fn restored(from: &str, previous: Option<&str>) -> String {
    match previous {
        Some(previous) => format!(
            "restored the store from {from}; what it held before is saved in {previous} \
             (cairn restore {previous} undoes this)"
        ),
        None => format!("restored the store from {from}"),
    }
}

/// `exported 10 memories, 4 slots, 2 slot seeds`: each kind that has records (memories always).
pub fn exported(counts: &Counts) -> String {
    let kinds: Vec<String> = counts
        .named()
        .iter()
        .filter(|(kind, n)| *n > 0 || *kind == "memories")
        .map(|(kind, n)| format!("{n} {}", kind.replace('_', " ")))
        .collect();
    format!("exported {}", kinds.join(", "))
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn ies(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

fn scope(scope: &Scope) -> String {
    match scope {
        Scope::Global => "global".into(),
        Scope::Project(name) => format!("project {name}"),
    }
}

/// One line per memory: handle, date, category, title or first line, tags.
fn row(m: &Memory, tz: &TimeZone) -> String {
    let text = match &m.title {
        Some(title) => format!("{title} — {}", preview(&m.content, 50)),
        None => preview(&m.content, 70),
    };
    let mut row = format!(
        "{}  {}  {:<10} {text}",
        m.id.handle(),
        local_time(m.created_at, tz),
        m.category
    );
    if !m.tags.is_empty() {
        let _ = write!(row, "  [{}]", join(m.tags.iter().map(|t| t.as_str())));
    }
    row
}

/// A labelled block with every field, then the content.
fn detail(out: &mut String, m: &Memory, tz: &TimeZone) {
    line(
        out,
        &format!(
            "{}  {}  importance {}",
            m.id.handle(),
            m.category,
            m.importance.get()
        ),
    );
    if let Some(title) = &m.title {
        line(out, title);
    }
    let field =
        |out: &mut String, name: &str, value: &str| line(out, &format!("  {name:<10} {value}"));
    field(out, "id", &m.id.to_string());
    field(out, "scope", &scope(&m.scope));
    if !m.tags.is_empty() {
        field(out, "tags", &join(m.tags.iter().map(|t| t.as_str())));
    }
    if let Some(key) = &m.topic_key {
        field(out, "topic", key.as_str());
    }
    let by = m
        .entered_by
        .as_deref()
        .map(|e| format!(" by {e}"))
        .unwrap_or_default();
    field(
        out,
        "created",
        &format!("{}{by} via {}", local_time(m.created_at, tz), m.source),
    );
    if m.updated_at != m.created_at {
        field(out, "updated", &local_time(m.updated_at, tz));
    }
    if let Some(expires) = m.expires_at {
        field(out, "expires", &local_time(expires, tz));
    }
    if let Some(deleted) = m.deleted_at {
        field(out, "forgotten", &local_time(deleted, tz));
    }
    if let Some(session) = &m.session_id {
        field(out, "session", session);
    }
    out.push('\n');
    line(out, &m.content);
}

/// One search result: rank, handle, category, tags, scope; title; the snippet around the
/// matched words; with `explain`, how it was ranked.
fn search_block(
    index: usize,
    hit: &SearchHit,
    matched_words: &[String],
    explain: bool,
    style: &Style,
) -> String {
    let mut out = String::new();
    let m = &hit.memory;
    let mut head = format!("{:>2}. {}  {}", index + 1, m.id.handle(), m.category);
    if !m.tags.is_empty() {
        let _ = write!(head, "  [{}]", join(m.tags.iter().map(|t| t.as_str())));
    }
    let _ = write!(head, "  {}", scope(&m.scope));
    line(&mut out, &head);
    if let Some(title) = &m.title {
        line(&mut out, &format!("    {title}"));
    }
    let (on, off) = if style.color {
        (super::BOLD_ON.to_string(), super::BOLD_OFF.to_string())
    } else {
        ("**".to_string(), "**".to_string())
    };
    let snippet: String = snippet(&m.content, matched_words, 240)
        .into_iter()
        .map(|f| {
            if f.matched {
                format!("{on}{}{off}", f.text)
            } else {
                f.text
            }
        })
        .collect();
    line(&mut out, &format!("    {snippet}"));
    for annotation in &hit.annotations {
        line(&mut out, &format!("    {annotation}"));
    }
    for image in &hit.images {
        line(
            &mut out,
            &format!("    image {} ({})", image.id.short(), image_shape(image)),
        );
        if let Some(read) = image.text.as_deref().filter(|t| !t.trim().is_empty()) {
            let joined: Vec<&str> = read.lines().map(str::trim).collect();
            line(
                &mut out,
                &format!("    reads \"{}\"", preview(&joined.join(" / "), 120)),
            );
        }
    }
    if explain {
        line(&mut out, &format!("    explain: {}", explanation(hit)));
    }
    out
}

/// The memories a write may contradict, and how to settle each.
fn candidates(out: &mut String, outcome: &cairn_core::WriteOutcome) {
    let found = &outcome.candidates;
    if found.is_empty() {
        return;
    }
    line(
        out,
        &format!(
            "judgment required: {} stored memor{} may contradict or be replaced by this one \
             (cairn conflicts judge JUDGMENT --relation supersedes|conflicts_with|scoped|\
             compatible|related|not_conflict):",
            found.len(),
            if found.len() == 1 { "y" } else { "ies" }
        ),
    );
    for c in found {
        line(
            out,
            &format!(
                "  {}  {}  {}  (score {:.2}, judgment {})",
                c.id.handle(),
                c.category,
                preview(&c.title, 60),
                c.score,
                c.judgment_id.handle()
            ),
        );
        if !c.reason.is_empty() {
            line(out, &format!("      {}", c.reason));
        }
    }
}

fn counts(out: &mut String, label: &str, items: &[NamedCount]) {
    if items.is_empty() {
        return;
    }
    let shown: Vec<String> = items
        .iter()
        .take(12)
        .map(|c| format!("{} {}", c.name, c.count))
        .collect();
    let more = items.len().saturating_sub(12);
    let tail = if more > 0 {
        format!(", … {more} more")
    } else {
        String::new()
    };
    line(out, &format!("{label:<11} {}{tail}", shown.join(", ")));
}

/// `1.2 MiB`: a size for people.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn vector_index_line(r: &VectorIndexReport) -> String {
    let what = match (r.rebuilt, r.added) {
        (true, _) => "built anew".to_string(),
        (false, 0) => "up to date".to_string(),
        (false, added) => format!("{added} added"),
    };
    let place = r.location.as_deref().unwrap_or("memory");
    format!(
        "vector index: {} vectors in {place}, {what} in {:.1} s{}",
        r.indexed,
        r.seconds,
        match r.unindexed {
            0 => String::new(),
            n => format!(" ({n} newer ones scanned exactly until the next update)"),
        }
    )
}

/// The image models' part of `cairn model`: installed or not, whether images are read and
/// looked at.
fn image_lines(out: &mut String, ocr: &OcrView, look: &LookView, clip: &ClipView) {
    let state = match &ocr.location {
        Some(dir) => format!("installed in {}", dir.display()),
        None => "not installed (cairn model install ocr)".into(),
    };
    line(out, &format!("{}  {}  {state}", ocr.name, ocr.repo));
    if let Some(from) = &ocr.installed_from {
        line(out, &format!("installed from {from}"));
    }
    let used = match (ocr.enabled, &ocr.location) {
        (true, Some(_)) => "yes: the text in images is searchable",
        (false, _) => "no: turned off (images.ocr); images are found by their caption and tags",
        (true, None) => "no: images are found by their caption and tags until it is installed",
    };
    line(out, &format!("reads images {used}"));
    line(
        out,
        "looks       yes: every image's look is hashed (no model needed); cairn vision search --image finds the same screen",
    );
    let state = match &look.location {
        Some(dir) => format!("installed in {}", dir.display()),
        None => "not installed (cairn model install look)".into(),
    };
    line(out, &format!("{}  {}  {state}", look.name, look.repo));
    if let Some(from) = &look.installed_from {
        line(out, &format!("installed from {from}"));
    }
    let used = match (look.enabled, &look.location) {
        (true, Some(_)) => "yes: images that look alike are found, not only copies of one screen",
        (false, _) => "no: turned off (images.look); only copies of one screen are found",
        (true, None) => "no: only copies of one screen are found until it is installed",
    };
    line(out, &format!("alike       {used}"));
    let state = match (&clip.location, &clip.model) {
        (Some(dir), Some(model)) => match clip.kind {
            Some(kind) => format!("{model} ({kind}) in {}", dir.display()),
            None => format!("{model} in {}", dir.display()),
        },
        _ => "not installed (cairn model install clip, siglip or mobileclip, where the Hugging \
              Face hub is reachable; or images.clip_dir)"
            .into(),
    };
    line(out, &format!("{}  {}  {state}", clip.name, clip.repo));
    if let Some(from) = &clip.installed_from {
        line(out, &format!("installed from {from}"));
    }
    let used = match (clip.enabled, &clip.location, &clip.error) {
        (false, ..) => {
            "no: turned off (images.clip); images are found by their text and look".into()
        }
        (true, Some(_), Some(error)) => format!("no: it cannot be loaded ({error})"),
        (true, Some(_), None) => {
            "yes: images are found by words that describe them (\"a red error banner\")".into()
        }
        (true, None, _) => {
            "no: images are found by their text and look until a CLIP model is there".to_string()
        }
    };
    line(out, &format!("meaning     {used}"));
    if let Some(images) = &ocr.store {
        line(
            out,
            &format!(
                "this store  {} image{}, {} not read yet, {} not hashed yet, {} without a look \
                 vector, {} without a CLIP vector",
                images.images,
                if images.images == 1 { "" } else { "s" },
                images.unread,
                images.unhashed,
                images.without_vector,
                images.without_clip_vector
            ),
        );
    }
}

/// The model views, for people (markdown shows the same lines).
pub fn model_lines(view: &View<'_>) -> String {
    let mut out = String::new();
    match view {
        View::Model(m) => {
            let state = match &m.location {
                Some(location) => format!("installed in {}", location.dir.display()),
                None => "not installed (cairn model install)".into(),
            };
            line(
                &mut out,
                &format!("{}  {}  {} dims  {state}", m.name, m.repo, m.dimensions),
            );
            if let Some(from) = &m.installed_from {
                line(&mut out, &format!("installed from {from}"));
            }
            let used = match (m.enabled, &m.location) {
                (true, Some(_)) => "yes: search is hybrid by default",
                (false, _) => "no: turned off (embedding.enabled / CAIRN_EMBEDDING)",
                (true, None) => "no: search is lexical and fuzzy until a model is installed",
            };
            line(&mut out, &format!("in use      {used}"));
            if let Some(store) = &m.store {
                line(
                    &mut out,
                    &format!(
                        "this store  {} embedded, {} pending",
                        store.counts.embedded, store.counts.pending
                    ),
                );
                if let Some(stored) = &store.model_in_store {
                    line(&mut out, &format!("vectors of  {stored}"));
                }
                if let (Some(stored), Some(used)) = (&store.model_in_store, &store.model_in_use)
                    && stored != used
                {
                    line(
                        &mut out,
                        "the model changed: run `cairn reindex --embeddings`",
                    );
                }
            }
            image_lines(&mut out, &m.ocr, &m.look, &m.clip);
        }
        View::Embedded(r) => {
            line(
                &mut out,
                &format!(
                    "embedded {} memor{} with {} in {:.1} s{}",
                    r.embedded,
                    if r.embedded == 1 { "y" } else { "ies" },
                    r.model,
                    r.seconds,
                    if r.model_changed {
                        " (the model changed: every memory re-embedded)"
                    } else {
                        ""
                    }
                ),
            );
            if let Some(index) = r.index.as_ref().filter(|i| i.rebuilt || i.added > 0) {
                line(&mut out, &vector_index_line(index));
            }
        }
        View::VectorIndex(None) => line(
            &mut out,
            "no vector index: this store is small enough for the exact scan \
             (or, on PostgreSQL, another process is building it right now)",
        ),
        View::VectorIndex(Some(r)) => line(&mut out, &vector_index_line(r)),
        _ => {}
    }
    out
}
