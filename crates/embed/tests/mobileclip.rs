//! MobileCLIP's towers on the tiny seeded model (`cairn_embed::mobileclip::tiny`): its vectors
//! against the ones timm's FastViT and OpenCLIP's text tower computed from the same file, the
//! ids (CLIP's tokenizer, padded with 0), the preprocessing, and the checks that refuse a file of
//! another structure. These need no data.

use cairn_embed::clip::{ClipFamily, Tower, check_clip_dir, locate_clip, open_clip_model};
use cairn_embed::mobileclip::tiny::write_tiny_mobileclip;
use cairn_embed::mobileclip::{ImageTower, TextTower};
use cairn_embed::testing::{GoldenDir, assert_towers_match_golden};

/// The texts the tiny model's golden vectors are of.
const TINY_TEXTS: [&str; 3] = ["a cat", "red error", "a dog!"];

/// The tiny model against `mobileclip_tiny_golden.json`: the vectors timm's `FastVit` (MCi
/// settings at the tiny size) and OpenCLIP's `TextTower` (attending both ways) computed from the
/// same file, loaded strictly (`mobileclip_reference.py`, by hand: it needs PyTorch). To make
/// them again: `CAIRN_MOBILECLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test mobileclip tiny`,
/// then `python3 crates/embed/tests/mobileclip_reference.py DIR >
/// crates/embed/tests/mobileclip_tiny_golden.json`.
#[test]
fn a_tiny_seeded_checkpoint_loads_and_matches_timm_and_open_clip() {
    let golden_dir = GoldenDir::new("CAIRN_MOBILECLIP_TINY_OUT");
    let dir = &golden_dir.path;
    write_tiny_mobileclip(dir).unwrap();
    let text = TextTower::load(dir).unwrap();
    let image = ImageTower::load(dir).unwrap();
    let ids: Vec<Vec<u32>> = TINY_TEXTS.iter().map(|t| text.ids(t).to_vec()).collect();
    golden_dir.write_inputs(&TINY_TEXTS, &ids, 2);

    assert_towers_match_golden(
        include_str!("mobileclip_tiny_golden.json"),
        &TINY_TEXTS,
        &ids,
        64,
        |words| text.vector(words),
        |pixels| image.vector_of_pixels(pixels),
    );
    // A picture goes through the preprocessing to the same tower.
    let picture =
        image::RgbImage::from_fn(96, 64, |x, y| image::Rgb([x as u8 * 2, y as u8 * 3, 90]));
    let vector = image.vector(&picture).unwrap();
    assert_eq!(
        vector,
        image.vector_of_pixels(&image.preprocess(&picture)).unwrap()
    );
    assert!((vector.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn a_text_is_framed_and_padded_with_zeros_and_a_picture_cropped_to_its_centre() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_mobileclip(dir.path()).unwrap();
    let text = TextTower::load(dir.path()).unwrap();
    let ids = text.ids("a cat");
    // <|startoftext|> (518), "a</w>" (320, as in CLIP's own vocabulary), "cat</w>" (the
    // second merge: 512 + 1), <|endoftext|> (519), then zeros.
    assert_eq!(ids[..4], [518, 320, 513, 519]);
    assert!(ids[4..].iter().all(|&id| id == 0), "{ids:?}");

    // A wide picture, black at the edges and white in the middle third: cropped to the
    // centre, it is white; the channels stay 0–1 (mean 0, deviation 1).
    let image = ImageTower::load(dir.path()).unwrap();
    let picture = image::RgbImage::from_fn(192, 64, |x, _| match x {
        64..128 => image::Rgb([255, 255, 255]),
        _ => image::Rgb([0, 0, 0]),
    });
    let pixels = image.preprocess(&picture);
    assert_eq!(pixels.len(), 3 * 64 * 64);
    assert!(
        pixels.iter().all(|v| (*v - 1.0).abs() < 1e-6),
        "the centre is white"
    );
}

#[test]
fn the_model_serves_as_clip_and_a_file_of_another_structure_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_mobileclip(dir.path()).unwrap();
    assert_eq!(ClipFamily::of(dir.path()).unwrap(), ClipFamily::MobileClip);
    let (found, name) = locate_clip(Some(dir.path())).unwrap().unwrap();
    assert_eq!(found, dir.path());
    check_clip_dir(dir.path()).unwrap();
    let model = open_clip_model(dir.path(), &name);
    assert_eq!(model.dimensions(), 8);
    let picture = image::RgbImage::from_pixel(80, 60, image::Rgb([200, 30, 30]));
    assert_eq!(model.image_vector(&picture).unwrap().len(), 8);
    assert_eq!(model.text_vector("a red cat").unwrap().len(), 8);

    let file = dir.path().join("open_clip_model.safetensors");
    let complete = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    // An optional branch missing (candle's FastViT would skip it and compute something else),
    // a tensor the structure does not have (a reparameterized block), a misshapen one.
    let missing = "visual.trunk.stages.2.downsample.proj.0.se.fc1.weight";
    let extra = "visual.trunk.stem.2.reparam_conv.weight";
    let mut cases = Vec::new();
    let mut tensors = complete.clone();
    tensors.remove(missing);
    cases.push((tensors, format!("{missing} is missing")));
    let mut tensors = complete.clone();
    tensors.insert(
        extra.into(),
        candle_core::Tensor::zeros(
            (4, 4, 1, 1),
            candle_core::DType::F32,
            &candle_core::Device::Cpu,
        )
        .unwrap(),
    );
    cases.push((tensors, format!("{extra} first")));
    let mut tensors = complete.clone();
    tensors.insert(
        "text.text_projection".into(),
        candle_core::Tensor::zeros((8, 6), candle_core::DType::F32, &candle_core::Device::Cpu)
            .unwrap(),
    );
    cases.push((tensors, "text.text_projection is [8, 6]".to_string()));
    for (tensors, named) in cases {
        candle_core::safetensors::save(&tensors, &file).unwrap();
        let err = check_clip_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains(&named), "{named}: {err}");
        let err = ImageTower::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains(&named), "{named}: {err}");
    }
    // Batch-norm counters, which PyTorch saves with every batch norm, are not a structure.
    let mut tensors = complete.clone();
    tensors.insert(
        "visual.trunk.stem.2.identity.num_batches_tracked".into(),
        candle_core::Tensor::new(3i64, &candle_core::Device::Cpu).unwrap(),
    );
    candle_core::safetensors::save(&tensors, &file).unwrap();
    check_clip_dir(dir.path()).unwrap();

    // Another image tower family, a causal text tower or another resize is refused by field.
    let config = dir.path().join("open_clip_config.json");
    let tiny: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    for (field, value, named) in [
        (
            "/model_cfg/vision_cfg/timm_model_name",
            serde_json::json!("vit_base_patch16_224"),
            "timm_model_name",
        ),
        (
            "/model_cfg/text_cfg/no_causal_mask",
            serde_json::json!(false),
            "no_causal_mask",
        ),
        (
            "/preprocess_cfg/resize_mode",
            serde_json::json!("squash"),
            "resize_mode",
        ),
    ] {
        let mut changed = tiny.clone();
        *changed.pointer_mut(field).expect(field) = value;
        std::fs::write(&config, changed.to_string()).unwrap();
        let err = check_clip_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains(named), "{named}: {err}");
    }
}
