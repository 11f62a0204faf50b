//! Rendering results as text (people), JSON (scripts) or markdown (agents).
//!
//! Every command hands the printer a [`View`]; [`render`] turns it into one string per format,
//! which keeps the formats side by side and lets snapshot tests pin each without a process. A
//! domain with several results has its own view enum in its own file ([`SessionView`],
//! [`SlotView`], [`RelationsView`], [`FilesView`], [`ImageView`], [`TokenView`]) with their
//! text; `text.rs` and `markdown.rs` hand each such view to its file, and `json.rs` matches it
//! in full, so every match is exhaustive and a new result cannot go unrendered.
//! Text and markdown show times in the user's time zone; JSON carries RFC 3339 UTC timestamps
//! and every field, plus each memory's short `handle`.

mod audit;
mod deferred;
mod files;
mod health;
mod json;
mod markdown;
pub mod progress;
mod relations;
mod sessions;
mod slots;
pub(crate) mod text;
mod tokens;
mod vision;

pub use deferred::DeferredView;
pub use files::FilesView;
pub use relations::RelationsView;
pub use sessions::SessionView;
pub use slots::SlotView;
pub use tokens::TokenView;
pub use vision::ImageView;

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use cairn_core::api::ImageDocument;
use cairn_core::audit::AuditEntry;
use cairn_core::embedding::VectorIndexReport;
use cairn_core::embedding::{EmbedReport, EmbeddingStatus};
use cairn_core::exchange::{Counts, ImportReport, MigrationReport};
use cairn_core::health::HealthReport;
use cairn_core::image::{Image, ImageTotals};
use cairn_core::memory::{MemoryHistory, PruneReport};
use cairn_core::memory::{StoreStats, TagCount};
use cairn_core::relation::RelationView;
use cairn_core::search::{SearchHit, SearchResults};
use cairn_core::{Memory, WriteOutcome};
use cairn_embed::ModelLocation;
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

pub use crate::args::Format;

/// Something a command produced, ready to render.
pub enum View<'a> {
    Write(&'a WriteOutcome),
    /// Memories shown in full, with the lines their relations add (`cairn get`).
    Memories {
        memories: &'a [Memory],
        relations: &'a [RelationView],
        /// The images they show.
        images: &'a [ImageDocument],
    },
    Histories(&'a [MemoryHistory]),
    Listing {
        memories: &'a [Memory],
        total: u64,
        /// The images the listed memories show (JSON attaches them to each memory).
        images: &'a [ImageDocument],
    },
    Search {
        query: &'a str,
        results: &'a SearchResults,
        explain: bool,
        budget: Option<usize>,
    },
    Forgotten {
        memory: &'a Memory,
        purged: bool,
    },
    /// A forgotten memory brought back (`cairn forget --undo`).
    Unforgotten(&'a Memory),
    /// What `cairn doctor` found (and repaired).
    Health(&'a HealthReport),
    Prune(&'a PruneReport),
    Stats {
        stats: &'a StoreStats,
        location: &'a str,
        tags: Option<&'a [TagCount]>,
        agents: bool,
        /// The images memories show.
        images: ImageTotals,
    },
    Tags(&'a [TagCount]),
    Imported(&'a ImportReport),
    Exported {
        counts: &'a Counts,
        to: &'a str,
    },
    /// A backup written to `file`.
    BackedUp {
        file: &'a str,
    },
    /// The store replaced by the backup in `from`; the state it replaced saved in `previous`.
    Restored {
        from: &'a str,
        previous: Option<&'a str>,
    },
    Model(&'a ModelView),
    Embedded(&'a EmbedReport),
    /// The store's vector index after an update; `None` when it keeps none.
    VectorIndex(Option<&'a VectorIndexReport>),
    /// What `cairn migrate-store` moved, and its check.
    Migrated(&'a MigrationReport),
    /// Session views: what agents did, and what cairn tells them.
    Session(sessions::SessionView<'a>),
    /// Slot views: a project's slots and what reflection did to them.
    Slot(slots::SlotView<'a>),
    /// Relation views: judgments between memories, their counts and a scan.
    Relation(relations::RelationsView<'a>),
    /// Files views: a project's markdown workspace and what syncing it did.
    Files(files::FilesView<'a>),
    /// Image views: what a vision search found, and what reading pending images did.
    Image(vision::ImageView<'a>),
    /// Token views: access tokens issued, listed and revoked.
    Token(tokens::TokenView<'a>),
    /// The audit log's entries, newest first.
    Audit(&'a [AuditEntry]),
}

/// The embedding model: where it is installed, whether it is used, and (for `model status`)
/// this store's vectors.
#[derive(Debug, Serialize)]
pub struct ModelView {
    pub name: &'static str,
    pub repo: &'static str,
    pub dimensions: usize,
    /// Where it is installed; `None` when it is not.
    pub location: Option<ModelLocation>,
    /// Config `embedding.enabled` / `CAIRN_EMBEDDING`.
    pub enabled: bool,
    /// Set by `model install`: where it came from.
    pub installed_from: Option<String>,
    /// Set by `model status`.
    pub store: Option<EmbeddingStatus>,
    /// The OCR model, which makes the text in images searchable.
    pub ocr: OcrView,
    /// The look model, which finds images that look alike.
    pub look: LookView,
    /// The CLIP model, which finds images by words that describe them.
    pub clip: ClipView,
}

/// The look model: where it is installed and whether images' look vectors are made.
#[derive(Debug, Serialize)]
pub struct LookView {
    pub name: &'static str,
    pub repo: &'static str,
    /// Where it is installed; `None` when it is not.
    pub location: Option<PathBuf>,
    /// Config `images.look`.
    pub enabled: bool,
    /// Set by `model install look`: where it came from.
    pub installed_from: Option<String>,
}

/// The CLIP model: where it is (installed, or a directory named in config) and whether images
/// are found by meaning.
#[derive(Debug, Serialize)]
pub struct ClipView {
    pub name: &'static str,
    /// What `cairn model install clip` fetches.
    pub repo: &'static str,
    /// Where it is; `None` when there is none.
    pub location: Option<PathBuf>,
    /// The name its vectors are recorded under.
    pub model: Option<String>,
    /// What kind of model it is, by its config's `model_type` (`clip` or `siglip`).
    pub kind: Option<&'static str>,
    /// Config `images.clip`.
    pub enabled: bool,
    /// Why the model there cannot be loaded (its config, merges and every tensor are checked),
    /// when it cannot.
    pub error: Option<String>,
    /// Set by `model install clip`: where it came from.
    pub installed_from: Option<String>,
}

/// The OCR model: where it is installed, whether images are read, and (for `model status`)
/// this store's images.
#[derive(Debug, Serialize)]
pub struct OcrView {
    pub name: &'static str,
    pub repo: &'static str,
    /// Where it is installed; `None` when it is not.
    pub location: Option<PathBuf>,
    /// Config `images.ocr`.
    pub enabled: bool,
    /// Set by `model install ocr`: where it came from.
    pub installed_from: Option<String>,
    /// Set by `model status`.
    pub store: Option<ImageTotals>,
    /// How images are found besides their memories' words.
    pub capabilities: ImageCapabilities,
}

/// Which ways of finding images are on.
#[derive(Debug, Serialize)]
pub struct ImageCapabilities {
    /// Their text is read (the OCR model is installed and `images.ocr` is on).
    pub ocr: bool,
    /// Their looks are hashed (always: no model needed): the same screen is found.
    pub look: bool,
    /// Their look vectors are made (the look model is installed and `images.look` is on):
    /// images that look alike are found.
    pub look_model: bool,
    /// Their CLIP vectors are made (a CLIP model is there and `images.clip` is on): images are
    /// found by words that describe them.
    pub clip: bool,
}

/// How to render: format, time zone for people, whether to keep to the essentials, and whether
/// the terminal shows bold text (else matched words are marked `**like this**`).
pub struct Style {
    pub format: Format,
    pub quiet: bool,
    pub tz: TimeZone,
    pub color: bool,
}

pub fn render(view: &View<'_>, style: &Style) -> String {
    let rendered = render_raw(view, style);
    match style.format {
        // JSON escapes every control character itself.
        Format::Json => rendered,
        Format::Text | Format::Markdown => printable(&rendered)
            .replace(BOLD_ON, "\x1b[1m")
            .replace(BOLD_OFF, "\x1b[0m"),
    }
}

/// Where the text renderer wants bold on and off (a terminal's escape codes, added after the
/// stored text was made printable).
pub const BOLD_ON: char = '\u{E000}';
pub const BOLD_OFF: char = '\u{E001}';

/// `PNG, 1920×1080, 431204 bytes`: what an image is, in one phrase.
pub fn image_shape(image: &Image) -> String {
    format!(
        "{}, {}×{}, {} bytes",
        image.format.as_str().to_ascii_uppercase(),
        image.width,
        image.height,
        image.bytes
    )
}

/// `text` with every control character but line ends and tabs shown as an escape (`\x1b`):
/// stored text (an agent's tool output, a web page's words) can hold a terminal's escape
/// sequences, which would otherwise move the cursor, rewrite what is on screen or retitle the
/// window of whoever reads it.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn render_raw(view: &View<'_>, style: &Style) -> String {
    match style.format {
        Format::Json => json::render(view),
        Format::Markdown => markdown::render(view, &style.tz),
        Format::Text => text::render(view, style),
    }
}

/// Writes rendered views to standard output.
pub struct Printer {
    style: Style,
}

impl Printer {
    pub fn new(format: Format, quiet: bool, tz: TimeZone) -> Self {
        use std::io::IsTerminal;
        let color = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Printer {
            style: Style {
                format,
                quiet,
                tz,
                color,
            },
        }
    }

    pub fn format(&self) -> Format {
        self.style.format
    }

    pub fn quiet(&self) -> bool {
        self.style.quiet
    }

    pub fn print(&self, view: &View<'_>) -> io::Result<()> {
        let rendered = render(view, &self.style);
        let mut stdout = io::stdout().lock();
        stdout.write_all(rendered.as_bytes())?;
        stdout.flush()
    }

    /// A notice for people on standard error (never in quiet mode, never mixed into data).
    /// A line on standard error. A closed stderr is ignored: a notice is never worth failing
    /// for (and must not bring down a running server).
    pub fn notice(&self, message: &str) {
        if !self.style.quiet {
            let _ = writeln!(std::io::stderr(), "{message}");
        }
    }
}

/// `2026-03-11 14:05` in the given zone.
/// A relation's current verdict, or `pending` (the relation and deferred views).
fn state(relation: &cairn_core::relation::Relation) -> String {
    match relation.kind() {
        Some(kind) => kind.to_string(),
        None => "pending".into(),
    }
}

pub fn local_time(ts: Timestamp, tz: &TimeZone) -> String {
    ts.to_zoned(tz.clone())
        .strftime("%Y-%m-%d %H:%M")
        .to_string()
}

/// How a search result was ranked, on one line.
pub fn explanation(hit: &SearchHit) -> String {
    let signals: Vec<String> = hit
        .signals
        .iter()
        .map(|s| match s.held {
            Some(held) => format!(
                "{} #{} (score {:.3}, holds {:.0}% of the query)",
                s.signal,
                s.rank,
                s.raw,
                held * 100.0
            ),
            None => format!("{} #{} (score {:.3})", s.signal, s.rank, s.raw),
        })
        .collect();
    format!(
        "{}; recency {:+.4}, importance {:+.4}, project {:+.4} (in first places) -> score {:.5}",
        signals.join(", "),
        hit.boosts.recency,
        hit.boosts.importance,
        hit.boosts.project,
        hit.score
    )
}

/// Renders each item and keeps those that fit `budget` tokens, with a note when some do not.
pub fn within_budget(
    items: Vec<String>,
    budget: Option<usize>,
    note: impl Fn(usize) -> String,
) -> String {
    let keep = budget.map_or(items.len(), |b| cairn_core::tokens::fit(&items, b));
    let left_out = items.len() - keep;
    let mut out: String = items.into_iter().take(keep).collect();
    if left_out > 0 {
        out.push_str(&note(left_out));
    }
    out
}

/// The first line of `text`, cut to `max` characters with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= max && !text.trim().contains('\n') {
        return line.to_string();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests;
