//! `cairn migrate-store` end to end between SQLite files (PostgreSQL's round trip is in
//! `postgres.rs`): everything moved, the export identical, a second run writing nothing, a
//! difference failing the command, a missing source refused.

use super::Sandbox;

/// A store with history, relations' material, slots and a token (returned).
pub(super) fn populate(sandbox: &Sandbox) -> String {
    sandbox.ok(&[
        "store",
        "The API rate limit is 100/min",
        "--topic-key",
        "rate-limit",
    ]);
    sandbox.ok(&[
        "store",
        "The API rate limit is 500/min",
        "--topic-key",
        "rate-limit",
    ]);
    sandbox.ok(&[
        "store",
        "Prefers tabs in Go files",
        "--global",
        "--tags",
        "style",
    ]);
    sandbox.ok(&["store", "Staging resets every Sunday", "--project", "beta"]);
    sandbox.ok(&["slot", "append", "pending_items", "- ship the importer"]);
    let token = sandbox.ok(&["token", "create", "--project", "beta", "--read"]);
    token.stdout.trim().to_string()
}

#[test]
fn a_store_moves_whole_into_another_file_and_a_second_run_writes_nothing() {
    let sandbox = Sandbox::new();
    populate(&sandbox);
    let copy = sandbox.home.join("copy.db");
    let to = format!("sqlite:{}", copy.display());
    let moved = sandbox.ok_json(&["migrate-store", "--to", &to]);
    assert_eq!(moved["verified"], true, "{moved}");
    let report = &moved["report"];
    assert_eq!(report["moved"]["memories"]["created"], 3, "{moved}");
    assert_eq!(report["tokens"], 1, "{moved}");
    let kinds: Vec<&str> = report["check"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kind| kind["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "memories",
            "relations",
            "slots",
            "slot_seeds",
            "sessions",
            "observations",
            "tokens",
            "vectors:text"
        ]
    );
    let original = sandbox.ok(&["export", "-", "--sessions"]).stdout;
    let copy_db = copy.display().to_string();
    let copied = sandbox
        .ok(&["--db", &copy_db, "export", "-", "--sessions"])
        .stdout;
    assert_eq!(copied, original);

    // Run again (as after an interruption): everything is there already.
    let again = sandbox.ok(&["migrate-store", "--to", &to]).stdout;
    assert!(
        again.contains("3 unchanged") && !again.contains("created"),
        "{again}"
    );
    assert!(again.contains("both stores hold the same"), "{again}");
    assert!(again.contains("0 access tokens"), "{again}");

    // A difference fails the command and is named.
    sandbox.ok(&["--db", &copy_db, "store", "Only the copy knows this"]);
    let run = sandbox.run(&["migrate-store", "--to", &to]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("memories DIFFER"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the stores differ after the move (memories)"),
        "{}",
        run.stderr
    );

    // A source that does not exist is refused; nothing is created.
    let missing = sandbox.home.join("missing.db");
    let from = format!("sqlite:{}", missing.display());
    let run = sandbox.run(&["migrate-store", "--from", &from, "--to", &to]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(!missing.exists());
    // Nor can a store move into itself.
    let own = format!("sqlite:{}", sandbox.home.join("cairn.db").display());
    let run = sandbox.run(&["migrate-store", "--to", &own]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("is the store being moved"),
        "{}",
        run.stderr
    );
}
