//! How an image looks, as a look model sees it: a vector per image, for "visually similar".
//!
//! The look hash ([`crate::image::look`]) says whether two pictures are the same screen; it
//! says little about screens that are merely alike (two terminals, two dialogs of one app, a
//! page before and after a fix). A [`LookModel`] — an image network's pooled features
//! (EfficientNet-Lite0 in `cairn-embed`) — places pictures that look alike near one another:
//! the same screen rescaled or re-encoded measures a cosine near 1 (recoloured, down to about
//! 0.8), two different screenshots 0.55–1.0 (median 0.84), a screenshot against a photo
//! 0.12–0.55 (median 0.26).
//!
//! Vectors are unit length, so their dot product is their cosine. Each image's vector is made
//! once, after the write, with its text and its look hash ([`crate::image::reading`]), and kept
//! with the name of the model that made it; a vector of another model is not compared.

use image::RgbImage;

use crate::error::{Error, Result};

/// A model that says how an image looks, as a unit vector.
pub trait LookModel: Send + Sync {
    /// The model's name, recorded with every vector it makes.
    fn name(&self) -> &str;

    /// How many numbers a vector has.
    fn dimensions(&self) -> usize;

    /// The vector of `image` (unit length).
    fn look_vector(&self, image: &RgbImage) -> Result<Vec<f32>>;
}

/// The cosine of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A look vector as stored: 8 bits a number. The first four bytes are the scale (a
/// little-endian `f32`: the largest magnitude over 127), then one signed byte per number. A
/// vector of 1,280 numbers takes 1,284 bytes, which fits in one SQLite page; as `f32`s it took
/// 5 KB of overflow pages and a scan over 100,000 images read ten times as slowly. The cosine
/// moves by less than 0.01.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantised {
    scale: f32,
    values: Vec<i8>,
}

impl Quantised {
    /// `vector`, 8 bits a number.
    pub fn of(vector: &[f32]) -> Self {
        let largest = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        Quantised {
            scale,
            values: vector
                .iter()
                .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8)
                .collect(),
        }
    }

    /// The stored form: the scale, then the numbers.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = self.scale.to_le_bytes().to_vec();
        bytes.extend(self.values.iter().map(|v| *v as u8));
        bytes
    }

    /// The numbers back, as `f32`s.
    pub fn values(&self) -> Vec<f32> {
        self.values
            .iter()
            .map(|v| f32::from(*v) * self.scale)
            .collect()
    }

    /// The cosine of this vector and a stored one (both of unit length before quantising),
    /// read in place from its bytes: an integer dot product, scaled once.
    pub fn cosine_with_stored(&self, stored: &[u8]) -> Result<f32> {
        let (scale, values) = split_stored(stored)?;
        if values.len() != self.values.len() {
            return Err(Error::invalid(
                "image",
                format!(
                    "a stored look vector has {} numbers, the query {}",
                    values.len(),
                    self.values.len()
                ),
            ));
        }
        let dot: i32 = self
            .values
            .iter()
            .zip(values)
            .map(|(a, b)| i32::from(*a) * i32::from(*b as i8))
            .sum();
        Ok(dot as f32 * self.scale * scale)
    }
}

/// A stored vector's scale and numbers.
fn split_stored(bytes: &[u8]) -> Result<(f32, &[u8])> {
    match bytes {
        [a, b, c, d, values @ ..] => Ok((f32::from_le_bytes([*a, *b, *c, *d]), values)),
        _ => Err(Error::invalid(
            "image",
            format!("a stored look vector of {} bytes has no scale", bytes.len()),
        )),
    }
}

/// A stored vector back (see [`Quantised`]); empty for an image that could not be decoded.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<f32>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let (scale, values) = split_stored(bytes)?;
    Ok(values.iter().map(|v| f32::from(*v as i8) * scale).collect())
}

/// `vector` scaled to unit length (left as it is when it is all zeros).
pub fn normalised(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        for v in &mut vector {
            *v /= norm;
        }
    }
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bits_a_number_keep_the_cosine_within_a_hundredth() {
        // Two unit vectors of the model's size, one a perturbed copy of the other.
        let a = normalised((0..1280).map(|i| ((i * 37 % 101) as f32).sin()).collect());
        let b = normalised(
            a.iter()
                .enumerate()
                .map(|(i, v)| v + 0.02 * ((i * 13 % 7) as f32 - 3.0))
                .collect(),
        );
        let exact = cosine(&a, &b);
        let stored = Quantised::of(&b).to_bytes();
        assert_eq!(stored.len(), 4 + 1280);
        let approximate = Quantised::of(&a).cosine_with_stored(&stored).unwrap();
        assert!(
            (exact - approximate).abs() < 0.01,
            "{exact} vs {approximate}"
        );
        let back = from_bytes(&stored).unwrap();
        assert!((cosine(&back, &b) - 1.0).abs() < 0.001);
        let err = Quantised::of(&a)
            .cosine_with_stored(&stored[..100])
            .unwrap_err();
        assert_eq!(err.field(), Some("image"));
        assert!(from_bytes(&[1, 2]).is_err());
        assert!(from_bytes(&[]).unwrap().is_empty());
    }
}
