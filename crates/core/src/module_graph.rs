//! A test that keeps core's modules free of cycles.
//!
//! Each source file is a module. Module A *depends on* module B when A's code names an item
//! that B defines, through a `use crate::…`/`use super::…` path or a path written inline. A
//! name imported through a folder's `mod.rs` re-export (`crate::memory::Memory`) counts as a
//! dependency on the file that defines it (`memory::model`), not on the folder, so a folder's
//! facade never makes a cycle of its own; a parent declaring its children is structure, not a
//! dependency. Unit-test modules (`#[cfg(test)]` to the end of a file) are left out. Any
//! strongly connected set of two or more modules fails the test, with the paths that make it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules of a source tree: module path (`memory::model`, `crate` for the root) → text.
type Sources = BTreeMap<String, String>;

fn read_tree(root: &Path) -> Sources {
    let mut sources = Sources::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the source folder is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(root).expect("inside the root");
            let mut parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            let module = if parts.is_empty() {
                "crate".to_string()
            } else {
                parts.join("::")
            };
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            sources.insert(module, text);
        }
    }
    sources
}

/// The code of a file without comments and without its unit-test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The full paths a `use` tree names: `a::{b, c::{d, e as f}}` → `a::b`, `a::c::d`, `a::c::e`
/// (with the name each is known by).
fn expand(tree: &str) -> Vec<(String, String)> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
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
                let path = if path == "self" {
                    prefix.to_string()
                } else {
                    format!("{prefix}::{path}")
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

/// The `use` statements of some code: (public, tree), and the code without them.
fn use_statements(code: &str) -> (Vec<(bool, String)>, String) {
    let mut found = Vec::new();
    let mut others = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let lead = before[line_start..].trim();
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if lead.is_empty() || lead.starts_with("pub") {
            found.push((lead.starts_with("pub"), after[..end].to_string()));
            others.push_str(&rest[..line_start]);
        } else {
            others.push_str(&rest[..at + 4 + end]);
        }
        rest = &after[end..];
    }
    others.push_str(rest);
    (found, others)
}

/// `path` as written in `module`, made absolute (without `crate::`), or `None` for a path
/// outside the crate.
fn absolute(module: &str, path: &str) -> Option<String> {
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
        _ => return None,
    }
    base.extend(segments);
    Some(base.join("::"))
}

/// The module graph: module → the modules its code depends on.
fn dependencies(sources: &Sources) -> BTreeMap<String, BTreeSet<String>> {
    let code: BTreeMap<&str, String> = sources
        .iter()
        .map(|(module, text)| (module.as_str(), code(text)))
        .collect();
    // What each module re-exports: name → absolute path it stands for.
    let mut exports: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for (module, text) in &code {
        for (public, tree) in use_statements(text).0 {
            if !public {
                continue;
            }
            for (path, alias) in expand(&tree) {
                let path = if path.starts_with("crate") || path.starts_with("super") {
                    absolute(module, &path)
                } else {
                    absolute(module, &format!("self::{path}"))
                };
                if let Some(path) = path {
                    exports.entry(module).or_default().insert(alias, path);
                }
            }
        }
    }
    let resolve = |path: &str| -> Option<String> {
        let mut path = path.to_string();
        for _ in 0..8 {
            let segments: Vec<&str> = path.split("::").collect();
            let mut module = String::from("crate");
            let mut used = 0;
            for (n, segment) in segments.iter().enumerate() {
                let candidate = if n == 0 {
                    segment.to_string()
                } else {
                    format!("{}::{segment}", segments[..n].join("::"))
                };
                if sources.contains_key(&candidate) {
                    module = candidate;
                    used = n + 1;
                } else {
                    break;
                }
            }
            let item = segments.get(used);
            match item.and_then(|item| exports.get(module.as_str())?.get(*item)) {
                Some(target) if *target != path => path = target.clone(),
                _ => return Some(module),
            }
        }
        None
    };
    let mut graph = BTreeMap::new();
    for (module, text) in &code {
        let mut depends = BTreeSet::new();
        let (uses, rest) = use_statements(text);
        let mut paths: Vec<String> = uses
            .into_iter()
            .filter(|(public, _)| !public)
            .flat_map(|(_, tree)| expand(&tree).into_iter().map(|(path, _)| path))
            .filter(|path| path.starts_with("crate") || path.starts_with("super"))
            .collect();
        // Paths written inline, outside `use`.
        let mut rest = rest.as_str();
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            paths.push(tail[..end].trim_end_matches(':').to_string());
            rest = &tail[end..];
        }
        for path in paths {
            if let Some(target) = absolute(module, &path).and_then(|p| resolve(&p))
                && target != *module
                && target != "crate"
            {
                depends.insert(target);
            }
        }
        graph.insert(module.to_string(), depends);
    }
    graph
}

/// The sets of two or more modules that depend on each other (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut set = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    set.push(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.found.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

#[test]
fn core_has_no_module_cycle() {
    let sources = read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(sources.contains_key("memory::model") && sources.contains_key("store"));
    let graph = dependencies(&sources);
    // The graph is really read: a few dependencies every layout of core has.
    assert!(
        graph["store"].contains("memory::store"),
        "{:?}",
        graph["store"]
    );
    assert!(
        !graph["store"].contains("memory"),
        "a facade is looked through"
    );
    assert!(graph["search::pipeline"].contains("query"));
    let found = cycles(&graph);
    let explain: Vec<String> = found
        .iter()
        .map(|set| {
            let edges: Vec<String> = set
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| set.contains(to))
                        .map(move |to| format!("{from} → {to}"))
                })
                .collect();
            format!("{{{}}}: {}", set.join(", "), edges.join("; "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "module cycles in cairn-core:\n{}",
        explain.join("\n")
    );
}

#[test]
fn a_cycle_through_a_re_export_is_found_and_a_facade_alone_makes_none() {
    let sources: Sources = [
        ("crate", "pub mod a; pub mod b;"),
        (
            "a",
            "pub mod model; pub mod ops;\npub use model::Thing;\npub use ops::run;",
        ),
        ("a::model", "pub struct Thing;"),
        ("a::ops", "use crate::b::helper;\npub fn run() { helper() }"),
        ("b", "use crate::a::Thing;\npub fn helper() {}"),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_string(), t.to_string()))
    .collect();
    let graph = dependencies(&sources);
    assert_eq!(
        graph["b"],
        BTreeSet::from(["a::model".to_string()]),
        "resolved through the facade"
    );
    assert!(
        cycles(&graph).is_empty(),
        "a::ops → b → a::model is no cycle"
    );

    let mut cyclic = sources.clone();
    cyclic.insert(
        "a::model".into(),
        "use crate::b::helper;\npub struct Thing;".into(),
    );
    let found = cycles(&dependencies(&cyclic));
    assert_eq!(found, [vec!["a::model".to_string(), "b".to_string()]]);
}
