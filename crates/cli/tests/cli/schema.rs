//! The served OpenAPI document driven by schemathesis (PyPI): every route, with inputs
//! generated from its own schema — valid, invalid, hostile — answered without a server error.
//! Needs schemathesis (`CAIRN_SCHEMATHESIS`: its executable; `.ci/run` installs it) and the
//! embedding model (without one, searches by meaning answer 503 "unavailable", as documented).

use std::process::Command;

use super::{Sandbox, Served};

const TOKEN: &str = "schema-token-0123456789abcdef";

/// The schemathesis executable (`CAIRN_SCHEMATHESIS`).
fn schemathesis() -> String {
    cairn_core::testing::provided("CAIRN_SCHEMATHESIS", "schemathesis, from PyPI")
}

#[test]
#[ignore = "needs schemathesis (CAIRN_SCHEMATHESIS) and the embedding model (cairn model install)"]
fn schemathesis_finds_no_server_error_on_any_route() {
    let schemathesis = schemathesis();
    let s = Sandbox::with_model();
    s.ok(&["store", "The deploy runs from main", "--tags", "deploy"]);
    s.ok(&["slot", "append", "guidance", "- prefer small commits"]);
    let server = Served::start(&s, &[], TOKEN);
    let output = Command::new(&schemathesis)
        .arg("run")
        .arg(format!("{}/v1/openapi.json", server.base))
        .args(["--checks", "not_a_server_error", "--max-examples", "25"])
        // A fixed seed: CI explores the same inputs every run (run by hand without it to
        // explore others).
        .args(["--seed", "20261127"])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .env("NO_COLOR", "1")
        // schemathesis keeps a cache in its working directory: the sandbox's, not the checkout.
        .current_dir(&s.project)
        .output()
        .expect("schemathesis runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis found failures:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        report.contains("36 selected") || report.contains("Selected:"),
        "{report}"
    );
}
