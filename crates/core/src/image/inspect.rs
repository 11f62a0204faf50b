//! What an image is, read from its first bytes: the format from its signature, the dimensions
//! from its header. Both are known, and capped, before a single pixel is decoded, so a small
//! file that would decode to gigabytes (a decompression bomb) is refused up front. Thumbnails
//! and the pixels the models read ([`decode_rgb`]) are decoded under the same caps.

use std::io::Cursor;

use image::{ImageDecoder, ImageReader, Limits, RgbImage};

use crate::config::ImagesConfig;
use crate::error::{Error, Result};
use crate::image::model::ImageFormat;

/// An image's format and dimensions, read from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inspected {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// Reads the format and dimensions of `bytes` and checks them against the caps.
pub fn inspect(bytes: &[u8], config: &ImagesConfig) -> Result<Inspected> {
    let format = ImageFormat::sniff(bytes).ok_or_else(|| {
        Error::invalid(
            "image",
            "is not a PNG, JPEG, GIF or WebP image (its first bytes match none of them)",
        )
    })?;
    let decoder = reader(bytes, format, config)
        .into_decoder()
        .map_err(|e| unreadable(format, e))?;
    let (width, height) = decoder.dimensions();
    check_dimensions(width, height, config)?;
    Ok(Inspected {
        format,
        width,
        height,
    })
}

/// A PNG of the image scaled to fit a `side` × `side` square (never enlarged).
pub fn thumbnail(
    bytes: &[u8],
    format: ImageFormat,
    side: u32,
    config: &ImagesConfig,
) -> Result<Vec<u8>> {
    let picture = reader(bytes, format, config)
        .decode()
        .map_err(|e| unreadable(format, e))?;
    let small = if picture.width() > side || picture.height() > side {
        picture.thumbnail(side, side)
    } else {
        picture
    };
    let mut png = Vec::new();
    small
        .into_rgba8()
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| Error::invalid("image", format!("cannot encode its thumbnail: {e}")))?;
    Ok(png)
}

/// The image's pixels as 8-bit RGB (transparency dropped onto white), decoded under the caps,
/// for the models that read or look at it.
pub fn decode_rgb(bytes: &[u8], format: ImageFormat, config: &ImagesConfig) -> Result<RgbImage> {
    let picture = reader(bytes, format, config)
        .decode()
        .map_err(|e| unreadable(format, e))?;
    if !picture.color().has_alpha() {
        return Ok(picture.into_rgb8());
    }
    let rgba = picture.into_rgba8();
    Ok(RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let over_white = |c: u8| ((c as u32 * a as u32 + 255 * (255 - a as u32)) / 255) as u8;
        image::Rgb([over_white(r), over_white(g), over_white(b)])
    }))
}

fn reader<'b>(
    bytes: &'b [u8],
    format: ImageFormat,
    config: &ImagesConfig,
) -> ImageReader<Cursor<&'b [u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), codec_format(format));
    let mut limits = Limits::default();
    limits.max_image_width = Some(config.max_side);
    limits.max_image_height = Some(config.max_side);
    // Four bytes a pixel (RGBA8) and the decoder's own buffers.
    limits.max_alloc = Some(config.max_pixels.saturating_mul(4).saturating_add(64 << 20));
    reader.limits(limits);
    reader
}

fn check_dimensions(width: u32, height: u32, config: &ImagesConfig) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(Error::invalid(
            "image",
            format!("is {width}×{height} pixels: it holds no picture"),
        ));
    }
    if width > config.max_side || height > config.max_side {
        return Err(Error::TooLarge {
            field: "image".into(),
            message: format!(
                "is {width}×{height} pixels; a side may be at most {} (images.max_side)",
                config.max_side
            ),
        });
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > config.max_pixels {
        return Err(Error::TooLarge {
            field: "image".into(),
            message: format!(
                "is {width}×{height} = {pixels} pixels, more than {} (images.max_pixels)",
                config.max_pixels
            ),
        });
    }
    Ok(())
}

fn codec_format(format: ImageFormat) -> image::ImageFormat {
    match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Gif => image::ImageFormat::Gif,
        ImageFormat::Webp => image::ImageFormat::WebP,
    }
}

fn unreadable(format: ImageFormat, error: image::ImageError) -> Error {
    match error {
        image::ImageError::Limits(limit) => Error::TooLarge {
            field: "image".into(),
            message: format!(
                "decoding it would pass the caps (images.max_side, images.max_pixels): {limit}"
            ),
        },
        other => Error::invalid(
            "image",
            format!(
                "is not a readable {} image: {other}",
                format.as_str().to_ascii_uppercase()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageEncoder, RgbaImage};

    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let picture = RgbaImage::from_fn(width, height, |x, y| {
            image::Rgba([(x % 256) as u8, (y % 256) as u8, 128, 255])
        });
        let mut bytes = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
            .unwrap();
        bytes
    }

    #[test]
    fn dimensions_come_from_the_header_for_every_format() {
        let config = ImagesConfig::default();
        let picture = RgbaImage::new(40, 30);
        for format in [
            image::ImageFormat::Png,
            image::ImageFormat::Jpeg,
            image::ImageFormat::Gif,
            image::ImageFormat::WebP,
        ] {
            let mut bytes = Vec::new();
            let rgb = image::DynamicImage::ImageRgba8(picture.clone());
            let rgb = if format == image::ImageFormat::Jpeg {
                image::DynamicImage::ImageRgb8(rgb.into_rgb8())
            } else {
                rgb
            };
            rgb.write_to(&mut Cursor::new(&mut bytes), format).unwrap();
            let seen = inspect(&bytes, &config).unwrap();
            assert_eq!((seen.width, seen.height), (40, 30), "{format:?}");
            assert_eq!(seen.format.mime_type(), format.to_mime_type());
        }
    }

    #[test]
    fn a_decompression_bomb_is_refused_from_its_header() {
        // A real PNG header that promises 100,000 × 100,000 pixels (40 GB decoded), followed by
        // almost nothing: the header alone must refuse it.
        let mut bytes = Vec::new();
        image::codecs::png::PngEncoder::new(&mut bytes)
            .write_image(&[0u8; 4], 1, 1, image::ExtendedColorType::Rgba8)
            .unwrap();
        // IHDR's width and height sit at bytes 16..24; its CRC (29..33) is then wrong, so
        // write a header with a correct CRC by hand.
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&100_000u32.to_be_bytes());
        ihdr.extend_from_slice(&100_000u32.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        let crc = crc32(&ihdr);
        bytes.splice(12..29, ihdr.iter().copied());
        bytes.splice(29..33, crc.to_be_bytes());
        let config = ImagesConfig::default();
        let err = inspect(&bytes, &config).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        assert!(err.to_string().contains("images.max_side"), "{err}");
        assert!(thumbnail(&bytes, ImageFormat::Png, 64, &config).is_err());
    }

    #[test]
    fn pixel_count_is_capped_as_well_as_each_side() {
        let config = ImagesConfig {
            max_pixels: 100 * 99,
            ..ImagesConfig::default()
        };
        let err = inspect(&png(100, 100), &config).unwrap_err();
        assert!(err.to_string().contains("images.max_pixels"), "{err}");
        assert!(inspect(&png(100, 99), &config).is_ok());
    }

    #[test]
    fn text_and_truncated_files_are_refused_as_unreadable() {
        let config = ImagesConfig::default();
        let err = inspect(b"hello, not a picture", &config).unwrap_err();
        assert!(err.to_string().contains("PNG, JPEG, GIF or WebP"), "{err}");
        let truncated = &png(20, 20)[..20];
        let err = inspect(truncated, &config).unwrap_err();
        assert!(err.to_string().contains("not a readable PNG"), "{err}");
    }

    #[test]
    fn thumbnails_fit_the_square_and_keep_the_aspect() {
        let config = ImagesConfig::default();
        let thumb = thumbnail(&png(400, 100), ImageFormat::Png, 200, &config).unwrap();
        let seen = inspect(&thumb, &config).unwrap();
        assert_eq!((seen.width, seen.height), (200, 50));
        let small = thumbnail(&png(30, 20), ImageFormat::Png, 200, &config).unwrap();
        let seen = inspect(&small, &config).unwrap();
        assert_eq!((seen.width, seen.height), (30, 20));
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
