//! Tags: short labels normalised so that `Docker`, ` docker ` and `DOCKER` are one tag.
//!
//! Normalisation lowercases, trims, and turns inner whitespace into `-`. A tag holds no commas or
//! whitespace (commas separate tags on the command line), which also lets the store keep a
//! space-joined copy for full-text indexing without ambiguity.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A normalised tag.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Tag(String);

impl Tag {
    pub const MAX_CHARS: usize = 64;

    /// Tags as stores keep a memory's copy of them: separated by single spaces (a tag holds
    /// no space).
    pub fn join(tags: &[Tag]) -> String {
        tags.iter().map(Tag::as_str).collect::<Vec<_>>().join(" ")
    }

    /// The tags of a [`Tag::join`]ed text.
    pub fn split_joined(text: &str) -> Result<Vec<Tag>, Error> {
        text.split(' ')
            .filter(|t| !t.is_empty())
            .map(Tag::new)
            .collect()
    }

    /// Normalises and validates one tag.
    pub fn new(raw: &str) -> Result<Self, Error> {
        let normalised = raw
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("-")
            .to_lowercase();
        if normalised.is_empty() {
            return Err(Error::invalid("tags", "a tag is empty"));
        }
        if normalised.chars().count() > Self::MAX_CHARS {
            return Err(Error::invalid(
                "tags",
                format!(
                    "tag '{normalised}' is longer than {} characters",
                    Self::MAX_CHARS
                ),
            ));
        }
        if normalised.contains(',') || normalised.chars().any(char::is_control) {
            return Err(Error::invalid(
                "tags",
                format!("tag '{normalised}' may not hold commas or control characters"),
            ));
        }
        Ok(Tag(normalised))
    }

    /// Parses a comma-separated list (`"rust, Docker,ci"`), normalising, sorting and
    /// deduplicating; empty items between commas are ignored.
    pub fn parse_list(raw: &str) -> Result<Vec<Tag>, Error> {
        Self::normalise_all(raw.split(',').filter(|t| !t.trim().is_empty()))
    }

    /// Normalises many tags into a sorted, unique list.
    pub fn normalise_all<'a>(raw: impl IntoIterator<Item = &'a str>) -> Result<Vec<Tag>, Error> {
        let mut tags = raw
            .into_iter()
            .map(Tag::new)
            .collect::<Result<Vec<_>, _>>()?;
        tags.sort();
        tags.dedup();
        Ok(tags)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Tag {
    type Error = Error;
    fn try_from(value: String) -> Result<Self, Error> {
        Tag::new(&value)
    }
}

impl From<Tag> for String {
    fn from(value: Tag) -> Self {
        value.0
    }
}

impl AsRef<str> for Tag {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_case_insensitive_trimmed_and_hyphenated() {
        let tags = Tag::parse_list(" Docker ,docker, CI Pipeline,,rust").unwrap();
        let names: Vec<_> = tags.iter().map(Tag::as_str).collect();
        assert_eq!(names, ["ci-pipeline", "docker", "rust"]);
    }

    #[test]
    fn overlong_tags_are_refused_with_the_limit() {
        let err = Tag::new(&"x".repeat(65)).unwrap_err();
        assert_eq!(err.field(), Some("tags"));
        assert!(err.to_string().contains("64"), "{err}");
    }
}
