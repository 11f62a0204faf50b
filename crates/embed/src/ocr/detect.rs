//! Where the text is: the detection model's probability map, cut into boxes.
//!
//! The image goes in at its own size (padded to a multiple of 32, the model's stride; scaled
//! down past [`MAX_SIDE`]), blue-green-red and normalised with ImageNet's mean and
//! deviation as PaddleOCR trained it. The model answers with the probability that each pixel
//! belongs to text, shrunk to the text's core. Pixels above [`PIXEL_THRESHOLD`] that touch form
//! a region; a region whose mean probability passes [`BOX_THRESHOLD`] is a box, grown by the
//! DB algorithm's unclip distance (area × [`UNCLIP_RATIO`] / perimeter) back to the text's full
//! extent. Screenshots hold horizontal text, so boxes are upright rectangles.

use cairn_core::Result;
use image::RgbImage;
use rten::Model;
use rten_tensor::NdTensor;
use rten_tensor::prelude::*;

use super::{bgr_planes, ocr_error};

/// The longest side the detector sees; larger images are scaled down for detection only. A
/// full-HD screenshot is detected at two thirds of its size: 16-pixel text is still found
/// whole, and detection takes 0.57 s instead of 1.1 s on 2 cores (`cairn-bench ocr`; at 960
/// it takes 0.3 s, but 12-pixel text would shrink to 6).
const MAX_SIDE: u32 = 1280;

/// A pixel is text above this probability.
const PIXEL_THRESHOLD: f32 = 0.3;

/// A region is a box when its mean probability passes this.
const BOX_THRESHOLD: f32 = 0.6;

/// How far a region grows back: DB's unclip ratio.
const UNCLIP_RATIO: f32 = 1.5;

/// ImageNet's channel means and deviations, in the order the model takes the channels (PaddleOCR
/// applies the RGB figures to BGR images, and its models learned so).
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// A box of text in image coordinates (`x1`, `y1` exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextBox {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl TextBox {
    pub fn width(&self) -> u32 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> u32 {
        self.y1 - self.y0
    }
}

/// The boxes of text in `image`, in no particular order.
pub fn detect(model: &Model, image: &RgbImage) -> Result<Vec<TextBox>> {
    let (width, height) = image.dimensions();
    let scale = (MAX_SIDE as f32 / width.max(height) as f32).min(1.0);
    let scaled;
    let seen = if scale < 1.0 {
        let (w, h) = (
            ((width as f32 * scale) as u32).max(1),
            ((height as f32 * scale) as u32).max(1),
        );
        scaled = image::imageops::resize(image, w, h, image::imageops::FilterType::Triangle);
        &scaled
    } else {
        image
    };
    let probabilities = probability_map(model, seen)?;
    let to_image = 1.0 / scale;
    Ok(regions(&probabilities, seen.width(), seen.height())
        .into_iter()
        .filter_map(|region| region.text_box(to_image, width, height))
        .collect())
}

/// The model's text probability for each pixel of `image` (padded to a multiple of 32).
fn probability_map(model: &Model, image: &RgbImage) -> Result<NdTensor<f32, 2>> {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let (padded_w, padded_h) = (width.div_ceil(32) * 32, height.div_ceil(32) * 32);
    // Padding is zero after normalising: the mean colour.
    let input = bgr_planes(image, padded_w, padded_h, |channel, value| {
        (value - MEAN[channel]) / STD[channel]
    });
    let input = NdTensor::from_data([1, 3, padded_h, padded_w], input);
    let output = model
        .run_one(input.view().into(), None)
        .map_err(|err| ocr_error("detection", err))?;
    let map: NdTensor<f32, 4> = output
        .try_into()
        .map_err(|err| ocr_error("detection output", err))?;
    Ok(map.slice((0, 0)).to_tensor())
}

/// A connected region of text pixels.
struct Region {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    mean: f32,
}

/// The 4-connected regions of pixels above [`PIXEL_THRESHOLD`], within `width` × `height`.
fn regions(map: &NdTensor<f32, 2>, width: u32, height: u32) -> Vec<Region> {
    let (w, h) = (
        (width as usize).min(map.size(1)),
        (height as usize).min(map.size(0)),
    );
    let stride = map.size(1);
    let probability = map.data().expect("a fresh tensor is contiguous");
    let is_text = |i: usize| probability[i] > PIXEL_THRESHOLD;
    let mut seen = vec![false; stride * map.size(0)];
    let mut stack = Vec::new();
    let mut found = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let start = y * stride + x;
            if seen[start] || !is_text(start) {
                continue;
            }
            seen[start] = true;
            stack.push(start);
            let mut region = Region {
                x0: x,
                y0: y,
                x1: x,
                y1: y,
                mean: 0.0,
            };
            let (mut pixels, mut sum) = (0usize, 0f32);
            while let Some(i) = stack.pop() {
                let (px, py) = (i % stride, i / stride);
                region.x0 = region.x0.min(px);
                region.x1 = region.x1.max(px);
                region.y0 = region.y0.min(py);
                region.y1 = region.y1.max(py);
                pixels += 1;
                sum += probability[i];
                let neighbours = [
                    (px > 0).then(|| i - 1),
                    (px + 1 < w).then(|| i + 1),
                    (py > 0).then(|| i - stride),
                    (py + 1 < h).then(|| i + stride),
                ];
                for j in neighbours.into_iter().flatten() {
                    if !seen[j] && is_text(j) {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            region.mean = sum / pixels as f32;
            found.push(region);
        }
    }
    found
}

impl Region {
    /// The region as a box of the original image (scaled by `to_image`, grown by the unclip
    /// distance, clipped to `width` × `height`), or `None` for noise.
    fn text_box(&self, to_image: f32, width: u32, height: u32) -> Option<TextBox> {
        let (w, h) = (
            (self.x1 - self.x0 + 1) as f32,
            (self.y1 - self.y0 + 1) as f32,
        );
        if self.mean < BOX_THRESHOLD || w.min(h) < 3.0 {
            return None;
        }
        let grow = UNCLIP_RATIO * w * h / (2.0 * (w + h));
        let x0 = ((self.x0 as f32 - grow) * to_image).max(0.0);
        let y0 = ((self.y0 as f32 - grow) * to_image).max(0.0);
        let x1 = ((self.x1 as f32 + 1.0 + grow) * to_image).min(width as f32);
        let y1 = ((self.y1 as f32 + 1.0 + grow) * to_image).min(height as f32);
        (x1 - x0 >= 4.0 && y1 - y0 >= 4.0).then(|| TextBox {
            x0: x0 as u32,
            y0: y0 as u32,
            x1: x1.ceil() as u32,
            y1: y1.ceil() as u32,
        })
    }
}
