//! A model's two towers as core's `ClipModel`, each loaded on first use: a search by words
//! loads only the text tower, a store only the image tower. CLIP and SigLIP both serve this way
//! ([`TowerPair`] of their own towers).
//!
//! A directory that cannot be loaded is reported when a tower is first needed, by the work that
//! needed it (images wait, searches by words go on without meaning), not when the model is
//! opened: every command opens the store, and a broken directory must not stop the ones that
//! never use it.

use std::path::Path;

use cairn_core::Result;
use cairn_core::image::{ClipModel, MatchScale};
use image::RgbImage;

use crate::lazy::LoadOnce;

/// A tower that turns its input into a unit vector, loaded from a model directory.
pub trait Tower<Input: ?Sized>: Sized + Send + Sync {
    fn load(dir: &Path) -> Result<Self>;
    fn vector(&self, input: &Input) -> Result<Vec<f32>>;
}

/// A text tower and an image tower into one space, loaded when first used; its vectors are
/// recorded under `name`, and its cosines read on `scale`.
pub struct TowerPair<Text, Image> {
    name: String,
    dimensions: usize,
    scale: MatchScale,
    text: LoadOnce<Text>,
    image: LoadOnce<Image>,
}

impl<Text, Image> TowerPair<Text, Image> {
    /// The towers of the model in `dir`, of `dimensions` (0 when its config cannot be read:
    /// the load will say why).
    pub fn new(dir: &Path, name: &str, dimensions: usize, scale: MatchScale) -> Self {
        TowerPair {
            name: name.to_string(),
            dimensions,
            scale,
            text: LoadOnce::new(dir),
            image: LoadOnce::new(dir),
        }
    }
}

impl<Text: Tower<str>, Image: Tower<RgbImage>> ClipModel for TowerPair<Text, Image> {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.image.get(Image::load)?.vector(image)
    }

    fn text_vector(&self, text: &str) -> Result<Vec<f32>> {
        self.text.get(Text::load)?.vector(text)
    }

    fn match_scale(&self) -> MatchScale {
        self.scale
    }
}
