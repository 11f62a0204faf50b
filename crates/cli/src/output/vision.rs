//! Text for the image views: vision search results, and what looking at pending images (or one
//! image) did (markdown shows the same text).

use std::fmt::Write as _;

use cairn_core::api::{ImageLooked, VisionFound};
use cairn_core::image::ReadReport;

use super::{image_shape, preview};

/// Image views: what a vision search found, and what reading pending images did.
pub enum ImageView<'a> {
    /// Images a vision search found.
    Vision(&'a VisionFound),
    /// What looking at pending images did (`reindex --images`).
    ImagesRead(&'a ReadReport),
    /// One image looked at now (`vision embed`), as stored after it.
    ImageLooked(&'a ImageLooked),
}

pub fn render(view: &ImageView<'_>) -> String {
    let mut out = String::new();
    match view {
        ImageView::Vision(found) => hits(&mut out, found),
        ImageView::ImagesRead(report) => read(&mut out, report),
        ImageView::ImageLooked(looked) => {
            let image = &looked.image;
            let _ = writeln!(out, "image {} ({})", image.id, image_shape(image));
            match image.text.as_deref() {
                Some(text) if !text.trim().is_empty() => {
                    let joined: Vec<&str> = text.lines().map(str::trim).collect();
                    let _ = writeln!(out, "reads \"{}\"", preview(&joined.join(" / "), 120));
                }
                Some(_) => out.push_str("shows no text\n"),
                None => out.push_str("its text is not read yet\n"),
            }
            read(&mut out, &looked.report);
        }
    }
    out
}

/// What a look at images did.
fn read(out: &mut String, report: &ReadReport) {
    let _ = writeln!(
        out,
        "looked at images in {:.1} s: {} look{} hashed, {}",
        report.seconds,
        report.hashed,
        if report.hashed == 1 { "" } else { "s" },
        match &report.reader {
            Some(reader) => format!(
                "{} read by {reader} ({} with text)",
                report.read, report.with_text
            ),
            None => "no text read (no OCR model: cairn model install ocr)".into(),
        }
    );
    for failure in &report.failures {
        let _ = writeln!(out, "failed: {failure}");
    }
    for (model, made, what) in [
        (&report.look_model, report.look_vectors, "look"),
        (&report.clip_model, report.clip_vectors, "CLIP"),
    ] {
        if let Some(model) = model {
            let _ = writeln!(out, "{made} {what} vector(s) made by {model}");
        }
    }
}

fn hits(out: &mut String, found: &VisionFound) {
    if found.hits.is_empty() {
        out.push_str("no image found\n");
    }
    for (index, document) in found.hits.iter().enumerate() {
        let hit = &document.hit;
        let signals: Vec<String> = hit
            .signals
            .iter()
            .map(|s| format!("{} #{} ({:.3})", s.signal.as_str(), s.rank, s.score))
            .collect();
        let _ = writeln!(
            out,
            "{:>2}. image {} ({})  score {:.2}  {}",
            index + 1,
            hit.image.id.short(),
            image_shape(&hit.image),
            hit.score,
            signals.join(" · ")
        );
        if let Some(read) = hit.image.text.as_deref().filter(|t| !t.trim().is_empty()) {
            let joined: Vec<&str> = read.lines().map(str::trim).collect();
            let _ = writeln!(out, "    reads \"{}\"", preview(&joined.join(" / "), 120));
        }
        if !hit.read_words.is_empty() {
            let _ = writeln!(out, "    words in the image: {}", hit.read_words.join(", "));
        }
        if !hit.memories.is_empty() {
            let handles: Vec<String> = hit.memories.iter().map(|m| m.handle()).collect();
            let _ = writeln!(out, "    shown by {}", handles.join(", "));
        }
        if !hit.copies.is_empty() {
            let copies: Vec<&str> = hit.copies.iter().map(|c| c.short()).collect();
            let _ = writeln!(out, "    same screen as {}", copies.join(", "));
        }
        if let Some(file) = &document.file {
            let _ = writeln!(out, "    file {}", file.display());
        }
    }
}
