//! CLIP, for searching images by meaning ("a red error banner" finds the screenshot): a text
//! tower and an image tower that map both into one space. So far what each tower is given: the
//! text tokenizer ([`tokenizer`]) and the image preprocessing ([`mod@preprocess`]), both checked
//! against a reference implementation's output. The towers, their loading and
//! `cairn model install clip` come next.

pub mod preprocess;
pub mod tokenizer;

pub use preprocess::{IMAGE_SIDE, preprocess};
pub use tokenizer::{CONTEXT, ClipTokenizer};
