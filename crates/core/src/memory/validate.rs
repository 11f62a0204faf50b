//! Input rules shared by every write path (store, update, import).
//!
//! Each function takes raw input as an adapter received it and returns the value to store, or an
//! [`Error::Invalid`] naming the field and the limit. Text that is stored is redacted here, so
//! privacy holds wherever a write comes from.

use jiff::Timestamp;

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::memory::TopicKey;
use crate::redact::redact;
use crate::tag::Tag;

/// Longest `entered_by` and `session_id`, in characters.
pub const MAX_LABEL_CHARS: usize = 200;

/// Trimmed, non-empty, within the byte limit, redacted.
pub fn content(raw: &str, limits: &Limits) -> Result<String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(Error::invalid(
            "content",
            "is empty; say what should be remembered",
        ));
    }
    if text.len() > limits.max_content_bytes {
        return Err(Error::TooLarge {
            field: "content".into(),
            message: format!(
                "is {} bytes; the limit is {} bytes (limits.max_content_bytes). Split it into \
                 smaller memories, one fact each",
                text.len(),
                limits.max_content_bytes
            ),
        });
    }
    refuse_nul("content", text)?;
    Ok(redact(text).into_owned())
}

/// A NUL character is never meaningful in text a person or agent writes and no store keeps it
/// (PostgreSQL refuses it), so it is refused by name wherever it comes from (memories, slots).
pub fn refuse_nul(field: &str, text: &str) -> Result<()> {
    match text.find('\0') {
        Some(at) => Err(Error::invalid(
            field,
            format!("holds a NUL character (U+0000) at byte {at}; remove it"),
        )),
        None => Ok(()),
    }
}

/// Trimmed, empty means none, within the character limit, redacted.
pub fn title(raw: Option<&str>, limits: &Limits) -> Result<Option<String>> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if chars > limits.max_title_chars {
        return Err(Error::invalid(
            "title",
            format!(
                "is {chars} characters; the limit is {} (limits.max_title_chars)",
                limits.max_title_chars
            ),
        ));
    }
    refuse_nul("title", text)?;
    Ok(Some(redact(text).into_owned()))
}

/// Normalised, sorted, unique, at most `max_tags`.
pub fn tags<S: AsRef<str>>(raw: &[S], limits: &Limits) -> Result<Vec<Tag>> {
    let tags = Tag::normalise_all(
        raw.iter()
            .map(AsRef::as_ref)
            .filter(|t| !t.trim().is_empty()),
    )?;
    if tags.len() > limits.max_tags {
        return Err(Error::invalid(
            "tags",
            format!(
                "{} tags given; the limit is {} (limits.max_tags)",
                tags.len(),
                limits.max_tags
            ),
        ));
    }
    Ok(tags)
}

/// A short optional label such as `entered_by` or `session_id`: trimmed, empty means none.
pub fn label(field: &str, raw: Option<&str>) -> Result<Option<String>> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_LABEL_CHARS {
        return Err(Error::invalid(
            field,
            format!("is longer than {MAX_LABEL_CHARS} characters"),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(Error::invalid(field, "may not hold control characters"));
    }
    Ok(Some(text.to_string()))
}

pub fn topic_key(raw: Option<&str>) -> Result<Option<TopicKey>> {
    raw.filter(|t| !t.trim().is_empty())
        .map(TopicKey::new)
        .transpose()
}

/// An expiry set by a write must lie in the future: an already-expired memory would be invisible.
pub fn expiry(at: Option<Timestamp>, now: Timestamp) -> Result<Option<Timestamp>> {
    match at {
        Some(at) if at <= now => Err(Error::invalid(
            "expires",
            format!(
                "{at} is not in the future; a memory that has already expired would be invisible"
            ),
        )),
        _ => Ok(at),
    }
}

/// Page sizes accepted by list and search.
pub fn page(limit: usize, offset: usize) -> Result<()> {
    const MAX_LIMIT: usize = 1_000;
    const MAX_OFFSET: usize = 1_000_000;
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::invalid(
            "limit",
            format!("{limit} is out of range 1..={MAX_LIMIT}"),
        ));
    }
    if offset > MAX_OFFSET {
        return Err(Error::invalid(
            "offset",
            format!("{offset} is over {MAX_OFFSET}"),
        ));
    }
    Ok(())
}
