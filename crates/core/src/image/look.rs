//! How an image looks, as a perceptual hash: "the same screen" whatever its size, colours or
//! file format.
//!
//! A [`LookHash`] is a double-gradient hash. The image is averaged down to a 17×17 grid of
//! brightness (each cell the mean of its area, so a rescaled copy averages to nearly the same
//! grid), and each bit says whether brightness rises by more than [`RISE`] from one cell to the
//! next: 16×17 bits along the rows and 17×16 down the columns, 544 in all. A flat background
//! sets no bits, so rounding never flips them. Recolouring, rescaling and re-encoding flip a
//! few bits (`cairn-bench look`: at most 18 for a half-size copy, 7 for a recoloured or JPEG
//! one); other screenshots are about 70 apart (but two sparse screens of one layout can be
//! close), photos 100 or more; a light/dark inversion flips every rise (it is another look).
//! Two images at most [`SAME_SCREEN_BITS`] apart are treated as the same screen: vision search
//! shows one of them and lists the others as its copies (when both were read, their texts must
//! agree too: `image::search`).
//!
//! A hash says nothing about a crop (the grid moves) and cannot tell what a screen *shows*;
//! that is the read text's job (`image::reading`).

use std::fmt;

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};

use crate::error::{Error, Result};

/// Cells a side of the brightness grid.
const GRID: u32 = 17;

/// How much brighter (of 255) the next cell must be for a bit to be set: a flat background
/// is a run of equal cells, and rounding must not turn it into rises.
pub const RISE: f32 = 1.0;

/// Bits in a hash: rising brightness along the rows, then down the columns.
pub const LOOK_BITS: u32 = 2 * GRID * (GRID - 1);

/// Hashes at most this many bits apart are the same screen (copies measure 0–18).
pub const SAME_SCREEN_BITS: u32 = 20;

/// The perceptual hash of an image (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LookHash([u8; (LOOK_BITS / 8) as usize]);

impl LookHash {
    /// The hash of `image`.
    pub fn of(image: &RgbImage) -> Self {
        let grid = brightness_grid(image);
        let at = |x: u32, y: u32| grid[(y * GRID + x) as usize];
        let mut bits = [0u8; (LOOK_BITS / 8) as usize];
        let mut set = |index: u32, on: bool| {
            if on {
                bits[(index / 8) as usize] |= 1 << (index % 8);
            }
        };
        let mut index = 0;
        for y in 0..GRID {
            for x in 0..GRID - 1 {
                set(index, at(x + 1, y) - at(x, y) > RISE);
                index += 1;
            }
        }
        for y in 0..GRID - 1 {
            for x in 0..GRID {
                set(index, at(x, y + 1) - at(x, y) > RISE);
                index += 1;
            }
        }
        LookHash(bits)
    }

    /// How many bits differ (0 ..= [`LOOK_BITS`]).
    pub fn distance(&self, other: &LookHash) -> u32 {
        self.0
            .iter()
            .zip(other.0.iter())
            .map(|(a, b)| (a ^ b).count_ones())
            .sum()
    }

    /// 1 for the same hash, 0 for the opposite one; about 0.5 between unrelated images.
    pub fn similarity(&self, other: &LookHash) -> f64 {
        1.0 - f64::from(self.distance(other)) / f64::from(LOOK_BITS)
    }

    /// True when the two are the same screen ([`SAME_SCREEN_BITS`]).
    pub fn same_screen(&self, other: &LookHash) -> bool {
        self.distance(other) <= SAME_SCREEN_BITS
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The hash of these bytes, as [`LookHash::as_bytes`] gave them.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bits = bytes.try_into().map_err(|_| {
            Error::invalid(
                "image",
                format!(
                    "a look hash is {} bytes, not {}",
                    LOOK_BITS / 8,
                    bytes.len()
                ),
            )
        })?;
        Ok(LookHash(bits))
    }
}

impl fmt::Debug for LookHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LookHash(")?;
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        write!(f, ")")
    }
}

/// The image's brightness averaged over a [`GRID`]×[`GRID`] grid of equal areas.
fn brightness_grid(image: &RgbImage) -> Vec<f32> {
    // Averaging a large image straight down to 9×9 is a box filter over each cell; a first
    // step to at most 256 a side keeps that cheap without changing the averages much. The
    // step goes through `DynamicImage`, whose resize is compiled (optimised) in the image
    // crate; the generic `imageops::resize` would be compiled here, unoptimised in test
    // builds, where it took longer than the look model itself.
    let small;
    let image = if image.width() > 256 || image.height() > 256 {
        small = DynamicImage::ImageRgb8(image.clone())
            .resize_exact(
                256.min(image.width()),
                256.min(image.height()),
                FilterType::Triangle,
            )
            .into_rgb8();
        &small
    } else {
        image
    };
    let (width, height) = (image.width().max(1), image.height().max(1));
    let mut sums = vec![0u64; (GRID * GRID) as usize];
    let mut counts = vec![0u64; (GRID * GRID) as usize];
    for (x, y, pixel) in image.enumerate_pixels() {
        let [r, g, b] = pixel.0.map(u64::from);
        // Brightness in thousandths, summed exactly: equal cells average to equal values.
        let luma = 299 * r + 587 * g + 114 * b;
        let cell = ((y * GRID / height) * GRID + x * GRID / width) as usize;
        sums[cell] += luma;
        counts[cell] += 1;
    }
    sums.iter()
        .zip(counts)
        .map(|(sum, count)| match count {
            0 => 0.0,
            _ => *sum as f32 / count as f32 / 1000.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A "screen": a title bar, a few bars of text of different lengths, a button.
    fn screen(width: u32, height: u32, background: Rgb<u8>, ink: Rgb<u8>, seed: u32) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
            let line = (fy * 12.0) as u32;
            let length = 0.2 + ((line * 7 + seed * 13) % 10) as f32 / 14.0;
            let in_text = fy > 0.1 && (fy * 12.0).fract() < 0.5 && fx > 0.05 && fx < length;
            let title = fy < 0.06;
            let button = fx > 0.75 && fx < 0.9 && fy > 0.8 && fy < 0.9;
            if in_text || title || button {
                ink
            } else {
                background
            }
        })
    }

    #[test]
    fn a_rescaled_or_recoloured_copy_is_the_same_screen_and_another_screen_is_not() {
        let dark = Rgb([20, 20, 30]);
        let light = Rgb([230, 230, 220]);
        let original = LookHash::of(&screen(1280, 720, dark, light, 1));
        let rescaled = LookHash::of(&screen(640, 360, dark, light, 1));
        let recoloured = LookHash::of(&screen(
            1280,
            720,
            Rgb([10, 40, 10]),
            Rgb([250, 200, 90]),
            1,
        ));
        let other = LookHash::of(&screen(1280, 720, dark, light, 4));
        let inverted = LookHash::of(&screen(1280, 720, light, dark, 1));
        assert!(
            original.same_screen(&rescaled),
            "{}",
            original.distance(&rescaled)
        );
        assert!(
            original.same_screen(&recoloured),
            "{}",
            original.distance(&recoloured)
        );
        assert!(
            !original.same_screen(&other),
            "{}",
            original.distance(&other)
        );
        assert!(
            !original.same_screen(&inverted),
            "{}",
            original.distance(&inverted)
        );
        assert_eq!(original.distance(&original), 0);
        assert_eq!(original.similarity(&original), 1.0);
    }

    #[test]
    fn a_hash_survives_its_bytes() {
        let hash = LookHash::of(&screen(300, 200, Rgb([0, 0, 0]), Rgb([255, 255, 255]), 2));
        assert_eq!(LookHash::from_bytes(hash.as_bytes()).unwrap(), hash);
        let err = LookHash::from_bytes(&[1, 2, 3]).unwrap_err();
        assert_eq!(err.field(), Some("image"));
    }
}
