//! Memories at the front door: their inputs and the `Api` operations on them (store and
//! write, update and patch, get, forget, search, listings, statistics, prune).
//!
//! The inputs: one struct per tool or route body, its schema derived from its doc comments, and
//! its conversion into the memory domain's own request. Dates accept ISO 8601 or natural language
//! (`2 weeks ago`), resolved against the store's clock. Validation beyond shape (content size,
//! tag syntax, id syntax) is the domains', so a rule holds at every entry point.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Deserialize;

use super::Caller;
use super::domains::Domains;
use super::{Api, Found, Listing};
use crate::access::Access;
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::id::IdRef;
use crate::id::MemoryId;
use crate::image::ImageSource;
use crate::memory::{Category, Source};
use crate::memory::{ListQuery, MemoryFilter, SortKey, SortOrder, Visibility};
use crate::memory::{
    Memory, MemoryHistory, PruneReport, PruneRule, StoreStats, TagCount, WriteOutcome,
};
use crate::memory::{MemoryPatch, NewMemory};
use crate::relation::Detection;
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::search::SearchResults;
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
    /// What kind of memory this is; when omitted, the one its wording names ("I prefer…" a
    /// preference, "we decided…" a decision, a crash and its fix a bugfix), else `other`.
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
    #[serde(alias = "sessionId")]
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
        let category = self
            .category
            .or_else(|| crate::memory::category::infer(&self.content))
            .unwrap_or_default();
        Ok(NewMemory {
            expires_at: time(domains, "expires", self.expires.as_deref())?,
            content: self.content,
            title: self.title,
            category,
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

impl Api {
    pub fn store(&self, caller: &Caller, mut input: StoreInput) -> Result<WriteOutcome> {
        let image = input.take_image();
        let new = input.into_new_memory(&self.domains, caller)?;
        self.write(caller, new, image.as_ref())
    }

    /// Stores a memory as its domain takes it (with the image it shows, if any): `created`,
    /// `duplicate` or `updated`; then records the memories it may contradict as pending
    /// judgments and writes it into its project's files. The other stores (`store`, and
    /// `store_with_image_file`) convert their input into this.
    pub fn write(
        &self,
        caller: &Caller,
        new: NewMemory,
        image: Option<&ImageSource>,
    ) -> Result<WriteOutcome> {
        caller.access.write(&new.scope, "project")?;
        let outcome = match image {
            Some(image) => {
                let outcome = self.domains.images().store(new, image)?;
                self.domains.relations().detect(outcome, Detection::Full)
            }
            None => self
                .domains
                .relations()
                .store_memory(new, Detection::Full)?,
        };
        self.domains.land_written([&outcome]);
        self.audit_write(caller, AuditAction::MemoryStore, &outcome);
        Ok(self.wrote(outcome))
    }

    /// Changes memory `id` (a full id or a handle).
    pub fn update(&self, caller: &Caller, id: &str, patch: PatchInput) -> Result<WriteOutcome> {
        let patch = patch.into_patch(&self.domains)?;
        self.patch(caller, &IdRef::parse(id)?, patch)
    }

    /// Applies a patch as its domain takes it to visible memory `target`, keeping its previous
    /// state in the history; then records its conflict candidates and rewrites its unit.
    pub fn patch(
        &self,
        caller: &Caller,
        target: &IdRef,
        patch: MemoryPatch,
    ) -> Result<WriteOutcome> {
        self.writable(caller, target, false)?;
        self.domains.check_writable(target)?;
        let outcome = self.domains.relations().update(target, patch)?;
        self.domains.land_written([&outcome]);
        self.audit_write(caller, AuditAction::MemoryUpdate, &outcome);
        Ok(self.wrote(outcome))
    }

    pub fn get(&self, caller: &Caller, input: &GetInput) -> Result<Vec<Memory>> {
        self.memories(caller, &input.id_refs()?)
    }

    /// Hides memory `id`, or with `purge` deletes it for good.
    pub fn forget(&self, caller: &Caller, id: &str, purge: bool) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, purge)?;
        self.domains.check_writable(&target)?;
        let (memory, action) = match purge {
            true => {
                let memory = self.domains.memories().purge(&target)?;
                self.domains.release_images();
                (memory, AuditAction::MemoryPurge)
            }
            false => (
                self.domains.memories().forget(&target)?,
                AuditAction::MemoryForget,
            ),
        };
        self.domains.land(&[memory.id]);
        self.audited(
            caller,
            Change::in_scope(action, &memory.scope).of(memory.id),
        );
        Ok(memory)
    }

    /// Brings back a forgotten memory (`cairn forget --undo`), as it was.
    pub fn restore_memory(&self, caller: &Caller, id: &str) -> Result<Memory> {
        let target = IdRef::parse(id)?;
        self.writable(caller, &target, true)?;
        self.domains.check_writable(&target)?;
        let memory = self.domains.memories().restore(&target)?;
        self.domains.land(&[memory.id]);
        self.audited(
            caller,
            Change::in_scope(AuditAction::MemoryRestore, &memory.scope).of(memory.id),
        );
        self.written(true);
        Ok(memory)
    }

    pub fn search(&self, caller: &Caller, input: SearchInput) -> Result<Found> {
        if input.observations {
            return Ok(Found::Observations(
                input.search_observations(&self.domains, caller)?,
            ));
        }
        let request = input.into_request(&self.domains, caller)?;
        Ok(Found::Memories(self.search_request(caller, &request)?))
    }

    pub fn list(&self, caller: &Caller, input: ListInput) -> Result<Listing> {
        self.listing(caller, &input.into_query(&self.domains, caller)?)
    }

    pub fn tags(&self, caller: &Caller, input: FilterInput) -> Result<Vec<TagCount>> {
        self.tag_counts(caller, &input.into_filter(&self.domains, caller)?)
    }

    /// The filter a [`FilterInput`] means for this caller.
    pub fn filter(&self, caller: &Caller, input: FilterInput) -> Result<MemoryFilter> {
        input.into_filter(&self.domains, caller)
    }

    /// A memory by id or handle; hidden ones only with `include_hidden`.
    pub fn resolve(&self, caller: &Caller, target: &IdRef, include_hidden: bool) -> Result<Memory> {
        let memory = self.domains.memories().resolve(target, include_hidden)?;
        caller.access.read(&memory.scope, "id")?;
        Ok(memory)
    }

    /// Visible memories, in the order asked for, as many as asked.
    pub fn memories(&self, caller: &Caller, targets: &[IdRef]) -> Result<Vec<Memory>> {
        let memories = self.domains.memories().get(targets)?;
        for memory in &memories {
            caller.access.read(&memory.scope, "id")?;
        }
        Ok(memories)
    }

    /// A visible memory and its previous states.
    pub fn history(&self, caller: &Caller, target: &IdRef) -> Result<MemoryHistory> {
        let history = self.domains.memories().history(target)?;
        caller.access.read(&history.memory.scope, "id")?;
        Ok(history)
    }

    /// Checks that the caller may change memory `target` (hidden ones too with `hidden`).
    pub(super) fn writable(&self, caller: &Caller, target: &IdRef, hidden: bool) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let memory = self.domains.memories().resolve(target, hidden)?;
        caller.access.write(&memory.scope, "id")
    }

    /// A page of a listing and the total under its filter.
    pub fn listing(&self, caller: &Caller, query: &ListQuery) -> Result<Listing> {
        let mut narrowed;
        let query = match caller.access {
            Access::Full => query,
            Access::Token(_) => {
                narrowed = query.clone();
                caller.access.narrow(&mut narrowed.filter.scope)?;
                &narrowed
            }
        };
        Ok(Listing {
            memories: self.domains.memories().list(query)?,
            total: self.domains.memories().count(&query.filter)?,
        })
    }

    /// Visible memories per tag under a filter, most used first.
    pub fn tag_counts(&self, caller: &Caller, filter: &MemoryFilter) -> Result<Vec<TagCount>> {
        let mut filter = filter.clone();
        caller.access.narrow(&mut filter.scope)?;
        self.domains.memories().tags(&filter)
    }

    /// A search as its domain takes it.
    pub fn search_request(
        &self,
        caller: &Caller,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let mut request = request.clone();
        caller.access.narrow(&mut request.filter.scope)?;
        let results = self.search_with_images(&request);
        // A damaged index found by this search is rebuilt by the worker, when there is one.
        if let Some(worker) = &self.worker
            && self.domains.embeddings().vector_index_damage().is_some()
        {
            worker.nudge();
        }
        results
    }

    /// Searches, then adds to each hit the images its memory shows.
    pub(super) fn search_with_images(&self, request: &SearchRequest) -> Result<SearchResults> {
        let mut results = self.domains.searcher().search(request)?;
        let ids: Vec<MemoryId> = results.hits.iter().map(|hit| hit.memory.id).collect();
        for shown in self.domains.store.memory_images(&ids)? {
            if let Some(hit) = results
                .hits
                .iter_mut()
                .find(|h| h.memory.id == shown.memory)
            {
                hit.images.push(shown.image);
            }
        }
        Ok(results)
    }

    pub fn stats(&self, caller: &Caller) -> Result<StoreStats> {
        caller.access.whole_store("the store's statistics")?;
        self.domains.memories().stats()
    }

    /// The memories `rule` selects, and observations past retention; deleted unless `dry_run`.
    pub fn prune(&self, rule: PruneRule, dry_run: bool) -> Result<PruneReport> {
        let domains = &self.domains;
        let mut report = domains.memories().prune(rule, dry_run)?;
        if !dry_run {
            report.observations_deleted = domains.sessions().prune_observations()?;
            let ids: Vec<MemoryId> = report.memories.iter().map(|m| m.id).collect();
            domains.release_images();
            domains.land(&ids);
            if !ids.is_empty() || report.observations_deleted > 0 {
                let change = Change::new(AuditAction::Prune, None).saying(format!(
                    "{} memories, {} observations",
                    ids.len(),
                    report.observations_deleted
                ));
                self.audited(&Caller::local(Source::Cli), change);
            }
        }
        Ok(report)
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
