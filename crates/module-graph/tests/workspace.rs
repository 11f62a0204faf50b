//! Every crate of the workspace is free of module cycles (see the library's documentation for
//! what counts as a dependency), and every `crate::…` path in it resolves.

use std::path::Path;

use cairn_module_graph::ModuleGraph;

#[test]
fn no_crate_of_the_workspace_has_a_module_cycle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/");
    let mut checked = Vec::new();
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(crates).expect("crates/ is readable") {
        let dir = entry.expect("a directory entry").path();
        let src = dir.join("src");
        if !dir.join("Cargo.toml").is_file() || !src.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        match ModuleGraph::of_crate(&src) {
            Ok(graph) => {
                problems.extend(graph.problems().into_iter().map(|p| format!("{name}: {p}")));
                checked.push((name, graph));
            }
            Err(error) => problems.push(format!("{name}: {error}")),
        }
    }
    // The sources are really read: every crate, and a dependency every layout of core has.
    let names: Vec<&str> = checked.iter().map(|(name, _)| name.as_str()).collect();
    for expected in [
        "core",
        "store-sqlite",
        "store-postgres",
        "cli",
        "server",
        "module-graph",
    ] {
        assert!(
            names.contains(&expected),
            "crate {expected} not found in {names:?}"
        );
    }
    let core = &checked.iter().find(|(name, _)| name == "core").unwrap().1;
    assert!(core.modules() > 50 && core.depends("store", "memory::store"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
