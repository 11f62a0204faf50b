//! Extraction: `*Remember*: …` lines in an agent's output become memories.
//!
//! An agent that follows the memory protocol marks what is worth keeping with a line such as
//! `*Remember*: the staging DB is PostgreSQL 16, valid until Q1 2027`. Each such line (the
//! marker emphasised with `*`, `**` or `_`, optionally in a list item or quote) is one fact.
//! A fact gets tags for the technologies it names and for the kind of knowledge it is
//! (troubleshooting, performance, security), a category guessed from its wording, and an expiry
//! when it says one: `valid until <date>` or `expires <date>` (any date `dates` reads),
//! `temporary` (90 days), or a quarter such as `Q1 2026` (the quarter's last second).

use std::sync::LazyLock;

use jiff::civil::Date;
use jiff::{Span, Timestamp, Zoned};
use regex::Regex;

use crate::dates::parse_time;
use crate::memory::Category;
use crate::memory::NewMemory;
use crate::memory::Source;
use crate::scope::Scope;

/// How long a fact marked `temporary` is kept.
pub const TEMPORARY_DAYS: i64 = 90;

/// One fact found in agent output.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub text: String,
    pub category: Category,
    pub tags: Vec<String>,
    pub expires_at: Option<Timestamp>,
}

impl Fact {
    /// The memory this fact becomes.
    pub fn into_new_memory(
        self,
        scope: Scope,
        entered_by: Option<String>,
        session_id: Option<String>,
    ) -> NewMemory {
        let mut new = NewMemory::new(self.text, scope, Source::Extract);
        new.category = self.category;
        new.tags = self.tags;
        new.expires_at = self.expires_at;
        new.entered_by = entered_by;
        new.session_id = session_id;
        new
    }
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[ \t]*(?:(?:[-*+>]|\d+\.)[ \t]+)*(?:\*\*|\*|__|_)remember(?:\*\*|\*|__|_)?[ \t]*:[ \t]*(?:\*\*|\*|__|_)?[ \t]*(?P<fact>\S.*?)[ \t]*$",
    )
    .expect("the marker pattern is valid")
});

static QUARTER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bQ([1-4])[ \t]+(\d{4})\b").expect("valid"));

static STATED_EXPIRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:valid until|expires(?: on| at)?)[ \t]+(?P<when>[^,;()]+)").expect("valid")
});

static TEMPORARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\btemporar(?:y|ily)\b").expect("valid"));

/// Technologies recognised as tags: (words that name it, the tag).
const TECHNOLOGIES: &[(&[&str], &str)] = &[
    (&["rust", "cargo", "rustc"], "rust"),
    (&["python", "pip", "pytest", "poetry"], "python"),
    (&["javascript", "js"], "javascript"),
    (&["typescript", "ts", "tsc"], "typescript"),
    (
        &["node", "nodejs", "node.js", "npm", "pnpm", "yarn"],
        "node",
    ),
    (&["bun"], "bun"),
    (&["deno"], "deno"),
    (&["golang"], "go"),
    (&["java", "maven", "gradle"], "java"),
    (&["kotlin"], "kotlin"),
    (&["swift"], "swift"),
    (&["ruby", "rails"], "ruby"),
    (&["php"], "php"),
    (&["docker", "dockerfile", "compose"], "docker"),
    (&["kubernetes", "k8s", "kubectl", "helm"], "kubernetes"),
    (&["postgres", "postgresql", "psql", "pgvector"], "postgres"),
    (&["mysql", "mariadb"], "mysql"),
    (&["sqlite"], "sqlite"),
    (&["redis"], "redis"),
    (&["mongodb", "mongo"], "mongodb"),
    (&["react", "jsx", "tsx"], "react"),
    (&["vue"], "vue"),
    (&["svelte"], "svelte"),
    (&["nextjs", "next.js"], "nextjs"),
    (&["django"], "django"),
    (&["flask"], "flask"),
    (&["fastapi"], "fastapi"),
    (&["terraform"], "terraform"),
    (&["aws", "s3", "lambda", "ec2"], "aws"),
    (&["gcp", "bigquery"], "gcp"),
    (&["azure"], "azure"),
    (&["git", "github", "gitlab"], "git"),
    (&["nginx"], "nginx"),
    (&["graphql"], "graphql"),
    (&["grpc", "protobuf"], "grpc"),
    (&["kafka"], "kafka"),
    (&["elasticsearch", "opensearch"], "elasticsearch"),
    (&["webpack", "vite", "esbuild"], "bundler"),
    (&["tailwind", "css"], "css"),
    (&["wasm", "webassembly"], "wasm"),
    (&["linux", "systemd", "bash"], "linux"),
];

const TROUBLESHOOTING: &[&str] = &[
    "error",
    "errors",
    "bug",
    "bugs",
    "fix",
    "fixed",
    "fixes",
    "crash",
    "crashes",
    "fails",
    "failed",
    "failing",
    "failure",
    "broken",
    "workaround",
    "debug",
    "exception",
    "panic",
    "panics",
    "regression",
    "flaky",
    "root cause",
];
const PERFORMANCE: &[&str] = &[
    "slow",
    "slower",
    "faster",
    "latency",
    "throughput",
    "performance",
    "perf",
    "memory leak",
    "cpu",
    "optimise",
    "optimize",
    "optimised",
    "optimized",
    "benchmark",
    "p99",
    "p95",
    "cache",
    "caching",
];
const SECURITY: &[&str] = &[
    "security",
    "vulnerability",
    "vulnerable",
    "cve",
    "xss",
    "csrf",
    "injection",
    "auth",
    "authentication",
    "authorization",
    "token",
    "tokens",
    "secret",
    "secrets",
    "password",
    "credential",
    "credentials",
    "encrypt",
    "encryption",
    "tls",
    "ssl",
    "permission",
    "permissions",
];

/// Every `*Remember*:` fact in `text`, in order; expiry phrases are read against `now`.
pub fn facts(text: &str, now: &Zoned) -> Vec<Fact> {
    MARKER
        .captures_iter(text)
        .filter_map(|captures| {
            let fact = captures["fact"]
                .trim_end_matches(['*', '_'])
                .trim()
                .to_string();
            (!fact.is_empty()).then(|| Fact {
                category: category(&fact),
                tags: tags(&fact),
                expires_at: expiry(&fact, now),
                text: fact,
            })
        })
        .collect()
}

/// Lower-case words of `text`, keeping the dots and pluses inside names (`node.js`, `c++`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '+'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn mentions(text_words: &[String], lowered: &str, vocabulary: &[&str]) -> bool {
    vocabulary.iter().any(|term| {
        if term.contains(' ') {
            lowered.contains(term)
        } else {
            text_words.iter().any(|w| w == term)
        }
    })
}

/// Technology tags, then the kinds of knowledge, each once.
pub fn tags(text: &str) -> Vec<String> {
    let lowered = text.to_lowercase();
    let text_words = words(text);
    let mut tags: Vec<String> = Vec::new();
    for (names, tag) in TECHNOLOGIES {
        if mentions(&text_words, &lowered, names) && !tags.iter().any(|t| t == tag) {
            tags.push((*tag).to_string());
        }
    }
    for (vocabulary, tag) in [
        (TROUBLESHOOTING, "troubleshooting"),
        (PERFORMANCE, "performance"),
        (SECURITY, "security"),
    ] {
        if mentions(&text_words, &lowered, vocabulary) {
            tags.push(tag.to_string());
        }
    }
    tags
}

/// The category the wording suggests; `fact` by default.
fn category(text: &str) -> Category {
    let lowered = text.to_lowercase();
    let text_words = words(text);
    if lowered.contains("prefer") {
        Category::Preference
    } else if lowered.contains("decided") || lowered.contains("decision") {
        Category::Decision
    } else if mentions(&text_words, &lowered, TROUBLESHOOTING) {
        Category::Bugfix
    } else {
        Category::Fact
    }
}

/// The expiry the fact states: an explicit date first, then a quarter, then `temporary`.
pub fn expiry(text: &str, now: &Zoned) -> Option<Timestamp> {
    if let Some(captures) = STATED_EXPIRY.captures(text) {
        let when = captures["when"].trim().trim_end_matches('.');
        if let Some(quarter) = QUARTER.captures(when) {
            return quarter_end(&quarter[1], &quarter[2], now);
        }
        // The date may be followed by more words: try the longest prefix that reads as one.
        let parts: Vec<&str> = when.split_whitespace().take(6).collect();
        for length in (1..=parts.len()).rev() {
            if let Ok(at) = parse_time("expires", &parts[..length].join(" "), now) {
                return Some(at);
            }
        }
    }
    if let Some(quarter) = QUARTER.captures(text) {
        return quarter_end(&quarter[1], &quarter[2], now);
    }
    if TEMPORARY.is_match(text) {
        return now
            .checked_add(Span::new().days(TEMPORARY_DAYS))
            .ok()
            .map(|z| z.timestamp());
    }
    None
}

/// The last second of quarter `q` of `year`, in `now`'s time zone.
fn quarter_end(q: &str, year: &str, now: &Zoned) -> Option<Timestamp> {
    let q: i8 = q.parse().ok()?;
    let year: i16 = year.parse().ok()?;
    let (next_year, next_month) = if q == 4 {
        (year + 1, 1)
    } else {
        (year, q * 3 + 1)
    };
    let next = Date::new(next_year, next_month, 1).ok()?;
    let start = next.to_zoned(now.time_zone().clone()).ok()?;
    start
        .checked_sub(Span::new().seconds(1))
        .ok()
        .map(|z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        "2026-02-10T12:00:00+00:00[UTC]".parse().unwrap()
    }

    #[test]
    fn remember_lines_in_any_emphasis_are_facts_and_other_lines_are_not() {
        let text = "Done.\n*Remember*: the API uses pnpm, not npm\n- **Remember**: CI needs Docker 25\n\
                    > _Remember_: *prefer tabs*\nRemember to run tests\nI will remember: nothing\n\
                    *Remember*:   \n";
        let found: Vec<String> = facts(text, &now()).into_iter().map(|f| f.text).collect();
        assert_eq!(
            found,
            [
                "the API uses pnpm, not npm",
                "CI needs Docker 25",
                "prefer tabs"
            ]
        );
    }

    #[test]
    fn tags_name_technologies_and_kinds_of_knowledge() {
        assert_eq!(
            tags("Postgres on k8s crashes when the pool is exhausted; workaround: pgbouncer"),
            ["kubernetes", "postgres", "troubleshooting"]
        );
        assert_eq!(
            tags("Rotate the GitHub token monthly; the API is slow with TLS renegotiation"),
            ["git", "performance", "security"]
        );
        assert!(tags("The meeting is on Tuesdays").is_empty());
        // Whole words only: "gossip" is not go, "trusted" is not rust.
        assert!(tags("trusted gossip").is_empty());
    }

    #[test]
    fn expiry_reads_dates_quarters_and_temporary() {
        let now = now();
        let at = |text: &str| expiry(text, &now).map(|t| t.to_string());
        assert_eq!(
            at("staging uses the old DB, valid until 2026-03-01").as_deref(),
            Some("2026-03-01T00:00:00Z")
        );
        assert_eq!(
            at("the beta flag expires in 2 weeks, then remove it").as_deref(),
            Some("2026-02-24T12:00:00Z")
        );
        assert_eq!(
            at("the freeze holds through Q1 2026").as_deref(),
            Some("2026-03-31T23:59:59Z")
        );
        assert_eq!(
            at("pricing valid until Q4 2026").as_deref(),
            Some("2026-12-31T23:59:59Z")
        );
        assert_eq!(
            at("a temporary workaround for the flaky test").as_deref(),
            Some("2026-05-11T12:00:00Z")
        );
        assert_eq!(at("the port is 8080"), None);
    }

    #[test]
    fn categories_follow_the_wording() {
        let of = |text: &str| facts(&format!("*Remember*: {text}"), &now())[0].category;
        assert_eq!(of("the user prefers short answers"), Category::Preference);
        assert_eq!(of("we decided on SQLite"), Category::Decision);
        assert_eq!(of("the build fails without LLVM 18"), Category::Bugfix);
        assert_eq!(of("the port is 8080"), Category::Fact);
    }
}
