//! What a backend must provide for images: [`ImageStore`] (reads) and [`ImageTx`] (writes,
//! inside one transaction).
//!
//! A backend keeps image records and which memory references which image; deleting a memory
//! deletes its references with it (so a purge never leaves one behind), but never the image:
//! letting go of unreferenced images, and their files, is the service's (`image::operations`).

use jiff::Timestamp;

use crate::error::Result;
use crate::id::MemoryId;
use crate::image::look::LookHash;
use crate::image::model::{Image, ImageId, MemoryImage};
use crate::memory::filter::MemoryFilter;

/// The read side of image storage.
pub trait ImageStore: Send + Sync {
    /// The image with this id.
    fn image(&self, id: &ImageId) -> Result<Option<Image>>;

    /// Every stored image's record, oldest first (the doctor checks each has its file).
    fn images(&self) -> Result<Vec<Image>>;

    /// The images these memories reference, each with its memory, oldest image first.
    fn memory_images(&self, memories: &[MemoryId]) -> Result<Vec<MemoryImage>>;

    /// The memories (in any state) that reference this image.
    fn image_references(&self, id: &ImageId) -> Result<Vec<MemoryId>>;

    /// How many images are stored, and their bytes together. Images "without a vector" are
    /// those without one of the model `models` names for that space (of any model when it names
    /// none): after a switch of models, the images waiting for the new one's vectors.
    fn image_totals(&self, models: &PendingWork) -> Result<ImageTotals>;

    /// Up to `limit` images still to be looked at after their write, oldest first (by
    /// `created_at`, then id), after `after` when given (the last of the previous batch, so a
    /// pass reads the table once): those with no look hash, and as `work` asks also those whose
    /// text has not been read or that have no look vector of its model.
    fn pending_images(
        &self,
        limit: usize,
        work: &PendingWork<'_>,
        after: Option<&Image>,
    ) -> Result<Vec<Image>>;

    /// Which of these images each memory matching `filter` (at `now`) shows, oldest memory
    /// first.
    fn image_memories(
        &self,
        images: &[ImageId],
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, MemoryId)>>;

    /// The `limit` hashed images whose looks are nearest `look` (fewest differing bits; ties
    /// by id), among those a memory matching `filter` (at `now`) shows, nearest first.
    fn nearest_looks(
        &self,
        look: &LookHash,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, LookHash)>>;

    /// The look hashes of those of these images that have one.
    fn looks_of(&self, images: &[ImageId]) -> Result<Vec<(ImageId, LookHash)>>;

    /// The `limit` images whose vectors in `space` made by `model` are nearest `vector`
    /// (highest cosine; ties by id), among those a memory matching `filter` (at `now`) shows,
    /// nearest first, each with its cosine.
    fn nearest_image_vectors(
        &self,
        space: ImageSpace,
        vector: &[f32],
        model: &str,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, f32)>>;

    /// The vectors in `space` made by `model` of those of these images that have one (an image
    /// whose file could not be decoded has an empty one).
    fn image_vectors_of(
        &self,
        space: ImageSpace,
        images: &[ImageId],
        model: &str,
    ) -> Result<Vec<(ImageId, Vec<f32>)>>;
}

/// The spaces an image has a vector in, one vector per image and space, each made by one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageSpace {
    /// How it looks, to the look model ([`crate::image::look_vector`]).
    Look,
    /// What it means, to a CLIP model's image tower ([`crate::image::clip`]).
    Clip,
}

/// What a pass over pending images does besides hashing looks.
#[derive(Debug, Clone, Copy, Default)]
pub struct PendingWork<'a> {
    /// Reads their text: images not read yet are pending.
    pub read_text: bool,
    /// Makes look vectors with this model: images without one of it are pending.
    pub look_model: Option<&'a str>,
    /// Makes CLIP vectors with this model: images without one of it are pending.
    pub clip_model: Option<&'a str>,
}

impl<'a> PendingWork<'a> {
    /// The model whose vectors `space` is to get, if any.
    pub fn model_of(&self, space: ImageSpace) -> Option<&'a str> {
        match space {
            ImageSpace::Look => self.look_model,
            ImageSpace::Clip => self.clip_model,
        }
    }
}

/// How many images a store holds, and their size together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct ImageTotals {
    pub images: u64,
    pub bytes: u64,
    /// Images whose text has not been read yet.
    pub unread: u64,
    /// Images whose look has not been hashed yet.
    pub unhashed: u64,
    /// Images with no look vector yet (of the model asked about).
    pub without_vector: u64,
    /// Images with no CLIP vector yet (of the model asked about).
    pub without_clip_vector: u64,
}

/// The write side of image storage, inside one transaction.
pub trait ImageTx {
    /// The image with this id, as this transaction sees it.
    fn image(&mut self, id: &ImageId) -> Result<Option<Image>>;

    /// Records an image; `false` when it was already recorded (nothing changes).
    fn put_image(&mut self, image: &Image) -> Result<bool>;

    /// Makes `memory` reference `image` (both must exist); `false` when it already did.
    fn link_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool>;

    /// True when `memory` references `image`.
    fn links_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool>;

    /// The size of every recorded image together, in bytes.
    fn image_bytes(&mut self) -> Result<u64>;

    /// Images no memory references, oldest first.
    fn unreferenced_images(&mut self) -> Result<Vec<Image>>;

    /// Deletes an image's record (it must have no references).
    fn delete_image(&mut self, id: &ImageId) -> Result<()>;

    /// Records the text `reader` read from an image and makes it part of the searchable text
    /// of every memory that shows the image (a memory linked later takes it when linked). A
    /// memory whose searchable text changed is embedded again. Nothing happens for an image
    /// that is no longer recorded.
    fn put_image_text(&mut self, id: &ImageId, text: &str, reader: &str) -> Result<()>;

    /// Records how an image looks (`None`: its file could not be decoded, so it has no look and
    /// is not tried again); nothing happens for an image that is no longer recorded.
    fn put_image_look(&mut self, id: &ImageId, look: Option<&LookHash>) -> Result<()>;

    /// Records an image's vector in `space` made by `model` (`None`: its file could not be
    /// decoded; it is kept empty and not tried again), replacing one of another model; nothing
    /// happens for an image that is no longer recorded.
    fn put_image_vector(
        &mut self,
        space: ImageSpace,
        id: &ImageId,
        model: &str,
        vector: Option<&[f32]>,
    ) -> Result<()>;
}
