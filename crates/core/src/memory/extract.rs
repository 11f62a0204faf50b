//! Extraction: `*Remember*: …` lines, and the items of a `## Key Learnings` section, in an
//! agent's output become memories.
//!
//! An agent that follows the memory protocol marks what is worth keeping with a line such as
//! `*Remember*: the staging DB is PostgreSQL 16, valid until Q1 2027`. Each such line (the
//! marker emphasised with `*`, `**` or `_`, optionally in a list item or quote; the colon may
//! be left out after a closed emphasis, `*Remember* the key rotates monthly`) is one fact. A
//! fact goes on over the lines that follow it while they are indented under it (a wrapped
//! list item), or, when its first line ends with a colon, over the lines up to the next blank
//! line (`*Remember*: deploy steps:` and a list), each line kept as a line.
//!
//! A heading `Key Learnings` (any level, a colon allowed; engram's Spanish `Aprendizajes Clave`
//! too) opens a section whose numbered or bulleted items are facts each, a wrapped item going on
//! over the lines indented under it; the section ends at the next heading, a fence, or a line
//! that is neither an item nor indented.
//!
//! A fact gets tags for the technologies it names and for the kind of knowledge it is
//! (troubleshooting, performance, security), a category guessed from its wording, and an expiry
//! when it says one: `until <date>`, `valid until <date>` or `expires <date>` (any date `dates`
//! reads, or a month: `until April 2027` is the month's last second, `until April 15, 2027` the
//! start of that day), `temporary` or `temp` (90 days), or a quarter such as `Q1 2026` (the
//! quarter's last second).

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

/// One line holding the marker: `*Remember*:`, `**Remember:**`, `*Remember*` (no colon after
/// a closed emphasis), in a list item or a quote.
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?P<lead>[ \t]*(?:(?:[-*+>]|\d+\.)[ \t]+)*)(?:\*\*|\*|__|_)remember(?:(?:\*\*|\*|__|_)(?:[ \t]*:|[ \t]+)|[ \t]*:)[ \t]*(?:\*\*|\*|__|_)?[ \t]*(?P<fact>\S.*?)[ \t]*$",
    )
    .expect("the marker pattern is valid")
});

/// A heading that opens a section of learnings: `## Key Learnings:`, `### Aprendizajes Clave`.
static LEARNINGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^[ \t]{0,3}#{1,6}[ \t]+(?:key[ \t]+learnings|aprendizajes[ \t]+clave)[ \t]*:?[ \t]*#*[ \t]*$",
    )
    .expect("the learnings heading pattern is valid")
});

/// A numbered or bulleted item: `1. …`, `2) …`, `- …`, `* …`, `+ …`.
static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<lead>[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+)(?P<item>\S.*?)[ \t]*$")
        .expect("the item pattern is valid")
});

/// A month named with its year, and perhaps a day: `April 2027`, `April 15, 2027`,
/// `15 April 2027`.
static MONTH_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?P<day_before>\d{1,2})(?:st|nd|rd|th)?[ \t]+)?(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:[ \t]+(?P<day_after>\d{1,2})(?:st|nd|rd|th)?)?,?[ \t]+(?P<year>\d{4})\b",
    )
    .expect("valid")
});

static QUARTER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bQ([1-4])[ \t]+(\d{4})\b").expect("valid"));

static STATED_EXPIRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:until|till|expires(?: on| at)?)[ \t]+(?P<when>[^;()\n]+)").expect("valid")
});

/// `temporary`, `temporarily` or `temp`.
static TEMPORARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:temporar(?:y|ily)|temp)\b").expect("valid"));

/// Words after `temp` that make it part of a name (`temp dir`), not a lifetime.
const TEMP_NOUNS: &[&str] = &[
    "dir",
    "directory",
    "dirs",
    "folder",
    "file",
    "files",
    "path",
    "table",
    "tables",
    "var",
    "variable",
];

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
    (&["nix", "nixos", "nixpkgs", "home-manager"], "nix"),
    (&["zig"], "zig"),
    (&["c++", "cpp", "cmake", "clang"], "cpp"),
    (&["c#", "csharp", "dotnet", ".net"], "dotnet"),
    (&["elixir", "phoenix"], "elixir"),
    (&["haskell", "cabal", "ghc"], "haskell"),
    (&["ansible"], "ansible"),
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

/// Every `*Remember*:` fact and every item of a learnings section in `text`, in order; expiry
/// phrases are read against `now`.
pub fn facts(text: &str, now: &Zoned) -> Vec<Fact> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut in_learnings = false;
    let mut next = 0;
    while next < lines.len() {
        let line = lines[next];
        next += 1;
        if LEARNINGS.is_match(line) {
            in_learnings = true;
            continue;
        }
        let (mut fact, lead, introduces_lines) = if let Some(captures) = MARKER.captures(line) {
            let fact = captures["fact"].to_string();
            let introduces = fact.trim_end_matches(['*', '_']).ends_with(':');
            (fact, captures["lead"].chars().count(), introduces)
        } else if let Some(captures) = ITEM.captures(line).filter(|_| in_learnings) {
            (
                captures["item"].to_string(),
                captures["lead"].chars().count(),
                false,
            )
        } else {
            let trimmed = line.trim_start();
            let indented = trimmed.len() < line.len();
            if !trimmed.is_empty() && (!indented || trimmed.starts_with(['#', '`', '~'])) {
                in_learnings = false;
            }
            continue;
        };
        while let Some(line) = lines.get(next) {
            if !continues_fact(line, lead, introduces_lines) {
                break;
            }
            fact.push('\n');
            fact.push_str(line.trim());
            next += 1;
        }
        let fact = fact.trim_end_matches(['*', '_']).trim().to_string();
        if !fact.is_empty() {
            found.push(Fact {
                category: category(&fact),
                tags: tags(&fact),
                expires_at: expiry(&fact, now),
                text: fact,
            });
        }
    }
    found
}

/// Whether `line` goes on with a fact whose marker line had `lead` characters before the
/// marker: indented under it (a wrapped list item), or any line after a first line that ends
/// with a colon. A blank line, a heading, a fence or another marker ends a fact.
fn continues_fact(line: &str, lead: usize, introduces_lines: bool) -> bool {
    let trimmed = line.trim_start();
    if trimmed.is_empty() || trimmed.starts_with(['#', '`', '~']) || MARKER.is_match(line) {
        return false;
    }
    let indent = line.len() - trimmed.len();
    introduces_lines || indent >= lead.max(1)
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

/// The category the wording suggests (`memory::category`); `fact` by default.
fn category(text: &str) -> Category {
    crate::memory::category::infer(text).unwrap_or(Category::Fact)
}

/// The expiry the fact states: an explicit date first (a quarter, a month, any date `dates`
/// reads), then a quarter anywhere, then `temporary`.
pub fn expiry(text: &str, now: &Zoned) -> Option<Timestamp> {
    for captures in STATED_EXPIRY.captures_iter(text) {
        let when = captures["when"].trim();
        if let Some(quarter) = QUARTER.captures(when) {
            return quarter_end(&quarter[1], &quarter[2], now);
        }
        if let Some(at) = month_date(when, now) {
            return Some(at);
        }
        // The date may be followed by more words: try the longest prefix that reads as one.
        let parts: Vec<&str> = when.split_whitespace().take(6).collect();
        for length in (1..=parts.len()).rev() {
            let phrase = parts[..length].join(" ");
            if let Ok(at) = parse_time("expires", phrase.trim_end_matches([',', '.']), now) {
                return Some(at);
            }
        }
    }
    if let Some(quarter) = QUARTER.captures(text) {
        return quarter_end(&quarter[1], &quarter[2], now);
    }
    if TEMPORARY
        .find_iter(text)
        .any(|word| !part_of_a_name(text, word))
    {
        return now
            .checked_add(Span::new().days(TEMPORARY_DAYS))
            .ok()
            .map(|z| z.timestamp());
    }
    None
}

/// Whether the word found in `text` is part of a name rather than a lifetime: joined to
/// another word (`/tmp/temp`, `temp.txt`, `temp-dir`) or naming a thing (`temp dir`).
fn part_of_a_name(text: &str, word: regex::Match) -> bool {
    let before = text[..word.start()].chars().next_back();
    let after = &text[word.end()..];
    let joined_after =
        after.starts_with(['.', '/', '-']) && after[1..].starts_with(|c: char| c.is_alphanumeric());
    let next = after
        .strip_prefix([' ', '\t'])
        .map(|rest| {
            rest.split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("")
        })
        .unwrap_or("")
        .to_lowercase();
    matches!(before, Some('/' | '.' | '-')) || joined_after || TEMP_NOUNS.contains(&next.as_str())
}

/// A month with its year at the start of `when`: the month's last second, or with a day,
/// the start of that day, in `now`'s time zone.
fn month_date(when: &str, now: &Zoned) -> Option<Timestamp> {
    let captures = MONTH_DATE.captures(when)?;
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month_name = captures["month"].to_lowercase();
    let month = months.iter().position(|m| month_name.starts_with(m))? as i8 + 1;
    let year: i16 = captures["year"].parse().ok()?;
    let zone = now.time_zone().clone();
    match captures.name("day_before").or(captures.name("day_after")) {
        Some(day) => {
            let date = Date::new(year, month, day.as_str().parse().ok()?).ok()?;
            date.to_zoned(zone).ok().map(|z| z.timestamp())
        }
        None => {
            let first = Date::new(year, month, 1).ok()?;
            let next = first.checked_add(Span::new().months(1)).ok()?;
            let start = next.to_zoned(zone).ok()?;
            start
                .checked_sub(Span::new().seconds(1))
                .ok()
                .map(|z| z.timestamp())
        }
    }
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
    fn the_items_of_a_key_learnings_section_are_facts_until_the_section_ends() {
        let text = "Done with the migration.\n\n## Key Learnings:\n\n\
                    1. The staging database is PostgreSQL 16\n\
                    2) Migrations run with `sqlx migrate run`,\n   never by hand\n\
                    - Redis holds sessions only\n\
                    - *Remember*: CI needs Docker 25\n\
                    \n## Next steps\n- deploy on Friday\n\
                    ### Aprendizajes Clave\n* El cache expira cada hora\nThat is all.\n\
                    - not in a section\n# Key learnings about nothing\n- also not one";
        let found: Vec<String> = facts(text, &now()).into_iter().map(|f| f.text).collect();
        assert_eq!(
            found,
            [
                "The staging database is PostgreSQL 16",
                "Migrations run with `sqlx migrate run`,\nnever by hand",
                "Redis holds sessions only",
                "CI needs Docker 25",
                "El cache expira cada hora",
            ]
        );
    }

    #[test]
    fn a_closed_emphasis_needs_no_colon() {
        let text = "*Remember* the deploy key rotates monthly\n**Remember** CI runs on ARM\n\
                    *Remember*\n*Remembered* nothing\n_remember_ing";
        let found: Vec<String> = facts(text, &now()).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["the deploy key rotates monthly", "CI runs on ARM"]);
    }

    #[test]
    fn a_fact_goes_on_over_indented_lines_and_after_a_colon_up_to_a_blank_line() {
        let text = "- *Remember*: the release script signs with the 2026 key\n  \
                    and uploads to the mirror first\n- next item\n\
                    *Remember*: deploy steps:\n1. build the image\n2. push it\n\nDone.\n\
                    *Remember*: staging is PostgreSQL 16\nI updated the workflow.\n\
                    *Remember*: one\n*Remember*: two\n    ## not a heading of the fact";
        let found: Vec<String> = facts(text, &now()).into_iter().map(|f| f.text).collect();
        assert_eq!(
            found,
            [
                "the release script signs with the 2026 key\nand uploads to the mirror first",
                "deploy steps:\n1. build the image\n2. push it",
                "staging is PostgreSQL 16",
                "one",
                "two",
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
        assert_eq!(tags("On NixOS the dev shell comes from the flake"), ["nix"]);
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
        assert_eq!(
            at("the old endpoint answers until April 2027").as_deref(),
            Some("2027-04-30T23:59:59Z")
        );
        assert_eq!(
            at("the freeze holds until April 15, 2027, then lifts").as_deref(),
            Some("2027-04-15T00:00:00Z")
        );
        assert_eq!(
            at("keep the banner till 3 Sept 2026").as_deref(),
            Some("2026-09-03T00:00:00Z")
        );
        assert_eq!(
            at("temp: the mirror is down, use the fallback").as_deref(),
            Some("2026-05-11T12:00:00Z")
        );
        assert_eq!(
            at("a temp fix for the flaky test.").as_deref(),
            Some("2026-05-11T12:00:00Z")
        );
        // `temp` naming a thing is not a lifetime; nor is `until` before words that are no date.
        assert_eq!(at("the temp dir is /var/tmp"), None);
        assert_eq!(at("scratch files go to /tmp/temp and temp.txt"), None);
        assert_eq!(at("do not merge until CI is green"), None);
        // A word that merely starts like a month is none.
        assert_eq!(at("ship it until maybe 2027 or so"), None);
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
