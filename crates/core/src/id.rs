//! Memory identity: a stable, globally unique id and the short handle people type.
//!
//! The id is a random (v4) UUID, so it can be minted on any machine without coordination and
//! never changes; markdown files, sync and other stores refer to it. Because it is random, its
//! first characters are evenly spread, which makes a short prefix — the *handle* — unambiguous in
//! practice, as with git commit hashes. The handle shown is the first [`HANDLE_LEN`] hex digits;
//! any prefix of at least [`MIN_PREFIX_LEN`] digits is accepted wherever an id is, and is resolved
//! by the store (an ambiguous prefix is an error listing the candidates).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

use crate::error::Error;

/// Hex digits in the handle shown next to every memory.
pub const HANDLE_LEN: usize = 8;
/// The shortest prefix accepted in place of an id.
pub const MIN_PREFIX_LEN: usize = 4;

/// The stable, globally unique identity of one memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoryId(Uuid);

impl MemoryId {
    /// Mints a new random id.
    pub fn generate() -> Self {
        MemoryId(Uuid::new_v4())
    }

    /// Wraps an existing UUID (imports, tests).
    pub fn from_uuid(uuid: Uuid) -> Self {
        MemoryId(uuid)
    }

    /// The short handle shown to people, e.g. `3f9a0c1b`.
    pub fn handle(&self) -> String {
        let mut simple = self.0.simple().to_string();
        simple.truncate(HANDLE_LEN);
        simple
    }

    /// The canonical hyphenated lowercase form, as stored.
    pub fn as_hyphenated(&self) -> String {
        self.0.hyphenated().to_string()
    }
}

impl fmt::Display for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemoryId({})", self.0.hyphenated())
    }
}

/// `text` without the kind `memory_add` names a memory's id with (`UNIT:…`, `RAW:…`,
/// `MEMORY:…`): every reader of an id takes an id as `memory_add` handed it back.
fn without_kind(text: &str) -> &str {
    let text = text.trim();
    ["UNIT:", "RAW:", "MEMORY:"]
        .iter()
        .find_map(|kind| text.strip_prefix(kind))
        .unwrap_or(text)
}

impl FromStr for MemoryId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Uuid::parse_str(without_kind(s))
            .map(MemoryId)
            .map_err(|_| Error::invalid("id", format!("'{s}' is not a memory id (a UUID)")))
    }
}

impl Serialize for MemoryId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MemoryId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The identity of one relation between two memories: the *judgment id* a write hands back
/// with each candidate, which an agent or person names to settle it. A random (v4) UUID, shown
/// by its first [`HANDLE_LEN`] hex digits like a memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelationId(Uuid);

impl RelationId {
    /// Mints a new random id.
    pub fn generate() -> Self {
        RelationId(Uuid::new_v4())
    }

    /// The short handle shown to people.
    pub fn handle(&self) -> String {
        let mut simple = self.0.simple().to_string();
        simple.truncate(HANDLE_LEN);
        simple
    }

    /// Reads a full judgment id, or `None` when `text` is a prefix (or nothing like an id).
    pub fn parse_full(text: &str) -> Option<Self> {
        Uuid::parse_str(text.trim()).ok().map(RelationId)
    }
}

impl fmt::Display for RelationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for RelationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RelationId({})", self.0.hyphenated())
    }
}

impl FromStr for RelationId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        RelationId::parse_full(s).ok_or_else(|| {
            Error::invalid(
                "judgment_id",
                format!("'{s}' is not a judgment id (a UUID)"),
            )
        })
    }
}

impl Serialize for RelationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RelationId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a person typed to name a memory: a full id or a hex prefix of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdRef {
    Full(MemoryId),
    /// A prefix in the stored (hyphenated, lowercase) form, e.g. `3f9a0c1b-2`.
    Prefix(String),
}

impl IdRef {
    /// Parses a full id or a prefix of at least [`MIN_PREFIX_LEN`] hex digits (dashes optional).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let trimmed = without_kind(text);
        if let Ok(id) = Uuid::parse_str(trimmed) {
            return Ok(IdRef::Full(MemoryId(id)));
        }
        let hex: String = trimmed
            .chars()
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if hex.len() < MIN_PREFIX_LEN
            || hex.len() >= 32
            || !hex.chars().all(|c| c.is_ascii_hexdigit())
        {
            return Err(Error::invalid(
                "id",
                format!(
                    "'{text}' is neither a memory id nor a handle (at least {MIN_PREFIX_LEN} hex digits, e.g. 3f9a0c1b)"
                ),
            ));
        }
        Ok(IdRef::Prefix(hyphenate_prefix(&hex)))
    }
}

/// The text that parses back to this reference: the full id, or the hyphenated prefix.
impl fmt::Display for IdRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdRef::Full(id) => id.fmt(f),
            IdRef::Prefix(prefix) => f.write_str(prefix),
        }
    }
}

/// What a person typed to name a judgment: a full id or a hex prefix of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationRef {
    Full(RelationId),
    /// A prefix in the stored (hyphenated, lowercase) form.
    Prefix(String),
}

impl RelationRef {
    /// Parses a full judgment id or a prefix of at least [`MIN_PREFIX_LEN`] hex digits.
    pub fn parse(text: &str) -> Result<Self, Error> {
        match IdRef::parse(text) {
            Ok(IdRef::Full(id)) => Ok(RelationRef::Full(RelationId(id.0))),
            Ok(IdRef::Prefix(prefix)) => Ok(RelationRef::Prefix(prefix)),
            Err(_) => Err(Error::invalid(
                "judgment_id",
                format!(
                    "'{text}' is neither a judgment id nor a handle of one (at least \
                     {MIN_PREFIX_LEN} hex digits)"
                ),
            )),
        }
    }
}

/// Inserts the UUID dashes (after hex digits 8, 12, 16 and 20) into a hex prefix.
pub(crate) fn hyphenate_prefix(hex: &str) -> String {
    let mut out = String::with_capacity(hex.len() + 4);
    for (index, c) in hex.chars().enumerate() {
        if matches!(index, 8 | 12 | 16 | 20) {
            out.push('-');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_is_the_first_eight_hex_digits() {
        let id: MemoryId = "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b".parse().unwrap();
        assert_eq!(id.handle(), "3f9a0c1b");
        assert_eq!(id.to_string(), "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b");
    }

    #[test]
    fn prefixes_are_hyphenated_like_stored_ids() {
        assert_eq!(IdRef::parse("3F9A").unwrap(), IdRef::Prefix("3f9a".into()));
        assert_eq!(
            IdRef::parse("3f9a0c1b2d").unwrap(),
            IdRef::Prefix("3f9a0c1b-2d".into())
        );
        assert_eq!(
            IdRef::parse("3f9a0c1b-2d").unwrap(),
            IdRef::Prefix("3f9a0c1b-2d".into())
        );
    }

    #[test]
    fn short_or_non_hex_references_are_refused_naming_the_field() {
        for bad in ["3f9", "", "zzzzzzzz", "hello-world"] {
            let err = IdRef::parse(bad).unwrap_err();
            assert_eq!(err.field(), Some("id"), "{bad}");
        }
    }

    #[test]
    fn full_ids_parse_with_or_without_dashes() {
        let a = IdRef::parse("3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b").unwrap();
        let b = IdRef::parse("3f9a0c1b2d4e4f608a7b9c0d1e2f3a4b").unwrap();
        assert_eq!(a, b);
        assert!(matches!(a, IdRef::Full(_)));
    }

    #[test]
    fn ids_as_memory_add_names_them_parse_as_the_bare_id() {
        let bare = "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b";
        for named in [
            format!("UNIT:{bare}"),
            format!("RAW:{bare}"),
            format!(" MEMORY:{bare} "),
        ] {
            assert_eq!(IdRef::parse(&named).unwrap(), IdRef::parse(bare).unwrap());
            assert_eq!(named.parse::<MemoryId>().unwrap().to_string(), bare);
        }
        assert_eq!(
            IdRef::parse("UNIT:3f9a0c1b").unwrap(),
            IdRef::parse("3f9a0c1b").unwrap()
        );
        assert!(IdRef::parse("NOTE:3f9a0c1b").is_err());
    }
}
