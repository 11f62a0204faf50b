//! cairn's Claude Code plugin, installed the way its users install it: the repository added
//! as a marketplace in a fresh home, `claude plugin install cairn@cairn`, a `claude -p` session
//! against the scripted model, then the plugin uninstalled.
//!
//! Nothing of cairn edits the home: Claude Code copies the plugin into its own cache and runs
//! its hooks, MCP server and skill from there, with the `cairn` it finds on PATH.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::claude::run;
use super::model_server::Step;
use super::{Agents, Lab, SEED};

/// What Claude Code names the tools of the plugin's MCP server.
const TOOLS: &str = "mcp__plugin_cairn_cairn__";

/// `claude args…` (not `-p`): its standard output.
fn manage(lab: &Lab, agents: &Agents, args: &[&str]) -> String {
    let mut command = lab.command(&agents.bin("claude"));
    command
        .args(args)
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    lab.run_agent(command)
}

/// Every file under `home` with its bytes.
fn files(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut dirs = vec![home.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                found.push((path.strip_prefix(home).unwrap().to_path_buf(), bytes));
            }
        }
    }
    found.sort();
    found
}

pub fn story(agents: &Agents) {
    let mut lab = Lab::new();
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repository = repository.canonicalize().unwrap();
    let repository = repository.to_str().unwrap();
    let plugin = format!("{repository}/plugins/cairn");

    // The manifests pass Claude Code's own strict check.
    for manifest in [repository, &plugin] {
        let said = manage(&lab, agents, &["plugin", "validate", "--strict", manifest]);
        assert!(said.contains("Validation passed"), "{said}");
    }

    // A home that has run Claude Code once, before the plugin.
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    run(&lab, agents, &["Say hello"]);
    let before = files(&lab.home);

    // 1. Installed from the local marketplace, with cairn on PATH.
    lab.put_cairn_on_path(true);
    manage(&lab, agents, &["plugin", "marketplace", "add", repository]);
    manage(&lab, agents, &["plugin", "install", "cairn@cairn"]);
    let listed = manage(&lab, agents, &["mcp", "list"]);
    assert!(
        listed
            .lines()
            .any(|line| line.starts_with("plugin:cairn:cairn:") && line.contains("Connected")),
        "claude mcp list shows cairn's server connected: {listed}"
    );

    // Setup sees the plugin and refuses to install the same hooks twice; nothing is written.
    let settings = lab.home.join(".claude/settings.json");
    let settings_before = std::fs::read(&settings).unwrap();
    let refused = lab
        .command(Path::new(env!("CARGO_BIN_EXE_cairn")))
        .args(["setup", "claude-code"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("plugin cairn@cairn") && said.contains("claude plugin uninstall cairn@cairn"),
        "{said}"
    );
    assert_eq!(std::fs::read(&settings).unwrap(), settings_before);
    assert!(!lab.home.join(".claude/skills").exists());

    // 2. The story's session: context at its start, cairn's tools loaded and allowed by the
    // plugin's hook (no permission rule anywhere), a store and a search through them, all
    // recorded; and the plugin's skill offered.
    lab.cairn(&["store", SEED, "--title", "widget port"]);
    super::claude::session_through_cairn(&lab, agents, TOOLS);
    let first = lab.model.turns()[0].text();
    assert!(
        first.contains("cairn:cairn-memory"),
        "the skill is offered: {first}"
    );

    // 3. Without cairn on PATH the agent still runs, and the session is told how to get it.
    lab.put_cairn_on_path(false);
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    let hello = run(&lab, agents, &["Say hello"]);
    assert_eq!(hello["result"], "Hello from the scripted model.");
    let told = lab.model.turns()[0].text();
    assert!(told.contains("cairn is not on PATH"), "{told}");

    // 4. Uninstalled: the user's settings say what they said before (Claude Code leaves its
    // plugin lists empty, not gone), its plugin registries no longer know cairn, and nothing
    // appeared or changed outside what Claude Code keeps of its own: its state, its sessions
    // and logs, and the plugin's copy in its cache, marked orphaned for its own cleanup.
    lab.put_cairn_on_path(true);
    manage(&lab, agents, &["plugin", "uninstall", "cairn@cairn"]);
    manage(&lab, agents, &["plugin", "marketplace", "remove", "cairn"]);
    let after = files(&lab.home);
    let json = |files: &[(PathBuf, Vec<u8>)], path: &str| -> Value {
        files
            .iter()
            .find(|(p, _)| p == Path::new(path))
            .map_or(json!({}), |(_, bytes)| {
                serde_json::from_slice(bytes).unwrap()
            })
    };
    let mut settings = json(&after, ".claude/settings.json");
    settings
        .as_object_mut()
        .unwrap()
        .retain(|_, value| value != &json!({}));
    assert_eq!(settings, json(&before, ".claude/settings.json"));
    assert_eq!(
        json(&after, ".claude/plugins/installed_plugins.json")["plugins"],
        json!({})
    );
    assert_eq!(
        json(&after, ".claude/plugins/known_marketplaces.json"),
        json!({})
    );
    let claude_code_own = [
        ".claude.json",
        ".claude/",
        ".cache/claude-cli-nodejs/",
        ".cairn/",
    ];
    for (path, bytes) in &after {
        let was = before.iter().find(|(p, _)| p == path).map(|(_, b)| b);
        let own = claude_code_own
            .iter()
            .any(|dir| path.to_str().unwrap().starts_with(dir));
        assert!(
            own || was == Some(bytes),
            "the plugin left {}",
            path.display()
        );
        assert!(
            !path.starts_with(".claude/skills"),
            "the plugin left {}",
            path.display()
        );
        if path.starts_with(".claude/plugins/cache") {
            // .claude/plugins/cache/<marketplace>/<plugin>/<version>/…
            let copy: PathBuf = path.components().take(6).collect();
            assert!(
                after.iter().any(|(p, _)| *p == copy.join(".orphaned_at")),
                "{} is in Claude Code's cache but not marked orphaned",
                path.display()
            );
        }
    }
    let listed = manage(&lab, agents, &["mcp", "list"]);
    assert!(!listed.contains("cairn"), "{listed}");
    let sessions = lab.sessions().len();
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    run(&lab, agents, &["Say hello"]);
    assert_eq!(
        lab.sessions().len(),
        sessions,
        "no hook ran after uninstall"
    );
}
