//! What an image is to the store: its content id, its format, its record.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::id::MemoryId;

/// An image's id: the SHA-256 of its bytes, as 64 lowercase hexadecimal digits. The same
/// picture stored twice is one image.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ImageId(String);

impl ImageId {
    /// Characters of the short form people see (`cairn get`, captions).
    pub const SHORT: usize = 12;

    /// The id of these bytes.
    pub fn of(bytes: &[u8]) -> Self {
        let digest = Sha256::digest(bytes);
        ImageId(digest.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Parses a full id (case-insensitive).
    pub fn parse(raw: &str) -> Result<Self, Error> {
        let id = raw.trim().to_ascii_lowercase();
        if id.len() != 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::invalid(
                "image",
                format!("'{raw}' is not an image id (64 hexadecimal digits, a SHA-256)"),
            ));
        }
        Ok(ImageId(id))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first [`ImageId::SHORT`] digits.
    pub fn short(&self) -> &str {
        &self.0[..Self::SHORT]
    }
}

impl fmt::Display for ImageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for ImageId {
    type Error = Error;
    fn try_from(value: String) -> Result<Self, Error> {
        ImageId::parse(&value)
    }
}

impl From<ImageId> for String {
    fn from(value: ImageId) -> Self {
        value.0
    }
}

/// The formats cairn keeps. Anything else is refused before it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageFormat {
    pub const ALL: [ImageFormat; 4] = [
        ImageFormat::Png,
        ImageFormat::Jpeg,
        ImageFormat::Gif,
        ImageFormat::Webp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Gif => "gif",
            ImageFormat::Webp => "webp",
        }
    }

    /// The file name extension of a stored image.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "jpg",
            other => other.as_str(),
        }
    }

    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// The format these bytes open with (their signature), if it is one cairn keeps.
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        match bytes {
            [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some(ImageFormat::Png),
            [0xff, 0xd8, 0xff, ..] => Some(ImageFormat::Jpeg),
            [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some(ImageFormat::Gif),
            [
                b'R',
                b'I',
                b'F',
                b'F',
                _,
                _,
                _,
                _,
                b'W',
                b'E',
                b'B',
                b'P',
                ..,
            ] => Some(ImageFormat::Webp),
            _ => None,
        }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ImageFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        ImageFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| Error::invalid("image", format!("unknown image format '{s}'")))
    }
}

/// A stored image's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    pub id: ImageId,
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
    /// Size of the file.
    pub bytes: u64,
    /// When it was first stored.
    pub created_at: Timestamp,
    /// The text read from it (OCR; lines in reading order), once read: `None` until then, empty
    /// when it shows none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Image {
    /// How a memory stored with this image and no text of its own reads: it names the image,
    /// so it can be found and told apart from another picture's memory.
    pub fn caption(&self, name: Option<&str>) -> String {
        let what = format!(
            "{}, {}×{}, {}",
            self.format.as_str().to_ascii_uppercase(),
            self.width,
            self.height,
            self.id.short()
        );
        match name {
            Some(name) => format!("Image {name} ({what})"),
            None => format!("Image ({what})"),
        }
    }
}

/// An image and a memory that references it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryImage {
    pub memory: MemoryId,
    pub image: Image,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_id_is_the_sha256_of_the_bytes_and_parses_back() {
        let id = ImageId::of(b"abc");
        assert_eq!(
            id.as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(ImageId::parse(&id.as_str().to_uppercase()).unwrap(), id);
        assert_eq!(id.short(), "ba7816bf8f01");
        let err = ImageId::parse("ba7816bf").unwrap_err();
        assert_eq!(err.field(), Some("image"));
    }

    #[test]
    fn formats_are_told_by_their_signature_not_their_name() {
        assert_eq!(
            ImageFormat::sniff(b"\x89PNG\r\n\x1a\n...."),
            Some(ImageFormat::Png)
        );
        assert_eq!(
            ImageFormat::sniff(b"\xff\xd8\xff\xe0"),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::sniff(b"GIF89a.."), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(b"RIFF\x10\0\0\0WEBPVP8 "),
            Some(ImageFormat::Webp)
        );
        assert_eq!(ImageFormat::sniff(b"RIFF\x10\0\0\0WAVEfmt "), None);
        assert_eq!(ImageFormat::sniff(b"<svg"), None);
    }
}
