//! The look floor, with the code `cairn-bench look` prints from: a half-size, a recoloured and a
//! JPEG copy of each of 20 screenshots finds its original first among 150 drawn screenshots and
//! photos, and no photo ranks above a screenshot; with the look model too, and its photos look
//! less alike than screenshots do. Needs the DejaVu fonts and, for the second, the look model
//! (see `cairn_embed::testing`).

use std::sync::Arc;

use cairn_bench::look::{LookOptions, run};
use cairn_embed::look::LookNetwork;
use cairn_embed::testing::{fonts_for_tests, look_dir_for_tests};

#[test]
#[ignore = "needs the DejaVu fonts (fonts-dejavu-core)"]
fn every_copy_of_a_screenshot_finds_its_original_first() {
    let fonts = fonts_for_tests();
    let scratch = tempfile::tempdir().unwrap();
    let options = LookOptions {
        seed: 42,
        others: 150,
        originals: 20,
        look_model: None,
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

#[test]
#[ignore = "needs the look model (cairn model install look) and the DejaVu fonts (fonts-dejavu-core)"]
fn with_the_look_model_copies_still_come_first_and_photos_look_least_alike() {
    let (fonts, dir) = (fonts_for_tests(), look_dir_for_tests());
    let scratch = tempfile::tempdir().unwrap();
    let options = LookOptions {
        seed: 42,
        others: 90,
        originals: 12,
        look_model: Some(Arc::new(LookNetwork::new(&dir))),
    };
    let report = run(scratch.path(), &fonts, &options, &mut |_| {}).unwrap();
    for kind in &report.copies {
        assert_eq!(kind.searches, 12, "{report:#?}");
        // First, or folded into the first hit as the same screen (a sparse screen can hash
        // alike another; the bench reports the strict count beside it).
        assert_eq!(kind.first_or_folded, kind.searches, "{report:#?}");
    }
    assert_eq!(report.photo_above_screen, 0, "{report:#?}");
    let model = report.look_model.as_ref().expect("the model's report");
    assert!(model.copies.median >= 0.95, "{model:#?}");
    assert!(model.photos.max < model.screens.median, "{model:#?}");
}
