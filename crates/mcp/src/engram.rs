//! engram's tools (`cairn mcp --tools engram`): the names, parameters, id forms and answers
//! engram's memory protocol and skills call, each converted into cairn's own input and run by
//! the same [`Api`] operation as cairn's tool of the same job.
//!
//! | engram | cairn | what changes on the way |
//! | --- | --- | --- |
//! | `mem_save` | `memory_store` | `type` → `category`, `scope: personal` → `global`; the answer carries `sync_id`, `judgment_required` (also when false), `judgment_status`, `judgment_id`, `candidates` |
//! | `mem_search` | `memory_search` | `type` → `category`, `scope: personal` → `global` |
//! | `mem_context` | `memory_context` | `project`; `scope` is taken and left (cairn's context always holds the global memories too) |
//! | `mem_session_summary` | `memory_session_summary` | `content`'s `## Goal`, `## Discoveries`, `## Accomplished`, `## Next Steps`, `## Relevant Files` sections → the summary's fields |
//! | `mem_judge` | `memory_judge` | `judgment_id` as `rel-<hex>` |
//! | `mem_compare` | `memory_compare` | `memory_id_a`/`memory_id_b` → `a`/`b`, `reasoning` (≤ 200 characters, required) → `reason`; answers `{sync_id}` |
//! | `mem_save_prompt` | `Api::save_prompt` | the same names; answers `Prompt saved: "…"` as `message`, with the session |
//! | `mem_capture_passive` | `Api::capture` | the same names; answers `extracted`, `saved`, `duplicates` and engram's line as `message` |
//!
//! Judgment ids go out as `rel-<32 hex digits>` and come back in that form or cairn's. engram's
//! clients send fields these tools do not use (`capture_prompt`, `recovery_token`, …); like
//! engram, the tools take them and leave them.

use cairn_core::Error;
use cairn_core::api::{
    Api, Caller, CompareInput, ContextInput, Found, JudgeInput, SearchInput, SessionSummaryInput,
    StoreInput, compact_observations, compact_search, relation_document,
};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::arguments::arguments;

/// Longest `reasoning` of `mem_compare`, as engram states it.
pub const REASONING_CHARS: usize = 200;

/// Arguments of `mem_save`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveInput {
    /// Short, searchable title (e.g. 'JWT auth middleware', 'Fixed N+1 query').
    pub title: String,
    /// Structured content using **What**, **Why**, **Where**, **Learned** format.
    pub content: String,
    /// Category: decision, architecture, bugfix, pattern, config, discovery, learning (default:
    /// manual).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Session ID to associate with.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Project name.
    #[serde(default)]
    pub project: Option<String>,
    /// Scope for this observation: project (default) or personal.
    #[serde(default)]
    pub scope: Option<String>,
    /// Optional topic identifier for upserts (e.g. architecture/auth-model).
    #[serde(default)]
    pub topic_key: Option<String>,
}

/// Arguments of `mem_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Search query — natural language or keywords.
    pub query: String,
    /// Filter by type: decision, architecture, bugfix, pattern, config, discovery, learning.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Filter by project name.
    #[serde(default)]
    pub project: Option<String>,
    /// Filter by scope: project (default) or personal.
    #[serde(default)]
    pub scope: Option<String>,
    /// Max results (default: 10, max: 20).
    #[serde(default)]
    pub limit: Option<f64>,
}

/// Arguments of `mem_context`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ContextArgs {
    /// Filter by project (omit for the current one).
    #[serde(default)]
    pub project: Option<String>,
    /// Filter observations by scope: project (default) or personal.
    #[serde(default)]
    pub scope: Option<String>,
}

/// Arguments of `mem_session_summary`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SummaryArgs {
    /// The summary: `## Goal`, `## Discoveries`, `## Accomplished`, `## Next Steps`,
    /// `## Relevant Files` sections (or plain text, read as the goal).
    pub content: String,
    /// Project name.
    #[serde(default)]
    pub project: Option<String>,
    /// Session ID.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Arguments of `mem_judge`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct JudgeArgs {
    /// The judgment id `mem_save` returned (`rel-…`).
    pub judgment_id: String,
    /// supersedes, conflicts_with, scoped, compatible, related or not_conflict.
    pub relation: String,
    /// Why, in a sentence.
    #[serde(default)]
    pub reason: Option<String>,
    /// What shows it.
    #[serde(default)]
    pub evidence: Option<String>,
    /// How sure, 0–1.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// The session the verdict was made in.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Arguments of `mem_compare`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// The newer memory's id.
    pub memory_id_a: Value,
    /// The older memory's id.
    pub memory_id_b: Value,
    /// supersedes, conflicts_with, scoped, compatible, related or not_conflict.
    pub relation: String,
    /// How sure, 0–1.
    pub confidence: f64,
    /// Why, at most 200 characters.
    pub reasoning: String,
    /// The model that compared them.
    #[serde(default)]
    pub model: Option<String>,
}

/// Arguments of `mem_save_prompt`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PromptArgs {
    /// The user's prompt text.
    pub content: String,
    /// Session ID to associate with (default: manual-save-{project}).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Project name.
    #[serde(default)]
    pub project: Option<String>,
}

/// Arguments of `mem_capture_passive`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CaptureArgs {
    /// The text output containing a '## Key Learnings:' section with numbered or bulleted
    /// items (or *Remember*: lines).
    pub content: String,
    /// Session ID.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Project name.
    #[serde(default)]
    pub project: Option<String>,
    /// Source identifier (e.g. 'subagent-stop', 'session-end').
    #[serde(default)]
    pub source: Option<String>,
}

/// One engram tool: its name, the cairn tool that does its job (none for the two run by an
/// `Api` operation no cairn tool offers), description and schema.
pub struct EngramTool {
    pub name: &'static str,
    pub runs: Option<&'static str>,
    pub description: &'static str,
    pub read_only: bool,
    pub schema: fn() -> JsonObject,
}

/// engram's tools, in its order.
pub const TOOLS: &[EngramTool] = &[
    EngramTool {
        name: "mem_save",
        runs: Some("memory_store"),
        description: "Save an important observation to persistent memory (engram's mem_save, \
            run by cairn's memory_store). Call it after decisions, bug fixes, patterns, \
            configuration changes and discoveries. When the answer says judgment_required, \
            settle each candidate with mem_judge.",
        read_only: false,
        schema: cairn_core::api::schema::<SaveInput>,
    },
    EngramTool {
        name: "mem_search",
        runs: Some("memory_search"),
        description: "Search your persistent memory across all sessions (engram's mem_search, \
            run by cairn's memory_search).",
        read_only: true,
        schema: cairn_core::api::schema::<SearchArgs>,
    },
    EngramTool {
        name: "mem_context",
        runs: Some("memory_context"),
        description: "Get recent memory context from previous sessions (engram's mem_context, \
            run by cairn's memory_context).",
        read_only: true,
        schema: cairn_core::api::schema::<ContextArgs>,
    },
    EngramTool {
        name: "mem_session_summary",
        runs: Some("memory_session_summary"),
        description: "Save the end-of-session summary: ## Goal, ## Discoveries, ## Accomplished, \
            ## Next Steps, ## Relevant Files (engram's mem_session_summary, run by cairn's \
            memory_session_summary).",
        read_only: false,
        schema: cairn_core::api::schema::<SummaryArgs>,
    },
    EngramTool {
        name: "mem_judge",
        runs: Some("memory_judge"),
        description: "Record a verdict on a candidate mem_save returned: its judgment_id and the \
            relation (engram's mem_judge, run by cairn's memory_judge).",
        read_only: false,
        schema: cairn_core::api::schema::<JudgeArgs>,
    },
    EngramTool {
        name: "mem_compare",
        runs: Some("memory_compare"),
        description: "Record a verdict on any two memories: memory_id_a (the newer), \
            memory_id_b, relation, confidence and reasoning of at most 200 characters \
            (engram's mem_compare, run by cairn's memory_compare). Answers {sync_id}.",
        read_only: false,
        schema: cairn_core::api::schema::<CompareArgs>,
    },
    EngramTool {
        name: "mem_save_prompt",
        runs: None,
        description: "Save a user prompt to persistent memory: what the user asked, so future \
            sessions know their goals (engram's mem_save_prompt; recorded as a prompt of the \
            session, as cairn's hooks record one).",
        read_only: false,
        schema: cairn_core::api::schema::<PromptArgs>,
    },
    EngramTool {
        name: "mem_capture_passive",
        runs: None,
        description: "Extract and save structured learnings from text output: the items of a \
            '## Key Learnings:' section (numbered or bulleted) and *Remember*: lines, each one \
            memory; duplicates are detected and skipped, so calling it twice is safe (engram's \
            mem_capture_passive, run as cairn extract).",
        read_only: false,
        schema: cairn_core::api::schema::<CaptureArgs>,
    },
];

/// engram's name for cairn's tool `cairn_tool` (`mem_save` for `memory_store`), when engram
/// has one.
pub fn name_of(cairn_tool: &str) -> Option<&'static str> {
    TOOLS
        .iter()
        .find(|tool| tool.runs == Some(cairn_tool))
        .map(|tool| tool.name)
}

/// Whether `name` is one of engram's tools.
pub fn offers(name: &str) -> bool {
    TOOLS.iter().any(|tool| tool.name == name)
}

/// The first `chars` characters of `text`, with `...` when there was more (engram's
/// truncation of a saved prompt in its answer).
fn preview(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// cairn's input `T`, written in cairn's names.
fn cairn_input<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|error| Error::invalid("arguments", error.to_string()))
}

/// cairn's category for an engram type: `None` (the wording decides) for the kinds engram
/// records by itself (`manual`, `tool_use`, …) and for types it does not know.
fn category(kind: Option<&str>) -> Option<&'static str> {
    match kind?.trim().to_ascii_lowercase().as_str() {
        "decision" | "architecture" => Some("decision"),
        "bugfix" => Some("bugfix"),
        "pattern" => Some("pattern"),
        "config" => Some("config"),
        "discovery" | "learning" => Some("discovery"),
        "preference" => Some("preference"),
        _ => None,
    }
}

/// Whether engram's scope means cairn's global scope.
fn personal(scope: Option<&str>) -> bool {
    scope.is_some_and(|s| s.trim().eq_ignore_ascii_case("personal"))
}

/// A judgment id as engram writes them: `rel-` and 32 hex digits.
pub fn judgment_id(id: &impl std::fmt::Display) -> String {
    format!("rel-{}", id.to_string().replace('-', ""))
}

/// A memory id as engram sends it: a string, or a number written as one.
fn memory_id(field: &str, value: &Value) -> Result<String, Error> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) => Ok(number.to_string()),
        _ => Err(Error::invalid(field, "give the memory's id")),
    }
}

/// `content`'s sections as the summary's fields; text without sections is the goal.
fn summary_fields(content: &str) -> Value {
    let mut fields =
        json!({"goal": "", "discoveries": [], "accomplished": [], "next_steps": [], "files": []});
    let mut section: Option<&str> = None;
    let mut goal = Vec::new();
    for line in content.lines() {
        if let Some(heading) = line.trim().strip_prefix("## ") {
            section = match heading.trim().to_ascii_lowercase().as_str() {
                "goal" => Some("goal"),
                "discoveries" => Some("discoveries"),
                "accomplished" => Some("accomplished"),
                "next steps" => Some("next_steps"),
                "relevant files" | "files" => Some("files"),
                _ => None,
            };
            continue;
        }
        let item = line.trim().trim_start_matches(['-', '*']).trim();
        match section {
            None | Some("goal") if !item.is_empty() => goal.push(item),
            Some(list) if list != "goal" && !item.is_empty() => {
                fields[list]
                    .as_array_mut()
                    .expect("a list")
                    .push(json!(item));
            }
            _ => {}
        }
    }
    fields["goal"] = json!(goal.join(" "));
    fields
}

/// Runs engram tool `name` (which must be one) with `args`. Blocking.
pub fn call(api: &Api, caller: &Caller, name: &str, args: JsonObject) -> Result<Value, Error> {
    match name {
        "mem_save" => {
            let input: SaveInput = arguments(args)?;
            let store: StoreInput = cairn_input(json!({
                "content": input.content,
                "title": input.title,
                "category": category(input.kind.as_deref()),
                "project": input.project.filter(|_| !personal(input.scope.as_deref())),
                "global": personal(input.scope.as_deref()),
                "topic_key": input.topic_key,
            }))?;
            let outcome = api.store(caller, store)?;
            let candidates: Vec<Value> = outcome
                .candidates
                .iter()
                .map(|candidate| {
                    let mut value = json!(candidate);
                    value["judgment_id"] = json!(judgment_id(&candidate.judgment_id));
                    value
                })
                .collect();
            let id = outcome.memory.id.to_string();
            Ok(json!({
                "id": id,
                "sync_id": id,
                "status": outcome.status,
                "title": outcome.memory.title,
                "topic_key": outcome.memory.topic_key,
                "judgment_required": !candidates.is_empty(),
                "judgment_status": if candidates.is_empty() { "not_required" } else { "pending" },
                "judgment_id": candidates.first().map(|c| c["judgment_id"].clone()),
                "candidates": candidates,
            }))
        }
        "mem_search" => {
            let input: SearchArgs = arguments(args)?;
            let search: SearchInput = cairn_input(json!({
                "query": input.query,
                "limit": input.limit.map(|n| n.clamp(1.0, 20.0) as usize),
                "category": category(input.kind.as_deref()),
                "project": input.project.filter(|_| !personal(input.scope.as_deref())),
                "global": personal(input.scope.as_deref()),
            }))?;
            Ok(match api.search(caller, search)? {
                Found::Memories(results) => compact_search(&results),
                Found::Observations(hits) => compact_observations(&hits),
            })
        }
        "mem_context" => {
            let input: ContextArgs = arguments(args)?;
            let context: ContextInput = cairn_input(json!({"project": input.project}))?;
            let context = api.context(caller, context)?;
            Ok(json!({"context": context.text, "tokens": context.tokens}))
        }
        "mem_session_summary" => {
            let input: SummaryArgs = arguments(args)?;
            let mut fields = summary_fields(&input.content);
            fields["project"] = json!(input.project);
            fields["session_id"] = json!(input.session_id);
            let summary: SessionSummaryInput = cairn_input(fields)?;
            let outcome = api.session_summary(caller, summary)?;
            let id = outcome.memory.id.to_string();
            Ok(json!({"id": id, "sync_id": id, "status": outcome.status}))
        }
        "mem_judge" => {
            let input: JudgeArgs = arguments(args)?;
            let judge: JudgeInput = cairn_input(json!({
                "judgment_id": input.judgment_id.trim().trim_start_matches("rel-"),
                "relation": input.relation,
                "reason": input.reason,
                "evidence": input.evidence,
                "confidence": input.confidence,
                "session_id": input.session_id,
            }))?;
            let relation = api.judge(caller, judge)?;
            let mut document = relation_document(&relation);
            document["id"] = json!(judgment_id(&relation.relation.id));
            Ok(
                json!({"status": "judged", "judgment_id": document["id"].clone(), "relation": document}),
            )
        }
        "mem_compare" => {
            let input: CompareArgs = arguments(args)?;
            let reasoning = input.reasoning.trim();
            if reasoning.is_empty() {
                return Err(Error::invalid(
                    "reasoning",
                    "say why, in at most 200 characters",
                ));
            }
            if reasoning.chars().count() > REASONING_CHARS {
                return Err(Error::invalid(
                    "reasoning",
                    format!(
                        "{} characters; at most {REASONING_CHARS}",
                        reasoning.chars().count()
                    ),
                ));
            }
            let compare: CompareInput = cairn_input(json!({
                "a": memory_id("memory_id_a", &input.memory_id_a)?,
                "b": memory_id("memory_id_b", &input.memory_id_b)?,
                "relation": input.relation,
                "reason": reasoning,
                "confidence": input.confidence,
                "model": input.model,
            }))?;
            let compared = api.compare(caller, compare)?;
            Ok(json!({
                "sync_id": compared.relation.as_ref().map(|r| judgment_id(&r.relation.id)),
                "status": compared.status,
            }))
        }
        "mem_save_prompt" => {
            let input: PromptArgs = arguments(args)?;
            let saved = api.save_prompt(
                caller,
                cairn_input(json!({
                    "content": input.content,
                    "session_id": input.session_id,
                    "project": input.project,
                }))?,
            )?;
            Ok(json!({
                "status": "saved",
                "agent": saved.session.agent,
                "session_id": saved.session.id,
                "project": saved.project,
                "message": format!("Prompt saved: {:?}", preview(&input.content, 80)),
            }))
        }
        "mem_capture_passive" => {
            let input: CaptureArgs = arguments(args)?;
            let captured = api.capture(
                caller,
                cairn_input(json!({
                    "content": input.content,
                    "session_id": input.session_id,
                    "project": input.project,
                    "source": input.source,
                }))?,
            )?;
            let ids: Vec<String> = captured
                .outcomes
                .iter()
                .map(|o| o.memory.id.to_string())
                .collect();
            Ok(json!({
                "extracted": captured.extracted,
                "saved": captured.saved,
                "duplicates": captured.duplicates,
                "ids": ids,
                "message": format!(
                    "Passive capture complete: extracted={} saved={} duplicates={}",
                    captured.extracted, captured.saved, captured.duplicates
                ),
            }))
        }
        other => Err(Error::invalid("name", format!("no tool named '{other}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engram_tool_names_a_cairn_tool_that_exists() {
        use cairn_core::config::ToolProfile;
        for tool in TOOLS {
            if let Some(cairn) = tool.runs {
                assert!(crate::tools::offers(ToolProfile::All, cairn), "{cairn}");
                assert_eq!(name_of(cairn), Some(tool.name));
            }
        }
        assert_eq!(name_of("memory_store"), Some("mem_save"));
        assert_eq!(name_of("memory_slot_get"), None);
    }

    #[test]
    fn engram_types_map_to_categories_and_unknown_ones_to_the_wording() {
        assert_eq!(category(Some("architecture")), Some("decision"));
        assert_eq!(category(Some("Learning")), Some("discovery"));
        assert_eq!(category(Some("manual")), None);
        assert_eq!(category(None), None);
    }

    #[test]
    fn a_summary_reads_its_sections_and_plain_text_is_the_goal() {
        let fields = summary_fields(
            "## Goal\nShip the login fix\n\n## Discoveries\n- cookies lacked SameSite\n\n\
             ## Accomplished\n- patched middleware\n## Next Steps\n- add a test\n\
             ## Relevant Files\n- src/auth.ts\n",
        );
        assert_eq!(fields["goal"], "Ship the login fix");
        assert_eq!(fields["discoveries"], json!(["cookies lacked SameSite"]));
        assert_eq!(fields["accomplished"], json!(["patched middleware"]));
        assert_eq!(fields["next_steps"], json!(["add a test"]));
        assert_eq!(fields["files"], json!(["src/auth.ts"]));
        assert_eq!(summary_fields("Fixed the build")["goal"], "Fixed the build");
    }

    #[test]
    fn judgment_ids_are_rel_and_hex() {
        let id = "3f9a0c1b-2d4e-4f60-8a7b-9c0d1e2f3a4b";
        assert_eq!(judgment_id(&id), "rel-3f9a0c1b2d4e4f608a7b9c0d1e2f3a4b");
    }
}
