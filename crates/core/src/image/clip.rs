//! Images by meaning: a CLIP model's two towers put pictures and words into one space, so
//! "a red error banner" finds the screenshot that shows one, whatever words it holds.
//!
//! It complements the other signals rather than replacing them: OCR finds a screenshot by the
//! words it shows, the look model by how it looks; CLIP reads little of the text in a
//! screenshot, but knows what a dialog, a chart or a stack trace looks like. No CLIP weights
//! ship with cairn (nor can be had from a package registry); a user who has them (a Hugging
//! Face CLIP directory, or `cairn model install clip` where the hub is reachable) gets this
//! third space.
//!
//! Each image's vector is made once, after the write, with its look and text
//! ([`crate::image::reading`]), and kept with the name of the model that made it, 8 bits a
//! number like look vectors ([`crate::image::look_vector::Quantised`]); a query's words are
//! embedded by the text tower when searched ([`crate::image::search`]).

use image::RgbImage;

use crate::error::Result;

/// A model with an image tower and a text tower into one space (CLIP and its kin).
pub trait ClipModel: Send + Sync {
    /// The model's name, recorded with every vector it makes.
    fn name(&self) -> &str;

    /// How many numbers a vector has.
    fn dimensions(&self) -> usize;

    /// Where `image` lies in the space (unit length).
    fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>>;

    /// Where `text` lies in the same space (unit length).
    fn text_vector(&self, text: &str) -> Result<Vec<f32>>;
}
