//! The memory unit: one complete piece of knowledge an agent or person chose to keep.
//!
//! A [`Memory`] is what the store holds and every read returns. It changes only through the
//! service: a write either creates one, finds an existing duplicate, or revises one in place (the
//! previous state is kept as a [`Revision`]). `deleted_at` marks a soft forget and `expires_at` an
//! expiry; the service never lets either kind be seen by ordinary reads.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::id::{MemoryId, RelationId};
use crate::image::Image;
use crate::scope::Scope;
use crate::tag::Tag;

/// What kind of knowledge a memory holds.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Preference,
    Fact,
    Decision,
    Entity,
    Bugfix,
    Discovery,
    Pattern,
    Config,
    #[default]
    Other,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::Preference,
        Category::Fact,
        Category::Decision,
        Category::Entity,
        Category::Bugfix,
        Category::Discovery,
        Category::Pattern,
        Category::Config,
        Category::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Preference => "preference",
            Category::Fact => "fact",
            Category::Decision => "decision",
            Category::Entity => "entity",
            Category::Bugfix => "bugfix",
            Category::Discovery => "discovery",
            Category::Pattern => "pattern",
            Category::Config => "config",
            Category::Other => "other",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Category {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let wanted = s.trim().to_ascii_lowercase();
        Category::ALL
            .into_iter()
            .find(|c| c.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<_> = Category::ALL.iter().map(|c| c.as_str()).collect();
                Error::invalid(
                    "category",
                    format!(
                        "unknown category '{s}'; expected one of: {}",
                        names.join(", ")
                    ),
                )
            })
    }
}

/// Which entry point wrote a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Cli,
    Mcp,
    Http,
    Hook,
    Markdown,
    Import,
    Extract,
}

impl Source {
    pub const ALL: [Source; 7] = [
        Source::Cli,
        Source::Mcp,
        Source::Http,
        Source::Hook,
        Source::Markdown,
        Source::Import,
        Source::Extract,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Cli => "cli",
            Source::Mcp => "mcp",
            Source::Http => "http",
            Source::Hook => "hook",
            Source::Markdown => "markdown",
            Source::Import => "import",
            Source::Extract => "extract",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Source {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Source::ALL
            .into_iter()
            .find(|c| c.as_str() == s.trim())
            .ok_or_else(|| Error::invalid("source", format!("unknown source '{s}'")))
    }
}

/// How much a memory matters, from 1 (trivia) to 5 (critical); 3 when unsaid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Importance(u8);

impl Importance {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 5;

    /// Validates a raw importance.
    pub fn new(value: i64) -> Result<Self, Error> {
        if (i64::from(Self::MIN)..=i64::from(Self::MAX)).contains(&value) {
            Ok(Importance(value as u8))
        } else {
            Err(Error::invalid(
                "importance",
                format!(
                    "{value} is out of range; use {} (trivia) to {} (critical)",
                    Self::MIN,
                    Self::MAX
                ),
            ))
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl Default for Importance {
    fn default() -> Self {
        Importance(3)
    }
}

impl<'de> Deserialize<'de> for Importance {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Importance::new(i64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// A stable name for a subject (e.g. `db-choice`): a write with the same topic key in the same
/// scope revises that memory instead of adding another.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TopicKey(String);

impl TopicKey {
    pub const MAX_CHARS: usize = 200;

    pub fn new(raw: &str) -> Result<Self, Error> {
        let key = raw.trim();
        if key.is_empty() {
            return Err(Error::invalid("topic_key", "is empty"));
        }
        if key.chars().count() > Self::MAX_CHARS {
            return Err(Error::invalid(
                "topic_key",
                format!("is longer than {} characters", Self::MAX_CHARS),
            ));
        }
        Ok(TopicKey(key.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for TopicKey {
    type Error = Error;
    fn try_from(value: String) -> Result<Self, Error> {
        TopicKey::new(&value)
    }
}

impl From<TopicKey> for String {
    fn from(value: TopicKey) -> Self {
        value.0
    }
}

impl fmt::Display for TopicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One stored memory, as every read returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: MemoryId,
    pub content: String,
    pub title: Option<String>,
    pub category: Category,
    /// Normalised, sorted and unique.
    pub tags: Vec<Tag>,
    /// The project name, or `null` for a global memory.
    #[serde(rename = "project")]
    pub scope: Scope,
    pub topic_key: Option<TopicKey>,
    pub entered_by: Option<String>,
    pub session_id: Option<String>,
    pub source: Source,
    pub importance: Importance,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub deleted_at: Option<Timestamp>,
}

impl Memory {
    /// A new memory with just content, written at `at`, everything else default. For callers
    /// that build stored records directly (imports, benchmarks, store tests); writes from
    /// people and agents go through the service, which validates and redacts.
    pub fn plain(
        content: impl Into<String>,
        scope: Scope,
        source: Source,
        at: Timestamp,
    ) -> Memory {
        Memory {
            id: MemoryId::generate(),
            content: content.into(),
            title: None,
            category: Category::default(),
            tags: Vec::new(),
            scope,
            topic_key: None,
            entered_by: None,
            session_id: None,
            source,
            importance: Importance::default(),
            created_at: at,
            updated_at: at,
            expires_at: None,
            deleted_at: None,
        }
    }

    /// True when ordinary reads may show this memory at `now`.
    pub fn is_visible_at(&self, now: Timestamp) -> bool {
        self.deleted_at.is_none() && !self.is_expired_at(now)
    }

    /// True when the memory's expiry has passed at `now`.
    pub fn is_expired_at(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    /// What this memory is about in one line: its title, else the opening of its content (see
    /// [`headline`]).
    pub fn headline(&self) -> &str {
        headline(self.title.as_deref(), &self.content)
    }

    /// The revisable part of this memory, as a history entry numbered `number`.
    pub fn to_revision(&self, number: u32) -> Revision {
        Revision {
            number,
            content: self.content.clone(),
            title: self.title.clone(),
            category: self.category,
            tags: self.tags.clone(),
            importance: self.importance,
            expires_at: self.expires_at,
            written_at: self.updated_at,
        }
    }
}

/// The longest opening, in characters, used as an untitled memory's headline.
pub const HEADLINE_CHARS: usize = 80;

/// A memory's headline: its title, or, when it has none, the opening of its content (its first
/// line, cut at the last word boundary within [`HEADLINE_CHARS`], or at the limit for one long
/// word). Embedding, annotations and listings name a memory by it.
pub fn headline<'a>(title: Option<&'a str>, content: &'a str) -> &'a str {
    if let Some(title) = title {
        return title;
    }
    let line = content.trim_start().lines().next().unwrap_or_default();
    let Some((limit, _)) = line.char_indices().nth(HEADLINE_CHARS) else {
        return line;
    };
    match line[..limit].rfind(char::is_whitespace) {
        Some(space) if space > 0 => line[..space].trim_end(),
        _ => &line[..limit],
    }
}

/// A previous state of a memory, kept when it was revised. Numbered from 1 (the first state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub number: u32,
    pub content: String,
    pub title: Option<String>,
    pub category: Category,
    pub tags: Vec<Tag>,
    pub importance: Importance,
    pub expires_at: Option<Timestamp>,
    /// When this state was written (the memory's `updated_at` at the time).
    pub written_at: Timestamp,
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteStatus {
    /// A new memory was stored.
    Created,
    /// The same content already exists in this scope; nothing was written.
    Duplicate,
    /// An existing memory was revised in place; its previous state is in the history.
    Updated,
    /// The change asked for was already the stored state; nothing was written.
    Unchanged,
}

impl WriteStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteStatus::Created => "created",
            WriteStatus::Duplicate => "duplicate",
            WriteStatus::Updated => "updated",
            WriteStatus::Unchanged => "unchanged",
        }
    }

    /// True when the write stored text (a new memory or a revision), which then needs a vector.
    pub fn stored_text(self) -> bool {
        matches!(self, WriteStatus::Created | WriteStatus::Updated)
    }
}

impl fmt::Display for WriteStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of a write: what happened, the memory as it now stands, and the stored memories
/// it may contradict, refine or replace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WriteOutcome {
    pub status: WriteStatus,
    pub memory: Memory,
    /// Found by the relation domain after the write (empty for a duplicate or an unchanged
    /// update); each has a pending judgment waiting for a verdict.
    pub candidates: Vec<ConflictCandidate>,
    /// The image stored with the memory, for a write that carried one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
}

impl WriteOutcome {
    /// An outcome with no candidates (yet).
    pub fn new(status: WriteStatus, memory: Memory) -> Self {
        WriteOutcome {
            status,
            memory,
            candidates: Vec::new(),
            image: None,
        }
    }
}

/// A stored memory that a write may contradict, refine or replace, and the judgment that waits
/// for a verdict on the pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConflictCandidate {
    pub judgment_id: RelationId,
    pub id: MemoryId,
    /// The candidate's headline.
    pub title: String,
    pub category: Category,
    /// How alike the two memories are, 0–1 (see `relation::candidates`).
    pub score: f64,
    /// Why it may be contradicted: the subject both speak of and what differs (see
    /// `relation::disagreement`).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_parse_case_insensitively_and_unknown_ones_list_the_choices() {
        assert_eq!("Decision".parse::<Category>().unwrap(), Category::Decision);
        let err = "musing".parse::<Category>().unwrap_err();
        assert_eq!(err.field(), Some("category"));
        assert!(
            err.to_string().contains("preference, fact, decision"),
            "{err}"
        );
    }

    #[test]
    fn importance_outside_one_to_five_is_refused() {
        assert!(Importance::new(0).is_err());
        assert!(Importance::new(6).is_err());
        assert_eq!(Importance::new(5).unwrap().get(), 5);
        assert_eq!(Importance::default().get(), 3);
    }
}
