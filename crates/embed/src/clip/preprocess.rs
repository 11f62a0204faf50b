//! CLIP's image preprocessing, as its image tower was trained with: the shorter side scaled to
//! [`IMAGE_SIDE`] (bicubic, the longer side in proportion, rounded down), the centre cropped to
//! a square, each channel scaled to 0–1 then normalised with CLIP's mean and deviation, laid out
//! channels first (3 × 224 × 224).
//!
//! Unlike the look model, CLIP crops: a wide screenshot loses its edges, as CLIP was trained.

use image::RgbImage;
use image::imageops::FilterType;

/// The side of the square CLIP's image tower reads.
pub const IMAGE_SIDE: u32 = 224;

/// CLIP's per-channel mean and standard deviation (RGB, on the 0–1 scale).
pub const MEAN: [f32; 3] = [0.481_454_66, 0.457_827_5, 0.408_210_73];
pub const STD: [f32; 3] = [0.268_629_54, 0.261_302_6, 0.275_777_1];

/// `image` as CLIP's image tower reads it: 3 × [`IMAGE_SIDE`]², channels first.
pub fn preprocess(image: &RgbImage) -> Vec<f32> {
    let (width, height) = image.dimensions();
    let side = IMAGE_SIDE as u64;
    let (scaled_width, scaled_height) = if height < width {
        (
            (side * u64::from(width) / u64::from(height)) as u32,
            IMAGE_SIDE,
        )
    } else {
        (
            IMAGE_SIDE,
            (side * u64::from(height) / u64::from(width)) as u32,
        )
    };
    let scaled =
        image::imageops::resize(image, scaled_width, scaled_height, FilterType::CatmullRom);
    let (left, top) = (
        (scaled_width - IMAGE_SIDE) / 2,
        (scaled_height - IMAGE_SIDE) / 2,
    );
    let area = (IMAGE_SIDE * IMAGE_SIDE) as usize;
    let mut planes = vec![0.0; 3 * area];
    for y in 0..IMAGE_SIDE {
        for x in 0..IMAGE_SIDE {
            let pixel = scaled.get_pixel(left + x, top + y);
            let at = (y * IMAGE_SIDE + x) as usize;
            for channel in 0..3 {
                let value = f32::from(pixel[channel]) / 255.0;
                planes[channel * area + at] = (value - MEAN[channel]) / STD[channel];
            }
        }
    }
    planes
}
