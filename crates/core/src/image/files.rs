//! The image directory: one file per image, named by its id, in a folder per first two digits
//! (`ab/abcd….png`), and thumbnails made once beside them (`thumbs/ab/abcd….png`).
//!
//! Files are written to a temporary name and renamed into place, so a reader never sees half
//! an image. Removal is two steps around the transaction that deletes the record
//! ([`ImageDir::set_aside`] inside it, [`ImageDir::remove_set_aside`] after the commit, or
//! [`ImageDir::restore`] after a rollback); a file a crash left aside is moved back the next
//! time its image is read or stored (see the `image` module).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{ImagesConfig, images_beside};
use crate::error::{Error, Result};
use crate::image::inspect;
use crate::image::model::{Image, ImageFormat, ImageId};

/// Longest side of a thumbnail, in pixels.
pub const THUMBNAIL_SIDE: u32 = 256;

/// Suffix of a file moved aside by a delete that has not committed yet.
const ASIDE: &str = "deleting";

/// A store's content-addressed image directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageDir {
    root: PathBuf,
}

impl ImageDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        ImageDir { root: root.into() }
    }

    /// The image directory that goes with a database file (see [`images_beside`]).
    pub fn beside(database: &Path) -> Self {
        ImageDir::new(images_beside(database))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the image's file lives.
    pub fn path(&self, id: &ImageId, format: ImageFormat) -> PathBuf {
        self.root
            .join(&id.as_str()[..2])
            .join(format!("{id}.{}", format.extension()))
    }

    /// Where the image's thumbnail lives (once made).
    pub fn thumbnail_path(&self, id: &ImageId) -> PathBuf {
        self.root
            .join("thumbs")
            .join(&id.as_str()[..2])
            .join(format!("{id}.png"))
    }

    fn aside_path(&self, id: &ImageId, format: ImageFormat) -> PathBuf {
        let mut path = self.path(id, format).into_os_string();
        path.push(format!(".{ASIDE}"));
        PathBuf::from(path)
    }

    /// Makes sure the image's file holds `bytes`: written when missing (or moved back when a
    /// crash left it aside), left alone when present.
    pub fn put(&self, image: &Image, bytes: &[u8]) -> Result<()> {
        let path = self.path(&image.id, image.format);
        if path.exists() || self.restore(image)? {
            return Ok(());
        }
        write_atomically(&path, bytes)
    }

    /// The image's bytes.
    pub fn read(&self, image: &Image) -> Result<Vec<u8>> {
        let path = self.path(&image.id, image.format);
        if !path.exists() {
            self.restore(image)?;
        }
        fs::read(&path).map_err(|e| io_error(&path, "read", e))
    }

    /// The path of the image's thumbnail (at most [`THUMBNAIL_SIDE`] pixels a side), made on
    /// first use (for the viewer and vision search).
    pub fn thumbnail(&self, image: &Image, config: &ImagesConfig) -> Result<PathBuf> {
        let path = self.thumbnail_path(&image.id);
        if !path.exists() {
            let bytes = self.read(image)?;
            let small = inspect::thumbnail(&bytes, image.format, THUMBNAIL_SIDE, config)?;
            write_atomically(&path, &small)?;
        }
        Ok(path)
    }

    /// Moves the image's file aside (first step of a delete); `false` when there was none.
    pub fn set_aside(&self, image: &Image) -> Result<bool> {
        let (from, to) = (
            self.path(&image.id, image.format),
            self.aside_path(&image.id, image.format),
        );
        rename_if_present(&from, &to)
    }

    /// Moves a set-aside file back (the delete rolled back or crashed); `false` when there was
    /// none.
    pub fn restore(&self, image: &Image) -> Result<bool> {
        let (from, to) = (
            self.aside_path(&image.id, image.format),
            self.path(&image.id, image.format),
        );
        rename_if_present(&from, &to)
    }

    /// Removes the set-aside file and the thumbnail (the delete committed).
    pub fn remove_set_aside(&self, image: &Image) -> Result<()> {
        for path in [
            self.aside_path(&image.id, image.format),
            self.thumbnail_path(&image.id),
        ] {
            match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_error(&path, "remove", e));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Gives `target` every image file of this directory it lacks (hard links where the file
    /// system allows, copies elsewhere); returns how many. Thumbnails and files set aside are
    /// not images and stay behind.
    pub fn copy_into(&self, target: &ImageDir) -> Result<u64> {
        let mut copied = 0;
        let Ok(folders) = fs::read_dir(&self.root) else {
            return Ok(0);
        };
        for folder in folders {
            let folder = folder.map_err(|e| io_error(&self.root, "read", e))?.path();
            if !folder.is_dir() || folder.file_name().is_some_and(|n| n == "thumbs") {
                continue;
            }
            for entry in fs::read_dir(&folder).map_err(|e| io_error(&folder, "read", e))? {
                let file = entry.map_err(|e| io_error(&folder, "read", e))?.path();
                let Some((id, format)) = image_file_name(&file) else {
                    continue;
                };
                let destination = target.path(&id, format);
                if destination.exists() {
                    continue;
                }
                let parent = destination.parent().expect("an image path has a folder");
                fs::create_dir_all(parent).map_err(|e| io_error(parent, "create", e))?;
                if fs::hard_link(&file, &destination).is_err() {
                    let bytes = fs::read(&file).map_err(|e| io_error(&file, "read", e))?;
                    write_atomically(&destination, &bytes)?;
                }
                copied += 1;
            }
        }
        Ok(copied)
    }

    /// The image a path inside this directory names, for requests that may only use stored
    /// images: refused when the path (after following links) is outside the directory or is
    /// not an image file's name.
    pub fn managed_image(&self, path: &Path) -> Result<ImageId> {
        let outside = || {
            Error::invalid(
                "image_ref",
                format!(
                    "'{}' is not an image in cairn's image store; give an image id, or send the image inline",
                    path.display()
                ),
            )
        };
        let root = fs::canonicalize(&self.root).map_err(|_| outside())?;
        let candidate = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };
        let resolved = fs::canonicalize(&candidate).map_err(|_| outside())?;
        if !resolved.starts_with(&root) || resolved.starts_with(root.join("thumbs")) {
            return Err(outside());
        }
        let stem = resolved
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split_once('.'))
            .map(|(stem, _)| stem)
            .ok_or_else(outside)?;
        ImageId::parse(stem).map_err(|_| outside())
    }
}

/// The id and format a stored image's file name (`<id>.<extension>`) spells, if it is one.
fn image_file_name(path: &Path) -> Option<(ImageId, ImageFormat)> {
    let name = path.file_name()?.to_str()?;
    let (stem, extension) = name.split_once('.')?;
    let format = ImageFormat::ALL
        .into_iter()
        .find(|f| f.extension() == extension)?;
    Some((ImageId::parse(stem).ok()?, format))
}

fn rename_if_present(from: &Path, to: &Path) -> Result<bool> {
    match fs::rename(from, to) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(from, "move", e)),
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().expect("an image path has a folder");
    fs::create_dir_all(dir).map_err(|e| io_error(dir, "create", e))?;
    let mut temporary = tempfile_in(dir)?;
    temporary
        .1
        .write_all(bytes)
        .and_then(|()| temporary.1.sync_all())
        .map_err(|e| io_error(&temporary.0, "write", e))?;
    fs::rename(&temporary.0, path).map_err(|e| io_error(path, "write", e))
}

/// A new file in `dir` with a name no other writer uses.
fn tempfile_in(dir: &Path) -> Result<(PathBuf, fs::File)> {
    let name = format!(
        ".tmp-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    );
    let path = dir.join(name);
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| io_error(&path, "create", e))?;
    Ok((path, file))
}

fn io_error(path: &Path, action: &str, error: std::io::Error) -> Error {
    Error::Storage {
        message: format!("cannot {action} image file {}: {error}", path.display()),
        source: Some(Box::new(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(bytes: &[u8]) -> Image {
        Image {
            id: ImageId::of(bytes),
            format: ImageFormat::Png,
            width: 1,
            height: 1,
            bytes: bytes.len() as u64,
            created_at: jiff::Timestamp::UNIX_EPOCH,
            text: None,
        }
    }

    #[test]
    fn a_delete_sets_the_file_aside_and_a_rollback_or_the_next_read_brings_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let images = ImageDir::new(dir.path().join("images"));
        let one = image(b"one");
        images.put(&one, b"one").unwrap();
        let path = images.path(&one.id, one.format);
        assert!(path.starts_with(dir.path().join("images").join(&one.id.as_str()[..2])));
        assert!(images.set_aside(&one).unwrap());
        assert!(!path.exists());
        // A crash here: the record is still there, and reading moves the file back.
        assert_eq!(images.read(&one).unwrap(), b"one");
        assert!(images.set_aside(&one).unwrap());
        images.remove_set_aside(&one).unwrap();
        assert!(images.read(&one).is_err());
        assert!(!images.restore(&one).unwrap());
    }

    #[test]
    fn copies_carry_every_image_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let store = ImageDir::beside(&dir.path().join("cairn.db"));
        assert_eq!(store.root(), dir.path().join("cairn.db-images"));
        let (one, two) = (image(b"one"), image(b"two"));
        store.put(&one, b"one").unwrap();
        store.put(&two, b"two").unwrap();
        let thumbnail = store.thumbnail_path(&one.id);
        std::fs::create_dir_all(thumbnail.parent().unwrap()).unwrap();
        std::fs::write(&thumbnail, b"small").unwrap();
        assert!(
            store.set_aside(&two).unwrap(),
            "a file aside is not an image"
        );
        let backup = ImageDir::beside(&dir.path().join("copy.db"));
        assert_eq!(store.copy_into(&backup).unwrap(), 1);
        assert_eq!(backup.read(&one).unwrap(), b"one");
        assert!(!backup.path(&two.id, two.format).exists());
        assert!(
            !backup.thumbnail_path(&one.id).exists(),
            "thumbnails are made again"
        );
        // What the target has already is left alone.
        assert_eq!(store.copy_into(&backup).unwrap(), 0);
    }

    #[test]
    fn only_image_files_inside_the_directory_are_managed() {
        let dir = tempfile::tempdir().unwrap();
        let images = ImageDir::new(dir.path().join("images"));
        let one = image(b"one");
        images.put(&one, b"one").unwrap();
        let inside = images.path(&one.id, one.format);
        assert_eq!(images.managed_image(&inside).unwrap(), one.id);
        let relative = inside.strip_prefix(images.root()).unwrap();
        assert_eq!(images.managed_image(relative).unwrap(), one.id);
        let outside = dir.path().join("secret.png");
        std::fs::write(&outside, b"x").unwrap();
        let escapes = [
            outside.clone(),
            images.root().join("..").join("secret.png"),
            PathBuf::from("../secret.png"),
            PathBuf::from("/etc/passwd"),
        ];
        for path in escapes {
            let err = images.managed_image(&path).unwrap_err();
            assert_eq!(err.field(), Some("image_ref"), "{}", path.display());
        }
        #[cfg(unix)]
        {
            let link = images.root().join(format!("{}.png", ImageId::of(b"two")));
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            assert!(
                images.managed_image(&link).is_err(),
                "a link out is refused"
            );
        }
    }
}
