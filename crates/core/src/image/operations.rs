//! Storing a memory with its image, and letting go of images nothing references.
//!
//! A write with an image reads and inspects it first (caps, format, dimensions: nothing is
//! written for a refused image), then, in one transaction: stores the memory by the ordinary
//! write rules, records the image, links the two, checks the quota, and writes the file last,
//! so a refusal leaves no file behind. A memory stored with the same text as one in its scope
//! is a duplicate only if that memory shows the same picture; otherwise it is a new memory
//! (with a topic key, the memory under that key gains the image).

use jiff::Timestamp;

use crate::clock::Clock;
use crate::config::{ImagesConfig, Limits};
use crate::error::{Error, Result};
use crate::image::files::ImageDir;
use crate::image::input::ImageSource;
use crate::image::inspect::inspect;
use crate::image::model::{Image, ImageId};
use crate::memory::normalise::{content_hash, same_content};
use crate::memory::write::{candidate, store_in};
use crate::memory::{Memory, NewMemory, WriteOutcome, WriteStatus};
use crate::store::{Store, StoreTx, in_transaction};

/// The image operations, over a store and its image directory.
pub struct Images<'a> {
    store: &'a dyn Store,
    dir: Option<&'a ImageDir>,
    config: &'a ImagesConfig,
    limits: &'a Limits,
    clock: &'a Clock,
}

impl<'a> Images<'a> {
    pub fn new(
        store: &'a dyn Store,
        dir: Option<&'a ImageDir>,
        config: &'a ImagesConfig,
        limits: &'a Limits,
        clock: &'a Clock,
    ) -> Self {
        Images {
            store,
            dir,
            config,
            limits,
            clock,
        }
    }

    fn dir(&self) -> Result<&'a ImageDir> {
        self.dir.ok_or_else(|| {
            Error::invalid(
                "image",
                "this store keeps no image files (an in-memory store); open a store on disk",
            )
        })
    }

    /// Stores `new` with the image from `source`; a memory without text of its own is named
    /// by the image's caption.
    pub fn store(&self, mut new: NewMemory, source: &ImageSource) -> Result<WriteOutcome> {
        let dir = self.dir()?;
        let read = source.read(self.config)?;
        let seen = inspect(&read.bytes, self.config)?;
        let now = self.clock.timestamp();
        let image = Image {
            id: ImageId::of(&read.bytes),
            format: seen.format,
            width: seen.width,
            height: seen.height,
            bytes: read.bytes.len() as u64,
            created_at: now,
            text: None,
        };
        if new.content.trim().is_empty() {
            new.content = image.caption(read.name.as_deref());
        }
        let candidate = candidate(new, self.limits, now)?;
        let mut aside = Vec::new();
        let stored = in_transaction(self.store, |tx| {
            aside.clear();
            let under_topic = match &candidate.topic_key {
                Some(key) => tx.find_by_topic(&candidate.scope, key, now)?.is_some(),
                None => false,
            };
            let mut outcome = match under_topic {
                // The memory under the key is revised (or unchanged) and gains the image.
                true => store_in(tx, &candidate, now)?,
                false => match same_words_and_picture(tx, &candidate, &image.id, now)? {
                    Some(existing) => WriteOutcome::new(WriteStatus::Duplicate, existing),
                    None => {
                        tx.insert(&candidate)?;
                        WriteOutcome::new(WriteStatus::Created, candidate.clone())
                    }
                },
            };
            // A picture stored before keeps its record (and its first time).
            let recorded = match tx.put_image(&image)? {
                true => image.clone(),
                false => tx.image(&image.id)?.unwrap_or_else(|| image.clone()),
            };
            tx.link_image(&outcome.memory.id, &image.id)?;
            self.keep_within_quota(tx, &mut aside)?;
            dir.put(&recorded, &read.bytes)?;
            outcome.image = Some(recorded);
            Ok(outcome)
        });
        settle(dir, &aside, stored.is_ok());
        stored
    }

    /// Deletes the images no memory references any more, records first and files after the
    /// commit; returns them.
    pub fn release_unreferenced(&self) -> Result<Vec<Image>> {
        let mut aside = Vec::new();
        let released = in_transaction(self.store, |tx| {
            aside.clear();
            let images = tx.unreferenced_images()?;
            for image in &images {
                self.let_go(tx, image, &mut aside)?;
            }
            Ok(images)
        });
        if let Some(dir) = self.dir {
            settle(dir, &aside, released.is_ok());
        }
        released
    }

    /// Lets go of unreferenced images, oldest first, while the images pass the quota; refuses
    /// the write when the referenced ones alone do.
    fn keep_within_quota(&self, tx: &mut dyn StoreTx, aside: &mut Vec<Image>) -> Result<()> {
        let quota = self.config.quota_bytes;
        let mut used = tx.image_bytes()?;
        if used <= quota {
            return Ok(());
        }
        for image in tx.unreferenced_images()? {
            self.let_go(tx, &image, aside)?;
            used = used.saturating_sub(image.bytes);
            if used <= quota {
                return Ok(());
            }
        }
        Err(Error::TooLarge {
            field: "image".into(),
            message: format!(
                "the image store would hold {} MiB, more than its quota of {} MiB \
                 (images.quota_bytes); purge memories whose images are no longer needed \
                 (`cairn forget --purge`), or raise the quota",
                mib(used),
                mib(quota)
            ),
        })
    }

    /// Deletes an image's record and sets its file aside (removed once the commit is done).
    fn let_go(&self, tx: &mut dyn StoreTx, image: &Image, aside: &mut Vec<Image>) -> Result<()> {
        tx.delete_image(&image.id)?;
        if let Some(dir) = self.dir
            && dir.set_aside(image)?
        {
            aside.push(image.clone());
        }
        Ok(())
    }
}

/// A live memory in the candidate's scope with the same words that already shows this image.
fn same_words_and_picture(
    tx: &mut dyn StoreTx,
    candidate: &Memory,
    image: &ImageId,
    now: Timestamp,
) -> Result<Option<Memory>> {
    let same_words = tx
        .find_by_content_hash(&candidate.scope, content_hash(&candidate.content), now)?
        .into_iter()
        .filter(|m| same_content(&m.content, &candidate.content));
    for memory in same_words {
        if tx.links_image(&memory.id, image)? {
            return Ok(Some(memory));
        }
    }
    Ok(None)
}

/// After the transaction: removes the set-aside files of a commit, or moves them back after a
/// rollback. A failure here is logged: the worst left behind is an unused file.
fn settle(dir: &ImageDir, aside: &[Image], committed: bool) {
    for image in aside {
        let settled = match committed {
            true => dir.remove_set_aside(image),
            false => dir.restore(image).map(|_| ()),
        };
        if let Err(error) = settled {
            tracing::warn!(%error, image = %image.id, "an image file could not be settled");
        }
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}
