//! The LoCoMo protocol (DESIGN.md §5): one store per conversation, every dialog turn one memory
//! (`"<speaker>: <text>"`, its session's date as the memory's time), and for each question of
//! categories 1–4 with evidence, a search with the question text. A hit is a returned turn whose
//! `dia_id` is in the evidence. Evidence ids that match no turn are counted and skipped; a question
//! left with no evidence is counted and skipped. Works on any file of the LoCoMo format.
//!
//! A file whose sessions are projects (codemem's global file: one developer's store holding many
//! repositories' rules) is read with [`Sessions::Projects`]: session `n`'s turns are stored in
//! project `session-n`, and each question is asked from the project of its evidence over every
//! project's memories, as `cairn search --all-projects` run in that project would; a rule of
//! another project that also answers counts as a miss.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use cairn_core::config::SearchConfig;
use cairn_core::embedding::Embedder;
use cairn_core::scope::ProjectName;
use jiff::Timestamp;
use jiff::civil::DateTime;
use serde::Serialize;
use serde_json::Value;

use crate::collection::{Backend, Collection, Document, Mode};
use crate::metrics::{Judgments, QueryScores, Summary, score};

#[derive(Debug, Serialize)]
pub struct LocomoReport {
    pub conversations: usize,
    pub turns: usize,
    pub questions: usize,
    pub skipped_questions_without_evidence: usize,
    pub unmatched_evidence_ids: usize,
    /// How long embedding the turns took, when the semantic modes ran.
    pub embedding: Option<Embedding>,
    pub modes: Vec<ModeReport>,
}

#[derive(Debug, Serialize)]
pub struct ModeReport {
    pub mode: Mode,
    /// Questions cairn refused as invalid queries (each counted as a miss).
    pub refused: usize,
    pub overall: Summary,
    pub by_category: BTreeMap<String, Summary>,
}

/// A measure of a summary, by name.
type Measure = (&'static str, fn(&Summary) -> f64);

impl LocomoReport {
    /// Where fusion (hybrid) ranks worse than one of its signals alone (lexical, semantic) on
    /// R@1, R@5 or MRR overall, e.g. `R@1 0.816 < semantic 0.857`; empty when it never does
    /// (or when hybrid did not run).
    pub fn fusion_shortfalls(&self) -> Vec<String> {
        let find = |name: &str| self.modes.iter().find(|m| m.mode.name() == name);
        let Some(hybrid) = find("hybrid") else {
            return Vec::new();
        };
        let measures: [Measure; 3] = [
            ("R@1", |s| s.mean.recall_any_1),
            ("R@5", |s| s.mean.recall_any_5),
            ("MRR", |s| s.mean.mrr),
        ];
        let mut out = Vec::new();
        for signal in ["lexical", "semantic"].into_iter().filter_map(find) {
            for (measure, value) in measures {
                let (fused, alone) = (value(&hybrid.overall), value(&signal.overall));
                if fused < alone {
                    out.push(format!(
                        "{measure} {fused:.3} < {} {alone:.3}",
                        signal.mode.name()
                    ));
                }
            }
        }
        out
    }
}

const CATEGORY_NAMES: [&str; 5] = [
    "multi-hop",
    "temporal",
    "open-domain",
    "single-hop",
    "adversarial",
];

/// What a file's sessions are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sessions {
    /// Parts of one conversation (LoCoMo): every turn is a global memory, and a question is
    /// asked from no project.
    #[default]
    Conversation,
    /// Projects: session `n` is project `session-n`, and a question is asked from the project
    /// of its evidence.
    Projects,
}

/// `1:56 pm on 8 May, 2023` → a timestamp (taken as UTC; only the order matters here).
fn session_time(text: &str) -> Result<Timestamp> {
    let normalised = text.trim().to_uppercase().replace("  ", " ");
    let parsed = DateTime::strptime("%I:%M %p ON %d %B, %Y", &normalised)
        .with_context(|| format!("unreadable session date '{text}'"))?;
    Ok(parsed.to_zoned(jiff::tz::TimeZone::UTC)?.timestamp())
}

fn turns(conversation: &Value, sessions: Sessions) -> Result<Vec<Document>> {
    let object = conversation
        .as_object()
        .context("conversation is not an object")?;
    let mut documents = Vec::new();
    for (key, session) in object {
        let Some(number) = key
            .strip_prefix("session_")
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
        else {
            continue;
        };
        let date = object
            .get(&format!("session_{number}_date_time"))
            .and_then(Value::as_str)
            .with_context(|| format!("session_{number} has no date"))?;
        let created_at = session_time(date)?;
        let project = match sessions {
            Sessions::Conversation => None,
            Sessions::Projects => Some(ProjectName::new(&format!("session-{number}"))?),
        };
        for turn in session.as_array().context("a session is not a list")? {
            let (Some(speaker), Some(dia_id), Some(text)) = (
                turn.get("speaker").and_then(Value::as_str),
                turn.get("dia_id").and_then(Value::as_str),
                turn.get("text").and_then(Value::as_str),
            ) else {
                continue;
            };
            documents.push(Document {
                key: dia_id.to_string(),
                title: None,
                content: format!("{speaker}: {text}"),
                created_at,
                project: project.clone(),
            });
        }
    }
    Ok(documents)
}

/// Every turn's text (`"<speaker>: <text>"`) and every question of a LoCoMo-format file, for
/// workloads that want real text without the protocol.
pub fn texts(path: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let samples: Vec<Value> =
        serde_json::from_str(&text).context("not a LoCoMo JSON file (a list of samples)")?;
    let (mut turns_out, mut questions) = (Vec::new(), Vec::new());
    for sample in &samples {
        let conversation = sample
            .get("conversation")
            .context("a sample has no conversation")?;
        turns_out.extend(
            turns(conversation, Sessions::Conversation)?
                .into_iter()
                .map(|d| d.content),
        );
        questions.extend(
            sample
                .get("qa")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|qa| qa.get("question").and_then(Value::as_str))
                .map(str::to_string),
        );
    }
    Ok((turns_out, questions))
}

/// The turns' texts (without the speaker) of a LoCoMo-format file, one list per session of
/// each sample, in order: codemem's repositories, each one project's rules.
pub fn sessions_texts(path: &Path) -> Result<Vec<Vec<String>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let samples: Vec<Value> =
        serde_json::from_str(&text).context("not a LoCoMo JSON file (a list of samples)")?;
    let mut groups = Vec::new();
    for sample in &samples {
        let conversation = sample
            .get("conversation")
            .and_then(Value::as_object)
            .context("a sample has no conversation")?;
        for (key, session) in conversation {
            if !key
                .strip_prefix("session_")
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
            {
                continue;
            }
            let texts = session
                .as_array()
                .context("a session is not a list")?
                .iter()
                .filter_map(|turn| turn.get("text").and_then(Value::as_str))
                .map(str::to_string)
                .collect();
            groups.push(texts);
        }
    }
    Ok(groups)
}

/// How deep each mode's ranking is written by `--dump`.
pub const DUMP_DEPTH: usize = 50;

/// Embedding cost of a retrieval run.
#[derive(Debug, Clone, Serialize)]
pub struct Embedding {
    pub model: String,
    pub memories: usize,
    pub seconds: f64,
    pub per_second: f64,
}

/// Runs every question in every mode that can run (the semantic ones with `embedder`).
pub fn run(
    path: &Path,
    sessions: Sessions,
    embedder: Option<Arc<dyn Embedder>>,
    search: &SearchConfig,
    backend: &Backend,
    mut dump: Option<&mut dyn std::io::Write>,
) -> Result<LocomoReport> {
    let modes = Mode::available(embedder.is_some());
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let samples: Vec<Value> =
        serde_json::from_str(&text).context("not a LoCoMo JSON file (a list of samples)")?;
    if samples.is_empty() {
        bail!("{} holds no conversations", path.display());
    }
    let mut all: BTreeMap<&str, Vec<QueryScores>> = BTreeMap::new();
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_category: BTreeMap<(&str, String), Vec<QueryScores>> = BTreeMap::new();
    let (mut turns_total, mut skipped, mut unmatched, mut questions) = (0, 0, 0, 0);
    let mut embed_seconds = 0.0;
    for sample in &samples {
        let documents = turns(
            sample
                .get("conversation")
                .context("a sample has no conversation")?,
            sessions,
        )?;
        let known: HashMap<String, Option<ProjectName>> = documents
            .iter()
            .map(|d| (d.key.clone(), d.project.clone()))
            .collect();
        turns_total += documents.len();
        let collection = Collection::load(documents, embedder.clone(), search, backend)?;
        embed_seconds += collection.embed_seconds;
        for qa in sample
            .get("qa")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let category = qa.get("category").and_then(Value::as_u64).unwrap_or(0);
            if !(1..=4).contains(&category) {
                continue;
            }
            let question = qa
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut judged = Judgments::new();
            // Asked from the project of its (first) evidence, when sessions are projects.
            let mut from: Option<ProjectName> = None;
            for evidence in qa
                .get("evidence")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for id in evidence
                    .as_str()
                    .unwrap_or_default()
                    .split(';')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                {
                    if let Some(project) = known.get(id) {
                        judged.insert(id.to_string(), 1.0);
                        from = from.or_else(|| project.clone());
                    } else {
                        unmatched += 1;
                    }
                }
            }
            if judged.is_empty() {
                skipped += 1;
                continue;
            }
            questions += 1;
            if let Some(out) = dump.as_mut() {
                let mut line = serde_json::json!({
                    "question": question,
                    "category": category,
                    "relevant": judged.keys().collect::<Vec<_>>(),
                });
                for &mode in &modes {
                    line[mode.name()] = serde_json::json!(collection.scored(
                        question,
                        DUMP_DEPTH,
                        mode,
                        from.as_ref()
                    )?);
                }
                writeln!(out, "{line}")?;
            }
            let name = format!("{category}-{}", CATEGORY_NAMES[category as usize - 1]);
            for &mode in &modes {
                let found = collection
                    .ranked(question, 10, mode, from.as_ref())?
                    .unwrap_or_else(|| {
                        *refused.entry(mode.name()).or_default() += 1;
                        Vec::new()
                    });
                let keys: Vec<String> = found.into_iter().map(|(key, _)| key).collect();
                let scores = score(&keys, &judged);
                all.entry(mode.name()).or_default().push(scores);
                by_category
                    .entry((mode.name(), name.clone()))
                    .or_default()
                    .push(scores);
            }
        }
    }
    let embedding = embedder.map(|embedder| Embedding {
        model: embedder.identity().to_string(),
        memories: turns_total,
        seconds: embed_seconds,
        per_second: turns_total as f64 / embed_seconds.max(f64::MIN_POSITIVE),
    });
    let modes = modes
        .into_iter()
        .map(|mode| ModeReport {
            mode,
            refused: refused.get(mode.name()).copied().unwrap_or(0),
            overall: Summary::of(&all[mode.name()]),
            by_category: by_category
                .iter()
                .filter(|((m, _), _)| *m == mode.name())
                .map(|((_, category), scores)| (category.clone(), Summary::of(scores)))
                .collect(),
        })
        .collect();
    Ok(LocomoReport {
        conversations: samples.len(),
        turns: turns_total,
        questions,
        skipped_questions_without_evidence: skipped,
        unmatched_evidence_ids: unmatched,
        embedding,
        modes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_shortfalls_name_the_measure_and_the_signal() {
        let mode = |mode, r1, r5, mrr| ModeReport {
            mode,
            refused: 0,
            overall: Summary {
                queries: 10,
                mean: QueryScores {
                    recall_any_1: r1,
                    recall_any_5: r5,
                    mrr,
                    ..QueryScores::default()
                },
            },
            by_category: BTreeMap::new(),
        };
        let report = |modes| LocomoReport {
            conversations: 1,
            turns: 1,
            questions: 10,
            skipped_questions_without_evidence: 0,
            unmatched_evidence_ids: 0,
            embedding: None,
            modes,
        };
        let worse = report(vec![
            mode(Mode::Lexical, 0.7, 0.9, 0.8),
            mode(Mode::Semantic, 0.8, 0.9, 0.85),
            mode(Mode::Hybrid, 0.75, 0.95, 0.85),
        ]);
        assert_eq!(worse.fusion_shortfalls(), ["R@1 0.750 < semantic 0.800"]);
        let better = report(vec![
            mode(Mode::Lexical, 0.7, 0.9, 0.8),
            mode(Mode::Hybrid, 0.75, 0.95, 0.85),
        ]);
        assert!(better.fusion_shortfalls().is_empty());
    }

    #[test]
    fn session_dates_parse() {
        assert_eq!(
            session_time("1:56 pm on 8 May, 2023").unwrap().to_string(),
            "2023-05-08T13:56:00Z"
        );
        assert_eq!(
            session_time("10:37 am on 27 June, 2023")
                .unwrap()
                .to_string(),
            "2023-06-27T10:37:00Z"
        );
    }
}
