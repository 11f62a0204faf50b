//! How an image looks, as a look model sees it: a vector per image, for "visually similar".
//!
//! The look hash ([`crate::image::look`]) says whether two pictures are the same screen; it
//! says little about screens that are merely alike (two terminals, two dialogs of one app, a
//! page before and after a fix). A [`LookModel`] — an image network's pooled features
//! (EfficientNet-Lite0 in `cairn-embed`) — places pictures that look alike near one another:
//! the same screen recoloured or rescaled measures a cosine above 0.9, two different
//! screenshots about 0.5–0.7, a screenshot against a photo about 0.1.
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

/// What to tell a user who has no look model and wants visually similar images found.
pub const HOW_TO_ENABLE: &str = "no look model is installed; run `cairn model install look` (about 19 MB, once) so \
     images that look alike are found, not only copies of one screen";

/// The cosine of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A vector as stored: little-endian `f32`s.
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A stored vector back; an empty blob is an image that could not be decoded.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::invalid(
            "image",
            format!(
                "a look vector of {} bytes is not a run of f32s",
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
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
