//! Reading what comes from outside under a limit.
//!
//! Every reader of outside input — standard input, `--file`, imports, hook payloads,
//! transcripts, markdown files — stops at its limit and says which limit it was (a
//! [`Error::TooLarge`] naming the field and the setting), so `/dev/zero` or an endless pipe
//! costs at most the limit, never all memory. Text that is not UTF-8 is refused as
//! [`Error::InvalidUtf8`] naming where. A reader that must not block (a hook, which an agent
//! waits on) opens files with [`open_regular`], which refuses a FIFO, a device or a directory
//! without waiting for a writer.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::error::{Error, Result};

/// The most cairn reads for one text given as a file or on standard input (a memory's content,
/// a slot's text): the service's own limits are far below, and say so themselves.
pub const MAX_TEXT_INPUT_BYTES: u64 = 1 << 20;

/// The most one line of an import may hold (a memory record with its whole history).
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// The byte order mark some editors put at the start of UTF-8 files.
pub const BOM: &str = "\u{FEFF}";

/// What is being read, for messages: the field (`content`, `body`, `line 3`) and the limit's
/// name (`limits.max_content_bytes`, or a description of a fixed limit).
#[derive(Debug, Clone, Copy)]
pub struct Bounded<'a> {
    pub field: &'a str,
    pub limit: u64,
    pub setting: &'a str,
}

impl Bounded<'_> {
    fn too_large(&self, source: &str) -> Error {
        Error::TooLarge {
            field: self.field.into(),
            message: format!(
                "{source} is over the limit of {} bytes ({}); nothing was read from it",
                self.limit, self.setting
            ),
        }
    }

    /// At most the limit's bytes from `reader`; an error naming `source` when there are more.
    pub fn read(&self, reader: &mut dyn Read, source: &str) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        reader
            .take(self.limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| read_error(source, e))?;
        if bytes.len() as u64 > self.limit {
            return Err(self.too_large(source));
        }
        Ok(bytes)
    }

    /// [`Bounded::read`] as UTF-8 text, a leading byte order mark dropped.
    pub fn read_text(&self, reader: &mut dyn Read, source: &str) -> Result<String> {
        let bytes = self.read(reader, source)?;
        utf8(bytes, self.field, source)
    }

    /// The next line of `reader` into `line` (its end included), at most the limit's bytes:
    /// `Ok(false)` at the end of the input. A longer line is an error, and nothing more is
    /// read from it.
    pub fn read_line(
        &self,
        reader: &mut dyn BufRead,
        line: &mut Vec<u8>,
        source: &str,
    ) -> Result<bool> {
        line.clear();
        let read = reader
            .take(self.limit.saturating_add(1))
            .read_until(b'\n', line)
            .map_err(|e| read_error(source, e))?;
        if line.len() as u64 > self.limit && !line.ends_with(b"\n") {
            return Err(self.too_large(source));
        }
        Ok(read > 0)
    }
}

/// `bytes` as text, or an error naming the field and the first bad byte's offset. A leading
/// byte order mark is dropped.
pub fn utf8(bytes: Vec<u8>, field: &str, source: &str) -> Result<String> {
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with(BOM) {
                text.drain(..BOM.len());
            }
            Ok(text)
        }
        Err(error) => Err(Error::InvalidUtf8 {
            field: field.into(),
            message: format!(
                "{source} is not UTF-8 text (the byte at offset {} is not); nothing was read \
                 from it",
                error.utf8_error().valid_up_to()
            ),
        }),
    }
}

/// A failed read, kept as it is: the caller knows the source, and a server looks through the
/// error for its cause (a body cut off by a limit or a timeout).
fn read_error(_source: &str, error: std::io::Error) -> Error {
    Error::Io(error)
}

/// Opens `path` for reading without ever waiting: a FIFO (which would block until a writer
/// came), a device such as `/dev/zero` or a directory is refused, naming the path.
pub fn open_regular(path: &Path) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO without a writer blocks unless non-blocking; reads of a regular file
        // are unaffected by the flag.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("cannot open {}: {e}", path.display()),
        ))
    })?;
    let kind = file.metadata().map_err(Error::Io)?.file_type();
    if !kind.is_file() {
        return Err(Error::invalid(
            "path",
            format!(
                "{} is not a regular file (a FIFO, a device or a directory); cairn reads only \
                 regular files there",
                path.display()
            ),
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN: Bounded<'static> = Bounded {
        field: "content",
        limit: 10,
        setting: "a test limit",
    };

    #[test]
    fn a_reader_stops_at_its_limit_and_names_it() {
        assert_eq!(
            TEN.read(&mut &b"0123456789"[..], "the file").unwrap().len(),
            10
        );
        let mut endless = std::io::repeat(0);
        let error = TEN.read(&mut endless, "/dev/zero").unwrap_err();
        assert!(matches!(error, Error::TooLarge { .. }), "{error}");
        let message = error.to_string();
        assert!(
            message.contains("content") && message.contains("/dev/zero") && message.contains("10"),
            "{message}"
        );
    }

    #[test]
    fn text_must_be_utf8_and_loses_a_byte_order_mark() {
        assert_eq!(
            TEN.read_text(&mut "\u{FEFF}abc".as_bytes(), "x").unwrap(),
            "abc"
        );
        let error = TEN.read_text(&mut &b"ab\xffcd"[..], "x").unwrap_err();
        assert!(matches!(error, Error::InvalidUtf8 { .. }), "{error}");
        assert!(error.to_string().contains("offset 2"), "{error}");
    }

    #[test]
    fn lines_are_read_whole_up_to_the_limit() {
        let mut input = std::io::Cursor::new(b"short\n0123456789\nlast".to_vec());
        let mut line = Vec::new();
        assert!(TEN.read_line(&mut input, &mut line, "x").unwrap());
        assert_eq!(line, b"short\n");
        // Ten bytes and its end: the end does not count.
        assert!(TEN.read_line(&mut input, &mut line, "x").unwrap());
        assert_eq!(line, b"0123456789\n");
        let mut long = std::io::Cursor::new(b"0123456789a\n".to_vec());
        assert!(TEN.read_line(&mut long, &mut line, "x").is_err());
        let mut endless = std::io::BufReader::new(std::io::repeat(b'a'));
        assert!(TEN.read_line(&mut endless, &mut line, "x").is_err());
        let mut input = std::io::Cursor::new(b"0123456789".to_vec());
        assert!(TEN.read_line(&mut input, &mut line, "x").unwrap());
        assert!(!TEN.read_line(&mut input, &mut line, "x").unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("transcript.jsonl");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        // No writer ever opens it: a blocking open would hang this test.
        let error = open_regular(&fifo).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(open_regular(Path::new("/dev/zero")).is_err());
        assert!(open_regular(dir.path()).is_err());
        let file = dir.path().join("plain");
        std::fs::write(&file, "x").unwrap();
        assert!(open_regular(&file).is_ok());
    }
}
