//! Which memories a read considers: [`MemoryFilter`] (scope, tags, category, agent, dates) and
//! [`Visibility`], the one rule of what is hidden.
//!
//! A memory is *hidden* when it is forgotten (`deleted_at` set) or expired (`expires_at` at or
//! before now). Every read — listings, counts, search signals, the vector path and the ANN
//! re-check, `get` by id — shows visible memories only, unless its filter's [`Visibility`] lets a
//! kind of hidden memory through. Backends express the same rule as one SQL fragment each
//! (store-sqlite: `filter::visibility_sql`); [`Visibility::shows`] is its Rust twin, and the
//! behavioural suite holds the two to each other. A new hidden state (supersession) is added
//! here and in that fragment, nowhere else.

use jiff::Timestamp;
use serde::Serialize;

use crate::memory::{Category, Memory, TopicKey};
use crate::scope::ScopeFilter;
use crate::tag::Tag;

/// Which hidden memories a read lets through. The default lets none through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Visibility {
    /// Show memories whose expiry has passed.
    pub expired: bool,
    /// Show forgotten (soft-deleted) memories.
    pub forgotten: bool,
}

impl Visibility {
    /// Visible memories only: what every ordinary read shows.
    pub const VISIBLE: Visibility = Visibility {
        expired: false,
        forgotten: false,
    };

    /// Every memory in any state (purge, export, import).
    pub const ALL: Visibility = Visibility {
        expired: true,
        forgotten: true,
    };

    /// True when a read with this visibility shows `memory` at `now`.
    pub fn shows(self, memory: &Memory, now: Timestamp) -> bool {
        (self.forgotten || memory.deleted_at.is_none())
            && (self.expired || !memory.is_expired_at(now))
    }
}

/// Which memories a read considers. Built by adapters; `Default` is "every scope, visible only".
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFilter {
    pub scope: ScopeFilter,
    /// Memories must carry every one of these tags.
    pub tags_all: Vec<Tag>,
    /// Memories must carry at least one of these tags (ignored when empty).
    pub tags_any: Vec<Tag>,
    pub category: Option<Category>,
    pub entered_by: Option<String>,
    /// Only the memory with this topic key (one per scope).
    pub topic_key: Option<TopicKey>,
    /// Created at or after.
    pub created_after: Option<Timestamp>,
    /// Created strictly before.
    pub created_before: Option<Timestamp>,
    /// Only memories written in this agent session (the agent's own session id).
    pub session: Option<String>,
    /// Only memories that show an image.
    pub with_images: bool,
    /// Which hidden memories the read lets through (none by default).
    pub visibility: Visibility,
}

impl Default for MemoryFilter {
    fn default() -> Self {
        MemoryFilter {
            scope: ScopeFilter::All,
            tags_all: Vec::new(),
            tags_any: Vec::new(),
            category: None,
            entered_by: None,
            topic_key: None,
            created_after: None,
            created_before: None,
            session: None,
            with_images: false,
            visibility: Visibility::VISIBLE,
        }
    }
}

impl MemoryFilter {
    /// Every visible memory in `scope`.
    pub fn in_scope(scope: ScopeFilter) -> Self {
        MemoryFilter {
            scope,
            ..Default::default()
        }
    }
}

/// The order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortKey {
    #[default]
    Created,
    Updated,
    /// Memories without an expiry come last.
    Expires,
    /// By text, alphabetically: ASCII letters without regard to case, everything else by its
    /// UTF-8 bytes (the same order in every backend).
    Content,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    Asc,
    #[default]
    Desc,
}

/// A page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub filter: MemoryFilter,
    pub sort: SortKey,
    pub order: SortOrder,
    pub limit: usize,
    pub offset: usize,
}

/// Which memories `prune` deletes for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "before", rename_all = "snake_case")]
pub enum PruneRule {
    /// Memories whose expiry is at or before this time (never in the future), forgotten ones
    /// included; soonest expiry first.
    Expired(Timestamp),
    /// Memories created before this time, in any state, expired or not; oldest first.
    CreatedBefore(Timestamp),
}
