//! What each box says: the recognition model, read by greedy CTC decoding.
//!
//! A box is cut out of the image and scaled to the model's height ([`HEIGHT`], 48 pixels),
//! keeping its proportions, then normalised to [-1, 1] in blue-green-red order. The model
//! answers, for each column step, a probability over its classes: 0 is CTC's blank, class `i`
//! the dictionary's entry `i − 1`, and the last class a space. Greedy decoding takes the
//! likeliest class per step and drops blanks and repeats. A box read with low confidence (an
//! icon, a stray line) is dropped.
//!
//! Boxes are read one at a time, each at its own width: on a dense full-HD terminal (44 boxes)
//! that took 2.9 s, against 3.1 s, 3.3 s and 3.8 s for batches of 4, 8 and 16 boxes of similar
//! width padded to the widest (`cairn-bench ocr`, 2 cores; rten already spreads one box's
//! convolutions over both cores, and padding is work too).

use cairn_core::Result;
use image::RgbImage;
use rten::Model;
use rten_tensor::NdTensor;
use rten_tensor::prelude::*;

use super::detect::TextBox;
use super::{bgr_planes, ocr_error};

/// The recognition model's input height.
const HEIGHT: u32 = 48;

/// The widest input a box is scaled to (a whole-screen line at 48 pixels high).
const MAX_WIDTH: u32 = 3200;

/// Text read with a lower mean probability per character is dropped.
const MIN_CONFIDENCE: f32 = 0.5;

/// The text of each box, in the order of `boxes` (empty for a box that reads as nothing).
pub fn recognise(
    model: &Model,
    dictionary: &[String],
    image: &RgbImage,
    boxes: &[TextBox],
) -> Result<Vec<String>> {
    boxes
        .iter()
        .map(|text_box| read_box(model, dictionary, image, text_box))
        .collect()
}

fn read_box(
    model: &Model,
    dictionary: &[String],
    image: &RgbImage,
    text_box: &TextBox,
) -> Result<String> {
    let crop = image::imageops::crop_imm(
        image,
        text_box.x0,
        text_box.y0,
        text_box.width(),
        text_box.height(),
    )
    .to_image();
    let (width, height) = (scaled_width(text_box), HEIGHT);
    let scaled =
        image::imageops::resize(&crop, width, height, image::imageops::FilterType::Triangle);
    let input = bgr_planes(&scaled, width as usize, height as usize, |_, value| {
        (value - 0.5) / 0.5
    });
    let input = NdTensor::from_data([1, 3, height as usize, width as usize], input);
    let output = model
        .run_one(input.view().into(), None)
        .map_err(|err| ocr_error("recognition", err))?;
    let steps: NdTensor<f32, 3> = output
        .try_into()
        .map_err(|err| ocr_error("recognition output", err))?;
    Ok(decode(steps.slice(0), dictionary))
}

/// The width a box is scaled to at the model's height.
fn scaled_width(text_box: &TextBox) -> u32 {
    let width = HEIGHT as f32 * text_box.width() as f32 / text_box.height() as f32;
    (width.round() as u32).clamp(HEIGHT / 3, MAX_WIDTH)
}

/// Greedy CTC decoding of one box's steps × classes probabilities.
fn decode(steps: rten_tensor::NdTensorView<'_, f32, 2>, dictionary: &[String]) -> String {
    let mut text = String::new();
    let (mut previous, mut confidence, mut characters) = (0usize, 0f32, 0usize);
    for step in 0..steps.size(0) {
        let row = steps.slice(step);
        let (mut best, mut best_p) = (0usize, f32::MIN);
        for (class, &p) in row.iter().enumerate() {
            if p > best_p {
                (best, best_p) = (class, p);
            }
        }
        if best != 0 && best != previous {
            text.push_str(dictionary.get(best - 1).map_or(" ", String::as_str));
            confidence += best_p;
            characters += 1;
        }
        previous = best;
    }
    match characters > 0 && confidence / characters as f32 >= MIN_CONFIDENCE {
        true => text.trim().to_string(),
        false => String::new(),
    }
}
