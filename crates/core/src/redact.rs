//! Privacy: what must never reach the store.
//!
//! Text inside `<private>…</private>` becomes `[REDACTED]` (an unclosed tag redacts to the end,
//! erring on the side of privacy), and well-known secret shapes — provider API keys, bearer
//! tokens, JSON web tokens, private key blocks, passwords in URLs and `password=`-style
//! assignments — are replaced by `[REDACTED]`. The service applies this to every text it stores,
//! on every write path, so no entry point can bypass it. Redaction is idempotent.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::Regex;

/// What redacted text is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// One kind of secret.
struct Rule {
    /// Literals at least one of which every match contains (ASCII, found case-insensitively):
    /// a text with none of them is left alone without running, or even compiling, `pattern`.
    needles: &'static [&'static str],
    pattern: &'static str,
    /// Replacement template; `$keep` re-inserts the part of the match that is not secret.
    replacement: &'static str,
}

/// Keywords are matched ASCII-case-insensitively (`(?i-u:…)`), exactly as the needles are found.
const RULES: &[Rule] = &[
    // Explicitly private text, closed or not.
    Rule {
        needles: &["<private>"],
        pattern: r"(?s)(?i-u:<private>).*?(?:(?i-u:</private>)|\z)",
        replacement: REDACTED,
    },
    // PEM private key blocks (RSA, EC, OPENSSH, ENCRYPTED, ...).
    Rule {
        needles: &["PRIVATE KEY-----"],
        pattern: r"(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
        replacement: REDACTED,
    },
    // Passwords in URLs: scheme://user:password@host keeps the user and host.
    Rule {
        needles: &["://"],
        pattern: r"(?P<keep>[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@",
        replacement: "${keep}[REDACTED]@",
    },
    // Authorization headers and bearer tokens.
    Rule {
        needles: &["bearer"],
        pattern: r"(?P<keep>\b(?i-u:bearer)\s+)[A-Za-z0-9\-._~+/]{12,}=*",
        replacement: "${keep}[REDACTED]",
    },
    // JSON web tokens.
    Rule {
        needles: &["eyJ"],
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        replacement: REDACTED,
    },
    // Provider keys: OpenAI/Anthropic style, GitHub, Slack, AWS, Google, Stripe.
    Rule {
        needles: &["sk-"],
        pattern: r"\bsk-[A-Za-z0-9_-]{20,}",
        replacement: REDACTED,
    },
    Rule {
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        replacement: REDACTED,
    },
    Rule {
        needles: &["xox"],
        pattern: r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
        replacement: REDACTED,
    },
    Rule {
        needles: &["AKIA", "ASIA"],
        pattern: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        replacement: REDACTED,
    },
    Rule {
        needles: &["AIza"],
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
        replacement: REDACTED,
    },
    Rule {
        needles: &["k_live_", "k_test_"],
        pattern: r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}",
        replacement: REDACTED,
    },
    // Assignments such as `password = hunter22`, `API_KEY: "abc..."`.
    Rule {
        needles: &[
            "password",
            "passwd",
            "pwd",
            "secret",
            "api_key",
            "api-key",
            "apikey",
            "access_token",
            "access-token",
            "accesstoken",
            "auth_token",
            "auth-token",
            "authtoken",
        ],
        pattern: r#"(?P<keep>\b(?i-u:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key)\b["']?\s*[:=]\s*["']?)[^\s"',;]{6,}"#,
        replacement: "${keep}[REDACTED]",
    },
];

/// Every rule's needles in one automaton, and which rule each needle belongs to. Building it
/// takes microseconds; compiling all the patterns up front took milliseconds, which a hook
/// process (one event, then exit) paid every time.
static NEEDLES: LazyLock<(AhoCorasick, Vec<usize>)> = LazyLock::new(|| {
    let (needles, owners): (Vec<&str>, Vec<usize>) = RULES
        .iter()
        .enumerate()
        .flat_map(|(index, rule)| rule.needles.iter().map(move |needle| (*needle, index)))
        .unzip();
    // A contiguous NFA: a DFA scans faster but took a hook process longer to build than the
    // texts of one event take to scan.
    let automaton = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .ascii_case_insensitive(true)
        .build(needles)
        .expect("redaction needles build");
    (automaton, owners)
});

/// Each rule's pattern, compiled the first time a text holds one of its needles.
static PATTERNS: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];

/// Returns `text` with private sections and secrets replaced by [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    let (automaton, owners) = &*NEEDLES;
    let mut candidates = [false; RULES.len()];
    for found in automaton.find_overlapping_iter(text) {
        candidates[owners[found.pattern().as_usize()]] = true;
    }
    let mut current = Cow::Borrowed(text);
    for (index, rule) in RULES.iter().enumerate() {
        if !candidates[index] {
            continue;
        }
        let pattern = PATTERNS[index]
            .get_or_init(|| Regex::new(rule.pattern).expect("redaction patterns are valid"));
        if let Cow::Owned(changed) = pattern.replace_all(&current, rule.replacement) {
            current = Cow::Owned(changed);
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_sections_are_redacted_across_lines_and_case() {
        assert_eq!(
            redact("keep <private>my\nsecret</private> this <PRIVATE>x</Private>"),
            "keep [REDACTED] this [REDACTED]"
        );
        assert_eq!(redact("start <private>never closed"), "start [REDACTED]");
    }

    #[test]
    fn secret_shapes_are_redacted() {
        let cases = [
            ("key sk-proj-abcdefghijklmnopqrstuvwx1234", "key [REDACTED]"),
            (
                "Authorization: Bearer abc.def-ghi_jkl123456",
                "Authorization: Bearer [REDACTED]",
            ),
            (
                "postgres://app:hunter2secret@db:5432/x",
                "postgres://app:[REDACTED]@db:5432/x",
            ),
            (
                "token ghp_0123456789abcdefghijABCDEFGHIJ012345",
                "token [REDACTED]",
            ),
            ("AWS AKIAIOSFODNN7EXAMPLE here", "AWS [REDACTED] here"),
            ("password=correcthorse", "password=[REDACTED]"),
            ("API_KEY: \"abcdef123456\"", "API_KEY: \"[REDACTED]\""),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done",
                "[REDACTED] done",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
    }

    /// Every pattern applied to every text, needles or not.
    fn redact_without_needles(text: &str) -> String {
        RULES.iter().fold(text.to_string(), |current, rule| {
            Regex::new(rule.pattern)
                .unwrap()
                .replace_all(&current, rule.replacement)
                .into_owned()
        })
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// The needles only skip rules that could not match: texts built from pieces of every
        /// secret shape (in any case) redact exactly as running every pattern would.
        #[test]
        fn needles_never_hide_a_secret(pieces in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(vec![
                    "<PRIVATE>", "</private>", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
                    "https://", "user:", "pw@", "Bearer ", "eyJ", ".", "sk-", "ghp_", "github_pat_",
                    "xoxb-", "AKIA", "ASIA", "AIza", "sk_live_", "rk_test_", "Password", "API-KEY",
                    "access_token", "secret", "=", ": ", "\"", " ", "\n", "é",
                ])
                .prop_map(String::from),
                "[A-Za-z0-9_-]{0,40}",
            ],
            0..12,
        )) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(redact(&text).into_owned(), redact_without_needles(&text));
        }
    }

    #[test]
    fn ordinary_text_is_untouched_and_redaction_is_idempotent() {
        let plain =
            "Use a bearer of bad news; the password policy needs 12 chars. https://example.com/a@b";
        assert!(
            matches!(redact(plain), Cow::Borrowed(_)),
            "{}",
            redact(plain)
        );
        let once = redact("secret: abcdefgh <private>x</private>").into_owned();
        assert_eq!(redact(&once), once);
    }
}
