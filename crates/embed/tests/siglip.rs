//! SigLIP's towers on the tiny seeded model (`cairn_embed::siglip::tiny`): the ids the text
//! tower is given (the model's own tokenizer, each text ended with `</s>` and padded or cut to
//! the context), its vectors against an independent implementation's, the calibration read
//! from the checkpoint, and the checks that refuse a broken directory. These need no data.

use cairn_core::image::MatchScale;
use cairn_embed::clip::{ClipFamily, Tower, check_clip_dir, locate_clip, open_clip_model};
use cairn_embed::siglip::tiny::{
    TINY_CONFIG, TINY_LOGIT_BIAS, TINY_LOGIT_SCALE, write_tiny_siglip,
};
use cairn_embed::siglip::{ImageTower, TextTower, match_scale_of, preprocess};
use cairn_embed::testing::{GoldenDir, assert_towers_match_golden};

/// The texts the tiny model's golden vectors are of.
const TINY_TEXTS: [&str; 3] = ["a cat", "Red error", "a dog!"];

/// The ids of `pieces` as the tower reads them: then `</s>` (1), then padding (`</s>` again,
/// SigLIP's pad) to the context of 16.
fn framed(pieces: &[u32]) -> Vec<u32> {
    let mut ids = pieces.to_vec();
    ids.push(1);
    ids.resize(16, 1);
    ids
}

#[test]
fn a_text_is_its_pieces_then_the_end_padded_or_cut_to_the_context() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_siglip(dir.path()).unwrap();
    let tower = TextTower::load(dir.path()).unwrap();
    // Whole words where the vocabulary has them; lower-cased as the tokenizer says; letters
    // for the rest ("cart" is "▁cat"'s rival: "▁c" "a" "r" "t").
    assert_eq!(tower.ids("a cat").unwrap(), framed(&[3, 4]));
    assert_eq!(tower.ids("Red error").unwrap(), framed(&[5, 6]));
    assert_eq!(tower.ids("a dog!").unwrap(), framed(&[3, 7, 22]));
    assert_eq!(tower.ids("a cart").unwrap(), framed(&[3, 23, 9, 12, 11]));
    assert_eq!(tower.ids("").unwrap(), framed(&[]));
    // A text longer than the context keeps its first 15 pieces and its end.
    let long = ["a"; 40].join(" ");
    let ids = tower.ids(&long).unwrap();
    assert_eq!(ids.len(), 16);
    assert_eq!(ids[..15], [3; 15]);
    assert_eq!(ids[15], 1);
}

/// The tiny model against `siglip_tiny_golden.json`: the vectors an independent
/// implementation (`siglip_reference.py`, NumPy, written from Hugging Face's `SiglipModel`, not
/// from candle) computed from the same file. `transformers_check.py` checks them once more
/// against `transformers`' own `SiglipModel` (by hand: it needs PyTorch). To make them again:
/// `CAIRN_SIGLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test siglip tiny`, then
/// `python3 crates/embed/tests/siglip_reference.py DIR > crates/embed/tests/siglip_tiny_golden.json`.
#[test]
fn a_tiny_seeded_checkpoint_loads_and_matches_the_reference() {
    let golden_dir = GoldenDir::new("CAIRN_SIGLIP_TINY_OUT");
    let dir = &golden_dir.path;
    write_tiny_siglip(dir).unwrap();
    let text = TextTower::load(dir).unwrap();
    let image = ImageTower::load(dir).unwrap();
    let ids: Vec<Vec<u32>> = TINY_TEXTS.iter().map(|t| text.ids(t).unwrap()).collect();
    golden_dir.write_inputs(&TINY_TEXTS, &ids, 2);

    assert_towers_match_golden(
        include_str!("siglip_tiny_golden.json"),
        &TINY_TEXTS,
        &ids,
        32,
        |words| text.vector(words),
        |pixels| image.vector_of_pixels(pixels),
    );

    // A picture goes through the preprocessing to the same tower.
    let picture =
        image::RgbImage::from_fn(64, 40, |x, y| image::Rgb([x as u8 * 4, y as u8 * 6, 90]));
    let vector = image.vector(&picture).unwrap();
    assert_eq!(
        vector,
        image.vector_of_pixels(&preprocess(&picture, 32)).unwrap()
    );
    assert!((vector.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn the_preprocessing_scales_the_whole_picture_and_maps_each_channel_to_minus_one_to_one() {
    // A picture twice as wide as high, left half black, right half white, no crop: the
    // square keeps both halves (a centre crop would keep the middle only).
    let picture = image::RgbImage::from_fn(128, 64, |x, _| {
        if x < 64 {
            image::Rgb([0, 0, 0])
        } else {
            image::Rgb([255, 255, 255])
        }
    });
    let pixels = preprocess(&picture, 32);
    assert_eq!(pixels.len(), 3 * 32 * 32);
    for channel in 0..3 {
        let row = &pixels[channel * 1024..channel * 1024 + 32];
        assert_eq!(row[0], -1.0);
        assert_eq!(row[31], 1.0);
        // The edge falls in the middle of the row.
        assert!(row[..15].iter().all(|v| *v == -1.0), "{row:?}");
        assert!(row[17..].iter().all(|v| *v == 1.0), "{row:?}");
    }
}

#[test]
fn the_calibration_is_read_from_the_checkpoint_and_the_model_serves_as_clip() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_siglip(dir.path()).unwrap();
    let scale = match_scale_of(dir.path()).unwrap();
    let expected = MatchScale::from_sigmoid(
        f64::from(TINY_LOGIT_SCALE).exp(),
        f64::from(TINY_LOGIT_BIAS),
    );
    assert!((scale.floor - expected.floor).abs() < 1e-6, "{scale:?}");
    assert!((scale.full - expected.full).abs() < 1e-6, "{scale:?}");

    // Named as the CLIP directory, the SigLIP model is found, checked and run.
    assert_eq!(ClipFamily::of(dir.path()).unwrap(), ClipFamily::Siglip);
    let (found, name) = locate_clip(Some(dir.path())).unwrap().unwrap();
    assert_eq!(found, dir.path());
    check_clip_dir(dir.path()).unwrap();
    let model = open_clip_model(dir.path(), &name);
    assert_eq!(model.dimensions(), 8);
    assert_eq!(model.match_scale(), scale);
    let tower = TextTower::load(dir.path()).unwrap();
    assert_eq!(
        model.text_vector("a cat").unwrap(),
        tower.vector("a cat").unwrap()
    );
    let picture = image::RgbImage::from_pixel(50, 50, image::Rgb([200, 30, 30]));
    assert_eq!(model.image_vector(&picture).unwrap().len(), 8);
}

#[test]
fn a_broken_siglip_directory_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_siglip(dir.path()).unwrap();
    let file = dir.path().join("model.safetensors");
    let complete = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();

    // The pooling head's probe, and the calibration, are tensors like any other.
    for missing in ["vision_model.head.probe", "logit_bias"] {
        let mut tensors = complete.clone();
        tensors.remove(missing);
        candle_core::safetensors::save(&tensors, &file).unwrap();
        let err = check_clip_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains(&format!("{missing} is missing")), "{err}");
        let err = ImageTower::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains(&format!("{missing} is missing")), "{err}");
    }
    candle_core::safetensors::save(&complete, &file).unwrap();

    // A config promising a layer the file lacks.
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        TINY_CONFIG.replace(
            "\"num_hidden_layers\": 2, \"num_attention_heads\": 2,\n    \"image_size\"",
            "\"num_hidden_layers\": 3, \"num_attention_heads\": 2,\n    \"image_size\"",
        ),
    )
    .unwrap();
    let err = check_clip_dir(dir.path()).unwrap_err().to_string();
    assert!(err.contains("vision_model.encoder.layers.2."), "{err}");
    std::fs::write(&config, TINY_CONFIG).unwrap();

    // A pad id the tokenizer does not have.
    std::fs::write(
        &config,
        TINY_CONFIG.replace(
            "\"vocab_size\": 24,",
            "\"vocab_size\": 24, \"pad_token_id\": 99,",
        ),
    )
    .unwrap();
    let err = check_clip_dir(dir.path()).unwrap_err().to_string();
    assert!(err.contains("pad_token_id"), "{err}");
    std::fs::write(&config, TINY_CONFIG).unwrap();

    // Without its tokenizer, the configured directory is refused where it is named.
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let err = locate_clip(Some(dir.path())).unwrap_err().to_string();
    assert!(err.contains("no tokenizer.json"), "{err}");
    assert!(err.contains("images.clip_dir"), "{err}");
}
