//! The look floor, with the code `cairn-bench look` prints from: a half-size, a recoloured and a
//! JPEG copy of each of 20 screenshots finds its original first among 150 drawn screenshots and
//! photos, and no photo ranks above a screenshot. Needs the DejaVu fonts (see
//! `cairn_embed::testing`).

use cairn_bench::look::{LookOptions, run};
use cairn_embed::testing::fonts_for_tests;

#[test]
fn every_copy_of_a_screenshot_finds_its_original_first() {
    let Some(fonts) = fonts_for_tests() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let options = LookOptions {
        seed: 42,
        others: 150,
        originals: 20,
    };
    let report = run(scratch.path(), &fonts, &options, &mut |_| {}).unwrap();
    assert_eq!(report.copies.len(), 3, "{report:#?}");
    for kind in &report.copies {
        assert_eq!(kind.searches, 20, "{report:#?}");
        assert_eq!(kind.first, kind.searches, "{report:#?}");
    }
    assert_eq!(report.photo_above_screen, 0, "{report:#?}");
    assert_eq!(report.photos.same_screen, 0, "{report:#?}");
}
