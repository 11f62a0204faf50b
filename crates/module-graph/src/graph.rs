//! The dependencies between a crate's modules, resolved to the file that defines each item.
//!
//! Module A *depends on* module B when A's code names an item B defines: through a `use`
//! declaration (`crate::…`, `super::…`, `self::…` or a child module's name) or a `crate::…` or
//! `super::…` path written inline. A name reached through a re-export (`crate::memory::Memory`,
//! re-exported by `memory/mod.rs` from `memory/model.rs`) counts as a dependency on the module
//! that defines it, so a folder's facade never makes a cycle of its own; a re-export itself
//! (`pub use`) is not a dependency of the facade, and a parent declaring its children is
//! structure. A path that leads to no module, no definition and no import is *unresolved*: the
//! check fails on it rather than guess.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::product_code;
use crate::uses::{UseDecl, expand, use_declarations};

/// The modules of a crate: module path (`memory::model`, `crate` for the root) → source text.
pub type Sources = BTreeMap<String, String>;

/// What a name in a module stands for.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    /// An item of this crate, by its absolute path (without `crate::`).
    Internal(String),
    /// An item of another crate (`std`, a dependency): no edge.
    External,
}

/// Where a path leads.
#[derive(Debug, PartialEq)]
enum Resolved {
    Module(String),
    External,
    Unresolved,
}

/// One module as the resolver sees it.
#[derive(Default)]
struct Module {
    /// Its product code with its `use` declarations taken out.
    code: String,
    /// Its `use` declarations.
    uses: Vec<UseDecl>,
    /// Every name its `use` declarations bring in (public or not: a child may reach a parent's
    /// private import through `super::`).
    names: BTreeMap<String, Target>,
    /// The modules it imports every public name of (`use a::*`).
    globs: Vec<String>,
}

/// Module → the modules it depends on; and the paths no module defines, as (module, path).
pub struct Dependencies {
    pub edges: BTreeMap<String, BTreeSet<String>>,
    pub unresolved: Vec<(String, String)>,
}

/// `path` (as written in `module`) made absolute without `crate::`; `None` for another
/// crate's path.
fn absolute(modules: &Names, module: &str, path: &str) -> Option<String> {
    let mut base: Vec<&str> = if module == "crate" {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut segments = path.split("::").peekable();
    match *segments.peek()? {
        "crate" => {
            segments.next();
            base.clear();
        }
        "super" => {
            while segments.peek() == Some(&"super") {
                segments.next();
                base.pop();
            }
        }
        "self" => {
            segments.next();
        }
        first => {
            // A path that starts with a child module's name is this crate's; any other is
            // another crate's (`std::…`, `serde::…`).
            let child = if base.is_empty() {
                first.to_string()
            } else {
                format!("{module}::{first}")
            };
            if !modules.contains(&child) {
                return None;
            }
        }
    }
    base.extend(segments);
    Some(base.join("::"))
}

/// Whether `code` defines an item (or a `macro_rules!` macro) named `name`.
fn defines(code: &str, name: &str) -> bool {
    const KINDS: [&str; 10] = [
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "mod",
        "union",
        "macro_rules!",
    ];
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    KINDS.iter().any(|kind| {
        let pattern = format!("{kind} {name}");
        code.match_indices(&pattern).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + pattern.len()..].chars().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
    })
}

/// The module graph of `sources`.
pub fn dependencies(sources: &Sources) -> Dependencies {
    let (codes, inline) = modules_of(sources);
    let names: Names = codes.keys().cloned().collect();
    let mut modules: BTreeMap<&str, Module> = BTreeMap::new();
    for (name, code) in &codes {
        let (uses, code) = use_declarations(code);
        let mut module = Module {
            code,
            ..Module::default()
        };
        for (path, alias) in uses.iter().flat_map(|u| expand(&u.tree)) {
            if let Some(glob) = path.strip_suffix("::*") {
                module.globs.extend(absolute(&names, name, glob));
                continue;
            }
            if alias == "_" {
                continue;
            }
            let target = absolute(&names, name, &path).map_or(Target::External, Target::Internal);
            module.names.insert(alias, target);
        }
        module.uses = uses;
        modules.insert(name, module);
    }
    let resolver = Resolver {
        names: &names,
        modules: &modules,
    };
    // An inline module's edges are its file's.
    let file_of = |module: &str| -> String {
        let mut module = module.to_string();
        while inline.contains(&module) {
            module = module
                .rsplit_once("::")
                .map_or("crate", |(parent, _)| parent)
                .to_string();
        }
        module
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut unresolved = Vec::new();
    for (name, module) in &modules {
        let mut paths: Vec<String> = module
            .uses
            .iter()
            .filter(|u| !u.public)
            .flat_map(|u| expand(&u.tree).into_iter().map(|(path, _)| path))
            .collect();
        paths.extend(inline_paths(&module.code));
        let file = file_of(name);
        let depends = edges.entry(file.clone()).or_default();
        for path in paths {
            let path = path.strip_suffix("::*").unwrap_or(&path);
            let Some(path) = absolute(&names, name, path) else {
                continue;
            };
            match resolver.resolve(&path, 0) {
                Resolved::Module(target) => {
                    let target = file_of(&target);
                    if target != file && target != "crate" {
                        depends.insert(target);
                    }
                }
                Resolved::Unresolved => unresolved.push((name.to_string(), path)),
                Resolved::External => {}
            }
        }
    }
    Dependencies { edges, unresolved }
}

/// The names of a crate's modules, inline ones included.
type Names = BTreeSet<String>;

/// Each module's product code, with every inline module (`mod name { … }`) made a module of
/// its own (`file::name`, left as `mod name;` in its parent); and the names of the inline ones.
fn modules_of(sources: &Sources) -> (BTreeMap<String, String>, Names) {
    let mut codes = BTreeMap::new();
    let mut inline = Names::new();
    let mut work: Vec<(String, String)> = sources
        .iter()
        .map(|(name, text)| (name.clone(), product_code(text)))
        .collect();
    while let Some((name, mut code)) = work.pop() {
        while let Some((start, child, body, end)) = inline_module(&code) {
            let path = if name == "crate" {
                child.clone()
            } else {
                format!("{name}::{child}")
            };
            inline.insert(path.clone());
            work.push((path, body));
            code.replace_range(start..end, &format!("mod {child};"));
        }
        codes.insert(name, code);
    }
    (codes, inline)
}

/// The first inline module of `code`: where `mod` starts, its name, its body and where its
/// closing brace ends.
fn inline_module(code: &str) -> Option<(usize, String, String, usize)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for (at, _) in code.match_indices("mod ") {
        if code[..at].chars().next_back().is_some_and(ident) {
            continue;
        }
        let after = &code[at + 4..];
        let name_len = after.find(|c: char| !ident(c)).unwrap_or(after.len());
        let name = &after[..name_len];
        let rest = after[name_len..].trim_start();
        if name.is_empty() || !rest.starts_with('{') {
            continue;
        }
        let open = code.len() - rest.len();
        let mut depth = 0;
        for (offset, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let close = open + offset;
                        let body = code[open + 1..close].to_string();
                        return Some((at, name.to_string(), body, close + 1));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The `crate::…` and `super::…` paths written outside `use` declarations.
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let tail = &code[at..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            paths.push(tail[..end].trim_end_matches(':').to_string());
        }
    }
    paths
}

struct Resolver<'a> {
    names: &'a Names,
    modules: &'a BTreeMap<&'a str, Module>,
}

impl Resolver<'_> {
    /// The module that defines what the absolute `path` names, following imports and
    /// re-exports (at most eight deep).
    fn resolve(&self, path: &str, depth: usize) -> Resolved {
        if depth > 8 {
            return Resolved::Unresolved;
        }
        let segments: Vec<&str> = if path.is_empty() {
            Vec::new()
        } else {
            path.split("::").collect()
        };
        let mut module = String::from("crate");
        let mut used = 0;
        for n in 0..segments.len() {
            let candidate = segments[..=n].join("::");
            if !self.names.contains(&candidate) {
                break;
            }
            module = candidate;
            used = n + 1;
        }
        let Some(item) = segments.get(used) else {
            return Resolved::Module(module);
        };
        let Some(found) = self.modules.get(module.as_str()) else {
            return Resolved::Unresolved;
        };
        match found.names.get(*item) {
            Some(Target::External) => return Resolved::External,
            Some(Target::Internal(target)) if target != path => {
                let rest = segments[used + 1..].iter();
                let target = std::iter::once(target.as_str())
                    .chain(rest.copied())
                    .collect::<Vec<_>>()
                    .join("::");
                return self.resolve(&target, depth + 1);
            }
            _ => {}
        }
        if defines(&found.code, item) || self.exported_macro(&module, item) {
            return Resolved::Module(module);
        }
        for glob in &found.globs {
            let through = format!("{glob}::{}", segments[used..].join("::"));
            let through = through.trim_start_matches("::");
            match self.resolve(through, depth + 1) {
                Resolved::Unresolved => continue,
                resolved => return resolved,
            }
        }
        Resolved::Unresolved
    }

    /// Whether `item`, named at the crate root, is a `#[macro_export]` macro defined anywhere.
    fn exported_macro(&self, module: &str, item: &str) -> bool {
        module == "crate"
            && self
                .modules
                .values()
                .any(|m| m.code.contains("#[macro_export]") && defines(&m.code, item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(files: &[(&str, &str)]) -> Sources {
        files
            .iter()
            .map(|(m, t)| (m.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn a_name_is_resolved_through_a_facade_to_its_definition() {
        let graph = dependencies(&sources(&[
            ("crate", "pub mod a; pub mod b;"),
            ("a", "pub mod model;\npub use model::Thing;"),
            ("a::model", "pub struct Thing;"),
            (
                "b",
                "use crate::a::Thing;\nfn f() -> crate::a::model::Thing { todo!() }",
            ),
        ]));
        assert_eq!(graph.edges["b"], BTreeSet::from(["a::model".to_string()]));
        assert!(graph.edges["a"].is_empty(), "a re-export is no dependency");
        assert!(graph.unresolved.is_empty(), "{:?}", graph.unresolved);
    }

    #[test]
    fn a_parents_import_reached_through_super_and_globs_resolve() {
        let graph = dependencies(&sources(&[
            (
                "crate",
                "pub mod a; pub mod c; use std::collections::HashMap;",
            ),
            ("a", "pub mod kid; use crate::c::Shared;"),
            ("a::kid", "use super::Shared; use super::super::HashMap;"),
            ("c", "mod inner; pub use inner::*;"),
            ("c::inner", "pub struct Shared;"),
        ]));
        assert_eq!(
            graph.edges["a::kid"],
            BTreeSet::from(["c::inner".to_string()])
        );
        assert!(graph.unresolved.is_empty(), "{:?}", graph.unresolved);
    }

    #[test]
    fn a_path_to_nothing_is_reported() {
        let graph = dependencies(&sources(&[
            ("crate", "pub mod a;"),
            (
                "a",
                "use crate::missing::Thing; fn f() { crate::a::nowhere(); }",
            ),
        ]));
        assert_eq!(
            graph.unresolved,
            [
                ("a".to_string(), "missing::Thing".to_string()),
                ("a".to_string(), "a::nowhere".to_string()),
            ]
        );
    }

    #[test]
    fn an_inline_module_resolves_super_from_itself_and_its_edges_are_its_files() {
        let graph = dependencies(&sources(&[
            ("crate", "pub mod k; pub mod other;"),
            (
                "k",
                "pub const PANEL: usize = 8;\nmod fast { use super::PANEL; use crate::other::f; }",
            ),
            ("other", "pub fn f() {}"),
        ]));
        assert!(graph.unresolved.is_empty(), "{:?}", graph.unresolved);
        assert_eq!(graph.edges["k"], BTreeSet::from(["other".to_string()]));
        assert!(!graph.edges.contains_key("k::fast"));
    }

    #[test]
    fn a_test_only_import_makes_no_edge() {
        let graph = dependencies(&sources(&[
            ("crate", "pub mod a; pub mod b;"),
            (
                "a",
                "pub fn f() {}\n#[cfg(test)]\nmod tests { use crate::b::g; }",
            ),
            ("b", "pub fn g() { crate::a::f() }"),
        ]));
        assert!(graph.edges["a"].is_empty());
        assert_eq!(graph.edges["b"], BTreeSet::from(["a".to_string()]));
    }
}
