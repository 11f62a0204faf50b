//! Where an image comes from, and the size cap checked before anything is decoded.
//!
//! The CLI may name any file the user can read ([`ImageSource::File`]); MCP and HTTP clients
//! send the bytes inline, as a data URL (`data:image/png;base64,…`) or raw base64
//! ([`ImageSource::Inline`]), and can never make cairn read a path. The cap
//! (`images.max_bytes`) applies to the decoded size and is checked from the file's length or
//! the base64 text's length before a byte is read or decoded.

use std::io::Read;
use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::config::ImagesConfig;
use crate::error::{Error, Result};

/// An image as an adapter received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// A file the user named on the command line.
    File(PathBuf),
    /// A data URL or raw base64, from a client.
    Inline(String),
}

/// An image's bytes, read and within the cap, and the name it came with (a file's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBytes {
    pub bytes: Vec<u8>,
    pub name: Option<String>,
}

/// The largest request body that carries an image of `max_bytes` inline (base64 takes four
/// characters for three bytes) beside a memory's own fields: servers raise their body limit to
/// it, so an image the store would take is never refused as an oversize request.
pub fn inline_body_allowance(max_bytes: u64) -> usize {
    let base64 = max_bytes.div_ceil(3) * 4;
    usize::try_from(base64 + (256 << 10)).unwrap_or(usize::MAX)
}

impl ImageSource {
    /// Reads the bytes, refusing more than `config.max_bytes` before reading or decoding them.
    pub fn read(&self, config: &ImagesConfig) -> Result<ImageBytes> {
        match self {
            ImageSource::File(path) => read_file(path, config.max_bytes),
            ImageSource::Inline(text) => Ok(ImageBytes {
                bytes: decode_inline(text, config.max_bytes)?,
                name: None,
            }),
        }
    }
}

fn read_file(path: &std::path::Path, max_bytes: u64) -> Result<ImageBytes> {
    let unreadable =
        |e: std::io::Error| Error::invalid("image", format!("cannot read {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let length = file.metadata().map_err(unreadable)?.len();
    if length > max_bytes {
        return Err(too_large(length, max_bytes));
    }
    let mut bytes = Vec::with_capacity(length as usize);
    // A file that grows while it is read still stops at the cap.
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64, max_bytes));
    }
    Ok(ImageBytes {
        bytes,
        name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
    })
}

/// Decodes a data URL or raw base64 (line breaks and spaces are ignored).
fn decode_inline(text: &str, max_bytes: u64) -> Result<Vec<u8>> {
    let payload = match text.trim_start().strip_prefix("data:") {
        Some(url) => {
            let (header, data) = url
                .split_once(',')
                .ok_or_else(|| Error::invalid("image", "a data URL needs a ',' before its data"))?;
            if !header.ends_with(";base64") {
                return Err(Error::invalid(
                    "image",
                    format!("data URL '{header}' is not base64 (expected data:image/…;base64,…)"),
                ));
            }
            data
        }
        None => text,
    };
    let compact: Vec<u8> = payload
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let padding = compact.iter().rev().take_while(|&&b| b == b'=').count() as u64;
    let decoded_len =
        (compact.len() as u64 / 4 * 3 + (compact.len() as u64 % 4) * 3 / 4).saturating_sub(padding);
    if decoded_len > max_bytes {
        return Err(too_large(decoded_len, max_bytes));
    }
    if compact.is_empty() {
        return Err(Error::invalid("image", "is empty"));
    }
    STANDARD
        .decode(&compact)
        .map_err(|e| Error::invalid("image", format!("is not valid base64: {e}")))
}

fn too_large(bytes: u64, max_bytes: u64) -> Error {
    Error::TooLarge {
        field: "image".into(),
        message: format!(
            "is {} bytes, more than the limit of {max_bytes} (images.max_bytes)",
            bytes
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(max_bytes: u64) -> ImagesConfig {
        ImagesConfig {
            max_bytes,
            ..ImagesConfig::default()
        }
    }

    #[test]
    fn data_urls_and_raw_base64_decode_alike_with_line_breaks_ignored() {
        let raw = ImageSource::Inline("aGVs\nbG8=".into());
        let url = ImageSource::Inline("data:image/png;base64,aGVsbG8=".into());
        assert_eq!(raw.read(&config(100)).unwrap().bytes, b"hello");
        assert_eq!(url.read(&config(100)).unwrap().bytes, b"hello");
    }

    #[test]
    fn oversize_base64_is_refused_from_its_length_before_decoding() {
        // 16 characters of base64 hold 12 bytes; these are not even valid base64, so only the
        // length can have refused them.
        let err = ImageSource::Inline("!!!!!!!!!!!!!!!!".into())
            .read(&config(11))
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        assert!(err.to_string().contains("images.max_bytes"), "{err}");
        // Exactly at the limit passes the cap and reaches the decoder.
        let err = ImageSource::Inline("!!!!!!!!!!!!!!!!".into())
            .read(&config(12))
            .unwrap_err();
        assert!(err.to_string().contains("not valid base64"), "{err}");
    }

    #[test]
    fn malformed_inline_images_are_refused_with_the_field_named() {
        for bad in ["data:image/png,plain", "data:image/png;base64", "", "a=b="] {
            let err = ImageSource::Inline(bad.into())
                .read(&config(1000))
                .unwrap_err();
            assert_eq!(err.field(), Some("image"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_at_it_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.png");
        std::fs::write(&path, vec![0u8; 2048]).unwrap();
        let err = ImageSource::File(path.clone())
            .read(&config(2047))
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        let read = ImageSource::File(path).read(&config(2048)).unwrap();
        assert_eq!(read.bytes.len(), 2048);
        assert_eq!(read.name.as_deref(), Some("big.png"));
    }
}
