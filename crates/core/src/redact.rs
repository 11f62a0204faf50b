//! Privacy: what must never reach the store.
//!
//! Text inside `<private>…</private>` becomes `[REDACTED]` (an unclosed tag redacts to the end,
//! erring on the side of privacy), and well-known secret shapes — provider API keys, bearer
//! tokens, JSON web tokens, private key blocks, passwords in URLs and `password=`-style
//! assignments — are replaced by `[REDACTED]`. The service applies this to every text it stores,
//! on every write path, so no entry point can bypass it. Redaction is idempotent.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

/// What redacted text is replaced with.
pub const REDACTED: &str = "[REDACTED]";

struct Rules {
    /// All patterns in one automaton: one pass tells whether any rule applies at all.
    any: RegexSet,
    each: Vec<Rule>,
}

struct Rule {
    pattern: Regex,
    /// Replacement template; `$keep` re-inserts the part of the match that is not secret.
    replacement: &'static str,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let rule = |pattern: &str, replacement: &'static str| Rule {
        pattern: Regex::new(pattern).expect("redaction patterns are valid"),
        replacement,
    };
    let each = vec![
        // Explicitly private text, closed or not.
        rule(r"(?is)<private>.*?(?:</private>|\z)", REDACTED),
        // PEM private key blocks (RSA, EC, OPENSSH, ENCRYPTED, ...).
        rule(
            r"(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
            REDACTED,
        ),
        // Passwords in URLs: scheme://user:password@host keeps the user and host.
        rule(
            r"(?P<keep>[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@",
            "${keep}[REDACTED]@",
        ),
        // Authorization headers and bearer tokens.
        rule(
            r"(?i)(?P<keep>\bbearer\s+)[A-Za-z0-9\-._~+/]{12,}=*",
            "${keep}[REDACTED]",
        ),
        // JSON web tokens.
        rule(
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            REDACTED,
        ),
        // Provider keys: OpenAI/Anthropic style, GitHub, Slack, AWS, Google, Stripe.
        rule(r"\bsk-[A-Za-z0-9_-]{20,}", REDACTED),
        rule(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
            REDACTED,
        ),
        rule(r"\bxox[abposr]-[A-Za-z0-9-]{10,}", REDACTED),
        rule(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", REDACTED),
        rule(r"\bAIza[0-9A-Za-z_-]{35}", REDACTED),
        rule(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}", REDACTED),
        // Assignments such as `password = hunter22`, `API_KEY: "abc..."`.
        rule(
            r#"(?i)(?P<keep>\b(?:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key)\b["']?\s*[:=]\s*["']?)[^\s"',;]{6,}"#,
            "${keep}[REDACTED]",
        ),
    ];
    let any = RegexSet::new(each.iter().map(|r| r.pattern.as_str()))
        .expect("redaction patterns are valid");
    Rules { any, each }
});

/// Returns `text` with private sections and secrets replaced by [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    let rules = &*RULES;
    let matched = rules.any.matches(text);
    if !matched.matched_any() {
        return Cow::Borrowed(text);
    }
    let mut current = Cow::Borrowed(text);
    for (_, rule) in rules
        .each
        .iter()
        .enumerate()
        .filter(|(index, _)| matched.matched(*index))
    {
        if let Cow::Owned(changed) = rule.pattern.replace_all(&current, rule.replacement) {
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
