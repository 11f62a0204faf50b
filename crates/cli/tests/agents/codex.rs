//! Codex (`codex exec`), pointed at the scripted model by a model provider in its
//! `config.toml` (OpenAI's Responses API).
//!
//! Codex runs hooks only once the user has trusted them (it asks when it next starts
//! interactively); `codex exec` here passes `--dangerously-bypass-hook-trust`, which Codex
//! offers for automation that vets its hooks itself — this suite installed them.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use super::model_server::Step;
use super::{Agents, Lab, PROMPT, SEED, SHELL_MARKER};

const AGENT: &str = "codex";
const HELLO: &str = "Hello from the scripted model.";

fn codex(lab: &Lab, agents: &Agents) -> Command {
    let mut command = lab.command(&agents.bin("codex"));
    command.env("SCRIPTED_API_KEY", "scripted");
    command
}

/// `codex exec … PROMPT`; what it printed.
pub fn exec(lab: &Lab, agents: &Agents, prompt: &str) -> String {
    run_exec(lab, exec_command(lab, agents, prompt))
}

/// Runs a `codex exec` command; what it printed.
fn run_exec(lab: &Lab, command: Command) -> String {
    let (stdout, stderr) = lab.run_agent_saying(command);
    // Codex warns on stderr about hook settings it will not honour (a timeout it clamps).
    assert!(!stderr.contains("hook timeout"), "{stderr}");
    stdout
}

fn exec_command(lab: &Lab, agents: &Agents, prompt: &str) -> Command {
    let mut command = codex(lab, agents);
    command.args([
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        prompt,
    ]);
    command
}

/// Points Codex at the scripted model; its `config.toml`.
pub fn configure(lab: &Lab) -> PathBuf {
    let config = lab.home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "# The scripted model of cairn's agent suite.\nmodel = \"scripted-model\"\n\
             model_provider = \"scripted\"\n\n[model_providers.scripted]\n\
             name = \"Scripted model\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
             env_key = \"SCRIPTED_API_KEY\"\n",
            lab.model.base_url
        ),
    )
    .unwrap();

    config
}

pub fn story(agents: &Agents) {
    let lab = Lab::new();
    let version = lab.run_agent({
        let mut command = codex(&lab, agents);
        command.arg("--version");
        command
    });
    assert!(
        version.contains(&super::pinned("@openai/codex")),
        "the pinned Codex runs: {version}"
    );
    let config = configure(&lab);

    // 1. Before cairn: the agent answers the scripted model.
    assert!(exec(&lab, agents, "Say hello").contains(HELLO));

    // 2. Setup and uninstall leave the configuration as it was.
    let files = [
        config.clone(),
        lab.home.join(".codex/hooks.json"),
        lab.home.join(".codex/AGENTS.md"),
    ];
    lab.assert_setup_undoes_itself(AGENT, &files);

    // 3. A session with cairn.
    lab.cairn(&["store", SEED, "--title", "widget port"]);
    lab.cairn(&["setup", AGENT]);
    lab.model.play(vec![
        Step::call_in("mcp__cairn", "memory_store", super::store_input()),
        Step::call_in("mcp__cairn", "memory_search", json!({"query": "sccache"})),
        Step::call(
            "exec_command",
            json!({"cmd": format!("echo {SHELL_MARKER}")}),
        ),
        Step::say(&super::final_answer()),
    ]);
    // The model where users keep it, under HF_HUB_CACHE: Codex passes MCP servers only an
    // allow-list of the environment, and setup names the rest.
    let cache = std::env::var_os("HF_HUB_CACHE")
        .filter(|cache| cairn_embed::testing::model_dir_for_tests().starts_with(cache))
        .unwrap_or_else(|| {
            cairn_core::testing::missing(
                "the embedding model under HF_HUB_CACHE",
                "set HF_HUB_CACHE to where `cairn model install` put it",
            )
        });
    let mut command = exec_command(&lab, agents, PROMPT);
    command
        .env("HF_HUB_CACHE", &cache)
        .env_remove("CAIRN_EMBEDDING");
    let answer = run_exec(&lab, command);
    assert!(answer.contains(super::REMEMBERED), "{answer}");

    let turns = lab.model.turns();
    super::assert_results_reached_the_model(&turns, 0);
    let searched = turns[2].tool_result(1).unwrap();
    assert!(
        // The tool's JSON answer, as a string inside Codex's request.
        searched.contains(r#"\"mode\":\"hybrid\""#),
        "cairn mcp under Codex found the model: {searched}"
    );
    let first = &turns[0];
    assert!(
        first.text().contains(SEED),
        "SessionStart context reaches the model"
    );
    assert!(
        first.text().contains("Memory protocol (cairn)"),
        "AGENTS.md carries the protocol"
    );
    super::assert_offers(
        first,
        "Codex",
        &[
            "mcp__cairn/memory_store",
            "mcp__cairn/memory_search",
            "mcp__cairn/memory_slot_append",
        ],
    );

    let shown = lab.assert_session_recorded(AGENT, &[]);
    let tools: Vec<String> = shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == "tool_use")
        .map(|o| o["tool"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        tools.iter().any(|t| t.contains("memory_store")),
        "the MCP tool use is recorded: {tools:?}"
    );
    assert!(
        !shown["session"]["ended_at"].is_null(),
        "SessionEnd closed the session: {shown:#}"
    );
    lab.assert_memories_kept();

    // 4. Uninstalled: the agent still runs, and cairn records nothing more.
    lab.cairn(&["setup", AGENT, "--uninstall"]);
    let config_text = std::fs::read_to_string(&config).unwrap();
    assert!(!config_text.contains("mcp_servers.cairn"), "{config_text}");
    assert!(
        !files[1].exists() && !files[2].exists(),
        "cairn's files are removed"
    );
    let sessions = lab.sessions().len();
    lab.model.play(vec![Step::say(HELLO)]);
    assert!(exec(&lab, agents, "Say hello").contains(HELLO));
    assert_eq!(
        lab.sessions().len(),
        sessions,
        "no hook ran after uninstall"
    );

    // Imported afterwards, the agent's history adds only what the hooks did not see.
    lab.assert_import_knows_the_hooks_sessions(AGENT);
}
