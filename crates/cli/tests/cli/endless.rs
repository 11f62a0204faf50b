//! Endless, oversized and blocking inputs through the real binary: `/dev/zero` and endless
//! pipes for every reader of text, a FIFO where a hook expects a transcript, and MCP lines that
//! are too long or not JSON. Each stops at its limit and names it, writes nothing, and never
//! hangs (every child here is waited on with a deadline far above what it needs).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Sandbox;

/// Waits for `child` at most `limit`; a child still running then is killed and the test fails.
fn finish(mut child: Child, limit: Duration, what: &str) -> std::process::Output {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `cairn args…` with an endless stream of `byte` on standard input.
fn endless_stdin(s: &Sandbox, args: &[&str], byte: u8) -> std::process::Output {
    let mut child = s
        .command(&s.project, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = vec![byte; 1 << 16];
        // Until cairn stops reading and the pipe breaks.
        while input.write_all(&block).is_ok() {}
    });
    let output = finish(child, Duration::from_secs(120), &args.join(" "));
    feeder.join().unwrap();
    output
}

#[test]
fn dev_zero_and_endless_pipes_stop_at_their_limit_and_write_nothing() {
    let s = Sandbox::new();
    s.ok(&["store", "Already stored, and kept"]);
    for args in [
        &["store", "--file", "/dev/zero"][..],
        &["import", "/dev/zero"],
        &["slot", "replace", "guidance", "--file", "/dev/zero"],
    ] {
        let child = s
            .command(&s.project, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let run = finish(child, Duration::from_secs(120), &args.join(" "));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("limit") || stderr.contains("UTF-8"),
            "{args:?}: {stderr}"
        );
    }
    for (args, byte) in [
        (&["store", "--file", "-"][..], b'a'),
        (&["extract"], b'a'),
        (&["slot", "replace", "guidance", "--file", "-"], b'b'),
        (&["import", "-"], b' '),
    ] {
        let run = endless_stdin(&s, args, byte);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("limit") || stderr.contains("over"),
            "{args:?}: {stderr}"
        );
    }
    let listed = s.ok_json(&["list"]);
    assert_eq!(listed["total"], 1, "only what was there: {listed}");
}

#[test]
fn a_hook_whose_transcript_is_a_fifo_does_not_wait_for_it() {
    let s = Sandbox::new();
    let fifo = s.project.join("transcript.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let payload = json!({
        "session_id": "fifo-session", "cwd": s.project, "hook_event_name": "Stop",
        "stop_hook_active": false, "transcript_path": fifo,
    });
    let mut child = s
        .command(&s.project, &["hook", "claude-code", "Stop"])
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
    // No writer ever opens the FIFO: a hook that opened it would wait forever.
    let run = finish(child, Duration::from_secs(30), "the Stop hook");
    assert!(run.status.success(), "{run:?}");
    let session = s.ok_json(&["sessions", "claude-code/fifo-session"]);
    assert_eq!(session["session"]["key"]["id"], "fifo-session", "{session}");
}

#[test]
fn mcp_answers_a_line_too_long_or_not_json_and_keeps_serving() {
    let s = Sandbox::new();
    let mut child = s
        .command(&s.project, &["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut answer = || {
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    // 16 MiB and one byte more, then a line that is not JSON.
    let oversized = vec![b'x'; (16 << 20) + 1];
    input.write_all(&oversized).unwrap();
    input.write_all(b"\n").unwrap();
    let refused = answer();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null);
    input.write_all(b"{this is not json\n").unwrap();
    let refused = answer();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    // The session still works.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    input
        .write_all(format!("{initialize}\n").as_bytes())
        .unwrap();
    let welcome = answer();
    assert_eq!(welcome["id"], 1, "{welcome}");
    assert!(
        welcome["result"]["serverInfo"]["name"] == "cairn",
        "{welcome}"
    );
    drop(input);
    let run = finish(
        child,
        Duration::from_secs(30),
        "cairn mcp after its input closed",
    );
    assert!(run.status.success(), "{run:?}");
}
