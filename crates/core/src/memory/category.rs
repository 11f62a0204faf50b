//! The category a memory's wording suggests, for a write that names none.
//!
//! Deterministic rules over the words, tried in order, the first that fires wins; when none
//! does the answer is `None` and the writer keeps its default (`other` for `store` and
//! `memory_add`, `fact` for a `*Remember*:` line). The rules aim at precision: a wrong
//! category misleads every later filter, a missing one only leaves `other`.
//!
//! | category | fires on |
//! | --- | --- |
//! | preference | prefer/prefers/preferred, "I like", "I'd rather", "don't like", dislike, favourite |
//! | decision | decided, decision, "we chose", "agreed to/on", "settled on", "going with" |
//! | bugfix | a failure and its cure: fix/fixed/bug/crash/error/fails/… and "root cause", "workaround" |
//! | discovery | "turns out", "found out/that", discovered, "learned that", "it seems" |
//! | config | config/configuration/setting(s), "env var", "environment variable", a `KEY=value`, "port N", a config file's name |
//! | pattern | convention, pattern, "always …", "never …", "every time", whenever |
//!
//! `crates/core/src/memory/category_examples.tsv` holds labelled sentences; a test measures
//! the rules on them (precision of what they name, and how many they name).

use std::sync::LazyLock;

use regex::Regex;

use crate::memory::Category;

/// The rules, in the order they are tried.
static RULES: LazyLock<Vec<(Category, Regex)>> = LazyLock::new(|| {
    let rule = |category, pattern: &str| (category, Regex::new(pattern).expect("valid rule"));
    vec![
        rule(
            Category::Preference,
            r"(?i)\b(?:prefer|prefers|preferred|preference|i like|i'd rather|i would rather|(?:don't|doesn't|do not|does not) like|dislikes?|favou?rite)\b",
        ),
        rule(
            Category::Decision,
            r"(?i)\b(?:decided|decision|we chose|chose to|agreed (?:to|on)|settled on|going with|opted for)\b",
        ),
        rule(
            Category::Bugfix,
            r"(?i)\b(?:fix|fixed|fixes|bug|bugs|crash|crashes|crashed|errors?|fails|failed|failing|failure|broken|workaround|exception|panics?|regression|flaky|root cause|segfault|timeout)\b",
        ),
        rule(
            Category::Discovery,
            r"(?i)\b(?:turns out|turned out|found out|found that|discovered|learned that|learnt that|it seems|apparently|noticed that)\b",
        ),
        rule(
            Category::Config,
            r"(?i)\b(?:config|configuration|configured|settings?|env var|environment variables?|port \d+)\b|\b[A-Z][A-Z0-9_]{2,}=\S|\b[\w.-]+\.(?:toml|ya?ml|ini|env|conf|cfg)\b|\.env\b",
        ),
        rule(
            Category::Pattern,
            r"(?i)\b(?:conventions?|pattern|always|never|every time|whenever)\b",
        ),
    ]
});

/// The category `text`'s wording suggests, if any rule names one.
pub fn infer(text: &str) -> Option<Category> {
    RULES
        .iter()
        .find(|(_, rule)| rule.is_match(text))
        .map(|(category, _)| *category)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLES: &str = include_str!("category_examples.tsv");

    /// Of the examples the rules name, the share named right (precision), and of all the
    /// examples, the share named at all (coverage), printed per category.
    #[test]
    fn the_rules_are_precise_on_the_labelled_examples() {
        let mut named = 0;
        let mut right = 0;
        let mut total = 0;
        let mut per_category: Vec<(Category, usize, usize)> = Vec::new();
        for line in EXAMPLES
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let (label, text) = line.split_once('\t').expect("label<TAB>text");
            let label: Category = label.parse().expect("a category");
            total += 1;
            let Some(guess) = infer(text) else {
                continue;
            };
            named += 1;
            let correct = guess == label;
            right += usize::from(correct);
            match per_category.iter_mut().find(|(c, _, _)| *c == guess) {
                Some(entry) => {
                    entry.1 += 1;
                    entry.2 += usize::from(correct);
                }
                None => per_category.push((guess, 1, usize::from(correct))),
            }
            if !correct {
                println!("named {guess:?}, labelled {label:?}: {text}");
            }
        }
        for (category, guessed, correct) in &per_category {
            println!("{category:?}: {correct}/{guessed} right");
        }
        let precision = right as f64 / named as f64;
        let coverage = named as f64 / total as f64;
        println!(
            "precision {precision:.3} ({right}/{named}), coverage {coverage:.3} ({named}/{total})"
        );
        assert!(total >= 80, "the examples are there");
        assert!(precision >= 0.9, "precision {precision:.3}");
        assert!(coverage >= 0.6, "coverage {coverage:.3}");
    }

    #[test]
    fn a_preference_is_named_and_a_plain_statement_is_not() {
        assert_eq!(
            infer("I prefer tabs over spaces"),
            Some(Category::Preference)
        );
        assert_eq!(infer("The meeting is on Tuesdays"), None);
    }
}
