//! Images by meaning: a CLIP model's two towers put pictures and words into one space, so
//! "a red error banner" finds the screenshot that shows one, whatever words it holds.
//!
//! It complements the other signals rather than replacing them: OCR finds a screenshot by the
//! words it shows, the look model by how it looks; CLIP reads little of the text in a
//! screenshot, but knows what a dialog, a chart or a stack trace looks like. No CLIP weights
//! ship with cairn (nor can be had from a package registry); a user who has them (a Hugging
//! Face CLIP or SigLIP directory, an OpenCLIP MobileCLIP one, or `cairn model install clip`,
//! `siglip` or `mobileclip` where the hub is reachable) gets this third space. Each model says how its cosines read ([`MatchScale`]).
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

    /// How this model's text–image cosines read. OpenAI's CLIP figures unless the model knows
    /// better (a SigLIP model reads them from its own calibration).
    fn match_scale(&self) -> MatchScale {
        MatchScale::CLIP
    }
}

/// How a model's cosines of words and a picture read: below `floor` the picture does not show
/// what the words say; at `full` and above it clearly does. Models trained alike measure alike,
/// but families run on ranges of their own (a sigmoid-trained model's calibration sets where
/// its matches lie), so each model says its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchScale {
    pub floor: f64,
    pub full: f64,
}

impl MatchScale {
    /// The figures OpenAI's CLIP ViT-B/32 is known by: a caption and its picture measure about
    /// 0.3, a caption and another picture 0.1–0.2. No CLIP weights can be had where cairn is
    /// built, so they were not measured on screenshots here.
    pub const CLIP: MatchScale = MatchScale {
        floor: 0.2,
        full: 0.32,
    };

    /// The chance of a match at which a sigmoid-trained model's images are listed.
    pub const SIGMOID_FLOOR_CHANCE: f64 = 0.01;

    /// The scale of a model trained with a sigmoid loss (SigLIP), which says itself how likely
    /// words describe a picture: `sigmoid(scale × cosine + bias)`, with the `scale` (already
    /// exponentiated) and `bias` the model learned. An image is listed from a 1% chance
    /// ([`Self::SIGMOID_FLOOR_CHANCE`]) and counts fully at an even chance.
    pub fn from_sigmoid(scale: f64, bias: f64) -> MatchScale {
        let chance = Self::SIGMOID_FLOOR_CHANCE;
        let logit = (chance / (1.0 - chance)).ln();
        MatchScale {
            floor: (logit - bias) / scale,
            full: -bias / scale,
        }
    }

    /// What a cosine counts for: 0 at the floor and below, 1 at `full` and above.
    pub fn share(&self, cosine: f64) -> f64 {
        ((cosine - self.floor) / (self.full - self.floor)).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    #[test]
    fn a_sigmoid_models_scale_lists_from_a_one_percent_chance_and_is_full_at_an_even_one() {
        let (scale, bias) = (117.3, -12.9);
        let read = MatchScale::from_sigmoid(scale, bias);
        assert!((sigmoid(scale * read.floor + bias) - 0.01).abs() < 1e-9);
        assert!((sigmoid(scale * read.full + bias) - 0.5).abs() < 1e-9);
        assert!(read.floor < read.full);
        assert_eq!(read.share(read.floor - 0.01), 0.0);
        assert_eq!(read.share(read.full + 0.01), 1.0);
        let middle = read.share((read.floor + read.full) / 2.0);
        assert!((middle - 0.5).abs() < 1e-9);
    }
}
