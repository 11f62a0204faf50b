//! The query language.
//!
//! ```text
//! query   := or
//! or      := and ( "OR" and )*
//! and     := unary ( "AND"? unary )*        juxtaposition is an implicit AND
//! unary   := "NOT" unary | primary
//! primary := "(" or ")" | "\"phrase words\"" | word | word*
//! ```
//!
//! Operators are the upper-case words `AND`, `OR`, `NOT`; `NOT` binds tightest, then `AND`, then
//! `OR`. A word is split the way the index splits text (letters and digits), so `snake_case`
//! is the phrase `snake case` and `v1.2` the phrase `v1 2`; a word with nothing searchable in it is
//! ignored. `NOT x` excludes from the conjunction it stands in, so it needs something to exclude
//! from.
//!
//! A *plain* query — no operator, no quotes — is text and is never refused: its parentheses
//! are punctuation, so `should I use .get()?` or `f(x` search for their words. Only a query
//! that uses the syntax can be malformed.
//!
//! A query without `AND` or `OR` (the natural-language case) is *soft*: memories holding every
//! item rank first, then memories holding some. Stop words are dropped from its bare words, a
//! typed word the index splits (`high-speed`) counts as separate words, and parentheses only
//! group. `NOT` items in a soft query still exclude strictly. An explicit `AND` or `OR`, or
//! `strict` (the CLI's `--all`), makes the whole query an exact boolean expression.

pub mod stopwords;
pub mod vocabulary;

pub use vocabulary::{WordSet, WordSink, vocabulary_word};

use std::collections::HashSet;
use std::fmt;

use crate::error::{Error, Result};
use stopwords::is_stop_word;

/// The longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 2_000;

/// A parsed search query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    pub text: String,
    pub parsed: ParsedQuery,
}

impl SearchQuery {
    /// Parses `text`; `strict` makes an implicit AND exact (the CLI's `--all`).
    pub fn parse(text: &str, strict: bool) -> Result<Self> {
        within_limit(text)?;
        Ok(SearchQuery {
            text: text.trim().to_string(),
            parsed: ParsedQuery::parse(text, strict)?,
        })
    }

    /// `text` as its words alone, operators, quotes and parentheses read as text: what meaning
    /// still searches for when the query's syntax is malformed. Refused, like any query, over
    /// the size limit or without a word.
    pub fn words_only(text: &str) -> Result<Self> {
        within_limit(text)?;
        let plain: String = text
            .chars()
            .map(|c| if matches!(c, '"' | '(' | ')') { ' ' } else { c })
            .collect::<String>()
            .split_whitespace()
            .map(|word| match word {
                "AND" | "OR" | "NOT" => word.to_lowercase(),
                _ => word.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ");
        let query = SearchQuery::parse(&plain, false)?;
        Ok(SearchQuery {
            text: text.trim().to_string(),
            ..query
        })
    }
}

/// Refuses a query over [`MAX_QUERY_BYTES`].
fn within_limit(text: &str) -> Result<()> {
    match text.len() > MAX_QUERY_BYTES {
        true => Err(Error::invalid(
            "query",
            format!("is {} bytes; the limit is {MAX_QUERY_BYTES}", text.len()),
        )),
        false => Ok(()),
    }
}

/// The words of `text` as the full-text index splits them (runs of letters and digits;
/// everything else separates), as typed: no allocation, no lowercasing.
pub fn word_spans(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The words of `text` lowercased and unique, in order of first appearance.
pub fn words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    word_spans(text)
        .map(str::to_lowercase)
        .filter(|word| seen.insert(word.clone()))
        .collect()
}

/// A boolean match expression over the index's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    Term(String),
    /// These words in order, the last one a prefix (`deploy*`, `"snake ca"*`).
    Prefix(Vec<String>),
    /// These words in this order, adjacent.
    Phrase(Vec<String>),
    All(Vec<Match>),
    Any(Vec<Match>),
    /// `base` without anything matching one of `excluded`.
    Without {
        base: Box<Match>,
        excluded: Vec<Match>,
    },
}

/// A parsed query, ready for the lexical signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedQuery {
    /// Items joined implicitly: every item first, then some (see the module doc).
    Soft {
        items: Vec<Match>,
        excluded: Vec<Match>,
    },
    /// An exact boolean expression.
    Strict(Match),
}

impl ParsedQuery {
    /// Parses `text`; `strict` turns an implicit AND into an exact one.
    pub fn parse(text: &str, strict: bool) -> Result<Self, Error> {
        let mut tokens = tokenize(text);
        // A plain query (no operator, no quoted phrase) is text, never a syntax error: its
        // parentheses and a lone quote are punctuation (`.get()`, `f(x`, `a 5" screen`), like
        // the dots and dashes in words.
        let plain = !tokens.iter().any(|t| {
            matches!(
                t.kind,
                TokenKind::And | TokenKind::Or | TokenKind::Not | TokenKind::Phrase(_)
            )
        });
        if plain {
            tokens.retain(|t| {
                !matches!(
                    t.kind,
                    TokenKind::Open | TokenKind::Close | TokenKind::UnclosedQuote
                )
            });
        } else if let Some(quote) = tokens.iter().find(|t| t.kind == TokenKind::UnclosedQuote) {
            return Err(query_error(quote.position, "this quote is never closed"));
        }
        if tokens.is_empty() {
            return Err(Error::invalid(
                "query",
                "has no words to search for (letters or digits)",
            ));
        }
        // Parentheses alone change nothing in an implicit conjunction, so a question that holds
        // some ("… (made in a wind tunnel) …") stays natural language.
        let explicit = tokens
            .iter()
            .any(|t| matches!(t.kind, TokenKind::And | TokenKind::Or));
        let soft = !explicit && !strict;
        let mut parser = Parser {
            tokens: &tokens,
            at: 0,
            text,
            soft,
        };
        let parsed = parser.or()?;
        if let Some(extra) = parser.peek() {
            return Err(parser.error_at(extra.position, "unexpected ')'"));
        }
        let node = parsed.ok_or_else(|| {
            Error::invalid("query", "has no words to search for (letters or digits)")
        })?;
        if !soft {
            return Ok(ParsedQuery::Strict(node));
        }
        // Only juxtaposed items (and NOTs) remain: the natural-language case.
        let (mut items, excluded) = match node {
            Match::Without { base, excluded } => (flatten_all(*base), excluded),
            other => (flatten_all(other), Vec::new()),
        };
        let content: Vec<Match> = items
            .iter()
            .filter(|m| !matches!(m, Match::Term(t) if is_stop_word(t)))
            .cloned()
            .collect();
        if !content.is_empty() {
            items = content;
        }
        let mut unique = Vec::with_capacity(items.len());
        for item in items {
            if !unique.contains(&item) {
                unique.push(item);
            }
        }
        Ok(ParsedQuery::Soft {
            items: unique,
            excluded,
        })
    }

    /// The positive words typed bare (not quoted, not prefixes): the ones a typo may hide in.
    /// Quotes ask for exactness, so fuzzy search leaves phrases alone.
    pub fn bare_terms(&self) -> Vec<String> {
        fn collect(m: &Match, out: &mut Vec<String>) {
            match m {
                Match::Term(t) => out.push(t.clone()),
                Match::All(items) | Match::Any(items) => items.iter().for_each(|m| collect(m, out)),
                Match::Without { base, .. } => collect(base, out),
                Match::Phrase(_) | Match::Prefix(_) => {}
            }
        }
        let mut out = Vec::new();
        match self {
            ParsedQuery::Soft { items, .. } => items.iter().for_each(|m| collect(m, &mut out)),
            ParsedQuery::Strict(m) => collect(m, &mut out),
        }
        out.dedup();
        out
    }

    /// Every positive word of the query (for highlighting), in order.
    pub fn positive_terms(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            ParsedQuery::Soft { items, .. } => items.iter().for_each(|m| m.collect_terms(&mut out)),
            ParsedQuery::Strict(m) => m.collect_terms(&mut out),
        }
        out.dedup();
        out
    }
}

/// The items of a conjunction, nested conjunctions included (a soft query's split words).
fn flatten_all(node: Match) -> Vec<Match> {
    match node {
        Match::All(items) => items.into_iter().flat_map(flatten_all).collect(),
        other => vec![other],
    }
}

impl Match {
    fn collect_terms(&self, out: &mut Vec<String>) {
        match self {
            Match::Term(t) => out.push(t.clone()),
            Match::Phrase(words) | Match::Prefix(words) => out.extend(words.iter().cloned()),
            Match::All(items) | Match::Any(items) => {
                items.iter().for_each(|m| m.collect_terms(out))
            }
            Match::Without { base, .. } => base.collect_terms(out),
        }
    }
}

impl fmt::Display for Match {
    /// A readable form, e.g. `(docker AND "compose file") NOT staging`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, items: &[Match], op: &str| {
            write!(f, "(")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    write!(f, " {op} ")?;
                }
                write!(f, "{item}")?;
            }
            write!(f, ")")
        };
        match self {
            Match::Term(t) => write!(f, "{t}"),
            Match::Prefix(words) if words.len() == 1 => write!(f, "{}*", words[0]),
            Match::Prefix(words) => write!(f, "\"{}\"*", words.join(" ")),
            Match::Phrase(words) => write!(f, "\"{}\"", words.join(" ")),
            Match::All(items) => join(f, items, "AND"),
            Match::Any(items) => join(f, items, "OR"),
            Match::Without { base, excluded } => {
                write!(f, "{base}")?;
                excluded.iter().try_for_each(|e| write!(f, " NOT {e}"))
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum TokenKind {
    Word {
        text: String,
        prefix: bool,
    },
    Phrase(String),
    And,
    Or,
    Not,
    Open,
    Close,
    /// A quote with no closing one: punctuation in a plain query, an error in any other.
    UnclosedQuote,
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    kind: TokenKind,
    /// 1-based character position in the query.
    position: usize,
}

fn query_error(position: usize, message: &str) -> Error {
    Error::invalid("query", format!("at character {position}: {message}"))
}

fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let position = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' {
            tokens.push(Token {
                kind: if c == '(' {
                    TokenKind::Open
                } else {
                    TokenKind::Close
                },
                position,
            });
            i += 1;
        } else if c == '"' {
            match chars[i + 1..].iter().position(|&c| c == '"') {
                Some(end) => {
                    let phrase: String = chars[i + 1..i + 1 + end].iter().collect();
                    tokens.push(Token {
                        kind: TokenKind::Phrase(phrase),
                        position,
                    });
                    i += end + 2;
                }
                None => {
                    tokens.push(Token {
                        kind: TokenKind::UnclosedQuote,
                        position,
                    });
                    i += 1;
                }
            }
        } else {
            let start = i;
            while i < chars.len()
                && !chars[i].is_whitespace()
                && !matches!(chars[i], '(' | ')' | '"')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let kind = match word.as_str() {
                "AND" => TokenKind::And,
                "OR" => TokenKind::Or,
                "NOT" => TokenKind::Not,
                _ => match word.strip_suffix('*') {
                    Some(stem) => TokenKind::Word {
                        text: stem.to_string(),
                        prefix: true,
                    },
                    None => TokenKind::Word {
                        text: word,
                        prefix: false,
                    },
                },
            };
            tokens.push(Token { kind, position });
        }
    }
    tokens
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    text: &'a str,
    /// Parsing a natural-language query: a typed word the index splits (`high-speed`) stands
    /// for its separate words, as a reader means them; only quotes ask for adjacency.
    soft: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn end_position(&self) -> usize {
        self.text.chars().count() + 1
    }

    fn error_at(&self, position: usize, message: &str) -> Error {
        query_error(position, message)
    }

    /// `None` when the operands held nothing searchable (e.g. a lone `-`).
    fn or(&mut self) -> Result<Option<Match>, Error> {
        let mut items = Vec::new();
        let first_position = self.peek().map_or(self.end_position(), |t| t.position);
        if let Some(first) = self.and(first_position)? {
            items.push(first);
        }
        while let Some(Token {
            kind: TokenKind::Or,
            position,
        }) = self.peek().cloned()
        {
            self.at += 1;
            if items.is_empty() {
                return Err(self.error_at(position, "OR needs a word before it"));
            }
            match self.and(position)? {
                Some(next) => items.push(next),
                None => return Err(self.error_at(position, "OR needs a word after it")),
            }
        }
        Ok(match items.len() {
            0 => None,
            1 => items.pop(),
            _ => Some(Match::Any(items)),
        })
    }

    fn and(&mut self, position: usize) -> Result<Option<Match>, Error> {
        let mut positive = Vec::new();
        let mut excluded = Vec::new();
        let mut pending_and: Option<usize> = None;
        while let Some(token) = self.peek().cloned() {
            match token.kind {
                TokenKind::Or | TokenKind::Close => break,
                TokenKind::And => {
                    if positive.is_empty() && excluded.is_empty() {
                        return Err(self.error_at(token.position, "AND needs a word before it"));
                    }
                    self.at += 1;
                    pending_and = Some(token.position);
                }
                TokenKind::Not => {
                    self.at += 1;
                    match self.unary(token.position)? {
                        Some(node) => excluded.push(node),
                        None => {
                            return Err(self.error_at(token.position, "NOT needs a word after it"));
                        }
                    }
                    pending_and = None;
                }
                _ => {
                    if let Some(node) = self.unary(token.position)? {
                        positive.push(node);
                    }
                    pending_and = None;
                }
            }
        }
        if let Some(at) = pending_and {
            return Err(self.error_at(at, "AND needs a word after it"));
        }
        if positive.is_empty() {
            if !excluded.is_empty() {
                return Err(self.error_at(
                    position,
                    "NOT needs something to exclude from, e.g. 'deploy NOT staging'",
                ));
            }
            return Ok(None);
        }
        let base = if positive.len() == 1 {
            positive.pop().expect("one")
        } else {
            Match::All(positive)
        };
        Ok(Some(if excluded.is_empty() {
            base
        } else {
            Match::Without {
                base: Box::new(base),
                excluded,
            }
        }))
    }

    fn unary(&mut self, position: usize) -> Result<Option<Match>, Error> {
        let Some(token) = self.peek().cloned() else {
            return Err(self.error_at(position, "the query ends where a word was expected"));
        };
        self.at += 1;
        match token.kind {
            TokenKind::Word { text, prefix } => Ok(word_match(&text, prefix, self.soft)),
            TokenKind::Phrase(text) => {
                let parts = words(&text);
                Ok(match parts.len() {
                    0 => None,
                    1 => Some(Match::Term(parts.into_iter().next().expect("one"))),
                    _ => Some(Match::Phrase(parts)),
                })
            }
            TokenKind::Open => {
                let inner = self.or()?;
                match self.peek() {
                    Some(Token {
                        kind: TokenKind::Close,
                        ..
                    }) => self.at += 1,
                    _ => {
                        return Err(
                            self.error_at(token.position, "this parenthesis is never closed")
                        );
                    }
                }
                match inner {
                    Some(node) => Ok(Some(node)),
                    None => Err(self.error_at(token.position, "empty parentheses")),
                }
            }
            TokenKind::Not => match self.unary(token.position)? {
                // A double negation excludes nothing useful; keep the grammar simple.
                Some(_) => Err(self.error_at(token.position, "NOT NOT is not supported")),
                None => Err(self.error_at(token.position, "NOT needs a word after it")),
            },
            TokenKind::And | TokenKind::Or => {
                Err(self.error_at(token.position, "an operator needs a word on each side"))
            }
            TokenKind::Close => Err(self.error_at(token.position, "unexpected ')'")),
            TokenKind::UnclosedQuote => {
                Err(self.error_at(token.position, "this quote is never closed"))
            }
        }
    }
}

/// A typed word as a match: split like the index; `*` applies to the last piece. Split pieces
/// form a phrase, or, in a soft query, separate words.
fn word_match(text: &str, prefix: bool, soft: bool) -> Option<Match> {
    let mut parts = words(text);
    match (parts.len(), prefix) {
        (0, _) => None,
        (_, true) => Some(Match::Prefix(parts)),
        (1, false) => Some(Match::Term(parts.remove(0))),
        (_, false) if soft => Some(Match::All(parts.into_iter().map(Match::Term).collect())),
        (_, false) => Some(Match::Phrase(parts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(text: &str) -> String {
        match ParsedQuery::parse(text, false).unwrap() {
            ParsedQuery::Strict(m) => m.to_string(),
            soft => panic!("{text} parsed as {soft:?}"),
        }
    }

    fn soft(text: &str) -> (Vec<String>, Vec<String>) {
        match ParsedQuery::parse(text, false).unwrap() {
            ParsedQuery::Soft { items, excluded } => (
                items.iter().map(ToString::to_string).collect(),
                excluded.iter().map(ToString::to_string).collect(),
            ),
            strict => panic!("{text} parsed as {strict:?}"),
        }
    }

    /// `text` with `--all`.
    fn strict_all(text: &str) -> String {
        match ParsedQuery::parse(text, true).unwrap() {
            ParsedQuery::Strict(m) => m.to_string(),
            soft => panic!("{text} parsed as {soft:?}"),
        }
    }

    fn error(text: &str) -> String {
        let err = ParsedQuery::parse(text, false).unwrap_err();
        assert_eq!(err.field(), Some("query"));
        err.to_string()
    }

    #[test]
    fn operators_and_precedence() {
        assert_eq!(strict("a AND b"), "(a AND b)");
        assert_eq!(strict("a OR b c"), "(a OR (b AND c))");
        assert_eq!(strict("a b OR c"), "((a AND b) OR c)");
        assert_eq!(strict("(a OR b) c"), "((a OR b) AND c)");
        assert_eq!(strict("(a b) AND c"), "((a AND b) AND c)");
        assert_eq!(strict("a AND b NOT c"), "(a AND b) NOT c");
        assert_eq!(strict("a OR b NOT c"), "(a OR b NOT c)");
        assert_eq!(strict("(a OR b) NOT (c OR d)"), "(a OR b) NOT (c OR d)");
        assert_eq!(
            strict("x AND \"exact phrase\" AND pre*"),
            "(x AND \"exact phrase\" AND pre*)"
        );
    }

    #[test]
    fn implicit_queries_are_soft_and_drop_stop_words_outside_phrases() {
        assert_eq!(
            soft("how do we deploy the api"),
            (vec!["deploy".into(), "api".into()], vec![])
        );
        assert_eq!(
            soft("\"the api\" deploy"),
            (vec!["\"the api\"".into(), "deploy".into()], vec![])
        );
        assert_eq!(
            soft("deploy NOT staging"),
            (vec!["deploy".into()], vec!["staging".into()])
        );
        assert_eq!(
            soft("the"),
            (vec!["the".into()], vec![]),
            "a query of stop words keeps them"
        );
        assert_eq!(soft("docker*"), (vec!["docker*".into()], vec![]));
        assert_eq!(
            soft("wind tunnel (low blockage)"),
            (
                vec![
                    "wind".into(),
                    "tunnel".into(),
                    "low".into(),
                    "blockage".into()
                ],
                vec![]
            )
        );
        match ParsedQuery::parse("deploy api", true).unwrap() {
            ParsedQuery::Strict(m) => assert_eq!(m.to_string(), "(deploy AND api)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn words_split_like_the_index() {
        assert_eq!(
            soft("snake_case v1.2"),
            (
                vec!["snake".into(), "case".into(), "v1".into(), "2".into()],
                vec![]
            )
        );
        assert_eq!(
            soft("\"snake_case\" x"),
            (vec!["\"snake case\"".into(), "x".into()], vec![])
        );
        assert_eq!(strict("snake_case AND x"), "(\"snake case\" AND x)");
        assert_eq!(soft("foo.ba*"), (vec!["\"foo ba\"*".into()], vec![]));
        assert_eq!(soft("docker -- ?"), (vec!["docker".into()], vec![]));
    }

    #[test]
    fn malformed_queries_name_the_position() {
        assert!(error("a OR \"open phrase").contains("at character 6: this quote is never closed"));
        assert!(error("\"a b\" \"c").contains("at character 7: this quote is never closed"));
        assert!(error("a AND").contains("at character 3: AND needs a word after it"));
        assert!(error("OR a").contains("at character 1: OR needs a word before it"));
        assert!(error("a OR").contains("OR needs a word after it"));
        assert!(error("(a OR b").contains("at character 1: this parenthesis is never closed"));
        assert!(error("a) OR b").contains("at character 2: unexpected ')'"));
        assert!(error("() OR a").contains("empty parentheses"));
        assert!(error("NOT a").contains("NOT needs something to exclude from"));
        assert!(error("?!").contains("no words"));
    }

    #[test]
    fn plain_queries_with_code_in_them_are_their_words() {
        let cases: [(&str, &[&str]); 8] = [
            (
                "should I use .get() when the key is guaranteed?",
                &["use", "get", "key", "guaranteed"],
            ),
            ("git push --force", &["git", "push", "force"]),
            ("C++ build flags", &["c", "build", "flags"]),
            ("std::vec::Vec or a slice", &["std", "vec", "slice"]),
            ("who owns src/app.rs", &["owns", "src", "app", "rs"]),
            ("fix for #1234)", &["fix", "1234"]),
            ("f(x( and g))", &["f", "x", "g"]),
            (
                "when did she watch \"Eternal Sunshine?",
                &["watch", "eternal", "sunshine"],
            ),
        ];
        for (query, expected) in cases {
            let (items, excluded) = soft(query);
            assert_eq!(items, expected, "{query}");
            assert!(excluded.is_empty());
        }
        // `--all` makes the same words exact, still without a syntax error.
        assert_eq!(strict_all("foo() bar"), "(foo AND bar)");
        assert!(error("()").contains("no words"));
    }

    #[test]
    fn a_malformed_query_keeps_its_words_for_meaning() {
        let query = SearchQuery::words_only("deploy AND (staging OR").unwrap();
        assert_eq!(query.text, "deploy AND (staging OR");
        assert_eq!(query.parsed.positive_terms(), ["deploy", "staging"]);
        assert!(SearchQuery::words_only("( \" ) ?").is_err_and(|e| e.field() == Some("query")));
        // The limit holds for the text as typed, not for what is left of it.
        let long = format!("a AND {}", "(".repeat(MAX_QUERY_BYTES));
        assert!(SearchQuery::words_only(&long).is_err_and(|e| e.to_string().contains("limit")));
    }

    #[test]
    fn positive_terms_skip_exclusions_and_bare_terms_skip_phrases() {
        let q = ParsedQuery::parse("docker compose NOT staging", false).unwrap();
        assert_eq!(q.positive_terms(), ["docker", "compose"]);
        let q = ParsedQuery::parse("\"exact words\" dokcer pre*", false).unwrap();
        assert_eq!(q.positive_terms(), ["exact", "words", "dokcer", "pre"]);
        assert_eq!(q.bare_terms(), ["dokcer"]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn no_input_panics_and_errors_always_name_the_query(text in "\\PC{0,40}", strict in proptest::bool::ANY) {
            if let Err(err) = ParsedQuery::parse(&text, strict) {
                proptest::prop_assert_eq!(err.field(), Some("query"));
            }
        }

        #[test]
        fn operator_soup_never_panics(text in "(AND |OR |NOT |\\( |\\) |\" |a |b\\* |[a-z]{1,3} ){0,12}") {
            if let Err(err) = ParsedQuery::parse(&text, false) {
                proptest::prop_assert_eq!(err.field(), Some("query"));
            }
        }
    }

    #[test]
    fn words_split_like_the_index_and_are_unique() {
        assert_eq!(
            words("Why does `snake_case` fail? Snake-case!"),
            ["why", "does", "snake", "case", "fail"]
        );
        assert_eq!(words("Café naïve 42"), ["café", "naïve", "42"]);
    }

    #[test]
    fn queries_without_words_or_over_the_limit_are_refused_naming_the_field() {
        for bad in [
            String::new(),
            "  ?! ".into(),
            "x".repeat(MAX_QUERY_BYTES + 1),
        ] {
            assert_eq!(
                SearchQuery::parse(&bad, false).unwrap_err().field(),
                Some("query")
            );
        }
    }
}
