//! Whether two memories that look alike disagree, and how: the decision behind a conflict
//! candidate.
//!
//! Looking alike (`relation::candidates` finds neighbours by words and meaning) is not
//! disagreeing: a project's rules share domains, verbs ("use", "never") and style without
//! contradicting each other. A neighbour becomes a candidate only when the pair shows one of
//! these, read from the two texts alone (no model, deterministic, explainable):
//!
//! - **change** — the newer memory says something changed: `now`, `no longer`, `moved`,
//!   `migrated`, `replaced`, `was removed`, … (a passive only outside a condition: "if the
//!   schema was changed" states no change). A revision usually revises one fact, so only the
//!   best-scoring neighbours of a changed memory are its candidates (see the detector);
//! - **polarity** — one negates (`never`, `not`, `no`, `don't`, `avoid`, …) a word the other
//!   states plainly, and the rest of the two texts is mostly the same (Dice of their other
//!   significant words at least [`SAME_REST`]): "always squash-merge pull requests" / "never
//!   squash pull requests";
//! - **values** — each holds a value the other lacks (a name, number, version or identifier
//!   outside code spans: `PostgreSQL`/`MySQL`, `30 minutes`/`8 hours`) and the rest is mostly
//!   the same — or the two differ only in one or two words each ("we chose axum" / "we chose
//!   actix for the HTTP server");
//! - **extends** — the newer holds (nearly) every significant word of the older and more: a
//!   refinement that may supersede it.
//!
//! Two list items with different heads (`Unit tests: …` / `Integration tests: …`, `` `yarn
//! build` -- … `` / `` `yarn lint` -- … ``) speak of different subjects and never disagree.
//!
//! The word lists and [`SAME_REST`] were chosen once, on the labelled pairs of
//! `crates/bench/data/conflict-pairs.jsonl` and codemem's development rules (which contradict
//! nothing); `cairn-bench conflicts` reports both and a second set of pairs written apart.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::query::stopwords::is_stop_word;
use crate::query::word_spans;

/// The least Dice overlap of the two texts' other significant words for a difference of
/// polarity or values to count: the pair says the same thing but for that difference.
pub const SAME_REST: f64 = 0.5;
/// Two texts that differ only in this many significant words each, and share at least
/// [`SUBSTITUTION_SUBJECT`] others, give other values for the same subject even when the
/// values look like plain words (`axum` / `actix`).
pub const SUBSTITUTED_WORDS: usize = 2;
pub const SUBSTITUTION_SUBJECT: usize = 3;
/// The least share of the older memory's significant words the newer must hold to extend it.
pub const EXTENDS_COVER: f64 = 0.9;

/// Words that say something changed.
const CHANGE_WORDS: &[&str] = &[
    "anymore",
    "decommissioned",
    "ended",
    "migrated",
    "moved",
    "now",
    "replaced",
    "rewritten",
    "switched",
];
const CHANGE_PHRASES: &[&str] = &[
    "no longer",
    "shut down",
    "turned off",
    "took over",
    "from now on",
    "is gone",
];
/// Words that negate what follows.
const NEGATIONS: &[&str] = &[
    "aren", "avoid", "disable", "disabled", "dislikes", "doesn", "don", "dont", "isn", "never",
    "no", "none", "not", "nothing", "t", "without", "won",
];
/// Words a rule's form is made of, never its subject.
const RULE_WORDS: &[&str] = &[
    "add", "all", "always", "any", "code", "each", "every", "file", "files", "instead", "make",
    "may", "must", "need", "needs", "new", "only", "per", "prefer", "prefers", "run", "runs",
    "sure", "up", "use", "used", "uses", "using",
];
/// Numbers written as words, which are values like digits.
const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
];

/// The stems of the words a rule's form is made of (rule words, negations, change words): set
/// aside when two texts' subjects and the rest of them are compared.
static FORM_STEMS: LazyLock<HashSet<String>> = LazyLock::new(|| {
    RULE_WORDS
        .iter()
        .chain(NEGATIONS)
        .chain(CHANGE_WORDS)
        .map(|w| stem(w))
        .collect()
});
static PASSIVE_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:was|were|has been|have been|is|are|got)(?: now)? (?:removed|deleted|dropped|retired|replaced|decommissioned|changed|lifted|disabled|shut down|turned off|moved|migrated)\b",
    )
    .expect("a valid pattern")
});
static CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:if|when|whenever|unless|once)\b[^.;]*$").expect("a valid pattern")
});
static HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[*`]*([^:\n]{2,60}?)[*`]*\s*(?::[*`]*\s|\s--?\s|\s[–—]\s)")
        .expect("a valid pattern")
});
static REPLACED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:instead of|rather than|replaced|replacing|replaces)\s+(\S+)")
        .expect("a valid pattern")
});
static CODE_SPAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`]*`|\w+\(\)").expect("a valid pattern"));

/// What a memory's text says, as disagreement reads it.
#[derive(Debug, Clone)]
pub struct Reading {
    stems: HashSet<String>,
    /// The first word of the text each stem was made from, to name a subject as written.
    written: HashMap<String, String>,
    negated: HashSet<String>,
    values: Vec<Value>,
    head: Option<HashSet<String>>,
    change: bool,
    /// The stems of values it says were replaced ("Biome instead of ESLint").
    replaced: HashSet<String>,
}

#[derive(Debug, Clone)]
struct Value {
    text: String,
    stems: Vec<String>,
}

impl Reading {
    pub fn of(title: Option<&str>, content: &str) -> Reading {
        let text = match title {
            Some(title) => format!("{title}: {content}"),
            None => content.to_string(),
        };
        let plain = CODE_SPAN.replace_all(&text, " ").into_owned();
        let mut written = HashMap::new();
        for word in significant_words(&text) {
            written.entry(stem(&word)).or_insert(word);
        }
        Reading {
            stems: written.keys().cloned().collect(),
            written,
            negated: negated(&plain),
            values: values(&plain),
            head: HEAD
                .captures(content)
                .map(|c| significant_stems(c.get(1).map_or("", |m| m.as_str()))),
            change: says_changed(&plain.to_lowercase()),
            replaced: REPLACED
                .captures_iter(&plain)
                .filter_map(|c| c.get(1))
                .flat_map(|m| values(m.as_str()))
                .flat_map(|v| v.stems)
                .collect(),
        }
    }
}

/// One way a pair disagrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    Change,
    Polarity,
    Values,
    Extends,
}

/// How a newer memory disagrees with an older one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub signals: Vec<Signal>,
    /// The significant words both hold (other than a rule's form), as the newer writes them.
    pub subject: Vec<String>,
    /// Values only the newer holds, and only the older (for `values`).
    pub newer_values: Vec<String>,
    pub older_values: Vec<String>,
    /// Words one negates and the other states (for `polarity`).
    pub negated: Vec<String>,
}

impl Disagreement {
    /// Only that the newer memory says something changed.
    pub fn is_change_only(&self) -> bool {
        self.signals == [Signal::Change]
    }

    /// One line for people: which subject and what differs.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.subject.is_empty() {
            parts.push(format!("both speak of {}", self.subject.join(", ")));
        }
        for signal in &self.signals {
            parts.push(match signal {
                Signal::Change => "the newer says something changed".to_string(),
                Signal::Polarity => format!(
                    "one negates what the other states ({})",
                    self.negated.join(", ")
                ),
                Signal::Values => format!(
                    "values differ ({} against {})",
                    self.newer_values.join(", "),
                    self.older_values.join(", ")
                ),
                Signal::Extends => "the newer holds the older and says more".to_string(),
            });
        }
        parts.join("; ")
    }
}

/// How `newer` disagrees with `older`, if it does. `alike` is whether the pair reached the
/// candidate floor: below it only a change counts (a changed memory's words may differ from
/// what it replaces: "pipelines moved to GitHub Actions" / "CI runs on Jenkins").
pub fn disagreement(newer: &Reading, older: &Reading, alike: bool) -> Option<Disagreement> {
    if let (Some(a), Some(b)) = (&newer.head, &older.head)
        && a != b
    {
        return None;
    }
    let (a, b) = (&newer.stems, &older.stems);
    let rule = &*FORM_STEMS;
    let mut signals = Vec::new();
    if newer.change || newer.replaced.iter().any(|s| b.contains(s)) {
        signals.push(Signal::Change);
    }
    let mut found = Disagreement {
        signals: Vec::new(),
        subject: sorted(
            a.intersection(b)
                .filter(|w| !rule.contains(*w))
                .map(|w| newer.written.get(w).unwrap_or(w).clone()),
        ),
        newer_values: Vec::new(),
        older_values: Vec::new(),
        negated: Vec::new(),
    };
    if alike {
        let flipped: Vec<String> = sorted(
            newer
                .negated
                .difference(&older.negated)
                .filter(|w| b.contains(*w))
                .chain(
                    older
                        .negated
                        .difference(&newer.negated)
                        .filter(|w| a.contains(*w)),
                )
                .cloned(),
        );
        if !flipped.is_empty() && dice_without(a, b, rule) >= SAME_REST {
            signals.push(Signal::Polarity);
            found.negated = flipped;
        }
        let only = |mine: &Reading, theirs: &HashSet<String>| -> Vec<Value> {
            mine.values
                .iter()
                .filter(|v| !v.stems.iter().any(|s| theirs.contains(s)))
                .cloned()
                .collect()
        };
        let (newer_only, older_only) = (only(newer, b), only(older, a));
        if !newer_only.is_empty() && !older_only.is_empty() {
            let mut set_aside = rule.clone();
            set_aside.extend(
                newer_only
                    .iter()
                    .chain(&older_only)
                    .flat_map(|v| v.stems.iter().cloned()),
            );
            if dice_without(a, b, &set_aside) >= SAME_REST {
                signals.push(Signal::Values);
                found.newer_values = newer_only.into_iter().map(|v| v.text).collect();
                found.older_values = older_only.into_iter().map(|v| v.text).collect();
            }
        }
        if !signals.contains(&Signal::Values)
            && let Some((newer_words, older_words)) = substitution(newer, older, rule)
            && found.subject.len() >= SUBSTITUTION_SUBJECT
        {
            signals.push(Signal::Values);
            found.newer_values = newer_words;
            found.older_values = older_words;
        }
        let held = a.intersection(b).count();
        if b.len() >= 3 && a.len() > b.len() && held as f64 >= EXTENDS_COVER * b.len() as f64 {
            signals.push(Signal::Extends);
        }
    }
    if signals.is_empty() {
        return None;
    }
    found.signals = signals;
    Some(found)
}

/// The words each of two otherwise equal texts holds alone, when each holds one or two: "we
/// chose axum for the HTTP server" / "we chose actix for the HTTP server".
fn substitution(
    newer: &Reading,
    older: &Reading,
    rule: &HashSet<String>,
) -> Option<(Vec<String>, Vec<String>)> {
    let own = |mine: &Reading, theirs: &Reading| -> Vec<String> {
        sorted(
            mine.stems
                .difference(&theirs.stems)
                .filter(|w| !rule.contains(*w))
                .map(|w| mine.written.get(w).unwrap_or(w).clone()),
        )
    };
    let (newer_own, older_own) = (own(newer, older), own(older, newer));
    let few = |words: &[String]| (1..=SUBSTITUTED_WORDS).contains(&words.len());
    (few(&newer_own) && few(&older_own)).then_some((newer_own, older_own))
}

fn sorted(words: impl Iterator<Item = String>) -> Vec<String> {
    let mut words: Vec<String> = words.collect();
    words.sort();
    words.dedup();
    words
}

/// The Dice overlap of two sets of stems, leaving out `set_aside`.
fn dice_without(a: &HashSet<String>, b: &HashSet<String>, set_aside: &HashSet<String>) -> f64 {
    let a: HashSet<&String> = a.iter().filter(|w| !set_aside.contains(*w)).collect();
    let b: HashSet<&String> = b.iter().filter(|w| !set_aside.contains(*w)).collect();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    2.0 * a.intersection(&b).count() as f64 / (a.len() + b.len()) as f64
}

fn lower_words(text: &str) -> Vec<String> {
    word_spans(text).map(str::to_lowercase).collect()
}

/// The significant words of `text`, lowercased (stop words and single characters dropped).
fn significant_words(text: &str) -> impl Iterator<Item = String> {
    lower_words(text)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && !is_stop_word(w))
}

fn significant_stems(text: &str) -> HashSet<String> {
    significant_words(text).map(|w| stem(&w)).collect()
}

/// The words `text` negates: after each negation, the first of the next three words that is
/// neither a stop word, a negation nor `use`.
fn negated(text: &str) -> HashSet<String> {
    let words = lower_words(text);
    let mut out = HashSet::new();
    for (at, word) in words.iter().enumerate() {
        if !NEGATIONS.contains(&word.as_str()) {
            continue;
        }
        if let Some(next) = words.iter().skip(at + 1).take(3).find(|w| {
            !is_stop_word(w)
                && !NEGATIONS.contains(&w.as_str())
                && !matches!(w.as_str(), "use" | "using")
        }) {
            out.insert(stem(next));
        }
    }
    out
}

/// Names, numbers, versions and identifiers: words with a digit, a capital past their first
/// letter (or a capital not starting a sentence), or `/`, `_`, `@` or an inner dot.
fn values(text: &str) -> Vec<Value> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let core = token.trim_matches(|c: char| ".,;:()[]\"'!?*".contains(c));
        let Some(first) = core.chars().next() else {
            continue;
        };
        let code = core.contains(['/', '_', '@'])
            || core
                .char_indices()
                .any(|(i, c)| c == '.' && i > 0 && i + 1 < core.len());
        let digit = core.chars().any(|c| c.is_ascii_digit());
        let starts_sentence = at == 0 || tokens[at - 1].ends_with(['.', ':']);
        let capital = core.chars().skip(1).any(char::is_uppercase)
            || (first.is_uppercase() && !starts_sentence);
        let number = NUMBER_WORDS.contains(&core.to_lowercase().as_str());
        if !(code || digit || capital || number) {
            continue;
        }
        let stems: Vec<String> = lower_words(core)
            .into_iter()
            .filter(|w| !is_stop_word(w))
            .map(|w| stem(&w))
            .collect();
        if !stems.is_empty() {
            out.push(Value {
                text: core.to_string(),
                stems,
            });
        }
    }
    out
}

fn says_changed(lowered: &str) -> bool {
    let words = lower_words(lowered);
    if words.iter().any(|w| CHANGE_WORDS.contains(&w.as_str())) {
        return true;
    }
    if CHANGE_PHRASES.iter().any(|p| lowered.contains(p)) {
        return true;
    }
    PASSIVE_CHANGE
        .find_iter(lowered)
        .any(|m| !CONDITION.is_match(&lowered[..m.start()]))
}

/// A light English stem, enough to let `deploys`/`deployed`/`deploying` meet `deploy`,
/// `running` meet `run` and `cached` meet `cache`.
pub fn stem(word: &str) -> String {
    let n = word.chars().count();
    for (suffix, min, replacement) in [
        ("ies", 5, "y"),
        ("ing", 6, ""),
        ("ed", 5, ""),
        ("es", 5, ""),
        ("s", 4, ""),
    ] {
        if n >= min && word.ends_with(suffix) && !word.ends_with("ss") {
            let mut stemmed = format!("{}{replacement}", &word[..word.len() - suffix.len()]);
            let doubled = {
                let tail: Vec<char> = stemmed.chars().rev().take(2).collect();
                tail.len() == 2 && tail[0] == tail[1] && !"lsz".contains(tail[0])
            };
            if matches!(suffix, "ing" | "ed") && doubled && stemmed.chars().count() >= 3 {
                stemmed.pop();
            }
            return stemmed;
        }
    }
    // `cache`/`cached`, `rebase`/`rebased`: the final e goes where -ed and -ing took it.
    match word.strip_suffix('e') {
        Some(stemmed) if n >= 5 && !stemmed.ends_with(['e', 'i', 'o', 'u', 'a']) => {
            stemmed.to_string()
        }
        _ => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn between(newer: &str, older: &str) -> Option<Disagreement> {
        disagreement(&Reading::of(None, newer), &Reading::of(None, older), true)
    }

    fn signals(newer: &str, older: &str) -> Vec<Signal> {
        between(newer, older).map_or_else(Vec::new, |d| d.signals)
    }

    #[test]
    fn a_change_is_read_from_the_newer_memory() {
        let found = between(
            "The event store runs on MySQL now",
            "Use PostgreSQL for the event store",
        )
        .unwrap();
        assert_eq!(found.signals, [Signal::Change, Signal::Values]);
        assert_eq!(found.subject, ["event", "store"]);
        assert_eq!(
            found.describe(),
            "both speak of event, store; the newer says something changed; \
             values differ (MySQL against PostgreSQL)"
        );
        assert_eq!(
            signals(
                "Node 16 is no longer supported",
                "Tests must pass on Node 16"
            )[0],
            Signal::Change
        );
        assert!(
            signals(
                "Bazel was removed from the build",
                "The monorepo is built with Bazel"
            )
            .contains(&Signal::Change)
        );
        // Naming what a value replaced says so too, when the older memory holds that value.
        assert!(
            signals(
                "We lint JavaScript with Biome instead of ESLint",
                "The linter is ESLint with the Airbnb config"
            )
            .contains(&Signal::Change)
        );
        assert_eq!(
            between(
                "Use type instead of interface",
                "Regenerate code when interface definitions change"
            ),
            None
        );
        // A condition states no change, and code is not prose.
        assert!(
            !Reading::of(
                None,
                "Before committing, if only docs were changed, run the linter"
            )
            .change
        );
        assert!(!Reading::of(None, "Do not call `datetime.now()` in tests").change);
    }

    #[test]
    fn a_flipped_polarity_on_the_same_rule_disagrees() {
        let found = between(
            "Never squash pull requests; keep every commit with a merge commit",
            "Always squash-merge pull requests",
        )
        .unwrap();
        assert_eq!(found.signals, [Signal::Polarity]);
        assert_eq!(found.negated, ["squash"]);
        // Two rules that both say "never" about different things do not.
        assert_eq!(
            between(
                "Never use default exports; use named exports",
                "Never use direct CSS classes or Tailwind"
            ),
            None
        );
    }

    #[test]
    fn other_values_for_the_same_subject_disagree_and_other_subjects_do_not() {
        let found = between(
            "Session cookies expire after 8 hours of inactivity",
            "Session cookies expire after 30 minutes of inactivity",
        )
        .unwrap();
        assert_eq!(found.signals, [Signal::Values]);
        assert_eq!(found.newer_values, ["8"]);
        assert_eq!(found.older_values, ["30"]);
        assert_eq!(
            between(
                "Use optional chaining (?.) instead of &&",
                "Use type instead of interface"
            ),
            None
        );
    }

    #[test]
    fn a_word_substituted_in_the_same_sentence_is_another_value() {
        let found = between(
            "We chose actix for the HTTP server",
            "We chose axum for the HTTP server",
        )
        .unwrap();
        assert_eq!(found.signals, [Signal::Values]);
        assert_eq!(
            (found.newer_values, found.older_values),
            (vec!["actix".to_string()], vec!["axum".to_string()])
        );
    }

    #[test]
    fn list_items_with_different_heads_never_disagree() {
        assert_eq!(
            between(
                "Unit tests: `tests/unit_tests/` (no network calls allowed)",
                "Integration tests: `tests/integration_tests/` (network calls allowed)"
            ),
            None
        );
    }

    #[test]
    fn a_refinement_extends_the_older_memory() {
        assert_eq!(
            signals(
                "Staging database is PostgreSQL 16 with the pgvector extension enabled",
                "Staging database is PostgreSQL"
            ),
            [Signal::Extends]
        );
    }

    #[test]
    fn below_the_floor_only_a_change_counts() {
        let newer = Reading::of(None, "Pipelines moved to GitHub Actions");
        let older = Reading::of(None, "CI runs on Jenkins at ci.internal");
        assert_eq!(
            disagreement(&newer, &older, false).map(|d| d.signals),
            Some(vec![Signal::Change])
        );
        let refined = Reading::of(None, "Staging database is PostgreSQL 16 with pgvector");
        let plain = Reading::of(None, "Staging database is PostgreSQL");
        assert_eq!(disagreement(&refined, &plain, false), None);
    }

    #[test]
    fn stems_let_inflections_meet() {
        assert_eq!(stem("deploys"), "deploy");
        assert_eq!(stem("deploying"), "deploy");
        assert_eq!(stem("deployed"), "deploy");
        assert_eq!(stem("libraries"), "library");
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("cache"), stem("cached"));
        assert_eq!(stem("rebase"), stem("rebased"));
        assert_eq!(stem("free"), "free");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("is"), "is");
    }
}
