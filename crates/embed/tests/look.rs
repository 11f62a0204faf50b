//! The look model (EfficientNet-Lite0, converted at install from the wheel's legacy pickle):
//! the port is right (real photos are classified as ImageNet says), copies of a screen look
//! alike, other screens less, photos least; a missing tensor is refused by name. Needs the look
//! model, the DejaVu fonts and scikit-image's sample photos (see `cairn_embed::testing`).

use std::collections::HashMap;

use cairn_core::image::LookModel;
use cairn_core::image::look_vector::cosine;
use cairn_embed::look::{LOOK_FILES, LookNetwork, LookWeights};
use cairn_embed::render::{Layout, Screen, Theme, database_dialog, psql_lines};
use cairn_embed::testing::{fonts_for_tests, look_dir_for_tests, photos_for_tests};
use image::RgbImage;
use image::imageops::FilterType;

/// ImageNet's classes for a cat (tabby, tiger cat, Egyptian cat) and for espresso.
const CATS: [usize; 3] = [281, 282, 285];
const ESPRESSO: usize = 967;

fn photo(dir: &std::path::Path, name: &str) -> RgbImage {
    image::open(dir.join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_rgb8()
}

fn best_class(scores: &[f32]) -> usize {
    (0..scores.len())
        .max_by(|a, b| scores[*a].total_cmp(&scores[*b]))
        .unwrap()
}

#[test]
#[ignore = "needs the look model (cairn model install look) and scikit-image's sample photos (CAIRN_TEST_PHOTOS)"]
fn real_photos_are_classified_as_imagenet_says() {
    let (dir, photos) = (look_dir_for_tests(), photos_for_tests());
    let weights = LookWeights::load(&dir).unwrap();
    let cat = best_class(&weights.classify(&photo(&photos, "chelsea.png")).unwrap());
    assert!(CATS.contains(&cat), "chelsea.png was classed {cat}");
    let coffee = weights.classify(&photo(&photos, "coffee.png")).unwrap();
    assert_eq!(best_class(&coffee), ESPRESSO);
}

fn terminal(lines: Vec<String>, theme: Theme) -> Screen {
    Screen {
        width: 760,
        height: 230,
        theme,
        layout: Layout::Terminal,
        text_px: 12.0,
        lines,
    }
}

#[test]
#[ignore = "needs the look model (cairn model install look), scikit-image's sample photos (CAIRN_TEST_PHOTOS) and the DejaVu fonts (fonts-dejavu-core)"]
fn copies_of_a_screen_look_alike_other_screens_less_and_photos_least() {
    let (dir, fonts, photos) = (look_dir_for_tests(), fonts_for_tests(), photos_for_tests());
    let model = LookNetwork::new(&dir);
    let vector = |image: &RgbImage| model.look_vector(image).unwrap();
    let screen = terminal(psql_lines(), Theme::Dark).draw(&fonts);
    let original = vector(&screen);
    assert_eq!(original.len(), model.dimensions());
    let norm: f32 = original.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");

    let half = image::imageops::resize(&screen, 380, 115, FilterType::Triangle);
    let mut recoloured = screen.clone();
    for pixel in recoloured.pixels_mut() {
        pixel.0 = [pixel.0[1], pixel.0[2], pixel.0[0]];
    }
    let copies = [vector(&half), vector(&recoloured)];
    let other_lines: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "$ cargo test -p worker-{i} -- --nocapture   ok   {}.{i}s",
                i * 3
            )
        })
        .collect();
    let others = [
        vector(&terminal(other_lines, Theme::Light).draw(&fonts)),
        vector(&database_dialog(Theme::Light).draw(&fonts)),
    ];
    let pictures = [
        vector(&photo(&photos, "chelsea.png")),
        vector(&photo(&photos, "coffee.png")),
    ];
    let least_copy = copies
        .iter()
        .map(|c| cosine(&original, c))
        .fold(f32::MAX, f32::min);
    let most_other = others
        .iter()
        .map(|o| cosine(&original, o))
        .fold(f32::MIN, f32::max);
    let least_other = others
        .iter()
        .map(|o| cosine(&original, o))
        .fold(f32::MAX, f32::min);
    let most_photo = pictures
        .iter()
        .map(|p| cosine(&original, p))
        .fold(f32::MIN, f32::max);
    eprintln!(
        "copies ≥ {least_copy:.3}, other screens {least_other:.3}–{most_other:.3}, photos ≤ {most_photo:.3}"
    );
    assert!(least_copy >= 0.9, "a copy measured {least_copy}");
    assert!(
        most_other < least_copy,
        "another screen ({most_other}) above a copy ({least_copy})"
    );
    assert!(
        most_photo < least_other,
        "a photo ({most_photo}) above a screenshot ({least_other})"
    );
}

#[test]
#[ignore = "needs the look model (cairn model install look)"]
fn weights_missing_a_tensor_are_refused_by_name() {
    let dir = look_dir_for_tests();
    let file = dir.join(LOOK_FILES[0]);
    let mut tensors: HashMap<String, candle_core::Tensor> =
        candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    tensors.remove("_blocks.7._depthwise_conv.weight").unwrap();
    let broken = tempfile::tempdir().unwrap();
    candle_core::safetensors::save(&tensors, broken.path().join(LOOK_FILES[0])).unwrap();
    let err = LookWeights::load(broken.path()).err().expect("refused");
    assert!(
        err.to_string().contains("_blocks.7._depthwise_conv.weight"),
        "{err}"
    );
    let err = LookNetwork::new(broken.path())
        .look_vector(&RgbImage::new(32, 32))
        .unwrap_err();
    assert!(err.to_string().contains("no tensor"), "{err}");
}
