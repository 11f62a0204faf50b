//! OCR of screenshots drawn from known text: terminal and dialog, light and dark, 760×230 and
//! 1920×1080. The words a search would use come out exact. Needs the OCR model and the DejaVu
//! fonts (see `cairn_embed::testing`).

use cairn_embed::render::{Layout, Screen, Theme, database_dialog, psql_lines};
use cairn_embed::testing::ocr_for_tests;

/// Every line of a dense full-HD terminal: many boxes, as a real log screenshot has.
fn dense_lines() -> Vec<String> {
    let mut lines = psql_lines();
    for i in 0..44 {
        lines.push(format!(
            "2026-11-23T10:{:02}:{:02}Z worker-{i} INFO job {} finished in {}.{}s status=ok queue=billing",
            i % 60,
            (i * 7) % 60,
            1000 + i * 37,
            i % 9,
            (i * 3) % 10
        ));
    }
    lines
}

fn assert_reads(read: &str, words: &[&str]) {
    let lower = read.to_lowercase();
    for word in words {
        assert!(
            lower.contains(&word.to_lowercase()),
            "'{word}' was not read exactly; OCR read:\n{read}"
        );
    }
}

#[test]
#[ignore = "needs the OCR model (cairn model install ocr) and the DejaVu fonts"]
fn terminal_screenshots_read_the_words_that_matter_light_and_dark_small_and_full_hd() {
    let (ocr, fonts) = ocr_for_tests();
    for theme in [Theme::Dark, Theme::Light] {
        for (width, height, lines) in [(760, 230, psql_lines()), (1920, 1080, dense_lines())] {
            let screen = Screen {
                width,
                height,
                theme,
                layout: Layout::Terminal,
                text_px: if width > 1000 { 16.0 } else { 12.0 },
                lines,
            };
            let read = ocr.read(&screen.draw(&fonts)).unwrap();
            assert_reads(
                &read,
                &["connection refused", "5432", "E1042", "db.internal"],
            );
            // Lines come out in order, one screen line per line.
            let first = read.lines().next().unwrap_or_default();
            assert!(first.contains("psql"), "first line read: {first}");
        }
    }
}

#[test]
#[ignore = "needs the OCR model (cairn model install ocr) and the DejaVu fonts"]
fn a_dialog_reads_its_title_message_and_button() {
    let (ocr, fonts) = ocr_for_tests();
    for theme in [Theme::Light, Theme::Dark] {
        let screen = database_dialog(theme);
        let read = ocr.read(&screen.draw(&fonts)).unwrap();
        assert_reads(
            &read,
            &[
                "Database error",
                "connection refused",
                "5432",
                "PG-E1042",
                "OK",
            ],
        );
    }
}

#[test]
#[ignore = "needs the OCR model (cairn model install ocr) and the DejaVu fonts"]
fn a_blank_image_reads_as_nothing() {
    let (ocr, fonts) = ocr_for_tests();
    let screen = Screen {
        width: 320,
        height: 200,
        theme: Theme::Light,
        layout: Layout::Terminal,
        text_px: 14.0,
        lines: Vec::new(),
    };
    assert_eq!(ocr.read(&screen.draw(&fonts)).unwrap(), "");
}
