//! `use` declarations: found in code and expanded into the paths they name.

/// One `use` declaration: whether it re-exports (`pub`, `pub(crate)`, …) and its tree.
pub struct UseDecl {
    pub public: bool,
    pub tree: String,
}

/// The `use` declarations of `code` (comments and literals already blanked), and the code
/// without them.
pub fn use_declarations(code: &str) -> (Vec<UseDecl>, String) {
    let mut found = Vec::new();
    let mut others = String::new();
    let mut rest = code;
    while let Some(at) = find_keyword(rest, "use") {
        // What leads the keyword since the last statement or brace: visibility, attributes.
        let lead_start = rest[..at].rfind(['\n', ';', '{', '}']).map_or(0, |n| n + 1);
        let lead = &rest[lead_start..at];
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        found.push(UseDecl {
            public: lead.split_whitespace().any(|word| word.starts_with("pub")),
            tree: after[..end].trim().to_string(),
        });
        others.push_str(&rest[..lead_start]);
        rest = &after[end..];
    }
    others.push_str(rest);
    (found, others)
}

/// Where the keyword `word` next stands as a whole token in `text`.
fn find_keyword(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        if !before.is_some_and(|c| ident(c) || c == ':') && after.is_some_and(char::is_whitespace) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The full paths a `use` tree names, each with the name it is known by:
/// `a::{b, c::{d, e as f}}` → `a::b` (b), `a::c::d` (d), `a::c::e` (f); `a::{self}` → `a` (a).
pub fn expand(tree: &str) -> Vec<(String, String)> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.trim_start_matches("::");
    let Some(open) = tree.find('{') else {
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path.trim(), alias.trim()),
            None => (tree.trim(), tree.trim().rsplit("::").next().unwrap_or("")),
        };
        return vec![(path.to_string(), alias.to_string())];
    };
    let prefix = tree[..open].trim().trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .flat_map(|part| {
            expand(part).into_iter().map(|(path, alias)| {
                let path = match path.as_str() {
                    "self" => prefix.to_string(),
                    _ if prefix.is_empty() => path,
                    _ => format!("{prefix}::{path}"),
                };
                let alias = if alias == "self" {
                    prefix.rsplit("::").next().unwrap_or("").to_string()
                } else {
                    alias
                };
                (path, alias)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_trees_expand_with_their_names() {
        let paths = expand("crate::a::{self, b, c::{d, e as f}}");
        let expected = [
            ("crate::a", "a"),
            ("crate::a::b", "b"),
            ("crate::a::c::d", "d"),
            ("crate::a::c::e", "f"),
        ];
        assert_eq!(paths, expected.map(|(p, a)| (p.to_string(), a.to_string())));
    }

    #[test]
    fn declarations_are_told_from_words_that_contain_use() {
        let (found, rest) = use_declarations(
            "pub(crate) use crate::a::B;\nfn f() { use super::c; let reuse = 1; }\nuse std::io;",
        );
        let trees: Vec<(bool, &str)> = found.iter().map(|u| (u.public, u.tree.as_str())).collect();
        assert_eq!(
            trees,
            [
                (true, "crate::a::B"),
                (false, "super::c"),
                (false, "std::io")
            ]
        );
        assert!(rest.contains("let reuse = 1;"), "{rest}");
    }
}
