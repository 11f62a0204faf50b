//! CLIP, for searching images by meaning ("a red error banner" finds the screenshot): a text
//! tower and an image tower that map both into one space. So far: the text tokenizer
//! ([`tokenizer`]), checked against the reference implementation's ids. The towers, their
//! loading and `cairn model install clip` come next.

pub mod tokenizer;

pub use tokenizer::{CONTEXT, ClipTokenizer};
