//! Screenshots drawn from known text, for the OCR tests and the benchmark: a terminal and a
//! dialog, light or dark, at any size, with the exact text kept beside the picture.
//!
//! Text is drawn with the DejaVu fonts (Debian's `fonts-dejavu-core`, found in
//! [`FONT_DIR`] or `$CAIRN_FONT_DIR`): monospace for terminals, sans for dialogs, anti-aliased
//! as a screen draws them.

use std::path::PathBuf;

use ab_glyph::{Font, FontVec, PxScale, ScaleFont, point};
use image::{Rgb, RgbImage};

/// Where Debian's `fonts-dejavu-core` puts its fonts.
pub const FONT_DIR: &str = "/usr/share/fonts/truetype/dejavu";

/// The two fonts screenshots are drawn with.
pub struct Fonts {
    pub mono: FontVec,
    pub sans: FontVec,
}

impl Fonts {
    /// The DejaVu fonts from `$CAIRN_FONT_DIR`, else [`FONT_DIR`]; `None` when they are not
    /// there.
    pub fn find() -> Option<Fonts> {
        let dir = std::env::var_os("CAIRN_FONT_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(FONT_DIR));
        let load = |file: &str| FontVec::try_from_vec(std::fs::read(dir.join(file)).ok()?).ok();
        Some(Fonts {
            mono: load("DejaVuSansMono.ttf")?,
            sans: load("DejaVuSans.ttf")?,
        })
    }
}

/// Light or dark colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    fn background(self) -> Rgb<u8> {
        match self {
            Theme::Light => Rgb([250, 250, 248]),
            Theme::Dark => Rgb([30, 30, 36]),
        }
    }

    fn ink(self) -> Rgb<u8> {
        match self {
            Theme::Light => Rgb([32, 32, 32]),
            Theme::Dark => Rgb([222, 222, 214]),
        }
    }
}

/// What is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Lines of monospace text from the top left, as a terminal shows them.
    Terminal,
    /// A window: a title bar with the first line, the other lines in its body, an OK button.
    Dialog,
}

/// A screenshot to draw.
#[derive(Debug, Clone)]
pub struct Screen {
    pub width: u32,
    pub height: u32,
    pub theme: Theme,
    pub layout: Layout,
    /// Text height in pixels.
    pub text_px: f32,
    pub lines: Vec<String>,
}

impl Screen {
    /// The text the screenshot shows, as OCR should read it: one line per line, the dialog's
    /// button last.
    pub fn text(&self) -> String {
        let mut lines = self.lines.clone();
        if self.layout == Layout::Dialog {
            lines.push("OK".into());
        }
        lines.join("\n")
    }

    /// Draws the screenshot.
    pub fn draw(&self, fonts: &Fonts) -> RgbImage {
        let (background, ink) = (self.theme.background(), self.theme.ink());
        let mut image = RgbImage::from_pixel(self.width, self.height, background);
        let line_height = (self.text_px * 1.45).ceil();
        match self.layout {
            Layout::Terminal => {
                for (i, line) in self.lines.iter().enumerate() {
                    let top = 10.0 + i as f32 * line_height;
                    draw_text(
                        &mut image,
                        &fonts.mono,
                        self.text_px,
                        (12.0, top),
                        line,
                        ink,
                    );
                }
            }
            Layout::Dialog => {
                let bar = line_height as u32 + 16;
                let accent = Rgb([52, 101, 164]);
                fill(&mut image, (0, 0, self.width, bar), accent);
                let title = self.lines.first().map_or("", String::as_str);
                let white = Rgb([255, 255, 255]);
                draw_text(
                    &mut image,
                    &fonts.sans,
                    self.text_px,
                    (16.0, 8.0),
                    title,
                    white,
                );
                for (i, line) in self.lines.iter().skip(1).enumerate() {
                    let top = bar as f32 + 18.0 + i as f32 * line_height;
                    draw_text(
                        &mut image,
                        &fonts.sans,
                        self.text_px,
                        (24.0, top),
                        line,
                        ink,
                    );
                }
                let (button_w, button_h) = ((self.text_px * 5.0) as u32, line_height as u32 + 12);
                let (x, y) = (
                    self.width.saturating_sub(button_w + 24),
                    self.height.saturating_sub(button_h + 20),
                );
                fill(&mut image, (x, y, button_w, button_h), accent);
                let label_x = x as f32 + (button_w as f32 - self.text_px * 1.4) / 2.0;
                draw_text(
                    &mut image,
                    &fonts.sans,
                    self.text_px,
                    (label_x, y as f32 + 6.0),
                    "OK",
                    white,
                );
            }
        }
        image
    }
}

/// The lines of a terminal showing a failed psql connection: the screenshot the tests and the
/// benchmark look for ("connection refused", "5432", the error code E1042).
pub fn psql_lines() -> Vec<String> {
    [
        "$ psql -h db.internal -p 5432 orders",
        "psql: error: connection to server at \"db.internal\", port 5432 failed: Connection refused",
        "    Is the server running on that host and accepting TCP/IP connections?",
        "deploy failed with error code E1042 after 3 retries",
    ]
    .map(String::from)
    .to_vec()
}

/// A 760×230 dialog reporting a database error ("Connection refused on port 5432", code
/// PG-E1042).
pub fn database_dialog(theme: Theme) -> Screen {
    Screen {
        width: 760,
        height: 230,
        theme,
        layout: Layout::Dialog,
        text_px: 15.0,
        lines: vec![
            "Database error".into(),
            "Connection refused on port 5432".into(),
            "Error code: PG-E1042".into(),
        ],
    }
}

/// Fills the rectangle (x, y, width, height), clipped to the image.
fn fill(image: &mut RgbImage, (x, y, w, h): (u32, u32, u32, u32), colour: Rgb<u8>) {
    for py in y..(y + h).min(image.height()) {
        for px in x..(x + w).min(image.width()) {
            image.put_pixel(px, py, colour);
        }
    }
}

/// Draws `text` with its top left at `origin`, blending `ink` by each pixel's coverage.
fn draw_text(
    image: &mut RgbImage,
    font: &FontVec,
    px: f32,
    origin: (f32, f32),
    text: &str,
    ink: Rgb<u8>,
) {
    let scale = PxScale::from(px);
    let scaled = font.as_scaled(scale);
    let baseline = origin.1 + scaled.ascent();
    let mut x = origin.0;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        let glyph = id.with_scale_and_position(scale, point(x, baseline));
        x += scaled.h_advance(id);
        let Some(outline) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outline.px_bounds();
        outline.draw(|gx, gy, coverage| {
            let (px, py) = (
                bounds.min.x as i64 + gx as i64,
                bounds.min.y as i64 + gy as i64,
            );
            if px < 0 || py < 0 || px >= image.width() as i64 || py >= image.height() as i64 {
                return;
            }
            let pixel = image.get_pixel_mut(px as u32, py as u32);
            for k in 0..3 {
                let under = pixel.0[k] as f32;
                pixel.0[k] = (under + (ink.0[k] as f32 - under) * coverage.min(1.0)).round() as u8;
            }
        });
    }
}
