//! `cairn doctor` and what every command does with a damaged or wrong store file, through the
//! real binary: exit statuses, findings and repairs, an empty or foreign file refused by name,
//! an old store upgraded with its copy kept.

use super::Sandbox;

const PAGE: u64 = 4096;

fn database(s: &Sandbox) -> std::path::PathBuf {
    s.home.join("cairn.db")
}

#[test]
fn a_healthy_store_exits_0_and_damage_exits_1_until_repaired_into_a_new_file() {
    let s = Sandbox::new();
    let records: String = (0..300)
        .map(|n| format!("{{\"content\": \"fact {n}: the staging cluster keeps {n} workers\"}}\n"))
        .collect();
    assert_eq!(s.import(&records).code, 0);
    let healthy = s.run(&["doctor", "--format", "json"]);
    assert_eq!(healthy.code, 0, "{}{}", healthy.stdout, healthy.stderr);
    let report = healthy.json();
    assert!(
        report["checked"].to_string().contains("full_text"),
        "{report}"
    );

    // Zero the page that holds one memory's text (a page of the schema, or of a table every
    // open reads, would keep the store from opening at all).
    let path = database(&s);
    let bytes = std::fs::read(&path).unwrap();
    let text = b"fact 150: the staging cluster keeps 150 workers";
    let at = bytes
        .windows(text.len())
        .position(|w| w == text)
        .expect("the memory's text is in the database file") as u64;
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.seek(SeekFrom::Start(at / PAGE * PAGE)).unwrap();
        file.write_all(&[0; PAGE as usize]).unwrap();
    }
    let damaged = s.run(&["doctor"]);
    assert_eq!(damaged.code, 1, "{}{}", damaged.stdout, damaged.stderr);
    assert!(
        damaged.stdout.contains("problem [database]"),
        "{}",
        damaged.stdout
    );
    assert!(
        damaged.stdout.contains("cairn doctor --repair"),
        "{}",
        damaged.stdout
    );

    let repaired = s.run(&["doctor", "--repair", "--format", "json"]);
    assert_eq!(repaired.code, 1, "the damaged file is still there");
    let lines = repaired.json()["repaired"].to_string();
    assert!(lines.contains("recovered"), "{lines}");
    let recovered = std::fs::read_dir(&s.home)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(".recovered-"))
        .expect("a new file beside the database");
    let checked = s.run(&["--db", recovered.to_str().unwrap(), "doctor"]);
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    // Switching to it keeps the damaged one beside it.
    let restored = s.run(&["restore", recovered.to_str().unwrap(), "--force"]);
    assert_eq!(restored.code, 0, "{}", restored.stderr);
    assert_eq!(s.run(&["doctor"]).code, 0);
    assert!(
        s.ok(&["search", "staging", "cluster"])
            .stdout
            .contains("fact")
    );
}

#[test]
fn an_empty_or_foreign_store_file_is_refused_by_name_and_left_alone() {
    let s = Sandbox::new();
    std::fs::create_dir_all(&s.home).unwrap();
    let path = database(&s);
    std::fs::write(&path, b"").unwrap();
    for args in [&["stats"][..], &["store", "not written"], &["search", "x"]] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(
            run.stderr.contains(&path.display().to_string()) && run.stderr.contains("empty"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    let doctor = s.run(&["doctor"]);
    assert_eq!(doctor.code, 2, "nothing to examine: {}", doctor.stderr);

    std::fs::write(&path, b"a text file someone named cairn.db\n").unwrap();
    let run = s.run(&["list"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("does not start like a SQLite database"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"a text file someone named cairn.db\n"
    );
}

#[test]
fn an_older_store_is_upgraded_once_with_its_copy_kept_and_said() {
    let s = Sandbox::new();
    std::fs::create_dir_all(&s.home).unwrap();
    std::fs::write(
        database(&s),
        include_bytes!("../../../store-sqlite/tests/fixtures/schema-v6.db"),
    )
    .unwrap();
    let first = s.run(&["list", "--all-projects"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains("upgraded") && first.stderr.contains("cairn.db.v6.bak"),
        "{}",
        first.stderr
    );
    assert!(s.home.join("cairn.db.v6.bak").is_file());
    let second = s.run(&["list", "--all-projects"]);
    assert!(
        !second.stderr.contains("upgraded"),
        "once: {}",
        second.stderr
    );
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn a_failed_upgrade_names_its_step_and_the_copy() {
    let s = Sandbox::new();
    s.ok(&["store", "Kept across the upgrade"]);
    let path = database(&s);
    let current = schema_version(&path) - 1;
    set_version(&path, current);
    // The last migration's work is there already, so replaying it fails: the message names
    // the step and the copy, not the SQL.
    let failed = s.run(&["list"]);
    assert_eq!(failed.code, 2);
    assert!(
        failed.stderr.contains(&format!("step {}", current + 1)),
        "{}",
        failed.stderr
    );
    assert!(
        failed.stderr.contains(&format!(".v{current}.bak")),
        "{}",
        failed.stderr
    );
    assert!(!failed.stderr.contains("ALTER TABLE"), "{}", failed.stderr);
}

/// The schema version of the database at `path`, read with the sqlite3 header's field (offset
/// 60, the `user_version`), without linking SQLite into the test.
fn schema_version(path: &std::path::Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    u32::from_be_bytes(bytes[60..64].try_into().unwrap())
}

fn set_version(path: &std::path::Path, version: u32) {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.seek(SeekFrom::Start(60)).unwrap();
    file.write_all(&version.to_be_bytes()).unwrap();
}
