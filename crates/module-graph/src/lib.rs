//! The workspace's module-cycle check.
//!
//! Every crate of the workspace keeps its modules free of cycles: a module may depend on
//! another only if that one does not, through any chain, depend back on it. That keeps each
//! file readable on its own and each domain movable. The check reads source text only —
//! nothing is compiled — and is run for every crate by this crate's `tests/workspace.rs`,
//! part of `cargo test --workspace`.
//!
//! - `source`: code as the product builds it (comments, literal contents and every
//!   `#[cfg(test)]` item left out, wherever it sits);
//! - `uses`: `use` declarations and the paths they name;
//! - `graph`: which module depends on which, each name resolved to the module defining it,
//!   and the paths that resolve to nothing (the check fails on those too, rather than guess);
//! - `cycles`: the sets of modules that reach each other.
//!
//! Each file of a crate's `src` is a module named by its path (`memory/model.rs` is
//! `memory::model`, a folder's `mod.rs` is the folder); `lib.rs` (or, without one, `main.rs`)
//! is the root. A `main.rs` beside a `lib.rs` is a crate of its own that reaches the library
//! by name, so it is left out — unless it declares modules of its own, which the check refuses.

mod cycles;
mod graph;
mod source;
mod uses;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use graph::Sources;

/// A crate's modules and what each depends on.
pub struct ModuleGraph {
    edges: BTreeMap<String, BTreeSet<String>>,
    unresolved: Vec<(String, String)>,
}

impl ModuleGraph {
    /// The graph of the crate whose sources are under `src`.
    pub fn of_crate(src: &Path) -> Result<ModuleGraph, String> {
        Ok(ModuleGraph::of_sources(&read_sources(src)?))
    }

    /// The graph of these modules (module path → source text).
    pub fn of_sources(sources: &Sources) -> ModuleGraph {
        let graph::Dependencies { edges, unresolved } = graph::dependencies(sources);
        ModuleGraph { edges, unresolved }
    }

    /// Whether module `from` depends on module `to` directly.
    pub fn depends(&self, from: &str, to: &str) -> bool {
        self.edges.get(from).is_some_and(|e| e.contains(to))
    }

    /// How many modules the crate has.
    pub fn modules(&self) -> usize {
        self.edges.len()
    }

    /// What is wrong: each cycle with the edges that make it, and each path that resolves to
    /// nothing; empty when the crate is clean.
    pub fn problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = cycles::cycles(&self.edges)
            .iter()
            .map(|set| {
                let edges: Vec<String> = set
                    .iter()
                    .flat_map(|from| {
                        self.edges[from]
                            .iter()
                            .filter(|to| set.contains(to))
                            .map(move |to| format!("{from} → {to}"))
                    })
                    .collect();
                format!("cycle {{{}}}: {}", set.join(", "), edges.join("; "))
            })
            .collect();
        problems.extend(self.unresolved.iter().map(|(module, path)| {
            format!("{module}: `crate::{path}` names nothing the check can find")
        }));
        problems
    }
}

/// The modules under `src`, named by their paths.
fn read_sources(src: &Path) -> Result<Sources, String> {
    let has_lib = src.join("lib.rs").is_file();
    let mut sources = Sources::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path: PathBuf = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let relative = path.strip_prefix(src).expect("inside the source folder");
            if has_lib && relative == Path::new("main.rs") {
                if declares_file_modules(&text) {
                    return Err(format!(
                        "{}: a main.rs beside lib.rs declares modules; the check reads lib.rs's tree",
                        path.display()
                    ));
                }
                continue;
            }
            let mut parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if parts
                .last()
                .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
            {
                parts.pop();
            }
            let module = if parts.is_empty() {
                "crate".to_string()
            } else {
                parts.join("::")
            };
            sources.insert(module, text);
        }
    }
    Ok(sources)
}

/// Whether `text` declares a module kept in a file of its own (`mod name;`).
fn declares_file_modules(text: &str) -> bool {
    let code = source::product_code(text);
    code.split(';').any(|statement| {
        let words: Vec<&str> = statement.split_whitespace().collect();
        words.len() >= 2 && words[words.len() - 2] == "mod" && !statement.contains('{')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_through_a_re_export_is_found_and_a_facade_alone_makes_none() {
        let mut sources: Sources = [
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
        let clean = ModuleGraph::of_sources(&sources);
        assert!(clean.depends("b", "a::model") && !clean.depends("b", "a"));
        assert!(clean.problems().is_empty(), "{:?}", clean.problems());

        sources.insert(
            "a::model".into(),
            "use crate::b::helper;\npub struct Thing;".into(),
        );
        let problems = ModuleGraph::of_sources(&sources).problems();
        assert_eq!(
            problems,
            ["cycle {a::model, b}: a::model → b; b → a::model"]
        );
    }

    #[test]
    fn a_main_beside_a_library_is_its_own_crate_unless_it_declares_modules() {
        let dir = std::env::temp_dir().join(format!("module-graph-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lib.rs"), "pub mod a;").unwrap();
        std::fs::write(dir.join("a.rs"), "pub fn f() {}").unwrap();
        std::fs::write(
            dir.join("main.rs"),
            "fn main() { lib::a::f() }\n#[cfg(test)]\nmod tests {}",
        )
        .unwrap();
        let graph = ModuleGraph::of_crate(&dir).unwrap();
        assert_eq!(graph.modules(), 2);
        std::fs::write(dir.join("main.rs"), "mod cli;\nfn main() {}").unwrap();
        let refused = ModuleGraph::of_crate(&dir).err().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(refused.contains("declares modules"), "{refused}");
    }
}
