//! The inputs: one struct per tool or route body, its schema derived from its doc comments, and
//! its conversion into the memory domain's own request. Dates accept ISO 8601 or natural language
//! (`2 weeks ago`), resolved against the store's clock. Validation beyond shape (content size,
//! tag syntax, id syntax) is the domains', so a rule holds at every entry point.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Deserialize;

use super::Caller;
use super::domains::Domains;
use crate::error::{Error, Result};
use crate::id::IdRef;
use crate::image::ImageSource;
use crate::memory::Category;
use crate::memory::{ListQuery, MemoryFilter, SortKey, SortOrder, Visibility};
use crate::memory::{MemoryPatch, NewMemory};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::search::{FuzzyMode, SearchMode, SearchRequest};
use crate::tag::Tag;

/// Most results one search or listing returns.
pub const MAX_PAGE: usize = 100;
/// Most ids one `get` takes.
pub const MAX_GET_IDS: usize = 50;

/// Input of `memory_store` and `POST /v1/memories`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreInput {
    /// The text to remember: one self-contained fact, decision or finding (limit:
    /// `limits.max_content_bytes`, 10,240 bytes by default). Secrets are redacted. May be left
    /// out when an image is sent: the memory is then named by the image.
    #[serde(default)]
    pub content: String,
    /// An image the memory shows (a screenshot, a diagram): a data URL
    /// (`data:image/png;base64,…`) or raw base64 of a PNG, JPEG, GIF or WebP file (limit:
    /// `images.max_bytes`, 10 MiB by default). It is stored once, by content.
    #[serde(default)]
    pub image: Option<String>,
    /// A short headline (limit: `limits.max_title_chars`, 200 by default).
    #[serde(default)]
    pub title: Option<String>,
    /// What kind of memory this is; `other` when omitted.
    #[serde(default)]
    pub category: Option<Category>,
    /// Tags such as `docker` or `auth/jwt` (lowercase letters, digits, `-`, `_`, `/`, `.`).
    #[serde(default)]
    pub tags: Vec<String>,
    /// The project the memory belongs to; the caller's project when omitted.
    #[serde(default)]
    pub project: Option<String>,
    /// Store for every project instead of one.
    #[serde(default)]
    pub global: bool,
    /// A stable key (e.g. `db/choice`): storing again with the same key in the same scope
    /// revises that memory instead of adding one.
    #[serde(default)]
    pub topic_key: Option<String>,
    /// 1 (trivia) to 5 (critical); 3 when omitted.
    #[serde(default)]
    #[schemars(range(min = 1, max = 5))]
    pub importance: Option<i64>,
    /// When the memory stops being true: ISO 8601 or natural language (`in 3 days`).
    #[serde(default)]
    pub expires: Option<String>,
    /// Who entered it (an agent or person name).
    #[serde(default)]
    pub entered_by: Option<String>,
}

/// Which memories a read considers. Every field is optional.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FilterInput {
    /// Read one project's memories (and the global ones); the caller's project when omitted.
    pub project: Option<String>,
    /// Read every project (a search still ranks the caller's project's memories first among
    /// comparable hits).
    pub all_projects: bool,
    /// Read only global memories.
    pub global: bool,
    /// Memories must carry every one of these tags.
    pub tags: Vec<String>,
    /// Memories must carry at least one of these tags.
    pub any_tags: Vec<String>,
    pub category: Option<Category>,
    pub entered_by: Option<String>,
    /// Only memories written in this agent session (the agent's session id).
    pub session: Option<String>,
    /// Created at or after: ISO 8601 or natural language (`2 weeks ago`).
    pub after: Option<String>,
    /// Created before: ISO 8601 or natural language (`yesterday`).
    pub before: Option<String>,
    pub include_expired: bool,
    pub include_forgotten: bool,
}

/// Input of `memory_search` and `/v1/search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words, `"exact phrases"`, `prefix*`, `AND`/`OR`/`NOT`; a natural question works too.
    #[schemars(length(min = 1))]
    pub query: String,
    /// Which signals run; hybrid when a model is installed, else lexical.
    #[serde(default)]
    pub mode: Option<SearchMode>,
    /// Results wanted (1–100, default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Results to skip, for the next page.
    #[serde(default)]
    pub offset: usize,
    /// Only memories holding every word (an exact AND).
    #[serde(default)]
    pub all_words: bool,
    /// Search what agents did (prompts, tool uses, failures … recorded by hooks, kept for the
    /// retention period) instead of memories. Only the project filters apply.
    #[serde(default)]
    pub observations: bool,
    #[serde(default, flatten)]
    pub filter: FilterInput,
}

/// Input of `memory_get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetInput {
    /// Full ids or short handles (at least 8 hex digits), 1–50 of them.
    #[schemars(length(min = 1, max = 50))]
    pub ids: Vec<String>,
}

/// Input of `memory_update` and `PATCH /v1/memories/{id}`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PatchInput {
    pub content: Option<String>,
    /// A new title; `""` removes it.
    pub title: Option<String>,
    pub category: Option<Category>,
    /// Replaces every tag.
    pub tags: Option<Vec<String>>,
    #[schemars(range(min = 1, max = 5))]
    pub importance: Option<i64>,
    /// A new expiry (ISO 8601 or natural language), or `never` to remove it.
    pub expires: Option<String>,
    /// A new topic key; `""` removes it.
    pub topic_key: Option<String>,
}

/// Input of `memory_update`: which memory, and the change.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateInput {
    /// Full id or short handle.
    pub id: String,
    #[serde(flatten)]
    pub patch: PatchInput,
}

/// Input of `memory_forget`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetInput {
    /// Full id or short handle.
    pub id: String,
}

/// How a listing is ordered.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortInput {
    #[default]
    Created,
    Updated,
    Expires,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OrderInput {
    Asc,
    #[default]
    Desc,
}

/// Input of `memory_list` and `GET /v1/memories`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ListInput {
    pub sort: SortInput,
    pub order: OrderInput,
    /// Memories wanted (1–100, default 20).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    pub offset: usize,
    #[serde(flatten)]
    pub filter: FilterInput,
}

pub(crate) fn page_limit(field: &str, limit: Option<usize>, default: usize) -> Result<usize> {
    let limit = limit.unwrap_or(default);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::invalid(
            field,
            format!("{limit} is outside 1..={MAX_PAGE}"),
        ));
    }
    Ok(limit)
}

pub(crate) fn time(
    domains: &Domains,
    field: &str,
    text: Option<&str>,
) -> Result<Option<Timestamp>> {
    text.map(|t| crate::dates::parse_time(field, t, &domains.now()))
        .transpose()
}

pub(crate) fn project(name: Option<&str>) -> Result<Option<ProjectName>> {
    name.map(ProjectName::new).transpose()
}

/// `""` clears an optional text field.
fn clearable(value: Option<String>) -> Option<Option<String>> {
    value.map(|v| Some(v).filter(|v| !v.trim().is_empty()))
}

impl StoreInput {
    /// Splits off the image, if any, as an inline source.
    pub(crate) fn take_image(&mut self) -> Option<ImageSource> {
        self.image.take().map(ImageSource::Inline)
    }

    pub(crate) fn into_new_memory(self, domains: &Domains, caller: &Caller) -> Result<NewMemory> {
        let scope = match (self.global, project(self.project.as_deref())?) {
            (true, Some(_)) => {
                return Err(Error::invalid(
                    "global",
                    "give either project or global, not both",
                ));
            }
            (true, None) => Scope::Global,
            (false, Some(name)) => Scope::Project(name),
            (false, None) => caller
                .default_project
                .clone()
                .map_or(Scope::Global, Scope::Project),
        };
        Ok(NewMemory {
            expires_at: time(domains, "expires", self.expires.as_deref())?,
            content: self.content,
            title: self.title,
            category: self.category.unwrap_or_default(),
            tags: self.tags,
            scope,
            topic_key: self.topic_key,
            entered_by: self.entered_by.or_else(|| caller.agent.clone()),
            session_id: None,
            source: caller.source,
            importance: self.importance,
        })
    }
}

impl FilterInput {
    pub(crate) fn into_filter(self, domains: &Domains, caller: &Caller) -> Result<MemoryFilter> {
        let named = project(self.project.as_deref())?;
        let scope = match (self.all_projects, self.global, named) {
            (true, true, _) | (true, _, Some(_)) | (_, true, Some(_)) => {
                return Err(Error::invalid(
                    "project",
                    "give at most one of project, global and all_projects",
                ));
            }
            (true, false, None) => ScopeFilter::All,
            (false, true, None) => ScopeFilter::Global,
            (false, false, Some(name)) => ScopeFilter::ProjectAndGlobal(name),
            (false, false, None) => caller
                .default_project
                .clone()
                .map_or(ScopeFilter::All, ScopeFilter::ProjectAndGlobal),
        };
        // Empty items (`tags=a,,b`) are ignored, as on the command line.
        let tags = |raw: &[String]| {
            Tag::normalise_all(
                raw.iter()
                    .map(String::as_str)
                    .filter(|t| !t.trim().is_empty()),
            )
        };
        Ok(MemoryFilter {
            scope,
            tags_all: tags(&self.tags)?,
            tags_any: tags(&self.any_tags)?,
            category: self.category,
            entered_by: self.entered_by,
            topic_key: None,
            session: self.session.filter(|s| !s.trim().is_empty()),
            with_images: false,
            created_after: time(domains, "after", self.after.as_deref())?,
            created_before: time(domains, "before", self.before.as_deref())?,
            visibility: Visibility {
                expired: self.include_expired,
                forgotten: self.include_forgotten,
            },
        })
    }
}

impl SearchInput {
    pub(crate) fn into_request(self, domains: &Domains, caller: &Caller) -> Result<SearchRequest> {
        // Searching every project from one still ranks that project's memories first.
        let from_project = match self.filter.global {
            true => None,
            false => project(self.filter.project.as_deref())?.or(caller.default_project.clone()),
        };
        Ok(SearchRequest {
            from_project,
            limit: page_limit("limit", self.limit, domains.config.search.default_limit)?,
            offset: self.offset,
            strict: self.all_words,
            fuzzy: FuzzyMode::Auto,
            threshold: None,
            mode: self.mode,
            filter: self.filter.into_filter(domains, caller)?,
            query: self.query,
        })
    }
}

impl GetInput {
    pub fn id_refs(&self) -> Result<Vec<IdRef>> {
        if self.ids.is_empty() || self.ids.len() > MAX_GET_IDS {
            return Err(Error::invalid(
                "ids",
                format!("{} ids given; give 1 to {MAX_GET_IDS}", self.ids.len()),
            ));
        }
        self.ids.iter().map(|id| IdRef::parse(id)).collect()
    }
}

impl PatchInput {
    pub(crate) fn into_patch(self, domains: &Domains) -> Result<MemoryPatch> {
        let expires_at = match self.expires.as_deref().map(str::trim) {
            None => None,
            Some(never) if never.eq_ignore_ascii_case("never") => Some(None),
            Some(when) => Some(time(domains, "expires", Some(when))?),
        };
        Ok(MemoryPatch {
            content: self.content,
            title: clearable(self.title),
            category: self.category,
            tags: self.tags,
            importance: self.importance,
            expires_at,
            topic_key: clearable(self.topic_key),
        })
    }
}

impl ListInput {
    pub(crate) fn into_query(self, domains: &Domains, caller: &Caller) -> Result<ListQuery> {
        Ok(ListQuery {
            sort: match self.sort {
                SortInput::Created => SortKey::Created,
                SortInput::Updated => SortKey::Updated,
                SortInput::Expires => SortKey::Expires,
            },
            order: match self.order {
                OrderInput::Asc => SortOrder::Asc,
                OrderInput::Desc => SortOrder::Desc,
            },
            limit: page_limit("limit", self.limit, 20)?,
            offset: self.offset,
            filter: self.filter.into_filter(domains, caller)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_with_flattened_filters_still_refuse_unknown_fields() {
        let update = serde_json::from_value::<UpdateInput>(json!({"id": "3f9a0c1b", "bogus": 1}));
        assert!(update.unwrap_err().to_string().contains("bogus"));
        let search = serde_json::from_value::<SearchInput>(json!({"query": "q", "tgs": ["x"]}));
        assert!(search.unwrap_err().to_string().contains("tgs"));
        let search = serde_json::from_value::<SearchInput>(json!({"query": "q", "tags": ["x"]}));
        assert_eq!(search.unwrap().filter.tags, ["x"]);
    }
}
