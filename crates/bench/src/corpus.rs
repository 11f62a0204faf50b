//! A deterministic synthetic corpus that looks like what coding agents store.
//!
//! Words follow a Zipf distribution (exponent ≈ 1.07, as in English text) over a vocabulary
//! of pseudo-words plus real technical terms, with code identifiers (`snake_case`,
//! `camelCase`), file paths and version numbers mixed in. Each memory has one to three
//! sentences, zero to four tags (also Zipf), a category, one of several projects or global
//! scope, and a creation time within the last year. The same seed always gives the same corpus,
//! so runs compare.

use cairn_core::memory::MemoryRecord;
use cairn_core::{Category, Importance, Memory, MemoryId, ProjectName, Scope, Source, Tag};
use jiff::{Span, Timestamp};

/// SplitMix64: small, fast, and good enough for synthetic data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() <= p
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn gaussian(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Samples ranks 0..n with probability ∝ 1 / (rank + 1)^s.
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Self {
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|rank| {
                total += 1.0 / ((rank + 1) as f64).powf(s);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().expect("non-empty");
        let target = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        self.cumulative
            .partition_point(|&c| c < target)
            .min(self.cumulative.len() - 1)
    }
}

const TECH: &[&str] = &[
    "docker",
    "kubernetes",
    "postgres",
    "redis",
    "nginx",
    "terraform",
    "webpack",
    "vite",
    "pnpm",
    "cargo",
    "tokio",
    "axum",
    "react",
    "typescript",
    "python",
    "pytest",
    "grpc",
    "graphql",
    "kafka",
    "sqlite",
    "migration",
    "deploy",
    "staging",
    "production",
    "timeout",
    "latency",
    "cache",
    "index",
    "schema",
    "queue",
    "worker",
    "retry",
    "token",
    "session",
    "config",
    "logging",
    "metrics",
    "pipeline",
    "runner",
    "build",
    "release",
    "rollback",
    "memory",
    "leak",
    "panic",
    "deadlock",
    "mutex",
    "thread",
    "async",
    "endpoint",
    "payload",
    "header",
    "cookie",
    "cors",
    "proxy",
    "certificate",
    "dns",
    "socket",
    "websocket",
    "benchmark",
    "profile",
    "flamegraph",
    "compiler",
    "linker",
    "feature",
    "flag",
    "env",
    "secret",
    "vault",
    "bucket",
    "lambda",
    "cron",
    "backup",
];

const SYLLABLES: &[&str] = &[
    "ka", "to", "ri", "men", "sa", "lo", "ver", "an", "tis", "ble", "pro", "con", "de", "ex", "im",
    "ment", "tion", "al", "er", "ing", "ous", "ly", "ca", "mi", "nu", "po", "re", "sta", "tri",
    "vo", "qua", "zen", "fer", "gal", "hin", "jor",
];

/// The corpus generator.
pub struct Corpus {
    vocabulary: Vec<String>,
    words: Zipf,
    tags: Vec<String>,
    tag_ranks: Zipf,
    projects: Vec<String>,
}

impl Corpus {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut vocabulary: Vec<String> = Vec::with_capacity(30_000);
        // Function words first: they are the most frequent, as in real text.
        for word in [
            "the", "a", "to", "of", "and", "in", "is", "for", "on", "with", "it", "we", "when",
            "after", "not",
        ] {
            vocabulary.push(word.into());
        }
        let mut seen: std::collections::HashSet<String> = vocabulary.iter().cloned().collect();
        let mut tech = TECH.iter();
        while vocabulary.len() < 30_000 {
            // Technical terms are spread through the frequent part of the ranking.
            let word = if vocabulary.len().is_multiple_of(7) {
                match tech.next() {
                    Some(t) => t.to_string(),
                    None => pseudo_word(&mut rng),
                }
            } else {
                pseudo_word(&mut rng)
            };
            if seen.insert(word.clone()) {
                vocabulary.push(word);
            }
        }
        let tags: Vec<String> = (0..200)
            .map(|i| match TECH.get(i) {
                Some(t) => t.to_string(),
                None => format!("{}-{i}", pseudo_word(&mut rng)),
            })
            .collect();
        let projects = (0..8)
            .map(|i| format!("github.com/team{}/{}", i % 3, pseudo_word(&mut rng)))
            .collect();
        Corpus {
            words: Zipf::new(vocabulary.len(), 1.07),
            vocabulary,
            tag_ranks: Zipf::new(tags.len(), 1.0),
            tags,
            projects,
        }
    }

    /// One of the corpus's projects (about an eighth of the memories, beside the 10% global).
    pub fn a_project(&self) -> &str {
        &self.projects[0]
    }

    pub fn word(&self, rng: &mut Rng) -> &str {
        &self.vocabulary[self.words.sample(rng)]
    }

    /// A word of middling frequency (rank 50..3000): what people actually search for.
    pub fn query_word(&self, rng: &mut Rng) -> &str {
        &self.vocabulary[50 + rng.below(2_950)]
    }

    fn identifier(&self, rng: &mut Rng) -> String {
        let (a, b) = (self.word(rng).to_string(), self.word(rng).to_string());
        match rng.below(4) {
            0 => format!("{a}_{b}"),
            1 => format!("{a}{}{}", b[..1].to_uppercase(), &b[1..]),
            2 => format!("src/{a}/{b}.rs"),
            _ => format!("{a}-{}.{}.{}", rng.below(4), rng.below(20), rng.below(10)),
        }
    }

    fn sentence(&self, rng: &mut Rng) -> String {
        let length = 8 + rng.below(28);
        let mut words: Vec<String> = Vec::with_capacity(length);
        for _ in 0..length {
            if rng.chance(0.06) {
                words.push(self.identifier(rng));
            } else {
                words.push(self.word(rng).to_string());
            }
        }
        let mut text = words.join(" ");
        if let Some(first) = text.get(..1) {
            text.replace_range(..1, &first.to_uppercase());
        }
        text.push('.');
        text
    }

    /// The `index`-th memory of the corpus (deterministic in `seed` and `index`).
    pub fn memory(&self, seed: u64, index: u64, now: Timestamp) -> MemoryRecord {
        let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01b3) ^ index);
        let sentences = 1 + rng.below(3);
        let content = (0..sentences)
            .map(|_| self.sentence(&mut rng))
            .collect::<Vec<_>>()
            .join(" ");
        let tag_count = rng.below(5);
        let mut tags: Vec<Tag> = (0..tag_count)
            .map(|_| Tag::new(&self.tags[self.tag_ranks.sample(&mut rng)]).expect("valid tag"))
            .collect();
        tags.sort();
        tags.dedup();
        let scope = if rng.chance(0.1) {
            Scope::Global
        } else {
            Scope::Project(
                ProjectName::new(&self.projects[rng.below(self.projects.len())])
                    .expect("valid project"),
            )
        };
        let created_at = now - Span::new().seconds(rng.below(365 * 24 * 3600) as i64);
        let title = rng.chance(0.3).then(|| {
            let words: Vec<&str> = (0..2 + rng.below(4))
                .map(|_| self.query_word(&mut rng))
                .collect();
            words.join(" ")
        });
        let id = MemoryId::from_uuid(uuid_from(rng.next_u64(), rng.next_u64()));
        MemoryRecord {
            memory: Memory {
                id,
                content,
                title,
                category: Category::ALL[rng.below(Category::ALL.len())],
                tags,
                scope,
                topic_key: None,
                entered_by: Some(
                    ["claude-code", "opencode", "codex", "human"][rng.below(4)].to_string(),
                ),
                session_id: None,
                source: Source::Import,
                importance: Importance::new(1 + rng.below(5) as i64).expect("1..=5"),
                created_at,
                updated_at: created_at,
                expires_at: None,
                deleted_at: None,
            },
            revisions: Vec::new(),
        }
    }

    /// One or two of the fifty most frequent words (`the`, `to`, the commonest technical terms):
    /// the query that matches most of the store, and the costliest to rank.
    pub fn common_query(&self, rng: &mut Rng) -> String {
        let n = 1 + rng.below(2);
        (0..n)
            .map(|_| self.vocabulary[rng.below(50)].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A realistic query of one to three middling-frequency words.
    pub fn query(&self, rng: &mut Rng) -> String {
        let n = 1 + rng.below(3);
        (0..n)
            .map(|_| self.query_word(rng))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A middling-frequency word of five letters or more with two inner letters swapped, as a
    /// hurried typist writes it (`docker` → `dokcer`).
    pub fn typo_query(&self, rng: &mut Rng) -> String {
        loop {
            let word: Vec<char> = self.query_word(rng).chars().collect();
            if word.len() < 5 {
                continue;
            }
            let i = 1 + rng.below(word.len() - 3);
            if word[i] == word[i + 1] {
                continue;
            }
            let mut typo = word.clone();
            typo.swap(i, i + 1);
            return typo.into_iter().collect();
        }
    }

    /// Two adjacent words of a stored memory, quoted: an exact-phrase query that matches.
    pub fn phrase_query(&self, seed: u64, count: u64, rng: &mut Rng) -> String {
        let memory = self
            .memory(
                seed,
                rng.below(count as usize) as u64,
                Timestamp::UNIX_EPOCH,
            )
            .memory;
        let words: Vec<&str> = memory
            .content
            .split_whitespace()
            .filter(|w| w.chars().all(char::is_alphabetic))
            .collect();
        let at = rng.below(words.len().saturating_sub(1).max(1));
        let pair = words
            .get(at..at + 2)
            .map(|p| p.join(" "))
            .unwrap_or_else(|| words.join(" "));
        format!("\"{}\"", pair.to_lowercase())
    }
}

fn pseudo_word(rng: &mut Rng) -> String {
    let n = 2 + rng.below(3);
    (0..n)
        .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
        .collect()
}

/// A version-4-shaped UUID from random bits, so generated ids look like real ones.
fn uuid_from(high: u64, low: u64) -> uuid::Uuid {
    let bits = (u128::from(high) << 64) | u128::from(low);
    uuid::Builder::from_random_bytes(bits.to_be_bytes()).into_uuid()
}
