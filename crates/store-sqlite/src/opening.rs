//! What a database file must be before cairn opens it, and how a new one comes to be.
//!
//! - A new store is made whole beside its place (schema, WAL mode) and linked in under its
//!   name, so a `cairn.db` is never empty: two processes creating it at once both end up
//!   with the one that got there first.
//! - So an empty file at that name is not a store in the making but damage (a truncated copy,
//!   a full disk while copying): it is refused, naming the path, and so is any file that does
//!   not start like a SQLite database — nothing is ever written into either.
//! - A database in a directory cairn may not write (or a read-only file) is opened for
//!   reading: every read works, and a write says the database is read-only and why, instead
//!   of SQLite's "attempt to write a readonly database" on the first read.
//! - Every error names the file.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::error::SqliteError;

/// The first 16 bytes of every SQLite database.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// A connection to an existing database, and whether it may be written.
pub struct Opened {
    pub conn: Connection,
    /// Why the database cannot be written, when it cannot.
    pub read_only: Option<String>,
}

/// Opens the database at `path`, creating it whole if there is none.
pub fn open(path: &Path) -> Result<Opened, SqliteError> {
    let not_a_database = |why: String| SqliteError::NotADatabase {
        path: path.to_path_buf(),
        why,
    };
    match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => create(path)?,
        Err(error) => return Err(open_error(path, error)),
        Ok(meta) if !meta.is_file() => {
            return Err(not_a_database(
                "it is a directory or a special file, not a file".into(),
            ));
        }
        // A store in WAL mode may keep its first pages in the log until a checkpoint.
        Ok(meta) if meta.len() == 0 && log_len(path) == 0 => {
            return Err(not_a_database(
                "the file is empty (0 bytes), and a cairn database never is; it may be a copy \
                 that was cut off"
                    .into(),
            ));
        }
        Ok(meta) if meta.len() > 0 => {
            let start = read_start(path).map_err(|e| open_error(path, e))?;
            if start.as_slice() != HEADER {
                return Err(not_a_database(
                    "it does not start like a SQLite database".into(),
                ));
            }
        }
        Ok(_) => {}
    }
    let read_only = unwritable(path);
    let conn = match &read_only {
        None => Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ),
        // Nothing can be written there, not even the shared-memory file WAL readers use:
        // read the file as it is.
        Some(_) => Connection::open_with_flags(
            format!("file:{}?mode=ro&immutable=1", uri_path(path)),
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ),
    }
    .map_err(|e| open_error(path, e))?;
    Ok(Opened { conn, read_only })
}

/// Makes a new database beside `path` and links it in; if another process got there first,
/// its database is kept and this one dropped.
fn create(path: &Path) -> Result<(), SqliteError> {
    let staged = staged_name(path);
    let made = (|| -> Result<(), SqliteError> {
        let mut conn = Connection::open(&staged).map_err(|e| open_error(&staged, e))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        crate::migrations::migrate(&mut conn)?;
        conn.close().map_err(|(_, e)| SqliteError::from(e))?;
        match std::fs::hard_link(&staged, path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links: a rename, which the moment between the look
            // and the move could let replace another process's new store (both are empty).
            Err(_) if !path.exists() => {
                std::fs::rename(&staged, path).map_err(|e| open_error(path, e))
            }
            Err(_) => Ok(()),
        }
    })();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = staged.clone().into_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
    made
}

fn staged_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cairn.db".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()))
}

fn read_start(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut start = Vec::with_capacity(16);
    std::fs::File::open(path)?
        .take(16)
        .read_to_end(&mut start)?;
    Ok(start)
}

fn log_len(path: &Path) -> u64 {
    let mut log = path.as_os_str().to_owned();
    log.push("-wal");
    std::fs::metadata(log).map_or(0, |m| m.len())
}

/// Why nothing can be written at `path` (the file, or the directory that must take the log
/// beside it), or `None` when both can be.
pub fn unwritable(path: &Path) -> Option<String> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !may_write(path) {
        return Some(format!("the file {} is read-only", path.display()));
    }
    if !may_write(directory) {
        return Some(format!(
            "the directory {} cannot be written (the database's log lives beside it)",
            directory.display()
        ));
    }
    None
}

#[cfg(unix)]
fn may_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: `name` is a valid NUL-terminated string for the call's duration.
    unsafe { libc::access(name.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(unix))]
fn may_write(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

/// `path` for a `file:` URI: characters with a meaning there escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn open_error(path: &Path, error: impl std::error::Error + Send + Sync + 'static) -> SqliteError {
    SqliteError::Open {
        path: path.to_path_buf(),
        source: Box::new(error),
    }
}

/// Whether the disk holding `path` is (nearly) full: less free space than a few pages.
pub fn disk_full(path: &Path) -> bool {
    free_bytes(path).is_some_and(|free| free < 256 * 1024)
}

/// The space left for this user on the disk holding `path`; `None` when it cannot be read.
#[cfg(unix)]
pub fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path);
    let name = std::ffi::CString::new(directory.as_os_str().as_bytes()).ok()?;
    // SAFETY: `stat` is written by the call; `name` is a valid NUL-terminated string.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(name.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    // The field types differ between platforms (u32 or u64).
    #[allow(clippy::unnecessary_cast)]
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

#[cfg(not(unix))]
pub fn free_bytes(_path: &Path) -> Option<u64> {
    None
}
