//! OCR floors, with the code `cairn-bench ocr` prints from: the character error rate on
//! screenshots drawn from known text stays within 2%, and "connection refused 5432" finds the
//! psql screenshot first among 200 others that share words with it. Needs the OCR model and
//! the DejaVu fonts (see `cairn_embed::testing`).

use std::sync::Arc;

use cairn_bench::ocr::{OcrOptions, accuracy, find};
use cairn_embed::ocr::OcrReader;
use cairn_embed::testing::{ocr_dir_for_tests, ocr_for_tests};

#[test]
#[ignore = "needs the OCR model (cairn model install ocr) and the DejaVu fonts"]
fn drawn_screenshots_are_read_within_two_percent_character_error() {
    let (ocr, fonts) = ocr_for_tests();
    let (screens, _) = accuracy(&ocr, &fonts, 42, 1, &mut |_| {}).unwrap();
    let (characters, errors) = screens
        .iter()
        .fold((0, 0), |(c, e), s| (c + s.characters, e + s.errors));
    let cer = errors as f64 / characters as f64;
    assert!(
        cer <= 0.02,
        "character error rate {:.2}% over {characters} characters: {screens:#?}",
        cer * 100.0
    );
    for screen in &screens {
        assert!(screen.cer <= 0.05, "{screen:#?}");
    }
}

#[test]
#[ignore = "needs the OCR model (cairn model install ocr) and the DejaVu fonts"]
fn the_psql_screenshot_is_found_first_by_its_words_among_200_others() {
    let (_, fonts) = ocr_for_tests();
    let dir = ocr_dir_for_tests();
    let scratch = tempfile::tempdir().unwrap();
    let options = OcrOptions {
        seed: 42,
        others: 200,
    };
    let report = find(
        scratch.path(),
        Arc::new(OcrReader::new(&dir)),
        &fonts,
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.images, 201);
    assert_eq!(report.rank, Some(1), "{report:#?}");
}
