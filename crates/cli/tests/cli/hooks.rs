//! Agent integration end to end: hook payloads in each agent's shape replayed through
//! `cairn hook`, the spool under a concurrent import, the recursion guard, context, extraction,
//! the summariser against a local stub, and `cairn setup` on homes that hold configuration.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::{Run, Sandbox, record};

impl Sandbox {
    /// `cairn hook <agent> <event>` with `payload` on stdin.
    pub(crate) fn hook(&self, agent: &str, event: &str, payload: &Value) -> Run {
        self.run_in(
            &self.project,
            &["hook", agent, event],
            Some(&payload.to_string()),
        )
    }

    fn hook_log(&self) -> String {
        std::fs::read_to_string(self.home.join("logs/hooks.log")).unwrap_or_default()
    }

    fn session(&self, key: &str) -> Value {
        self.ok_json(&["sessions", key])
    }
}

/// Runs a hook `command` to its end with `payload` on stdin.
fn run_with_payload(command: &mut Command, payload: &Value) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Runs a hook `command` with `payload` on stdin; it must exit 0 and print nothing.
fn assert_silent_success(command: &mut Command, payload: &Value) {
    let output = run_with_payload(command, payload);
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
}

/// Writes `text` to `path` under `home`, making its directories.
fn write_under(home: &Path, path: &str, text: &str) {
    let path = home.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The kinds of a shown session's observations, in order.
fn observation_kinds(shown: &Value) -> Vec<&str> {
    shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect()
}

/// A Claude Code payload for session `id` with the common fields.
pub(crate) fn claude(id: &str, cwd: &Path, event: &str, extra: Value) -> Value {
    let mut payload = json!({
        "session_id": id,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": cwd,
        "hook_event_name": event,
        "permission_mode": "default",
    });
    for (key, value) in extra.as_object().unwrap() {
        payload[key] = value.clone();
    }
    payload
}

#[test]
fn claude_code_events_replayed_make_a_session_observations_a_summary_and_context() {
    let s = Sandbox::new();
    s.ok(&[
        "store",
        "Login tests share a session cache; run them with --test-threads 1",
        "--category",
        "bugfix",
    ]);
    let cwd = s.project.clone();
    let transcript = s.project.join("transcript.jsonl");
    std::fs::write(
        &transcript,
        [
            json!({"type": "user", "message": {"role": "user", "content": "fix it"}}),
            json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Fixed.\n*Remember*: the login suite needs Redis 7 running"}
            ]}}),
        ]
        .iter()
        .map(|v| v.to_string() + "\n")
        .collect::<String>(),
    )
    .unwrap();
    let events = [
        ("SessionStart", json!({"source": "startup"})),
        (
            "UserPromptSubmit",
            json!({"prompt": "Fix the flaky login test <private>token=abc</private>"}),
        ),
        (
            "PreToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "src/login.rs"}}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "src/login.rs",
                   "old_string": "a", "new_string": "b"}, "tool_response": {"success": true}}),
        ),
        (
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test login"},
                   "error": "test login_retries ... FAILED"}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test login"},
                   "tool_response": {"stdout": "test result: ok", "stderr": ""}}),
        ),
        (
            "Notification",
            json!({"message": "Claude needs your permission to use Bash"}),
        ),
        (
            "SubagentStop",
            json!({"agent_type": "Explore", "last_assistant_message": "Found 3 callers of retry()"}),
        ),
        (
            "PreCompact",
            json!({"trigger": "auto", "custom_instructions": ""}),
        ),
        (
            "Stop",
            json!({"stop_hook_active": false, "transcript_path": transcript}),
        ),
        ("SessionEnd", json!({"reason": "exit"})),
    ];
    let mut printed = Vec::new();
    for (event, extra) in &events {
        let run = s.hook(
            "claude-code",
            event,
            &claude("s1", &cwd, event, extra.clone()),
        );
        assert_eq!(run.code, 0, "{event}: {}", run.stderr);
        printed.push((*event, run.stdout));
    }
    assert_eq!(s.hook_log(), "", "no event failed");
    // Only SessionStart and PreCompact print, in the agent's format.
    for (event, stdout) in &printed {
        match *event {
            "SessionStart" => {
                let output: Value = serde_json::from_str(stdout).expect("JSON for SessionStart");
                let context = output["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap();
                assert_eq!(
                    output["hookSpecificOutput"]["hookEventName"],
                    "SessionStart"
                );
                assert!(context.contains("session cache"), "{context}");
                // Claude Code defers MCP tools: the session learns how to load cairn's.
                assert!(
                    context.starts_with("cairn memory: its MCP tools")
                        && context
                            .contains("select:mcp__cairn__memory_search,mcp__cairn__memory_store,"),
                    "{context}"
                );
            }
            "PreCompact" => assert!(
                stdout.starts_with(
                    "FIRST ACTION REQUIRED after this compaction: save this session's summary \
                     with mcp__cairn__memory_session_summary"
                ) && stdout.contains("\n\n# cairn memory for acme")
                    && stdout.contains("login"),
                "{stdout}"
            ),
            _ => assert_eq!(stdout, "", "{event} printed something"),
        }
    }

    let shown = s.session("claude-code/s1");
    let session = &shown["session"];
    assert_eq!(session["project"], "acme");
    assert_eq!(
        session["first_prompt"],
        "Fix the flaky login test [REDACTED]"
    );
    assert!(session["ended_at"].is_string());
    assert_eq!(session["summary_by"], "cairn");
    let summary = session["summary"].as_str().unwrap();
    for expected in [
        "Goal: Fix the flaky login test [REDACTED]",
        "Files touched (1): src/login.rs",
        "Commands (1): cargo test login",
        "Errors (1): Bash: test login_retries ... FAILED",
        "Memories stored (1)",
    ] {
        assert!(summary.contains(expected), "{expected:?} in\n{summary}");
    }
    let kinds = observation_kinds(&shown);
    assert_eq!(
        kinds,
        [
            "prompt",
            "tool_use",
            "tool_failure",
            "tool_use",
            "notification",
            "subagent_result",
            "compaction"
        ]
    );
    // The Stop hook read the transcript and stored the *Remember* fact.
    let found = s.ok_json(&["search", "Redis", "--tags", "redis"]);
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found["results"][0]["memory"]["source"], "extract");
    // Observations are searchable: the one holding both words first, then partial matches.
    let hits = s.ok_json(&["search", "--observations", "login_retries"]);
    assert_eq!(hits[0]["observation"]["kind"], "tool_failure", "{hits}");
    assert!(hits.as_array().unwrap().len() > 1, "{hits}");
    let none = s.run(&["search", "--observations", "kubernetes"]);
    assert_eq!(none.code, 1, "{}", none.stdout);
    let refused = s.run(&["search", "--observations", "login", "--tags", "ci"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("tags: applies to memories"),
        "{}",
        refused.stderr
    );

    // A malformed payload, an unknown event, a payload without a session: exit 0, logged,
    // nothing printed.
    for (event, payload) in [
        ("PostToolUse", "{not json".to_string()),
        (
            "NoSuchEvent",
            claude("s1", &cwd, "NoSuchEvent", json!({})).to_string(),
        ),
        ("Stop", json!({"cwd": cwd}).to_string()),
    ] {
        let run = s.run_in(&s.project, &["hook", "claude-code", event], Some(&payload));
        assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{event}");
    }
    let log = s.hook_log();
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(log.contains("not JSON") && log.contains("unknown event 'NoSuchEvent'"));
    assert!(log.contains("no session_id"), "{log}");
}

#[test]
fn codex_and_opencode_shapes_are_read_where_they_differ() {
    let s = Sandbox::new();
    let cwd = s.project.clone();
    let codex = |event: &str, extra: Value| {
        let mut payload = claude("t1", &cwd, event, extra);
        payload["model"] = json!("gpt-5-codex");
        payload["turn_id"] = json!("turn-1");
        payload
    };
    for (event, extra) in [
        ("SessionStart", json!({"source": "startup"})),
        (
            "UserPromptSubmit",
            json!({"prompt": "add a health endpoint"}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "apply_patch", "tool_input": {"command":
                "*** Begin Patch\n*** Update File: src/server.rs\n@@\n-a\n+b\n*** Add File: src/health.rs\n+x\n*** End Patch"},
                "tool_response": "Success"}),
        ),
        (
            "Stop",
            json!({"last_assistant_message": "Done.\n**Remember**: health checks live at /healthz, valid until 2099-01-01"}),
        ),
    ] {
        let run = s.hook("codex", event, &codex(event, extra));
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let shown = s.session("codex/t1");
    assert_eq!(
        shown["observations"][1]["files"],
        json!(["src/server.rs", "src/health.rs"])
    );
    let extracted = s.ok_json(&["search", "healthz"]);
    assert_eq!(
        extracted["results"][0]["memory"]["expires_at"],
        "2099-01-01T00:00:00Z"
    );

    let opencode = |extra: Value| {
        let mut payload = json!({"sessionID": "ses_1", "directory": cwd});
        for (key, value) in extra.as_object().unwrap() {
            payload[key] = value.clone();
        }
        payload
    };
    for (event, extra) in [
        ("session.created", json!({})),
        ("chat.message", json!({"text": "rename the config loader"})),
        ("tool.execute.before", json!({"tool": "edit"})),
        (
            "tool.execute.after",
            json!({"tool": "edit", "args": {"filePath": "src/config.ts"}, "output": "ok"}),
        ),
        (
            "tool.execute.after",
            json!({"tool": "bash", "args": {"command": "npm test"}, "error": "exit 1"}),
        ),
        ("session.compacting", json!({})),
        ("session.compacted", json!({})),
        ("session.idle", json!({"text": "All renamed."})),
        ("session.deleted", json!({})),
    ] {
        let run = s.hook("opencode", event, &opencode(extra));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stdout.starts_with('{'), "OpenCode gets text, not JSON");
    }
    assert_eq!(s.hook_log(), "");
    let shown = s.session("opencode/ses_1");
    let kinds = observation_kinds(&shown);
    assert_eq!(kinds, ["prompt", "tool_use", "tool_failure", "compaction"]);
    assert_eq!(shown["observations"][1]["files"], json!(["src/config.ts"]));
    assert!(shown["session"]["ended_at"].is_string());

    // A session OpenCode still held when it exited is ended by the plugin's `session.ended`.
    let exited = json!({"sessionID": "ses_2", "directory": cwd});
    for event in ["session.created", "chat.message", "session.ended"] {
        assert_eq!(s.hook("opencode", event, &exited).code, 0);
    }
    assert_eq!(s.hook_log(), "");
    assert!(s.session("opencode/ses_2")["session"]["ended_at"].is_string());
}

#[test]
fn the_compaction_instruction_comes_first_and_a_setting_turns_it_off() {
    let s = Sandbox::new();
    s.ok(&["store", "Deploys go out on Wednesdays"]);
    let compact = |s: &Sandbox| {
        let payload = claude("c1", &s.project, "PreCompact", json!({"trigger": "manual"}));
        let run = s.hook("codex", "PreCompact", &payload);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let printed = compact(&s);
    assert!(
        printed.starts_with(
            "FIRST ACTION REQUIRED after this compaction: save this session's summary with \
             memory_session_summary"
        ),
        "{printed}"
    );
    assert!(
        printed.contains("Deploys go out on Wednesdays"),
        "{printed}"
    );
    std::fs::write(
        s.home.join("no-user-config.toml"),
        "[context]\ncompaction_instruction = false\n",
    )
    .unwrap();
    let printed = compact(&s);
    assert!(printed.starts_with("# cairn memory for"), "{printed}");
    assert!(!printed.contains("FIRST ACTION"), "{printed}");
}

/// A session that started an hour ago in a project whose newest memory is as old: made in
/// one sandbox, exported with its times set back an hour, imported into `s`.
fn an_hour_old_session(s: &Sandbox, id: &str) {
    let a = Sandbox::new();
    let start = claude(id, &a.project, "SessionStart", json!({"source": "startup"}));
    assert_eq!(a.hook("claude-code", "SessionStart", &start).code, 0);
    a.ok(&["store", "Deploys go out on Wednesdays"]);
    let hour_ago = (jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1)).to_string();
    let export: Vec<String> = a
        .ok(&["export", "--sessions", "-"])
        .stdout
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            for key in ["started_at", "last_seen_at", "created_at", "updated_at"] {
                if record.get(key).is_some() {
                    record[key] = json!(hour_ago);
                }
            }
            record.to_string()
        })
        .collect();
    let file = s.home.with_file_name("old-session.jsonl");
    std::fs::write(&file, export.join("\n") + "\n").unwrap();
    s.ok(&["import", file.to_str().unwrap()]);
}

#[test]
fn a_prompt_after_a_quiet_while_is_reminded_to_save_until_something_is_saved() {
    let s = Sandbox::new();
    an_hour_old_session(&s, "r1");
    let prompt = |s: &Sandbox| {
        let payload = claude(
            "r1",
            &s.project,
            "UserPromptSubmit",
            json!({"prompt": "go on"}),
        );
        let run = s.hook("claude-code", "UserPromptSubmit", &payload);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let printed: Value = serde_json::from_str(&prompt(&s)).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let line = printed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        line.contains("nothing has been saved in this project for 15 minutes")
            && line.contains("mcp__cairn__memory_store"),
        "{line}"
    );
    let config = s.home.join("no-user-config.toml");
    std::fs::write(&config, "[context]\nsave_reminder_minutes = 0\n").unwrap();
    assert_eq!(prompt(&s), "", "0 turns it off");
    std::fs::remove_file(&config).unwrap();
    assert_ne!(prompt(&s), "");
    s.ok(&["store", "The staging database is reset nightly"]);
    assert_eq!(prompt(&s), "", "a save quiets it");
    // A session that just started is left alone, however long ago the project saved.
    let quiet = Sandbox::new();
    an_hour_old_session(&quiet, "r1");
    let fresh = claude(
        "r2",
        &quiet.project,
        "SessionStart",
        json!({"source": "startup"}),
    );
    quiet.hook("claude-code", "SessionStart", &fresh);
    let payload = claude(
        "r2",
        &quiet.project,
        "UserPromptSubmit",
        json!({"prompt": "hi"}),
    );
    let run = quiet.hook("claude-code", "UserPromptSubmit", &payload);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
}

#[test]
fn the_recursion_guard_records_nothing() {
    let s = Sandbox::new();
    let payload = claude(
        "g1",
        &s.project,
        "UserPromptSubmit",
        json!({"prompt": "hi"}),
    );
    let mut command = s.command(&s.project, &["hook", "claude-code", "UserPromptSubmit"]);
    command.env("CAIRN_HOOK_GUARD", "1");
    assert_silent_success(&mut command, &payload);
    let sessions = s.run(&["sessions", "--all-projects"]);
    assert_eq!(sessions.code, 1, "no session: {}", sessions.stdout);
    // Without the guard the same event is recorded.
    s.hook("claude-code", "UserPromptSubmit", &payload);
    assert_eq!(
        s.session("claude-code/g1")["observations"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// Four processes firing 500 hook events each while `cairn import` holds the write lock again
/// and again: every event is recorded (directly, or through the spool), in order per session.
#[test]
fn four_hook_processes_lose_no_event_during_an_import() {
    let s = Sandbox::new();
    s.ok(&["stats"]);
    let corpus: String = (0..5_000)
        .map(|n| {
            record(
                &format!("{:08x}-0000-4000-8000-{n:012x}", n),
                &format!("imported memory number {n} about topic {}", n % 97),
                None,
            )
        })
        .collect();
    let corpus_file = s.home.join("corpus.jsonl");
    std::fs::write(&corpus_file, corpus).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let importer = {
        let mut command = s.command(&s.project, &["import", corpus_file.to_str().unwrap()]);
        command.stdout(Stdio::null()).stderr(Stdio::null());
        let done = done.clone();
        std::thread::spawn(move || {
            let mut imports = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                assert!(command.status().unwrap().success());
                imports += 1;
                // Leave the two cores to the hooks now and then.
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            imports
        })
    };
    const HOOKS: usize = 4;
    const EACH: usize = 500;
    let workers: Vec<_> = (0..HOOKS)
        .map(|worker| {
            let mut command = s.command(&s.project, &["hook", "claude-code", "PostToolUse"]);
            let cwd = s.project.clone();
            std::thread::spawn(move || {
                for n in 0..EACH {
                    let payload = claude(
                        &format!("w{worker}"),
                        &cwd,
                        "PostToolUse",
                        json!({"tool_name": "Bash", "tool_input": {"command": format!("step {n}")},
                               "tool_response": {"stdout": "ok"}}),
                    );
                    assert_silent_success(&mut command, &payload);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let imports = importer.join().unwrap();
    assert!(imports >= 1);
    assert_eq!(s.hook_log(), "", "no hook failed");
    // Any command drains what waits in the spool; then every event is there, in order.
    for worker in 0..HOOKS {
        let shown = s.session(&format!("claude-code/w{worker}"));
        let steps: Vec<String> = shown["observations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["input"].as_str().unwrap().to_string())
            .collect();
        let expected: Vec<String> = (0..EACH).map(|n| format!("step {n}")).collect();
        assert_eq!(steps, expected, "worker {worker}");
    }
    let spool = s.home.join("cairn.spool");
    let left = std::fs::read_dir(&spool).map_or(0, |d| d.count());
    assert_eq!(left, 0, "the spool is drained");
}

#[test]
fn context_stays_within_its_budget_and_extract_tags_and_dates_facts() {
    let s = Sandbox::new();
    for n in 0..30 {
        s.ok(&[
            "store",
            &format!("Release {n} notes: the dashboard palette changed again for team {n}"),
        ]);
    }
    s.ok(&[
        "store",
        "Deploys to staging need the VPN; prod deploys go through the release bot",
        "--category",
        "decision",
        "--importance",
        "5",
    ]);
    for budget in ["60", "200", "800"] {
        let context = s.ok_json(&["context", "--budget", budget, "--query", "how do we deploy"]);
        let tokens = context["tokens"].as_u64().unwrap();
        assert!(tokens <= budget.parse().unwrap(), "{tokens} > {budget}");
        if budget != "60" {
            assert!(context["text"].as_str().unwrap().contains("release bot"));
        }
    }
    let refused = s.run(&["context", "--budget", "5"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("budget"), "{}", refused.stderr);

    let reply = "Summary of work.\n*Remember*: the Postgres pool must stay under 20 connections, \
                 valid until Q4 2099\n- *Remember*: temporary workaround: pin node to 20.11\n";
    let extracted = s.run_in(&s.project, &["extract", "--format", "json"], Some(reply));
    assert_eq!(extracted.code, 0, "{}", extracted.stderr);
    let outcomes = extracted.json();
    assert_eq!(outcomes.as_array().unwrap().len(), 2);
    let first = &outcomes[0]["memory"];
    assert_eq!(first["tags"], json!(["postgres"]));
    assert_eq!(first["expires_at"], "2099-12-31T23:59:59Z");
    assert_eq!(first["source"], "extract");
    assert_eq!(
        outcomes[1]["memory"]["tags"],
        json!(["node", "troubleshooting"])
    );
    assert!(
        outcomes[1]["memory"]["expires_at"].is_string(),
        "temporary expires"
    );
    let nothing = s.run_in(&s.project, &["extract"], Some("no facts here"));
    assert_eq!(nothing.code, 1);
}

/// A stub of an OpenAI-compatible endpoint: answers one chat completion with `reply` and hands
/// back the request body it received. No language model is reachable here; this checks what
/// cairn sends and how it uses the answer.
fn stub_chat_server(reply: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let answer =
            json!({"choices": [{"message": {"role": "assistant", "content": reply}}]}).to_string();
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .unwrap();
        String::from_utf8(body).unwrap()
    });
    (format!("http://{address}/v1"), handle)
}

#[test]
fn a_configured_summariser_writes_the_summary_from_cairns_digest() {
    let s = Sandbox::new();
    let (endpoint, server) = stub_chat_server("Goal: fix login. Done: retry keys. Next: e2e.");
    std::fs::write(
        s.project.join(".cairn.toml"),
        format!("project = \"acme\"\n[summarizer]\nendpoint = \"{endpoint}\"\nmodel = \"stub\"\n"),
    )
    .unwrap();
    let cwd = s.project.clone();
    s.hook(
        "claude-code",
        "UserPromptSubmit",
        &claude(
            "m1",
            &cwd,
            "UserPromptSubmit",
            json!({"prompt": "fix the login retries"}),
        ),
    );
    // A tool use: the session is worth a summary.
    s.hook(
        "claude-code",
        "PostToolUse",
        &claude(
            "m1",
            &cwd,
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test login"},
                   "tool_response": {"stdout": "test result: ok"}}),
        ),
    );
    let end = s.hook(
        "claude-code",
        "SessionEnd",
        &claude("m1", &cwd, "SessionEnd", json!({"reason": "exit"})),
    );
    assert_eq!(end.code, 0);
    let request: Value = serde_json::from_str(&server.join().unwrap()).unwrap();
    assert_eq!(request["model"], "stub");
    let digest = request["messages"][1]["content"].as_str().unwrap();
    assert!(digest.contains("Goal: fix the login retries"), "{digest}");
    let session = &s.session("claude-code/m1")["session"];
    assert_eq!(session["summary_by"], "model");
    assert_eq!(
        session["summary"],
        "Goal: fix login. Done: retry keys. Next: e2e."
    );
    assert_eq!(s.hook_log(), "");
}

/// Every file under `dir`, with its content, backups aside.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.to_string_lossy().ends_with(".cairn-backup") {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path.strip_prefix(dir).unwrap().display().to_string(), text));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn setup_merges_backs_up_is_idempotent_and_uninstall_restores_the_original() {
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    let write = |path: &str, text: &str| write_under(&home, path, text);
    let settings_before = r#"{"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}"#;
    write(".claude/settings.json", settings_before);
    write(
        ".claude.json",
        r#"{"numStartups": 12, "mcpServers": {"github": {"command": "gh-mcp"}}}"#,
    );
    write(
        ".codex/config.toml",
        "# my codex settings\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n",
    );
    write(".codex/AGENTS.md", "# House rules\n\nBe brief.\n");
    write(
        ".config/opencode/opencode.json",
        r#"{"$schema": "https://opencode.ai/config.json", "theme": "dark"}"#,
    );
    let original = snapshot(&home);
    let home_arg = home.to_str().unwrap();

    for agent in ["claude-code", "codex", "opencode"] {
        let dry = s.ok(&["setup", agent, "--home", home_arg, "--dry-run"]);
        assert!(dry.stdout.contains("would "), "{}", dry.stdout);
        assert_eq!(snapshot(&home), original, "a dry run writes nothing");
    }
    for agent in ["claude-code", "codex", "opencode"] {
        s.ok(&["setup", agent, "--home", home_arg]);
    }
    let installed = snapshot(&home);
    let read = |path: &str| std::fs::read_to_string(home.join(path)).unwrap();
    // Merged: what was there is still there, beside cairn's entries.
    let settings: Value = serde_json::from_str(&read(".claude/settings.json")).unwrap();
    assert_eq!(settings["model"], "opus");
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert!(
        stop[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook claude-code Stop")
    );
    assert!(settings["hooks"]["SessionStart"].is_array());
    // cairn's MCP tools are allowed beside the user's own rules (headless runs deny the rest).
    assert_eq!(
        settings["permissions"]["allow"],
        json!(["Bash(ls:*)", "mcp__cairn"])
    );
    let state: Value = serde_json::from_str(&read(".claude.json")).unwrap();
    assert_eq!(state["numStartups"], 12);
    assert_eq!(state["mcpServers"]["github"]["command"], "gh-mcp");
    // The sandbox runs with CAIRN_HOME set: setup hands that store to every agent.
    let db = s.home.join("cairn.db").display().to_string();
    assert_eq!(
        state["mcpServers"]["cairn"]["args"],
        json!(["--db", db, "mcp"])
    );
    assert!(
        stop[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains(&db),
        "{stop:?}"
    );
    assert!(read(".claude/skills/cairn-memory/SKILL.md").contains("## When to save"));
    let codex = read(".codex/config.toml");
    assert!(
        codex.starts_with("# my codex settings\nmodel = \"gpt-5\""),
        "{codex}"
    );
    assert!(codex.contains("[mcp_servers.docs]") && codex.contains("[mcp_servers.cairn]"));
    assert!(
        codex.contains(&format!("\"--db\", \"{db}\", \"mcp\"")),
        "{codex}"
    );
    assert!(read(".codex/hooks.json").contains(&db));
    assert!(read(".codex/AGENTS.md").starts_with("# House rules\n\nBe brief.\n"));
    assert!(read(".codex/hooks.json").contains("hook codex SessionStart"));
    let opencode: Value = serde_json::from_str(&read(".config/opencode/opencode.json")).unwrap();
    assert_eq!(opencode["theme"], "dark");
    assert_eq!(opencode["mcp"]["cairn"]["type"], "local");
    assert!(
        opencode["mcp"]["cairn"].to_string().contains(&db),
        "{opencode}"
    );
    let plugin = read(".config/opencode/plugin/cairn.ts");
    assert!(plugin.contains("experimental.chat.system.transform") && !plugin.contains("__CAIRN_"));
    assert!(
        plugin.contains(&db),
        "the plugin's hooks use the same store"
    );
    // Backed up before the first change.
    assert_eq!(read(".claude/settings.json.cairn-backup"), settings_before);
    // Idempotent: a second setup changes nothing.
    for agent in ["claude-code", "codex", "opencode"] {
        let again = s.ok(&["setup", agent, "--home", home_arg]);
        assert_eq!(again.stdout, "", "{agent}: {}", again.stdout);
    }
    assert_eq!(snapshot(&home), installed);
    // Uninstall leaves the original configuration byte for byte (the hand-formatted JSON
    // too), no backup, and no directory setup created.
    for agent in ["claude-code", "codex", "opencode"] {
        s.ok(&["setup", agent, "--home", home_arg, "--uninstall"]);
    }
    assert_eq!(snapshot(&home), original);
    let mut left = vec![home.clone()];
    while let Some(dir) = left.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            assert!(
                !path.to_string_lossy().ends_with(".cairn-backup"),
                "a backup is left: {}",
                path.display()
            );
            if path.is_dir() {
                left.push(path);
            }
        }
    }
    for dir in [".claude/skills", ".config/opencode/plugin"] {
        assert!(!home.join(dir).exists(), "{dir} is left");
    }
    // Changed since setup, a file keeps the change; cairn's entries still go.
    for agent in ["claude-code", "opencode"] {
        s.ok(&["setup", agent, "--home", home_arg]);
    }
    let mut edited: Value = serde_json::from_str(&read(".claude/settings.json")).unwrap();
    edited["model"] = json!("sonnet");
    write(".claude/settings.json", &edited.to_string());
    for agent in ["claude-code", "opencode"] {
        s.ok(&["setup", agent, "--home", home_arg, "--uninstall"]);
    }
    let kept: Value = serde_json::from_str(&read(".claude/settings.json")).unwrap();
    assert_eq!(kept["model"], "sonnet");
    assert!(!kept.to_string().contains("cairn"), "{kept}");
    // A file that does not parse is never overwritten.
    write(".claude/settings.json", "{ broken");
    let refused = s.run(&["setup", "claude-code", "--home", home_arg]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("settings.json is not valid JSON"),
        "{}",
        refused.stderr
    );
    assert_eq!(read(".claude/settings.json"), "{ broken");
}

/// The OpenCode plugin that setup installs type-checks in strict mode against OpenCode's real
/// plugin API (`@opencode-ai/plugin`) and Bun's types. `.ci/run` installs them with npm and sets
/// `CAIRN_TS_CHECK` to that directory.
#[test]
#[ignore = "needs TypeScript with OpenCode's plugin API from npm (CAIRN_TS_CHECK)"]
fn the_opencode_plugin_type_checks_against_the_plugin_api() {
    let tools = std::path::PathBuf::from(cairn_core::testing::provided(
        "CAIRN_TS_CHECK",
        "a directory with TypeScript, @opencode-ai/plugin and @types/bun installed by npm",
    ));
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    s.ok(&["setup", "opencode", "--home", home.to_str().unwrap()]);
    let plugin = home.join(".config/opencode/plugin/cairn.ts");
    let modules = tools.join("node_modules");
    let tsconfig = json!({
        "compilerOptions": {
            "strict": true, "noEmit": true, "skipLibCheck": true, "target": "ES2022",
            "module": "ESNext", "moduleResolution": "Bundler", "types": ["bun"],
            "typeRoots": [modules.join("@types")],
            "paths": {
                "@opencode-ai/plugin": [modules.join("@opencode-ai/plugin/dist/index.d.ts")]
            },
        },
        "files": [plugin],
    });
    let config = home.join("tsconfig.json");
    std::fs::write(&config, tsconfig.to_string()).unwrap();
    let output = std::process::Command::new(modules.join(".bin/tsc"))
        .arg("-p")
        .arg(&config)
        .output()
        .expect("tsc runs");
    assert!(
        output.status.success(),
        "the plugin does not type-check:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Setup given `--db` hands that store to the agent: the installed hook command, run as the
/// agent runs it (through a shell), records into it. `--format json` reports the changes.
#[test]
fn setup_offers_engrams_tool_names_where_engram_is_configured() {
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    let write = |path: &str, text: &str| write_under(&home, path, text);
    // engram's own setup, as it writes each agent's configuration.
    let claude_state =
        r#"{"mcpServers": {"engram": {"command": "engram", "args": ["mcp", "--tools=agent"]}}}"#;
    write(".claude.json", claude_state);
    write(
        ".codex/config.toml",
        "[mcp_servers.engram]\ncommand = \"engram\"\nargs = [\"mcp\", \"--tools=agent\"]\n",
    );
    write(
        ".config/opencode/opencode.json",
        r#"{"mcp": {"engram": {"type": "local", "command": ["engram", "mcp", "--tools=agent"]}}}"#,
    );
    let original = snapshot(&home);
    let home_arg = home.to_str().unwrap();
    let read = |path: &str| std::fs::read_to_string(home.join(path)).unwrap();

    let report = s.ok_json(&["setup", "claude-code", "--home", home_arg]);
    assert_eq!(report["tools"], "engram", "{report}");
    assert!(
        report["engram_found"]
            .as_str()
            .unwrap()
            .ends_with(".claude.json"),
        "{report}"
    );
    let state: Value = serde_json::from_str(&read(".claude.json")).unwrap();
    assert_eq!(
        state["mcpServers"]["engram"]["command"], "engram",
        "left alone"
    );
    let args = state["mcpServers"]["cairn"]["args"].as_array().unwrap();
    assert_eq!(
        args[args.len() - 3..],
        [json!("mcp"), json!("--tools"), json!("engram")]
    );
    let skill = read(".claude/skills/cairn-memory/SKILL.md");
    assert!(
        skill.contains("`mem_save`") && !skill.contains("memory_store"),
        "{skill}"
    );
    // The hooks name engram's tools too: a compaction asks for mem_session_summary.
    let settings: Value = serde_json::from_str(&read(".claude/settings.json")).unwrap();
    let command = settings["hooks"]["PreCompact"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.ends_with(" hook claude-code PreCompact --tools engram"),
        "{command}"
    );
    let mut shell = std::process::Command::new("sh");
    shell.args(["-c", command]);
    s.isolate(&mut shell, &s.project);
    let output = run_with_payload(
        &mut shell,
        &claude("e1", &s.project, "PreCompact", json!({"trigger": "manual"})),
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("save this session's summary with mcp__cairn__mem_session_summary"),
        "{output:?}"
    );

    // Codex and OpenCode likewise.
    s.ok(&["setup", "codex", "--home", home_arg]);
    let codex = read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.engram]")
            && codex.contains("\"mcp\", \"--tools\", \"engram\"]"),
        "{codex}"
    );
    assert!(read(".codex/AGENTS.md").contains("`mem_search`"));
    let setup = s.run(&["setup", "opencode", "--home", home_arg]);
    assert_eq!(setup.code, 0, "{}", setup.stderr);
    assert!(
        setup.stderr.contains("found engram in") && setup.stderr.contains("--tools core"),
        "{}",
        setup.stderr
    );
    let plugin = read(".config/opencode/plugin/cairn.ts");
    assert!(
        plugin.contains(r#"const HOOK_ARGS: string[] = ["--tools","engram"]"#)
            && plugin.contains("mem_save"),
        "{plugin}"
    );

    // Asked for cairn's own names, it installs those, and says what it found.
    let setup = s.run(&[
        "setup",
        "claude-code",
        "--home",
        home_arg,
        "--tools",
        "core",
    ]);
    assert_eq!(setup.code, 0, "{}", setup.stderr);
    assert!(setup.stderr.contains("as asked"), "{}", setup.stderr);
    assert!(read(".claude/skills/cairn-memory/SKILL.md").contains("`memory_store`"));

    // Uninstalled, every file is as engram's setup left it.
    for agent in ["claude-code", "codex", "opencode"] {
        s.ok(&["setup", agent, "--home", home_arg, "--uninstall"]);
    }
    assert_eq!(snapshot(&home), original);

    // Where engram is gone (or never was), setup run again keeps the profile cairn was
    // installed with instead of switching the agent's tool names back.
    let other = s.home.join("other-home");
    let other_arg = other.to_str().unwrap();
    s.ok(&["setup", "codex", "--home", other_arg, "--tools", "engram"]);
    let again = s.ok_json(&["setup", "codex", "--home", other_arg]);
    assert_eq!(again["tools"], "engram", "{again}");
    assert_eq!(again["engram_found"], Value::Null, "{again}");
    assert_eq!(again["changes"], json!([]), "{again}");
}

#[test]
fn installed_hooks_run_as_written_and_use_the_store_setup_was_given() {
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    let db = s.home.join("team store/cairn.db");
    let report = s.ok_json(&[
        "--db",
        db.to_str().unwrap(),
        "setup",
        "codex",
        "--home",
        home.to_str().unwrap(),
    ]);
    let actions: Vec<&str> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["create", "create", "create"], "{report}");
    let config = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(
        config.contains(&format!("args = [\"--db\", \"{}\", \"mcp\"]", db.display())),
        "{config}"
    );
    let hooks: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".codex/hooks.json")).unwrap())
            .unwrap();
    let command = hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let payload = claude(
        "c1",
        &s.project,
        "UserPromptSubmit",
        json!({"prompt": "hello"}),
    );
    let mut shell = std::process::Command::new("sh");
    shell.args(["-c", command]);
    s.isolate(&mut shell, &s.project);
    assert_silent_success(&mut shell, &payload);
    let shown = s.ok_json(&["--db", db.to_str().unwrap(), "sessions", "codex/c1"]);
    assert_eq!(shown["observations"][0]["input"], "hello");
}

/// A summariser that cannot be set up (its API key variable is unset) is reported and left
/// out: hooks still record, commands still run, and the summary is cairn's own.
#[test]
fn a_broken_summariser_setting_costs_nothing_but_the_model_summary() {
    let s = Sandbox::new();
    std::fs::write(
        s.project.join(".cairn.toml"),
        "project = \"acme\"\n[summarizer]\nendpoint = \"http://127.0.0.1:9/v1\"\n\
         api_key_env = \"CAIRN_TEST_NO_SUCH_KEY\"\n",
    )
    .unwrap();
    let cwd = s.project.clone();
    for (event, extra) in [
        ("UserPromptSubmit", json!({"prompt": "tidy the imports"})),
        (
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "src/lib.rs"},
                   "tool_response": {"success": true}}),
        ),
        ("SessionEnd", json!({"reason": "exit"})),
    ] {
        let run = s.hook("claude-code", event, &claude("b1", &cwd, event, extra));
        assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    }
    let listed = s.run(&["sessions", "--format", "json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed.stderr.contains("CAIRN_TEST_NO_SUCH_KEY"),
        "{}",
        listed.stderr
    );
    let session = &s.session("claude-code/b1")["session"];
    assert_eq!(session["summary_by"], "cairn");
    assert_eq!(s.hook_log(), "");
}

#[test]
fn a_screenshot_a_tool_returns_is_kept_as_a_memory_of_the_session_and_found_by_its_look() {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    let s = Sandbox::new();
    let shot = cairn_core::testing::screen_png(640, 360, true, [20, 20, 20], [240, 240, 235], 3);
    let id = cairn_core::image::ImageId::of(&shot).to_string();
    // An MCP browser tool's answer: text and an image block; then a Read of an image file.
    let browser = json!({
        "session_id": "shots-1", "cwd": s.project.display().to_string(),
        "tool_name": "mcp__browser__screenshot",
        "tool_input": {"url": "http://localhost:3000/login"},
        "tool_response": [
            {"type": "text", "text": "captured the login page"},
            {"type": "image", "data": STANDARD.encode(&shot), "mimeType": "image/png"}
        ]
    });
    let run = s.hook("claude-code", "PostToolUse", &browser);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let read = json!({
        "session_id": "shots-1", "cwd": s.project.display().to_string(),
        "tool_name": "Read", "tool_input": {"file_path": "docs/login.png"},
        "tool_response": {"type": "image", "file": {"base64": STANDARD.encode(&shot), "type": "image/png"}}
    });
    assert_eq!(s.hook("claude-code", "PostToolUse", &read).code, 0);
    // A picture that is not one is left out; the event is still recorded.
    let broken = json!({
        "session_id": "shots-1", "cwd": s.project.display().to_string(),
        "tool_name": "mcp__browser__screenshot", "tool_input": {"url": "http://localhost:3000/"},
        "tool_response": [{"type": "image", "data": "bm90IGFuIGltYWdl", "mimeType": "image/png"}]
    });
    let refused = s.hook("claude-code", "PostToolUse", &broken);
    assert_eq!(refused.code, 0);
    assert!(
        refused.stderr.contains("was not kept"),
        "{}",
        refused.stderr
    );

    let kept = s.ok_json(&["list", "--tags", "screenshot"]);
    let memories = kept["memories"].as_array().unwrap();
    assert_eq!(memories.len(), 2, "{kept}");
    let contents: Vec<&str> = memories
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        contents
            .iter()
            .any(|c| c.contains("mcp__browser__screenshot") && c.contains("localhost:3000/login")),
        "{contents:?}"
    );
    assert!(
        memories.iter().all(|m| m["session_id"] == "shots-1"),
        "{kept}"
    );
    let shown = s.ok_json(&["get", memories[0]["id"].as_str().unwrap()]);
    assert_eq!(
        shown[0]["images"][0]["id"],
        id.as_str(),
        "one picture, one file: {shown}"
    );
    // The observation keeps the words, not the picture's bytes.
    let session = s.session("claude-code/shots-1");
    let output = session["observations"][0]["output"]
        .as_str()
        .unwrap_or_default();
    assert!(
        output.contains("captured the login page") && output.contains("[image]"),
        "{session}"
    );
    assert!(!output.contains(&STANDARD.encode(&shot)[..40]), "{session}");

    // The hook left its look to a background run; looking now finds nothing left to do or
    // does it, and either way the screenshot is then found by its look.
    s.ok_json(&["reindex", "--images"]);
    std::fs::write(s.project.join("again.png"), &shot).unwrap();
    let itself = s.run(&[
        "vision",
        "search",
        "--image",
        "again.png",
        "--session",
        "shots-1",
    ]);
    assert_eq!(itself.code, 0, "{}", itself.stderr);
    assert!(
        itself
            .stdout
            .starts_with(&format!(" 1. image {}", &id[..12])),
        "the same picture finds the stored one first: {}",
        itself.stdout
    );
    let similar = cairn_core::testing::screen_png(320, 180, true, [40, 40, 60], [250, 250, 250], 3);
    std::fs::write(s.project.join("similar.png"), &similar).unwrap();
    let found = s.ok_json(&[
        "vision",
        "search",
        "--image",
        "similar.png",
        "--session",
        "shots-1",
    ]);
    assert_eq!(found["hits"][0]["image"]["id"], id.as_str(), "{found}");
    assert_eq!(
        found["hits"][0]["memories"].as_array().unwrap().len(),
        2,
        "{found}"
    );
    let elsewhere = s.run(&[
        "vision",
        "search",
        "--image",
        "similar.png",
        "--session",
        "another",
    ]);
    assert_eq!(elsewhere.code, 1, "{}", elsewhere.stdout);
}

/// The sandbox's data directory on a small tmpfs of its own (root only), unmounted on drop.
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    /// Mounts a `size` tmpfs on `dir` (the test that asks is ignored unless asked for, and
    /// fails here when this machine cannot mount).
    fn mount(dir: &Path, size: &str) -> SmallDisk {
        std::fs::create_dir_all(dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            cairn_core::testing::missing(
                "a small tmpfs of its own (a full disk)",
                "run it as root, which may mount one",
            );
        }
        SmallDisk {
            dir: dir.to_path_buf(),
        }
    }

    fn grow(&self, size: &str) {
        let grown = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .unwrap();
        assert!(grown.success());
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

/// Hooks fired while the store's disk fills up, and once not a byte is left: each either
/// records its event (directly or through the spool) or says on stderr that the event is lost;
/// every event a hook kept quiet about is there afterwards, once the disk has room again.
#[test]
#[ignore = "needs root, to mount a small tmpfs (a full disk)"]
fn a_hook_on_a_full_disk_keeps_its_event_or_says_it_is_lost() {
    let s = Sandbox::new();
    let disk = SmallDisk::mount(&s.home, "1m");
    let mut kept = Vec::new();
    let mut hook = |n: usize| {
        let payload = claude(
            "full",
            &s.project,
            "UserPromptSubmit",
            json!({"prompt": format!("prompt {n}")}),
        );
        let hook = s.hook("claude-code", "UserPromptSubmit", &payload);
        assert_eq!(
            hook.code, 0,
            "a hook never fails its agent: {}",
            hook.stderr
        );
        assert_eq!(hook.stdout, "");
        let lost = hook.stderr.contains("it is lost");
        if lost {
            assert!(hook.stderr.contains("disk is full"), "{}", hook.stderr);
        } else {
            assert_eq!(hook.stderr, "", "a hook says nothing else");
            kept.push(format!("prompt {n}"));
        }
        lost
    };
    // Until the store refuses a memory for want of room.
    let mut n = 0;
    loop {
        let filler = s.run(&["store", &format!("filler {n}: {}", "room ".repeat(80))]);
        hook(n);
        n += 1;
        if filler.code != 0 {
            assert!(filler.stderr.contains("disk full"), "{}", filler.stderr);
            break;
        }
        assert!(n < 5_000, "a 1 MiB disk fills up");
    }
    // Then not a byte left, not even for the spool: every hook says its event is lost.
    let mut rest = std::fs::File::create(s.home.join("the-rest")).unwrap();
    let chunk = vec![0u8; 4096];
    while rest.write_all(&chunk).is_ok() {}
    while rest.write_all(&chunk[..1]).is_ok() {}
    for _ in 0..3 {
        assert!(
            hook(n),
            "prompt {n}: nowhere to keep it, and the hook says so"
        );
        n += 1;
    }
    drop(rest);
    std::fs::remove_file(s.home.join("the-rest")).unwrap();
    disk.grow("64m");
    let prompts: Vec<String> = s.session("claude-code/full")["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["input"].as_str().unwrap().to_string())
        .collect();
    let missing: Vec<&String> = kept.iter().filter(|p| !prompts.contains(p)).collect();
    assert!(
        missing.is_empty(),
        "acknowledged but not recorded: {missing:?}"
    );
}

/// With no session recorded, `cairn sessions` says why: no agent has cairn's hooks, Codex has
/// them but has not trusted them yet, or they are installed and no agent has run here.
#[test]
fn sessions_with_nothing_recorded_say_whether_the_hooks_are_missing_untrusted_or_installed() {
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    std::fs::create_dir_all(&home).unwrap();
    let home_arg = home.to_str().unwrap();
    let sessions = || {
        let output = s
            .command(&s.home, &["sessions"])
            .env("HOME", &home)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "nothing found");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "no sessions recorded\n"
        );
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let said = sessions();
    assert!(
        said.contains("install them with `cairn setup <agent>`"),
        "{said}"
    );
    s.ok(&["setup", "codex", "--home", home_arg]);
    let said = sessions();
    assert!(said.contains("does not trust them yet"), "{said}");
    s.ok(&["setup", "codex", "--home", home_arg, "--uninstall"]);
    s.ok(&["setup", "claude-code", "--home", home_arg]);
    let said = sessions();
    assert!(
        said.contains("installed for claude-code") && !said.contains("cairn setup"),
        "{said}"
    );
}

#[test]
fn instruction_files_an_import_follows_are_read_again_as_a_session_starts() {
    let s = Sandbox::new();
    let agents_md = s.project.join("AGENTS.md");
    std::fs::write(&agents_md, "Use pnpm for every package, never npm.\n").unwrap();
    let start = || {
        let run = s.hook(
            "claude-code",
            "SessionStart",
            &claude(
                "s1",
                &s.project,
                "SessionStart",
                json!({"source": "startup"}),
            ),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    };
    let found = |words: &str| {
        let run = s.run(&["search", words, "--format", "json"]);
        run.json()["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    // Not followed until an import of instructions starts it.
    start();
    assert!(found("pnpm").is_empty(), "followed before any import");

    let empty = s.home.join("no-history");
    std::fs::create_dir_all(&empty).unwrap();
    let path = empty.display().to_string();
    let report = s.ok_json(&[
        "import",
        "--agent",
        "codex",
        "--path",
        &path,
        "--instructions",
    ]);
    assert_eq!(report["found"], 0, "{report:#}");
    assert_eq!(report["instructions"][0]["indexed"], 1, "{report:#}");
    let rule = found("pnpm");
    assert_eq!(rule.len(), 1, "{rule:#?}");
    assert_eq!(rule[0]["memory"]["title"], "AGENTS.md");
    // Read-only, and the error says where to change it.
    let id = rule[0]["memory"]["id"].as_str().unwrap();
    let refused = s.run(&["update", id, "Use yarn"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("AGENTS.md"), "{}", refused.stderr);

    // The file changes; the next session's start takes the change.
    std::fs::write(&agents_md, "Use bun for every package, never npm.\n").unwrap();
    start();
    let now = found("package manager bun pnpm");
    let contents: Vec<&str> = now
        .iter()
        .filter_map(|hit| hit["memory"]["content"].as_str())
        .collect();
    assert_eq!(
        contents,
        ["Use bun for every package, never npm."],
        "the old rule is gone, the new one found: {}",
        s.hook_log()
    );
}

/// cairn's Claude Code plugin and `cairn setup claude-code` exclude each other: beside the
/// enabled plugin setup refuses, naming it and how to switch, and writes nothing; an uninstall
/// still runs.
#[test]
fn setup_refuses_beside_the_enabled_claude_code_plugin() {
    let s = Sandbox::new();
    let home = s.home.join("user-home");
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let text = r#"{"enabledPlugins": {"cairn@cairn": true}}"#;
    std::fs::write(&settings, text).unwrap();
    let home_arg = home.to_str().unwrap();
    let refused = s.run(&["setup", "claude-code", "--home", home_arg]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("plugin cairn@cairn")
            && refused
                .stderr
                .contains("claude plugin uninstall cairn@cairn"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        snapshot(&home),
        [(".claude/settings.json".into(), text.into())]
    );
    s.ok(&["setup", "claude-code", "--home", home_arg, "--uninstall"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
    // A disabled plugin does not stand in the way.
    std::fs::write(&settings, r#"{"enabledPlugins": {"cairn@cairn": false}}"#).unwrap();
    s.ok(&["setup", "claude-code", "--home", home_arg]);
}

/// The plugin's hook script as Claude Code runs it (`sh …/run-cairn.sh EVENT`, the event on
/// stdin): with cairn on PATH the event is recorded and the session is told to load the
/// plugin's tools by their names; without cairn it prints one line and exits 0.
#[test]
fn the_plugin_hook_runs_cairn_from_path_and_says_how_to_get_it_when_missing() {
    let s = Sandbox::new();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/cairn/hooks/run-cairn.sh");
    let bin = s.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cairn"), bin.join("cairn")).unwrap();
    let system: Vec<_> = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter(|dir| !dir.join("cairn").exists())
        .collect();
    let run = |path: Vec<PathBuf>, event: &str, id: &str| {
        let mut command = Command::new("sh");
        command
            .arg(&script)
            .arg(event)
            .current_dir(&s.project)
            .env_clear()
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("HOME", &s.home)
            .env("CAIRN_HOME", &s.home)
            .env("CAIRN_CONFIG", s.home.join("no-user-config.toml"))
            .env("CAIRN_EMBEDDING", "off");
        let payload = claude(id, &s.project, event, json!({"source": "startup"}));
        run_with_payload(&mut command, &payload)
    };

    let missing = run(system.clone(), "SessionStart", "p1");
    assert!(missing.status.success());
    let said = String::from_utf8(missing.stdout).unwrap();
    assert!(
        said.starts_with("cairn is not on PATH") && said.lines().count() == 1,
        "{said}"
    );
    let quiet = run(system.clone(), "Stop", "p1");
    assert!(quiet.status.success() && quiet.stdout.is_empty());
    assert!(String::from_utf8_lossy(&quiet.stderr).starts_with("cairn is not on PATH"));
    assert!(s.run(&["sessions"]).code == 1, "nothing was recorded");

    let with_cairn = [vec![bin], system].concat();
    let started = run(with_cairn.clone(), "SessionStart", "p1");
    assert!(started.status.success());
    let context: Value = serde_json::from_slice(&started.stdout).unwrap();
    let text = context["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("select:mcp__plugin_cairn_cairn__memory_search")
            && !text.contains("mcp__cairn__"),
        "{text}"
    );
    assert_eq!(s.session("claude-code/p1")["session"]["key"]["id"], "p1");

    // Beside the hooks `cairn setup claude-code` installed, the plugin's stay quiet: nothing is
    // injected or recorded twice.
    let setup_hook = format!(
        "{} hook claude-code SessionStart",
        env!("CARGO_BIN_EXE_cairn")
    );
    let settings = json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": setup_hook}]}]}});
    std::fs::create_dir_all(s.home.join(".claude")).unwrap();
    std::fs::write(s.home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let twice = run(with_cairn, "SessionStart", "p2");
    assert!(
        twice.status.success() && twice.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&twice.stdout)
    );
    let listed = s.ok(&["sessions", "--format", "json"]).stdout;
    assert!(
        listed.contains("\"p1\"") && !listed.contains("\"p2\""),
        "the plugin's hook recorded a session setup's hooks record: {listed}"
    );
}
