//! Claude Code (`claude -p`), pointed at the scripted model by `ANTHROPIC_BASE_URL`.
//!
//! Claude Code defers MCP tools behind its `ToolSearch`: the script loads cairn's tools the way
//! the memory protocol tells the agent to, and the test checks they were not offered before
//! and are after. It also compacts (`/compact` on the resumed session) and checks that cairn's
//! context reaches the model again afterwards.

use std::process::Command;

use serde_json::{Value, json};

use super::model_server::Step;
use super::{Agents, Lab, PROMPT, SEED, SHELL_MARKER};

const AGENT: &str = "claude-code";

pub fn claude(lab: &Lab, agents: &Agents, args: &[&str]) -> Command {
    let mut command = lab.command(&agents.bin("claude"));
    command
        .args(["-p", "--output-format", "json"])
        .args(args)
        .env("ANTHROPIC_BASE_URL", &lab.model.base_url)
        .env("ANTHROPIC_API_KEY", "scripted")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    command
}

/// Runs `claude -p … PROMPT`; its JSON result.
pub fn run(lab: &Lab, agents: &Agents, args: &[&str]) -> Value {
    let stdout = lab.run_agent(claude(lab, agents, args));
    let result: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("claude printed no JSON result ({e}): {stdout}"));
    assert_eq!(result["is_error"], false, "{result:#}");
    result
}

/// The story's session, with cairn's tools named `prefix*` (setup's server's or the plugin's):
/// the context reaches the model first, with how to load the tools Claude Code defers; the
/// script loads them, stores and searches through them (no permission asked) and runs a shell
/// command; cairn records all of it. Claude Code's JSON result, and the session cairn shows.
pub fn session_through_cairn(lab: &Lab, agents: &Agents, prefix: &str) -> (Value, Value) {
    let store = format!("{prefix}memory_store");
    let search = format!("{prefix}memory_search");
    lab.model.play(vec![
        Step::call(
            "ToolSearch",
            json!({"query": format!("select:{store},{search}"), "max_results": 5}),
        ),
        Step::call(&store, super::store_input()),
        Step::call(&search, json!({"query": "sccache"})),
        Step::call(
            "Bash",
            json!({"command": format!("echo {SHELL_MARKER}"), "description": "Print a marker"}),
        ),
        Step::say(&super::final_answer()),
    ]);
    let result = run(
        lab,
        agents,
        &["--allowedTools", "Bash(echo:*)", "--", PROMPT],
    );
    assert_eq!(
        result["permission_denials"],
        json!([]),
        "no cairn tool was denied: {result:#}"
    );
    assert_eq!(result["result"], super::final_answer(), "{result:#}");

    let turns = lab.model.turns();
    super::assert_results_reached_the_model(&turns, 1);
    let first = &turns[0];
    assert!(
        first.text().contains(SEED),
        "SessionStart context reaches the model"
    );
    assert!(
        first.text().contains(&format!("select:{search}")),
        "the context says how to load cairn's tools, by their names: {}",
        first.text()
    );
    let offered = first.tool_names();
    assert!(offered.iter().any(|t| t == "ToolSearch"), "{offered:?}");
    assert!(
        !offered.iter().any(|t| t.starts_with(prefix)),
        "Claude Code defers MCP tools: {offered:?}"
    );
    // ToolSearch loaded them.
    super::assert_offers(&turns[1], "Claude Code", &[&store, &search]);

    let shown = lab.assert_session_recorded(AGENT, &[&store, &search, "Bash"]);
    assert!(
        !shown["session"]["ended_at"].is_null(),
        "SessionEnd closed the session: {shown:#}"
    );
    lab.assert_memories_kept();
    (result, shown)
}

pub fn story(agents: &Agents) {
    let lab = Lab::new();
    let version = lab.run_agent({
        let mut command = claude(&lab, agents, &[]);
        command.args(["--version"]);
        command
    });
    assert!(
        version.contains(&super::pinned("@anthropic-ai/claude-code")),
        "the pinned Claude Code runs: {version}"
    );

    // 1. Before cairn: the agent answers the scripted model.
    let hello = run(&lab, agents, &["Say hello"]);
    assert_eq!(hello["result"], "Hello from the scripted model.");

    // 2. Setup and uninstall leave the configuration as it was.
    let files = [
        lab.home.join(".claude/settings.json"),
        lab.home.join(".claude.json"),
        lab.home.join(".claude/skills/cairn-memory/SKILL.md"),
    ];
    lab.assert_setup_undoes_itself("claude-code", &files);

    // 3. A session with cairn.
    lab.cairn(&["store", SEED, "--title", "widget port"]);
    lab.cairn(&["setup", "claude-code"]);
    let settings = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        settings.contains(&format!(
            "--db {}",
            lab.cairn_home.join("cairn.db").display()
        )),
        "CAIRN_HOME reaches the hooks as --db: {settings}"
    );
    // Setup allowed cairn's tools: only the shell command needs allowing here.
    let (result, shown) = session_through_cairn(&lab, agents, "mcp__cairn__");

    // Compaction: cairn records it, and its context reaches the model after it.
    let session_id = result["session_id"].as_str().unwrap().to_string();
    lab.model
        .play(vec![Step::say("Compacted summary of the work so far.")]);
    run(&lab, agents, &["--resume", &session_id, "/compact"]);
    lab.model.play(vec![Step::say("Continuing.")]);
    run(
        &lab,
        agents,
        &["--resume", &session_id, "Continue the work"],
    );
    let after = lab.model.turns();
    assert!(
        after.iter().any(|turn| turn.text().contains(SEED)),
        "cairn's context reaches the model after compaction"
    );
    let shown = lab.session(&shown["session"]["key"]);
    let compactions = shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == "compaction")
        .count();
    assert_eq!(compactions, 1, "the compaction is recorded: {shown:#}");

    // A session with nothing to remember ("Say hello") is recorded and ended, but leaves no
    // memory: no summary to crowd search and context.
    let memories =
        || -> Value { serde_json::from_str(&lab.cairn(&["list", "--format", "json"])).unwrap() };
    let before = memories()["total"].clone();
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    let hello = run(&lab, agents, &["Say hello"]);
    let shown = lab.session(&json!({"agent": AGENT, "id": hello["session_id"]}));
    assert!(!shown["session"]["ended_at"].is_null(), "{shown:#}");
    assert!(shown["session"]["summary"].is_null(), "{shown:#}");
    assert_eq!(memories()["total"], before, "a greeting left a memory");

    // A call the permissions refuse is recorded as a failed call and counted in the summary.
    lab.model.play(vec![
        Step::call(
            "Bash",
            json!({"command": "touch denied-marker", "description": "Create a file"}),
        ),
        Step::say("The command was not allowed."),
    ]);
    let denied = run(&lab, agents, &["Create the file denied-marker"]);
    assert_eq!(
        denied["permission_denials"][0]["tool_name"], "Bash",
        "{denied:#}"
    );
    let shown = lab.session(&json!({"agent": AGENT, "id": denied["session_id"]}));
    let failure = shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "tool_failure")
        .unwrap_or_else(|| panic!("the denial is recorded: {shown:#}"));
    assert_eq!(failure["tool"], "Bash");
    assert!(
        failure["output"]
            .as_str()
            .is_some_and(|e| e.starts_with("permission denied")),
        "{failure:#}"
    );
    assert!(
        shown["session"]["summary"]
            .as_str()
            .is_some_and(|s| s.contains("failures: 1")),
        "{shown:#}"
    );

    // 4. Uninstalled: the agent still runs, and cairn records nothing more.
    lab.cairn(&["setup", "claude-code", "--uninstall"]);
    let settings = std::fs::read_to_string(&files[0]).unwrap_or_default();
    assert!(!settings.contains("cairn"), "hooks remain: {settings}");
    let state: Value = serde_json::from_str(&std::fs::read_to_string(&files[1]).unwrap()).unwrap();
    assert!(
        state["mcpServers"].get("cairn").is_none(),
        "the MCP server remains"
    );
    assert!(!files[2].exists(), "the skill is removed");
    let sessions = lab.sessions().len();
    lab.model
        .play(vec![Step::say("Hello from the scripted model.")]);
    let hello = run(&lab, agents, &["Say hello"]);
    assert_eq!(hello["result"], "Hello from the scripted model.");
    assert_eq!(
        lab.sessions().len(),
        sessions,
        "no hook ran after uninstall"
    );

    // Imported afterwards, the agent's history adds only what the hooks did not see.
    lab.assert_import_knows_the_hooks_sessions(AGENT);
}
