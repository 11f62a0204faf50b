//! OpenCode (`opencode run`), pointed at the scripted model by an OpenAI-compatible provider
//! in its `opencode.json` (Chat Completions).
//!
//! cairn reaches OpenCode through its plugin, which merges the protocol and cairn's context
//! into the system prompt OpenCode already sends: the test checks that the first turn's system
//! message carries both, that OpenCode's title request carries neither, and that the run's
//! session is ended and summarised when `opencode run` exits. (OpenCode installs its plugin API package into its configuration
//! directory the first time it finds a plugin there, from the npm registry.)

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use super::model_server::Step;
use super::{Agents, Lab, PROMPT, SEED, SHELL_MARKER};

const AGENT: &str = "opencode";
const HELLO: &str = "Hello from the scripted model.";

fn opencode(lab: &Lab, agents: &Agents) -> Command {
    let mut command = lab.command(&agents.bin("opencode"));
    command
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1");
    command
}

/// `opencode run PROMPT`; what it printed.
pub fn run(lab: &Lab, agents: &Agents, prompt: &str) -> String {
    let mut command = opencode(lab, agents);
    command.args(["run", prompt]);
    lab.run_agent(command)
}

/// Points OpenCode at the scripted model; its `opencode.json`.
pub fn configure(lab: &Lab) -> PathBuf {
    let config = lab.home.join(".config/opencode/opencode.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let provider = json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted model",
            "options": {"baseURL": format!("{}/v1", lab.model.base_url), "apiKey": "scripted"},
            "models": {"scripted-model": {"name": "Scripted model", "tool_call": true}},
        }},
        "model": "scripted/scripted-model",
        "autoupdate": false,
        "share": "disabled",
    });
    std::fs::write(&config, serde_json::to_string_pretty(&provider).unwrap()).unwrap();

    config
}

pub fn story(agents: &Agents) {
    let lab = Lab::new();
    let version = lab.run_agent({
        let mut command = opencode(&lab, agents);
        command.arg("--version");
        command
    });
    assert!(
        version.contains(&super::pinned("opencode-ai")),
        "the pinned OpenCode runs: {version}"
    );
    let config = configure(&lab);

    // 1. Before cairn: the agent answers the scripted model.
    assert!(run(&lab, agents, "Say hello").contains(HELLO));

    // 2. Setup and uninstall leave the configuration as it was.
    let files = [
        config.clone(),
        lab.home.join(".config/opencode/plugin/cairn.ts"),
    ];
    lab.assert_setup_undoes_itself(AGENT, &files);

    // 3. A session with cairn.
    lab.cairn(&["store", SEED, "--title", "widget port"]);
    lab.cairn(&["setup", AGENT]);
    lab.model.play(vec![
        Step::call("cairn_memory_store", super::store_input()),
        Step::call("cairn_memory_search", json!({"query": "sccache"})),
        Step::call(
            "bash",
            json!({"command": format!("echo {SHELL_MARKER}"), "description": "Print a marker"}),
        ),
        Step::say(&super::final_answer()),
    ]);
    let answer = run(&lab, agents, PROMPT);
    assert!(answer.contains(super::REMEMBERED), "{answer}");

    let requests = lab.model.requests();
    let turns = lab.model.turns();
    super::assert_results_reached_the_model(&turns, 0);
    // OpenCode's own side requests (the title) carry nothing of cairn's.
    let side: Vec<&super::model_server::Request> =
        requests.iter().filter(|r| !r.is_turn()).collect();
    assert!(
        !side.is_empty(),
        "OpenCode asked for a title: {requests:#?}"
    );
    for request in side {
        assert!(
            !request.body.to_string().contains("Memory protocol (cairn)"),
            "a side request carries cairn's protocol: {:#}",
            request.body
        );
    }
    let system: Vec<&Value> = turns[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .collect();
    assert_eq!(
        system.len(),
        1,
        "one system message, cairn's text merged into it: {system:#?}"
    );
    let system = system[0]["content"].to_string();
    assert!(
        system.contains("Memory protocol (cairn)"),
        "the protocol is in the system prompt"
    );
    assert!(
        system.contains(SEED),
        "cairn's context is in the system prompt"
    );
    super::assert_offers(
        &turns[0],
        "OpenCode",
        &[
            "cairn_memory_store",
            "cairn_memory_search",
            "cairn_memory_slot_append",
        ],
    );

    let shown = lab.assert_session_recorded(
        AGENT,
        &["cairn_memory_store", "cairn_memory_search", "bash"],
    );
    let store_output = shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["tool"] == "cairn_memory_store")
        .map(|o| o["output"].to_string())
        .unwrap_or_default();
    assert!(
        store_output.contains("created"),
        "an MCP tool's result is recorded: {store_output}"
    );
    lab.assert_memories_kept();
    // The run is over: its session ended and was summarised.
    let session = &shown["session"];
    assert!(!session["ended_at"].is_null(), "{session:#}");
    assert!(
        session["summary"]
            .as_str()
            .is_some_and(|s| s.contains("Goal:")),
        "{session:#}"
    );

    // 4. Uninstalled: the agent still runs, and cairn records nothing more.
    lab.cairn(&["setup", AGENT, "--uninstall"]);
    let config_text = std::fs::read_to_string(&config).unwrap();
    assert!(!config_text.contains("cairn"), "{config_text}");
    assert!(!files[1].exists(), "the plugin is removed");
    let sessions = lab.sessions().len();
    lab.model.play(vec![Step::say(HELLO)]);
    assert!(run(&lab, agents, "Say hello").contains(HELLO));
    assert_eq!(
        lab.sessions().len(),
        sessions,
        "no hook ran after uninstall"
    );

    // Imported afterwards, the agent's history adds only what the hooks did not see.
    lab.assert_import_knows_the_hooks_sessions(AGENT);
}
