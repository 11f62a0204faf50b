//! Images: screenshots and other pictures kept with the memories that show them.
//!
//! An image is stored once, by content: its id is the SHA-256 of its bytes ([`ImageId`]), its
//! file lives in the store's image directory ([`ImageDir`]) under that id, and its record
//! ([`Image`]: format, size, dimensions) in the store. Memories *reference* images; an image is
//! kept while any memory references it, and deleting its last reference (a purge or a prune)
//! deletes its record and then its file. The directory has a quota: an image that would pass it
//! is refused, after the images nothing references any more have been let go.
//!
//! - [`model`]: [`ImageId`], [`ImageFormat`], [`Image`];
//! - [`input`]: where an image comes from ([`ImageSource`]: a file the CLI names, a data URL or
//!   raw base64) and the size cap, checked before anything is decoded;
//! - [`inspect`]: the format from the leading bytes and the dimensions from the header, capped
//!   before any pixel is decoded (a decompression bomb is refused), and thumbnails;
//! - [`look`]: how an image looks, as a perceptual hash ([`LookHash`]: the same screen whatever
//!   its size, colours or format);
//! - [`look_vector`]: how an image looks as a look model sees it ([`LookModel`]: a vector,
//!   for "visually similar");
//! - [`clip`]: images by meaning, with a CLIP model ([`ClipModel`]: an image tower and a text
//!   tower into one space);
//! - [`files`]: the content-addressed directory;
//! - [`operations`]: [`Images`], storing a memory with its image and letting go of unreferenced
//!   images;
//! - [`reading`]: reading the text in images (OCR) after the write ([`ImageReading`], with a
//!   [`TextReader`]), which makes the text part of the searchable text of every memory that
//!   shows the image;
//! - [`screenshots`]: the pictures tools return, kept as memories of the session that saw them;
//! - [`search`]: vision search ([`VisionSearch`]): images ranked by what they say and how they
//!   look, copies of one screen folded into one hit;
//! - [`store`]: what a backend provides ([`ImageStore`], [`ImageTx`]).
//!
//! Ordering is what keeps a crash from leaving a reference to a missing file: a file is written
//! (atomically, by rename) before the transaction that records it commits, and removed only
//! after the transaction that deletes its record commits. Inside that transaction the file is
//! first moved aside, so a writer that adds the same image again in the meantime writes a fresh
//! copy; a crash before the commit leaves the file aside, and the directory moves it back the
//! next time the image is read or stored.

pub mod clip;
pub mod files;
pub mod input;
pub mod inspect;
pub mod look;
pub mod look_vector;
pub mod model;
pub mod operations;
pub mod reading;
pub mod screenshots;
pub mod search;
pub mod store;

pub use clip::{ClipModel, MatchScale};
pub use files::ImageDir;
pub use input::{ImageBytes, ImageSource};
pub use look::{LookHash, SAME_SCREEN_BITS};
pub use look_vector::LookModel;
pub use model::{Image, ImageFormat, ImageId, MemoryImage};
pub use operations::Images;
pub use reading::{ImageReading, ReadProgress, ReadReport, TextReader};
pub use search::{
    CLIP_FLOOR, CLIP_FULL, QueryImage, QueryPicture, QueryVector, VisionHit, VisionQuery,
    VisionResults, VisionSearch, VisionSignal, VisionSignalKind,
};
pub use store::{ImageSpace, ImageStore, ImageTotals, ImageTx, PendingWork};
