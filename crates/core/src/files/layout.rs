//! The files on disk: which file a unit goes to, reading a workspace's files, writing one file
//! atomically, and the lock that keeps writers of one directory from interleaving.
//!
//! Every change to a directory's files happens under an exclusive lock on `<dir>/.lock` (an OS
//! file lock, released when the holder exits, even by a crash), and every file is replaced
//! whole by a rename, so a reader never sees half a file and two writers never lose each
//! other's blocks.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::error::{Error, Result};

/// The lock file inside a workspace's directory (ignored by git through `.gitignore`).
pub const LOCK_FILE: &str = ".lock";
/// Files larger than this are not read as units (they are reported, and left alone).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Of a file that cannot be read as units (too large, not UTF-8), this much of its beginning
/// is still indexed as RAW text (decoded leniently).
pub const RAW_PREFIX_BYTES: usize = 1024 * 1024;

/// `.gitattributes` written into a new workspace's directory: daily files are merged by
/// keeping both sides' lines, so two teammates' new units both survive a merge.
const GIT_ATTRIBUTES: &str = "*.md merge=union\n";
const GIT_IGNORE: &str = ".lock\n*.tmp\n";

/// The exclusive lock on a directory's files; released when dropped.
pub struct DirLock {
    _file: File,
}

/// Takes the directory's lock, creating the directory if needed; waits for another holder.
pub fn lock(dir: &Path) -> Result<DirLock> {
    fs::create_dir_all(dir).map_err(|e| io_error("create the memory directory", dir, e))?;
    let path = dir.join(LOCK_FILE);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error("open the lock file", &path, e))?;
    file.lock()
        .map_err(|e| io_error("lock the memory directory", dir, e))?;
    Ok(DirLock { _file: file })
}

/// Writes `.gitattributes` and `.gitignore` into a new workspace's directory, unless present.
pub fn prepare(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(|e| io_error("create the memory directory", dir, e))?;
    for (name, text) in [
        (".gitattributes", GIT_ATTRIBUTES),
        (".gitignore", GIT_IGNORE),
    ] {
        let path = dir.join(name);
        if !path.exists() {
            write_atomically(&path, text)?;
        }
    }
    Ok(())
}

/// The file a new unit goes to: the day it was created, in the user's time zone.
pub fn day_file(created: Timestamp, zone: &TimeZone) -> String {
    format!("{}.md", created.to_zoned(zone.clone()).date())
}

/// One markdown file of a directory as read.
pub struct FileText {
    /// The name inside the directory.
    pub name: String,
    /// The text, or why it could not be read as text.
    pub text: std::result::Result<String, String>,
    /// When it could not: its first [`RAW_PREFIX_BYTES`], decoded leniently (invalid bytes
    /// become U+FFFD), to index as RAW text.
    pub prefix: Option<String>,
}

/// Every `*.md` file under `dir` (hidden directories skipped), by path relative to `dir`
/// with `/` between directories.
pub fn read_files(dir: &Path) -> Result<Vec<FileText>> {
    Ok(markdown_files(dir)?
        .into_iter()
        .map(|(name, path, _)| {
            let text = read_text(&path);
            let prefix = text.is_err().then(|| read_prefix(&path)).flatten();
            FileText { name, text, prefix }
        })
        .collect())
}

/// A stamp of the markdown files under `dir`: the XOR of each file's [`file_stamp`] (its name,
/// size and modification time, hashed). Comparing it with the last sync's costs one directory
/// walk; a writer that changes one file updates it by that file's stamps before and after.
pub fn stamp(dir: &Path) -> Result<i64> {
    Ok(listing(dir)?.stamp)
}

/// What one directory walk tells of the markdown files under `dir`.
pub struct Listing {
    /// Their [`stamp`].
    pub stamp: i64,
    /// When the most recently modified of them was modified.
    pub last_modified: Option<SystemTime>,
}

impl Listing {
    /// Whether a file was modified less than `settle` ago: it may still be being written. (A
    /// time in the future, from another machine's clock, counts as settled: waiting would
    /// never end.)
    pub fn modified_within(&self, settle: Duration) -> bool {
        self.last_modified
            .is_some_and(|at| at.elapsed().is_ok_and(|age| age < settle))
    }
}

/// The [`Listing`] of the markdown files under `dir`.
pub fn listing(dir: &Path) -> Result<Listing> {
    let files = markdown_files(dir)?;
    Ok(Listing {
        stamp: files
            .iter()
            .fold(0, |stamp, (name, _, meta)| stamp ^ stamp_of(name, meta)),
        last_modified: files.iter().filter_map(|(_, _, m)| m.modified().ok()).max(),
    })
}

/// The stamp of one file under `dir` (`name` relative to it); 0 when it does not exist.
pub fn file_stamp(dir: &Path, name: &str) -> i64 {
    fs::metadata(dir.join(name)).map_or(0, |meta| stamp_of(name, &meta))
}

fn stamp_of(name: &str, meta: &fs::Metadata) -> i64 {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let listing = format!("{name}\0{}\0{modified}", meta.len());
    // FNV-1a: stable, and enough to tell one state from another.
    let hash = listing
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    hash as i64
}

/// The markdown files under `dir`, sorted by relative name, with their paths and metadata.
fn markdown_files(dir: &Path) -> Result<Vec<(String, PathBuf, fs::Metadata)>> {
    let mut files = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = pending.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error("list", &folder, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| io_error("list", &folder, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            let relative = format!("{prefix}{name}");
            if meta.is_dir() && !name.starts_with('.') {
                pending.push((entry.path(), format!("{relative}/")));
            } else if meta.is_file() && name.ends_with(".md") {
                files.push((relative, entry.path(), meta));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// A file's text; `Ok("")` when it does not exist.
pub fn read_text(path: &Path) -> std::result::Result<String, String> {
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e.to_string()),
        Ok(meta) if meta.len() > MAX_FILE_BYTES => {
            return Err(format!(
                "{} bytes, over the {MAX_FILE_BYTES} bytes a memory file may hold",
                meta.len()
            ));
        }
        Ok(_) => {}
    }
    let bytes = fs::read(path).map_err(|e| e.to_string())?;
    let mut text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))?;
    // A byte order mark some editors write first is not text (and is not written back).
    if text.starts_with(crate::input::BOM) {
        text.drain(..crate::input::BOM.len());
    }
    Ok(text)
}

/// The first [`RAW_PREFIX_BYTES`] of a file, decoded leniently (invalid bytes and NUL, which no
/// store keeps in text, become U+FFFD); `None` if it cannot be read.
fn read_prefix(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    File::open(path)
        .ok()?
        .take(RAW_PREFIX_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).replace('\0', "\u{FFFD}"))
}

/// Replaces `path` with `text` through a temporary file and a rename.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let staged = PathBuf::from(format!("{}.tmp", path.display()));
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&staged)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&staged, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&staged);
        io_error("write", path, e)
    })
}

fn io_error(action: &str, path: &Path, e: std::io::Error) -> Error {
    Error::Storage {
        message: format!("cannot {action} {}: {e}", path.display()),
        source: None,
    }
}
