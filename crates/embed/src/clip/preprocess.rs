//! CLIP's image preprocessing, as its image tower was trained with: the shorter side scaled to
//! the tower's input side ([`IMAGE_SIDE`] for ViT-B/32; bicubic, the longer side in proportion, rounded down), the centre cropped to
//! a square, each channel scaled to 0–1 then normalised with CLIP's mean and deviation, laid out
//! channels first (3 × side × side).
//!
//! Unlike the look model, CLIP crops: a wide screenshot loses its edges, as CLIP was trained.

use image::RgbImage;
use image::imageops::FilterType;

/// The side of the square the image tower of ViT-B/32 (and most CLIP models) reads.
pub const IMAGE_SIDE: u32 = 224;

/// CLIP's per-channel mean and standard deviation (RGB, on the 0–1 scale).
pub const MEAN: [f32; 3] = [0.481_454_66, 0.457_827_5, 0.408_210_73];
pub const STD: [f32; 3] = [0.268_629_54, 0.261_302_6, 0.275_777_1];

/// `image` as an image tower of input side `side` reads it: 3 × `side`², channels first.
pub fn preprocess(image: &RgbImage, side: u32) -> Vec<f32> {
    centre_crop(image, side, FilterType::CatmullRom, MEAN, STD)
}

/// `image` with its shorter side scaled to `side` by `filter` (the longer in proportion,
/// rounded down), the centre cropped to a square, each channel `(x / 255 − mean) / std`,
/// channels first: how CLIP-family towers that crop read a picture.
pub fn centre_crop(
    image: &RgbImage,
    side: u32,
    filter: FilterType,
    mean: [f32; 3],
    std: [f32; 3],
) -> Vec<f32> {
    let (width, height) = image.dimensions();
    let (target, side) = (side, u64::from(side));
    let (scaled_width, scaled_height) = if height < width {
        ((side * u64::from(width) / u64::from(height)) as u32, target)
    } else {
        (target, (side * u64::from(height) / u64::from(width)) as u32)
    };
    let scaled = image::imageops::resize(image, scaled_width, scaled_height, filter);
    let (left, top) = ((scaled_width - target) / 2, (scaled_height - target) / 2);
    let area = (target * target) as usize;
    let mut planes = vec![0.0; 3 * area];
    for y in 0..target {
        for x in 0..target {
            let pixel = scaled.get_pixel(left + x, top + y);
            let at = (y * target + x) as usize;
            for channel in 0..3 {
                let value = f32::from(pixel[channel]) / 255.0;
                planes[channel * area + at] = (value - mean[channel]) / std[channel];
            }
        }
    }
    planes
}
