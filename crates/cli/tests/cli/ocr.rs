//! The text in screenshots, end to end with the real OCR and sentence models: a screenshot
//! stored by the CLI is read before the command exits and found by its words; one sent to
//! `cairn serve` is read by the server's worker. Needs the models and the DejaVu fonts (see
//! `cairn_embed::testing`).

use std::io::Cursor;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_embed::render::{Fonts, Layout, Screen, Theme, database_dialog, psql_lines};
use serde_json::{Value, json};

use super::{Sandbox, Served};

/// A sandbox with both models, and the fonts to draw screenshots.
pub(crate) fn sandbox_with_ocr() -> (Sandbox, Fonts) {
    let sandbox = Sandbox::with_model();
    cairn_embed::testing::ocr_dir_for_tests();
    (sandbox, cairn_embed::testing::fonts_for_tests())
}

pub(crate) fn png(screen: &Screen, fonts: &Fonts) -> Vec<u8> {
    as_png(&screen.draw(fonts))
}

pub(crate) fn terminal(lines: &[&str]) -> Screen {
    Screen {
        width: 760,
        height: 230,
        theme: Theme::Dark,
        layout: Layout::Terminal,
        text_px: 13.0,
        lines: lines.iter().map(|l| l.to_string()).collect(),
    }
}

#[test]
#[ignore = "needs the embedding and OCR models (cairn model install, cairn model install ocr) and the DejaVu fonts"]
fn a_screenshot_stored_by_the_cli_is_read_before_it_exits_and_found_by_its_words() {
    let (s, fonts) = sandbox_with_ocr();
    let psql = Screen {
        lines: psql_lines(),
        ..terminal(&[])
    };
    let other = terminal(&[
        "redis: connection reset by peer on cache-3:6379",
        "test result: ok. 41 passed; 0 failed",
    ]);
    std::fs::write(s.project.join("psql.png"), png(&psql, &fonts)).unwrap();
    std::fs::write(s.project.join("other.png"), png(&other, &fonts)).unwrap();
    let stored = s.ok_json(&["store", "--image", "psql.png"]);
    s.ok_json(&["store", "--image", "other.png", "cache node restarted"]);

    let found = s.ok_json(&["search", "connection refused 5432"]);
    let first = &found["results"][0];
    assert_eq!(first["memory"]["id"], stored["memory"]["id"], "{found}");
    let read = first["images"][0]["text"].as_str().unwrap_or_default();
    assert!(read.contains("Connection refused"), "{found}");
    // Typo-tolerant search knows the screenshot's words too.
    let fuzzy = s.ok_json(&["search", "--mode", "fuzzy", "refsued"]);
    assert_eq!(
        fuzzy["results"][0]["memory"]["id"], stored["memory"]["id"],
        "{fuzzy}"
    );
    // `get` shows what was read; nothing is left unread or unembedded.
    let shown = s
        .ok(&["get", stored["memory"]["id"].as_str().unwrap()])
        .stdout;
    assert!(
        shown.contains("reads") && shown.contains("E1042"),
        "{shown}"
    );
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["ocr"]["store"]["unread"], 0, "{status}");
    assert_eq!(status["ocr"]["store"]["unhashed"], 0, "{status}");
    assert_eq!(status["ocr"]["store"]["images"], 2, "{status}");
    assert_eq!(status["store"]["pending"], 0, "{status}");

    // Vision search finds it by the words it shows, and says which of them it shows.
    let vision = s.ok_json(&["vision", "search", "connection refused 5432"]);
    let first = &vision["hits"][0];
    assert_eq!(first["memories"][0], stored["memory"]["id"], "{vision}");
    let words: Vec<&str> = first["read_words"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for word in ["connection", "refused", "5432"] {
        assert!(words.contains(&word), "{word} in {vision}");
    }
}

#[test]
#[ignore = "needs the embedding and OCR models (cairn model install, cairn model install ocr) and the DejaVu fonts"]
fn the_server_reads_a_screenshot_sent_inline_in_the_background() {
    let (s, fonts) = sandbox_with_ocr();
    let dialog = database_dialog(Theme::Light);
    let token = "ocr-worker-token-0123456789";
    let served = Served::start(&s, &["--project", "acme"], token);
    let body = json!({
        "content": "the dialog the login page showed",
        "image": format!("data:image/png;base64,{}", STANDARD.encode(png(&dialog, &fonts))),
    });
    let (code, stored) = served.post("/v1/memories", token, &body);
    assert_eq!(code, 201, "{stored}");
    // The write answers before the image is read; the worker reads it soon after.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (code, found) = served.get("/v1/search?query=PG-E1042", token);
        assert_eq!(code, 200, "{found}");
        if let Some(hit) = found["results"].as_array().and_then(|r| r.first()) {
            assert_eq!(hit["memory"]["id"], stored["memory"]["id"], "{found}");
            let read = hit["images"][0]["text"].as_str().unwrap_or_default();
            assert!(read.contains("Database error"), "{found}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the server never read the screenshot: {found}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A decoded picture as PNG bytes.
fn as_png(picture: &image::RgbImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    picture
        .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
        .unwrap();
    bytes
}

#[test]
#[ignore = "needs the embedding, OCR and look models (cairn model install, … ocr, … look), the DejaVu fonts and scikit-image's sample photos (CAIRN_TEST_PHOTOS)"]
fn with_the_look_model_screens_that_look_alike_are_found_and_a_photo_is_not() {
    let (s, fonts) = sandbox_with_ocr();
    cairn_embed::testing::look_dir_for_tests();
    let photos = cairn_embed::testing::photos_for_tests();
    let psql = Screen {
        lines: psql_lines(),
        ..terminal(&[])
    };
    let cargo = terminal(&[
        "$ cargo test -p worker",
        "running 41 tests",
        "test result: ok. 41 passed; 0 failed",
    ]);
    let cat = image::open(photos.join("chelsea.png")).unwrap().to_rgb8();
    for (name, bytes) in [
        ("psql.png", png(&psql, &fonts)),
        ("cargo.png", png(&cargo, &fonts)),
        ("dialog.png", png(&database_dialog(Theme::Light), &fonts)),
        ("cat.png", as_png(&cat)),
    ] {
        std::fs::write(s.project.join(name), bytes).unwrap();
        s.ok_json(&["store", "--image", name, &format!("picture {name}")]);
    }
    // Every image got its look vector before the commands exited.
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(
        status["ocr"]["capabilities"]["look_model"], true,
        "{status}"
    );
    assert_eq!(status["ocr"]["store"]["without_vector"], 0, "{status}");

    // Another terminal (other words, light, larger): both terminals look alike to it and
    // rank above the dialog; the photo of a cat does not look alike at all.
    let probe = Screen {
        width: 1024,
        height: 300,
        theme: Theme::Light,
        lines: vec![
            "$ make deploy".into(),
            "error: ssh: connect to host 10.0.0.7 port 22: timed out".into(),
        ],
        ..terminal(&[])
    };
    std::fs::write(s.project.join("probe.png"), png(&probe, &fonts)).unwrap();
    let found = s.ok_json(&["vision", "search", "--image", "probe.png"]);
    let hits = found["hits"].as_array().unwrap();
    let rank = |name: &str| {
        let id = image_id_of(&s, name);
        hits.iter().position(|h| h["image"]["id"] == id.as_str())
    };
    let (psql_rank, cargo_rank) = (rank("psql.png"), rank("cargo.png"));
    assert!(psql_rank.is_some() && cargo_rank.is_some(), "{found}");
    if let Some(dialog_rank) = rank("dialog.png") {
        assert!(
            dialog_rank > psql_rank.unwrap().max(cargo_rank.unwrap()),
            "{found}"
        );
    }
    assert_eq!(rank("cat.png"), None, "{found}");
    assert!(
        hits[0]["signals"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["signal"] == "look_vector"),
        "{found}"
    );
}

fn image_id_of(s: &Sandbox, name: &str) -> String {
    cairn_core::image::ImageId::of(&std::fs::read(s.project.join(name)).unwrap()).to_string()
}
