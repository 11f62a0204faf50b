//! Real agents end to end: Claude Code, Codex and OpenCode — the CLIs users install from npm —
//! set up with `cairn setup`, run in their non-interactive modes, and asserted on what cairn
//! recorded and on what the agent sent to its model.
//!
//! The one stand-in is the model: the agents talk to a scripted endpoint on loopback
//! (`agents/model_server.rs`) that answers each conversation from a fixed script of tool calls
//! and text. Everything else is real: the agent's own configuration files as `cairn setup` edits
//! them, its hooks firing `cairn hook …` processes, its MCP client starting `cairn mcp`, its tool
//! loading, its compaction.
//!
//! Each agent goes through the same story in its own temporary HOME:
//! 1. it runs against the scripted model before cairn is set up;
//! 2. `cairn setup` then `cairn setup --uninstall` leave its configuration byte for byte as it was;
//! 3. with cairn set up (and `CAIRN_HOME` given, so every hook and MCP entry names the store),
//!    a session stores and searches through cairn's MCP tools, runs a shell command and ends
//!    with a `*Remember*:` line: cairn records the session, its prompt, tool uses and end, the
//!    stored memory and the remembered fact, and the model's first request carries the context
//!    cairn injected;
//! 4. uninstalled again, the agent still runs, and cairn records nothing more.
//!
//! Beside the stories, each agent's history from before cairn is imported (`agents/import.rs`).
//!
//! The versions are pinned in `agents/package.json` and printed when the suite runs. `.ci/run`
//! installs exactly those and sets `CAIRN_AGENTS_DIR`. The tests are ignored unless asked for
//! (`--include-ignored`), and fail, saying how to install the agents, when asked for without them.

#[path = "agents/claude.rs"]
mod claude;
#[path = "agents/claude_plugin.rs"]
mod claude_plugin;
#[path = "agents/codex.rs"]
mod codex;
#[path = "agents/import.rs"]
mod import;
#[path = "agents/model_server.rs"]
mod model_server;
#[path = "agents/opencode.rs"]
mod opencode;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use model_server::ModelServer;

/// The pinned agent packages (`agents/package.json`).
const PINNED: &str = include_str!("agents/package.json");

/// A memory stored before the session: the context the agent must be sent.
const SEED: &str = "The widget service listens on port 9876 behind the gateway";
/// What the agent stores through `memory_store`.
const STORED: &str = "Builds use sccache because the CI runner recompiles everything";
/// What the agent's final answer asks cairn to remember.
const REMEMBERED: &str = "the staging database is called pelican";
/// The command the agent runs through its shell tool.
const SHELL_MARKER: &str = "cairn-e2e-shell-ran";
/// The prompt of the session.
const PROMPT: &str = "Record the build decision and check what memory knows about sccache";

/// The installed agent CLIs.
struct Agents {
    dir: PathBuf,
}

impl Agents {
    /// The installed agents (a failure saying how to install them when they are not).
    fn find() -> Agents {
        let why = match std::env::var_os("CAIRN_AGENTS_DIR") {
            None => "CAIRN_AGENTS_DIR is not set".to_string(),
            Some(dir) => {
                let agents = Agents { dir: dir.into() };
                match ["claude", "codex", "opencode"]
                    .into_iter()
                    .find(|bin| !agents.bin(bin).exists())
                {
                    None => {
                        eprintln!("agents: {}", pinned_versions().join(", "));
                        return agents;
                    }
                    Some(missing) => format!("{} is missing", agents.bin(missing).display()),
                }
            }
        };
        let how = "copy crates/cli/tests/agents/package.json into a directory, run `npm install` \
                   there and set CAIRN_AGENTS_DIR to it";
        cairn_core::testing::missing("the pinned agent CLIs", &format!("{why}; {how}"))
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.dir.join("node_modules/.bin").join(name)
    }
}

/// `package@version` for every pinned agent.
fn pinned_versions() -> Vec<String> {
    let pinned: Value = serde_json::from_str(PINNED).expect("agents/package.json is JSON");
    pinned["dependencies"]
        .as_object()
        .expect("agents/package.json has dependencies")
        .iter()
        .map(|(name, version)| format!("{name}@{}", version.as_str().unwrap_or_default()))
        .collect()
}

/// The pinned version of one agent package.
fn pinned(package: &str) -> String {
    let pinned: Value = serde_json::from_str(PINNED).unwrap();
    pinned["dependencies"][package]
        .as_str()
        .unwrap_or_else(|| panic!("{package} is not pinned in agents/package.json"))
        .to_string()
}

/// One agent's temporary machine: its HOME, a project, cairn's data directory and the scripted
/// model it talks to.
struct Lab {
    root: tempfile::TempDir,
    /// The PATH every command runs with.
    path: OsString,
    home: PathBuf,
    project: PathBuf,
    cairn_home: PathBuf,
    model: ModelServer,
}

impl Lab {
    fn new() -> Lab {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Lab {
            path: std::env::var_os("PATH").unwrap_or_default(),
            cairn_home: home.join(".cairn"),
            home,
            project,
            root,
            model: ModelServer::start(),
        }
    }

    /// A command with this lab's environment only: its HOME and cairn's data directory (so
    /// `cairn setup` writes `--db` into every hook and MCP entry), nothing of the user's.
    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("LANG", "C.UTF-8")
            .env("CAIRN_HOME", &self.cairn_home)
            .env("CAIRN_CONFIG", self.home.join("no-user-config.toml"))
            .env("CAIRN_EMBEDDING", "off")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Puts this build's `cairn` first on the lab's PATH (a plugin runs the `cairn` it finds
    /// there); without it, no directory of the PATH holds a `cairn`.
    fn put_cairn_on_path(&mut self, on: bool) {
        let bin = self.root.path().join("bin");
        let outside = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .filter(|dir| !dir.join("cairn").exists())
            .collect::<Vec<_>>();
        let mut dirs = Vec::new();
        if on {
            std::fs::create_dir_all(&bin).unwrap();
            let link = bin.join("cairn");
            if !link.exists() {
                std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cairn"), &link).unwrap();
            }
            dirs.push(bin);
        }
        dirs.extend(outside);
        self.path = std::env::join_paths(dirs).unwrap();
    }

    /// `cairn args…` in the project; its standard output, or a panic with what it said.
    fn cairn(&self, args: &[&str]) -> String {
        let output = self
            .command(Path::new(env!("CARGO_BIN_EXE_cairn")))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "cairn {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// The sessions cairn recorded, as JSON (none: an empty list).
    fn sessions(&self) -> Vec<Value> {
        let output = self
            .command(Path::new(env!("CARGO_BIN_EXE_cairn")))
            .args(["sessions", "--format", "json"])
            .output()
            .unwrap();
        if output.status.code() == Some(1) {
            return Vec::new();
        }
        let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
        listed.as_array().cloned().unwrap_or_default()
    }

    /// One session with its observations.
    fn session(&self, key: &Value) -> Value {
        let key = format!(
            "{}/{}",
            key["agent"].as_str().unwrap(),
            key["id"].as_str().unwrap()
        );
        serde_json::from_str(&self.cairn(&["sessions", &key, "--format", "json"])).unwrap()
    }

    /// The memories a keyword search finds.
    fn search(&self, query: &str) -> Vec<Value> {
        let output = self
            .command(Path::new(env!("CARGO_BIN_EXE_cairn")))
            .args(["search", query, "--format", "json"])
            .output()
            .unwrap();
        let found: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        found["results"].as_array().cloned().unwrap_or_default()
    }

    /// Runs an agent to its end (at most three minutes); its standard output.
    fn run_agent(&self, command: Command) -> String {
        self.run_agent_saying(command).0
    }

    /// Runs an agent to its end, which must be a success; what it printed on stdout and on
    /// stderr.
    fn run_agent_saying(&self, mut command: Command) -> (String, String) {
        let started = Instant::now();
        let mut child = command.spawn().expect("start the agent");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
        let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{command:?} did not finish in 3 minutes; it said: {}",
                    err.join().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
        assert!(
            status.success(),
            "{:?} failed ({status}): {stderr}\n{stdout}",
            command.get_program()
        );
        (stdout, stderr)
    }

    /// The bytes of each file (`None`: it does not exist).
    fn snapshot(&self, files: &[PathBuf]) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        files
            .iter()
            .map(|file| (file.clone(), std::fs::read(file).ok()))
            .collect()
    }

    /// `cairn setup` then `cairn setup --uninstall` leave `files` as they were, byte for byte.
    fn assert_setup_undoes_itself(&self, agent: &str, files: &[PathBuf]) {
        let before = self.snapshot(files);
        self.cairn(&["setup", agent]);
        assert_ne!(
            self.snapshot(files),
            before,
            "setup {agent} changed nothing"
        );
        self.cairn(&["setup", agent, "--uninstall"]);
        for ((file, was), (_, is)) in before.iter().zip(self.snapshot(files)) {
            assert!(
                *was == is,
                "setup then uninstall of {agent} changed {}:\nbefore: {:?}\nafter: {:?}",
                file.display(),
                was.as_deref().map(String::from_utf8_lossy),
                is.as_deref().map(String::from_utf8_lossy)
            );
        }
    }

    /// The one session of `agent` cairn recorded, checked for the story's prompt and tool uses;
    /// its observations.
    fn assert_session_recorded(&self, agent: &str, tools: &[&str]) -> Value {
        let sessions: Vec<Value> = self
            .sessions()
            .into_iter()
            .filter(|s| s["key"]["agent"] == agent)
            .collect();
        assert_eq!(sessions.len(), 1, "one {agent} session: {sessions:#?}");
        let session = &sessions[0];
        // OpenCode's `run` sends the prompt in double quotes; cairn records what was sent.
        let prompt = session["first_prompt"].as_str().unwrap_or_default();
        assert_eq!(prompt.trim_matches('"'), PROMPT, "{session:#?}");
        assert_eq!(
            session["project"],
            self.project.canonicalize().unwrap().display().to_string()
        );
        let shown = self.session(&session["key"]);
        let used: Vec<&str> = shown["observations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["kind"] == "tool_use")
            .filter_map(|o| o["tool"].as_str())
            .collect();
        for tool in tools {
            assert!(used.contains(tool), "{agent} used {tool}: {used:?}");
        }
        let shell = shown["observations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o.to_string().contains(SHELL_MARKER));
        assert!(shell, "the shell command is recorded: {shown:#}");
        shown
    }

    /// The history import knows every session the hooks recorded (the same keys): it leaves
    /// them alone and imports only the agent's other sessions (before setup, after uninstall).
    fn assert_import_knows_the_hooks_sessions(&self, agent: &str) {
        let recorded = self
            .sessions()
            .into_iter()
            .filter(|s| s["key"]["agent"] == agent)
            .count();
        let report: Value =
            serde_json::from_str(&self.cairn(&["import", "--agent", agent, "--format", "json"]))
                .unwrap();
        assert_eq!(report["already_recorded"], recorded, "{report:#}");
        assert!(
            report["imported"].as_u64().unwrap() >= 1,
            "the sessions before setup: {report:#}"
        );
        assert_eq!(report["skipped_lines"], 0, "{report:#}");
    }

    /// The memory stored through MCP and the fact of the `*Remember*:` line are in the store.
    fn assert_memories_kept(&self) {
        let stored = self.search("sccache recompiles");
        assert!(
            stored.iter().any(|m| m.to_string().contains(STORED)),
            "memory_store kept the memory: {stored:#?}"
        );
        let remembered = self.search("pelican");
        assert!(
            remembered
                .iter()
                .any(|m| m.to_string().contains(REMEMBERED)),
            "the *Remember*: line became a memory: {remembered:#?}"
        );
    }
}

/// `request` offers every one of `tools`.
fn assert_offers(request: &model_server::Request, agent: &str, tools: &[&str]) {
    let offered = request.tool_names();
    for tool in tools {
        assert!(
            offered.iter().any(|t| t == tool),
            "{agent} offers {tool}: {offered:?}"
        );
    }
}

/// The model received what the story's tools answered: `memory_store`, called at step `store`,
/// created the memory; `memory_search`, the step after, found it; the shell command, next, ran.
fn assert_results_reached_the_model(turns: &[model_server::Request], store: usize) {
    assert_eq!(turns.len(), store + 4, "one request per step");
    let stored = turns[store + 1]
        .tool_result(store)
        .expect("memory_store answered");
    assert!(stored.contains("created"), "memory_store: {stored}");
    let searched = turns[store + 2]
        .tool_result(store + 1)
        .expect("memory_search answered");
    assert!(
        searched.contains("sccache in CI"),
        "memory_search finds it: {searched}"
    );
    let shell = turns[store + 3]
        .tool_result(store + 2)
        .expect("the shell answered");
    assert!(shell.contains(SHELL_MARKER), "{shell}");
}

/// The text of the `*Remember*:` line the script ends with.
fn final_answer() -> String {
    format!("Recorded the decision.\n*Remember*: {REMEMBERED}")
}

/// The arguments of the `memory_store` call every script makes.
fn store_input() -> Value {
    serde_json::json!({"content": STORED, "title": "sccache in CI", "category": "decision", "tags": ["ci"]})
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn claude_code_end_to_end() {
    let agents = Agents::find();
    claude::story(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn claude_code_plugin_end_to_end() {
    let agents = Agents::find();
    claude_plugin::story(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents) and the embedding model under HF_HUB_CACHE"]
fn codex_end_to_end() {
    let agents = Agents::find();
    codex::story(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn opencode_end_to_end() {
    let agents = Agents::find();
    opencode::story(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn claude_code_history_imports() {
    let agents = Agents::find();
    import::claude_code(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn codex_history_imports() {
    let agents = Agents::find();
    import::codex(&agents);
}

#[test]
#[ignore = "needs the pinned agent CLIs (CAIRN_AGENTS_DIR: npm install of crates/cli/tests/agents)"]
fn opencode_history_imports() {
    let agents = Agents::find();
    import::opencode(&agents);
}
