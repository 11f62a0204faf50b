//! A model's two towers as core's `ClipModel`, each loaded on first use: a search by words
//! loads only the text tower, a store only the image tower. CLIP and SigLIP both serve this way
//! ([`TowerPair`] of their own towers).
//!
//! Opening reads nothing: every command opens the store, and most never use the model, so a
//! broken directory must not stop them, nor may a large one's files slow them (reading
//! MobileCLIP-S2's header to learn its width cost each `cairn search` 3 ms). A directory that
//! cannot be loaded is reported when a tower is first needed, by the work that needed it (images
//! wait, searches by words go on without meaning); the space's width and how its cosines read
//! ([`About`]) are read from the files the first time they are asked for.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cairn_core::Result;
use cairn_core::image::{ClipModel, MatchScale};
use image::RgbImage;

use crate::lazy::LoadOnce;

/// A tower that turns its input into a unit vector, loaded from a model directory.
pub trait Tower<Input: ?Sized>: Sized + Send + Sync {
    fn load(dir: &Path) -> Result<Self>;
    fn vector(&self, input: &Input) -> Result<Vec<f32>>;
}

/// What a model's files say of its space: how wide it is (0 when they cannot be read: the load
/// will say why) and how its cosines read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct About {
    pub dimensions: usize,
    pub scale: MatchScale,
}

/// A text tower and an image tower into one space, loaded when first used; its vectors are
/// recorded under `name`.
pub struct TowerPair<Text, Image> {
    name: String,
    dir: PathBuf,
    /// Reads [`About`] from the model's directory, once, when first asked.
    read_about: fn(&Path) -> About,
    about: OnceLock<About>,
    text: LoadOnce<Text>,
    image: LoadOnce<Image>,
}

impl<Text, Image> TowerPair<Text, Image> {
    /// The towers of the model in `dir`, whose width and scale `read_about` reads when first
    /// asked.
    pub fn new(dir: &Path, name: &str, read_about: fn(&Path) -> About) -> Self {
        TowerPair {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            read_about,
            about: OnceLock::new(),
            text: LoadOnce::new(dir),
            image: LoadOnce::new(dir),
        }
    }

    fn about(&self) -> About {
        *self.about.get_or_init(|| (self.read_about)(&self.dir))
    }
}

impl<Text: Tower<str>, Image: Tower<RgbImage>> ClipModel for TowerPair<Text, Image> {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.about().dimensions
    }

    fn image_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.image.get(Image::load)?.vector(image)
    }

    fn text_vector(&self, text: &str) -> Result<Vec<f32>> {
        self.text.get(Text::load)?.vector(text)
    }

    fn match_scale(&self) -> MatchScale {
        self.about().scale
    }
}
