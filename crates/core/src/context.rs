//! Context: what a new or compacted session should know, packed into a token budget.
//!
//! First come the **pinned slots** with content ([`crate::slot`]: persona, user preferences,
//! project context, pending items …), each whole, in their order. Then memories, from four
//! places, in the order they are preferred when the budget is short:
//! 1. **relevant now** — memories that search finds for what the session is about (its first
//!    prompt or a query, and the names of the files in play);
//! 2. **important decisions and preferences** (importance 4 or 5);
//! 3. **recent sessions** — the latest summaries of this project's sessions (a summary is
//!    offered here only, never as relevant or recent);
//! 4. the other decisions and preferences, then the **most recently updated** memories (not
//!    the text of files agents follow, `files::followed`, which they read themselves).
//!
//! Each memory appears once, in the first place that offers it. Packing is greedy in that order:
//! a candidate goes in when the whole rendered text, counted with the tokenizer of
//! [`crate::tokens`], still fits the budget; otherwise it is left out and smaller ones after it
//! still get their chance. So the result never exceeds the budget, and a relevant memory beats a
//! merely recent one. Every item carries its memory's id so the agent can fetch it in full.
//! A pinned slot too large for what is left of the budget is left out the same way.
//! A memory superseded by another (`relation`) is replaced by its successor: a session is told
//! what holds now, not what held before.

use std::collections::HashSet;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::memory::filter::{ListQuery, MemoryFilter, SortKey, SortOrder};
use crate::memory::model::{Category, Memory};
use crate::memory::operations::Memories;
use crate::query::words;
use crate::relation::successors;
use crate::scope::{ProjectName, ScopeFilter};
use crate::search::pipeline::Searcher;
use crate::search::{FuzzyMode, SearchRequest};
use crate::session::model::SessionKey;
use crate::session::recording::Sessions;
use crate::session::summary::is_summary;

use crate::slot::operations::Slots;
use crate::tokens;

/// The smallest and largest budgets accepted.
pub const BUDGET_RANGE: std::ops::RangeInclusive<usize> = 50..=100_000;
/// Longest text of one item, in characters; `get` shows the rest.
const ITEM_CHARS: usize = 500;
/// Query words taken from a long prompt.
const QUERY_WORDS: usize = 40;

/// What context is asked for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContextRequest {
    /// The project the session works in; `None` means every project.
    pub project: Option<ProjectName>,
    /// What the session is about (a prompt, a question); with `session`, defaults to its first
    /// prompt.
    pub query: Option<String>,
    /// Files in play; with `session`, defaults to the files its tools touched.
    pub files: Vec<String>,
    /// A recorded session to take the query and files from.
    pub session: Option<SessionKey>,
    /// Tokens the rendered context may take.
    pub budget: usize,
}

/// Where an item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Relevant,
    Decisions,
    Sessions,
    Recent,
}

impl Section {
    fn heading(self) -> &'static str {
        match self {
            Section::Relevant => "Relevant now",
            Section::Decisions => "Decisions and preferences",
            Section::Sessions => "Recent sessions",
            Section::Recent => "Recently updated",
        }
    }

    const ORDER: [Section; 4] = [
        Section::Relevant,
        Section::Decisions,
        Section::Sessions,
        Section::Recent,
    ];
}

/// One memory in the context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextItem {
    pub id: MemoryId,
    pub handle: String,
    pub section: Section,
    pub category: Category,
    pub title: Option<String>,
    /// The content on one line, cut to a few hundred characters.
    pub text: String,
}

/// One pinned slot in the context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextSlot {
    pub label: String,
    /// `project` or `global`.
    pub scope: &'static str,
    pub content: String,
}

/// The packed context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Context {
    pub project: Option<String>,
    /// Pinned slots, shown first.
    pub slots: Vec<ContextSlot>,
    pub items: Vec<ContextItem>,
    /// What to inject: markdown, empty when nothing is known.
    pub text: String,
    /// Tokens in `text`.
    pub tokens: usize,
    pub budget: usize,
    /// Distinct memories considered.
    pub considered: usize,
}

/// Context over the domains it reads: search, memories, sessions and slots.
pub struct ContextBuilder<'a> {
    search: Searcher<'a>,
    memories: Memories<'a>,
    sessions: Sessions<'a>,
    slots: Slots<'a>,
}

impl<'a> ContextBuilder<'a> {
    pub fn new(
        search: Searcher<'a>,
        memories: Memories<'a>,
        sessions: Sessions<'a>,
        slots: Slots<'a>,
    ) -> Self {
        ContextBuilder {
            search,
            memories,
            sessions,
            slots,
        }
    }

    /// The context for a session: see the module documentation.
    pub fn context(&self, request: &ContextRequest) -> Result<Context> {
        if !BUDGET_RANGE.contains(&request.budget) {
            return Err(Error::invalid(
                "budget",
                format!(
                    "{} tokens is out of range {}..={}",
                    request.budget,
                    BUDGET_RANGE.start(),
                    BUDGET_RANGE.end()
                ),
            ));
        }
        let project = request.project.as_ref().map(ToString::to_string);
        let pinned = self.slots.pinned_slots(request.project.as_ref())?;
        let candidates = self.context_candidates(request)?;
        let considered = candidates.len();
        let mut slots: Vec<ContextSlot> = Vec::new();
        let mut text = String::new();
        for slot in pinned {
            slots.push(ContextSlot {
                label: slot.label.to_string(),
                scope: slot.scope_kind(),
                content: slot.content.trim().to_string(),
            });
            let tentative = render(project.as_deref(), &slots, &[]);
            if tokens::count(&tentative) <= request.budget {
                text = tentative;
            } else {
                slots.pop();
            }
        }
        // Each candidate costs the tokens of its line (and of its section's heading, and of the
        // ids line, when it is the first): summed, not recounted over the whole text each time.
        // The sum can differ from the joined text's count by a token at a seam, so the result
        // is counted exactly at the end and trimmed, last taken first, until it fits.
        let without_items = tokens::count(&text);
        let mut used = without_items;
        let mut chosen: Vec<ContextItem> = Vec::new();
        for candidate in candidates {
            let mut cost = tokens::count(&item_line(&candidate));
            if chosen.is_empty() {
                cost += tokens::count(IDS_LINE);
            }
            if !chosen.iter().any(|item| item.section == candidate.section) {
                cost += tokens::count(&heading_line(candidate.section));
            }
            if used + cost <= request.budget {
                used += cost;
                chosen.push(candidate);
            }
        }
        let mut text_tokens = without_items;
        if !chosen.is_empty() {
            text = render(project.as_deref(), &slots, &chosen);
            text_tokens = tokens::count(&text);
            while text_tokens > request.budget && chosen.pop().is_some() {
                text = render(project.as_deref(), &slots, &chosen);
                text_tokens = tokens::count(&text);
            }
        }
        // Shown grouped by section, in the order of preference.
        chosen.sort_by_key(|item| Section::ORDER.iter().position(|s| *s == item.section));
        Ok(Context {
            project,
            slots,
            tokens: text_tokens,
            items: chosen,
            text,
            budget: request.budget,
            considered,
        })
    }

    /// Candidates in order of preference, each memory once.
    fn context_candidates(&self, request: &ContextRequest) -> Result<Vec<ContextItem>> {
        let scope = match &request.project {
            Some(project) => ScopeFilter::ProjectAndGlobal(project.clone()),
            None => ScopeFilter::All,
        };
        let (mut query, mut files) = (request.query.clone(), request.files.clone());
        if let Some(key) = &request.session {
            let session = self.sessions.session(key)?;
            if query.is_none() {
                query = session.first_prompt.clone();
            }
            if files.is_empty() {
                for observation in self.sessions.observations(key)?.iter().rev() {
                    for file in &observation.files {
                        if !files.contains(file) && files.len() < 20 {
                            files.push(file.clone());
                        }
                    }
                }
            }
        }
        let mut seen = HashSet::new();
        let mut candidates = Vec::new();
        // A session's summary is offered only among the recent sessions, after what agents and
        // people wrote.
        let mut offer = |memory: Memory, section: Section| {
            if (section == Section::Sessions || !is_summary(&memory)) && seen.insert(memory.id) {
                candidates.push((memory, section));
            }
        };

        for memory in self.relevant(query.as_deref(), &files, &scope)? {
            offer(memory, Section::Relevant);
        }
        let mut decisions = Vec::new();
        for category in [Category::Decision, Category::Preference] {
            decisions.extend(self.memories.list(&ListQuery {
                filter: MemoryFilter {
                    category: Some(category),
                    ..MemoryFilter::in_scope(scope.clone())
                },
                sort: SortKey::Updated,
                order: SortOrder::Desc,
                limit: 20,
                offset: 0,
            })?);
        }
        decisions.sort_by(|a, b| {
            b.importance
                .cmp(&a.importance)
                .then(b.updated_at.cmp(&a.updated_at))
        });
        let (important, other): (Vec<Memory>, Vec<Memory>) =
            decisions.into_iter().partition(|m| m.importance.get() >= 4);
        for memory in important {
            offer(memory, Section::Decisions);
        }
        for memory in self
            .sessions
            .recent_summaries(request.project.as_ref(), 3)?
        {
            offer(memory, Section::Sessions);
        }
        for memory in other {
            offer(memory, Section::Decisions);
        }
        let recent = self.memories.list(&ListQuery {
            filter: MemoryFilter::in_scope(scope),
            sort: SortKey::Updated,
            order: SortOrder::Desc,
            limit: 10,
            offset: 0,
        })?;
        // Text of the files agents follow (`CLAUDE.md` …) is offered when relevant, never as
        // merely recent: the agent reads those files itself.
        for memory in recent.into_iter().filter(|m| !is_followed_text(m)) {
            offer(memory, Section::Recent);
        }
        Ok(self
            .current(candidates)?
            .into_iter()
            .map(|(memory, section)| item(memory, section))
            .collect())
    }

    /// The candidates with each superseded memory replaced by its successor, in its place
    /// (dropped when the successor is offered anyway): a session is told what holds now.
    fn current(&self, candidates: Vec<(Memory, Section)>) -> Result<Vec<(Memory, Section)>> {
        let store = self.memories.backend();
        let now = self.memories.timestamp();
        let ids: Vec<MemoryId> = candidates.iter().map(|(m, _)| m.id).collect();
        let relations = store.relations_of(&ids, now)?;
        if relations.is_empty() {
            return Ok(candidates);
        }
        let offered: HashSet<MemoryId> = ids.iter().copied().collect();
        let mut shown = HashSet::new();
        let mut current = Vec::with_capacity(candidates.len());
        for (memory, section) in candidates {
            match successors(&memory.id, &relations).first() {
                None => {
                    if shown.insert(memory.id) {
                        current.push((memory, section));
                    }
                }
                Some(successor) if offered.contains(successor) => {}
                Some(successor) => {
                    let found = store.get(&[*successor])?.into_iter().next();
                    if let Some(newer) = found.filter(|m| m.is_visible_at(now))
                        && shown.insert(newer.id)
                    {
                        current.push((newer, section));
                    }
                }
            }
        }
        Ok(current)
    }

    /// What search finds for the query and the files' names, best first.
    fn relevant(
        &self,
        query: Option<&str>,
        files: &[String],
        scope: &ScopeFilter,
    ) -> Result<Vec<Memory>> {
        let mut terms: Vec<String> = query.map(words).unwrap_or_default();
        terms.truncate(QUERY_WORDS);
        for file in files {
            let name = std::path::Path::new(file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            terms.extend(words(&name));
        }
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut request =
            SearchRequest::new(terms.join(" "), MemoryFilter::in_scope(scope.clone()), 10);
        request.fuzzy = FuzzyMode::Never;
        Ok(self
            .search
            .search(&request)?
            .hits
            .into_iter()
            .map(|hit| hit.memory)
            .collect())
    }
}

fn item(memory: Memory, section: Section) -> ContextItem {
    let flat = memory
        .content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let text = if flat.chars().count() > ITEM_CHARS {
        format!("{}…", flat.chars().take(ITEM_CHARS).collect::<String>())
    } else {
        flat
    };
    ContextItem {
        handle: memory.id.handle(),
        id: memory.id,
        section,
        category: memory.category,
        title: memory.title,
        text,
    }
}

/// The markdown an agent receives.
fn render(project: Option<&str>, slots: &[ContextSlot], items: &[ContextItem]) -> String {
    if slots.is_empty() && items.is_empty() {
        return String::new();
    }
    let mut out = match project {
        Some(project) => format!("# cairn memory for {project}\n"),
        None => "# cairn memory\n".to_string(),
    };
    for slot in slots {
        out.push_str(&format!(
            "\n## {} (pinned slot)\n{}\n",
            slot.label, slot.content
        ));
    }
    if items.is_empty() {
        return out;
    }
    out.push_str(IDS_LINE);
    for section in Section::ORDER {
        let mut in_section = items.iter().filter(|i| i.section == section).peekable();
        if in_section.peek().is_none() {
            continue;
        }
        out.push_str(&heading_line(section));
        for item in in_section {
            out.push_str(&item_line(item));
        }
    }
    out
}

/// The line before the first item, on reading memories in full.
const IDS_LINE: &str =
    "\nIds in brackets: `memory_get` (or `cairn get <id>`) shows a memory in full.\n";

fn heading_line(section: Section) -> String {
    format!("\n## {}\n", section.heading())
}

/// One item as the context shows it.
fn item_line(item: &ContextItem) -> String {
    let title = item
        .title
        .as_deref()
        .map(|t| format!(" {t}:"))
        .unwrap_or_default();
    format!(
        "- [{}] {}{title} {}\n",
        item.handle, item.category, item.text
    )
}

/// Whether `memory` is text of a file agents follow (tagged `instructions`).
fn is_followed_text(memory: &Memory) -> bool {
    memory
        .tags
        .iter()
        .any(|t| t.as_str() == crate::files::INSTRUCTIONS_TAG)
}
