//! The fault workload: what killed processes, a full disk and damaged files do to a store,
//! through the real binary. Each kind of round prints counts, not times:
//! - **kill**: four `cairn store` writers (one process after another each), two HTTP posters
//!   against `cairn serve` and a stream of `cairn hook` processes write at once; after a
//!   random moment every one of them is killed (SIGKILL). Every write that was acknowledged (a
//!   store that printed its id, a POST answered 201, a hook that exited 0) must be found
//!   afterwards — a hook's event possibly through the spool, which the next command drains.
//! - **disk full** (root only: a small tmpfs of its own): writers and hooks until the disk is
//!   full; every acknowledged write must be found, every refusal must say "disk full" (a hook
//!   exits 0 whatever happens, so one that says its event is lost is a refusal, not an
//!   acknowledgement), no spool file may be left empty.
//! - **database damage**: a page of a copy of the store zeroed or bytes flipped; `cairn
//!   search`, `stats` and `doctor` run on it: none may crash or hang, and doctor must see the
//!   damage.
//! - **index damage** (with the embedding model): bytes of the HNSW file flipped in place (its
//!   size kept); `cairn search` must answer, never crash, and warn that it did not use the
//!   index (counted as detected); `cairn reindex --vector-index` makes it sound again.
//!
//! A crash is a process that died from a signal it was not sent, or a panic (status 101); a
//! hang is one still running after a minute (killed, and counted).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::corpus::Rng;
use crate::scale::write_corpus;

pub struct FaultsOptions {
    pub rounds: usize,
    pub cairn: PathBuf,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
    /// The embedding model's directory, for the index rounds (`None` skips them).
    pub model_dir: Option<PathBuf>,
    /// Which kinds of rounds run: `kill`, `disk`, `database`, `index` (all when empty).
    pub kinds: Vec<String>,
}

/// What one kind of round found.
#[derive(Debug, Default, Serialize)]
pub struct FaultCounts {
    pub kind: &'static str,
    pub rounds: usize,
    /// Writes the store acknowledged.
    pub acknowledged: u64,
    /// Of those, found afterwards.
    pub found_after: u64,
    /// Processes that crashed (a signal not sent to them, or a panic).
    pub crashes: u64,
    /// Processes still running after a minute.
    pub hangs: u64,
    /// Refusals (a write that failed as it should: disk full, a damaged database).
    pub refusals: u64,
    /// Damage the doctor saw, of the rounds that damaged something.
    pub detected: u64,
    /// What was not run, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// A process's end: its exit status, or that it crashed, hung, or was killed by this bench.
enum End {
    Exited(i32, String, String),
    Crashed(String),
    Hung,
    /// SIGKILL, which only this bench sends.
    Killed,
}

/// Waits for `child` (reading its output meanwhile, so a full pipe never stalls it) at most
/// `limit`; a child still running then is killed and counted as hung.
fn wait(mut child: Child, limit: Duration) -> End {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return End::Hung;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(error) => return End::Crashed(error.to_string()),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(101), _) => End::Crashed(format!("panicked: {stderr}")),
        (Some(code), _) => End::Exited(code, stdout, stderr),
        (None, Some(libc::SIGKILL)) => End::Killed,
        (None, Some(signal)) => End::Crashed(format!("signal {signal}: {stderr}")),
        (None, None) => End::Crashed("no status".into()),
    }
}

/// A scratch home for one store.
#[derive(Clone)]
struct Home {
    dir: PathBuf,
    cairn: PathBuf,
    model_dir: Option<PathBuf>,
}

impl Home {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.cairn);
        command
            .args(args)
            .current_dir(&self.dir)
            .env("CAIRN_HOME", self.dir.join("home"))
            .env("CAIRN_CONFIG", self.dir.join("no-config.toml"))
            .env("CAIRN_PROJECT", "faults")
            .env("CAIRN_OCR", "off")
            .env("CAIRN_LOOK", "off")
            .env("CAIRN_CLIP", "off")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match &self.model_dir {
            Some(dir) => command.env("CAIRN_MODEL_DIR", dir),
            None => command.env("CAIRN_EMBEDDING", "off"),
        };
        command
    }

    fn run(&self, args: &[&str]) -> End {
        self.run_within(args, Duration::from_secs(60))
    }

    fn run_within(&self, args: &[&str], limit: Duration) -> End {
        match self.command(args).spawn() {
            Ok(child) => wait(child, limit),
            Err(error) => End::Crashed(format!("could not start: {error}")),
        }
    }

    /// `cairn hook claude-code EVENT` started with `payload` on its standard input.
    fn hook(&self, event: &str, payload: &Value) -> std::io::Result<Child> {
        let mut command = self.command(&["hook", "claude-code", event]);
        command.stdin(Stdio::piped());
        let mut child = command.spawn()?;
        if let Some(mut input) = child.stdin.take() {
            input.write_all(payload.to_string().as_bytes())?;
        }
        Ok(child)
    }

    fn database(&self) -> PathBuf {
        self.dir.join("home").join("cairn.db")
    }

    /// Every memory id the store holds, in any state (the spool drained first by the open).
    fn ids(&self) -> Result<std::collections::HashSet<String>> {
        match self.run(&["export", "-"]) {
            End::Exited(0, stdout, _) => Ok(stdout
                .lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .filter(|record| record["type"] == "memory")
                .filter_map(|record| record["id"].as_str().map(String::from))
                .collect()),
            End::Exited(code, _, stderr) => bail!("export failed ({code}): {stderr}"),
            End::Crashed(why) => bail!("export crashed: {why}"),
            End::Hung | End::Killed => bail!("export hung"),
        }
    }

    fn observations(&self, session: &str) -> u64 {
        match self.run(&["sessions", session, "--format", "json"]) {
            End::Exited(0, stdout, _) => serde_json::from_str::<Value>(&stdout)
                .ok()
                .and_then(|v| v["observations"].as_array().map(|o| o.len() as u64))
                .unwrap_or(0),
            _ => 0,
        }
    }
}

pub fn run(options: &FaultsOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<FaultCounts>> {
    let scratch = match &options.workdir {
        Some(dir) => tempfile::tempdir_in(dir)?,
        None => tempfile::tempdir()?,
    };
    let mut rng = Rng::new(options.seed);
    let wanted = |kind: &str| options.kinds.is_empty() || options.kinds.iter().any(|k| k == kind);
    let mut results = Vec::new();
    if wanted("kill") {
        progress("kill rounds");
        results.push(kill_rounds(options, scratch.path(), &mut rng)?);
    }
    if wanted("disk") {
        progress("disk-full rounds");
        results.push(disk_full_rounds(options, scratch.path())?);
    }
    if wanted("database") {
        progress("database damage rounds");
        results.push(database_rounds(options, scratch.path(), &mut rng)?);
    }
    if wanted("index") {
        progress("index damage rounds");
        results.push(index_rounds(options, scratch.path(), &mut rng, progress)?);
    }
    Ok(results)
}

fn count_end(end: &End, counts: &mut FaultCounts) {
    match end {
        End::Crashed(_) => counts.crashes += 1,
        End::Hung => counts.hangs += 1,
        End::Exited(..) | End::Killed => {}
    }
}

/// Writers of every kind at once, all killed at a random moment.
fn kill_rounds(options: &FaultsOptions, scratch: &Path, rng: &mut Rng) -> Result<FaultCounts> {
    let mut counts = FaultCounts {
        kind: "kill (4 CLI writers, 2 HTTP posters, hooks)",
        rounds: options.rounds,
        ..FaultCounts::default()
    };
    let home = Home {
        dir: scratch.join("kill"),
        cairn: options.cairn.clone(),
        model_dir: None,
    };
    std::fs::create_dir_all(&home.dir)?;
    let mut acknowledged_ids = Vec::new();
    let mut acknowledged_hooks = 0u64;
    for round in 0..options.rounds {
        let shared = Arc::new(Round::default());
        let mut server = home
            .command(&["serve", "--bind", "127.0.0.1:0"])
            .spawn()
            .context("cairn serve starts")?;
        let address = listening(&mut server)?;
        let mut workers = Vec::new();
        for writer in 0..4 {
            let home = home.clone();
            workers.push(until_stopped(&shared, move |shared, n| {
                let text = format!("round {round} writer {writer} write {n}");
                let child = home.command(&["store", &text, "--quiet"]).spawn().ok()?;
                match watched(&shared.running, child) {
                    End::Exited(0, stdout, _) => {
                        shared
                            .acknowledged
                            .lock()
                            .unwrap()
                            .extend(first_word(&stdout));
                    }
                    end => count_end(&end, &mut shared.crashed.lock().unwrap()),
                }
                Some(())
            }));
        }
        for poster in 0..2 {
            let address = address.clone();
            workers.push(until_stopped(&shared, move |shared, n| {
                let body = json!({"content": format!("round {round} poster {poster} post {n}")});
                if let Some(id) = post(&address, &body) {
                    shared.acknowledged.lock().unwrap().push(id);
                }
                Some(())
            }));
        }
        {
            let home = home.clone();
            workers.push(until_stopped(&shared, move |shared, n| {
                let payload = json!({
                    "session_id": format!("faults-{round}"), "cwd": home.dir,
                    "hook_event_name": "PostToolUse", "tool_name": "Bash",
                    "tool_input": {"command": format!("step {n}")},
                    "tool_response": {"stdout": "ok"},
                });
                let child = home.hook("PostToolUse", &payload).ok()?;
                match watched(&shared.running, child) {
                    End::Exited(0, ..) => *shared.hooks.lock().unwrap() += 1,
                    end => count_end(&end, &mut shared.crashed.lock().unwrap()),
                }
                Some(())
            }));
        }
        // Run for a random moment, then kill everything at once.
        std::thread::sleep(Duration::from_millis(300 + rng.below(900) as u64));
        shared.stop.store(true, Ordering::SeqCst);
        let _ = server.kill();
        for pid in shared.running.lock().unwrap().iter() {
            // SAFETY: a plain kill(2) of a process this bench started and has not reaped.
            unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
        }
        for worker in workers {
            let _ = worker.join();
        }
        {
            use std::os::unix::process::ExitStatusExt;
            if server
                .wait()
                .is_ok_and(|status| status.signal() != Some(libc::SIGKILL))
            {
                counts.crashes += 1;
            }
        }
        let crashed = shared.crashed.lock().unwrap();
        counts.crashes += crashed.crashes;
        counts.hangs += crashed.hangs;
        acknowledged_ids.extend(shared.acknowledged.lock().unwrap().drain(..));
        acknowledged_hooks += *shared.hooks.lock().unwrap();
    }
    let found = home.ids()?;
    counts.acknowledged = acknowledged_ids.len() as u64 + acknowledged_hooks;
    counts.found_after = acknowledged_ids
        .iter()
        .filter(|id| found.contains(id.as_str()))
        .count() as u64;
    let recorded: u64 = (0..options.rounds)
        .map(|round| home.observations(&format!("claude-code/faults-{round}")))
        .sum();
    counts.found_after += recorded.min(acknowledged_hooks);
    Ok(counts)
}

/// What the workers of one kill round share.
#[derive(Default)]
struct Round {
    stop: AtomicBool,
    /// The processes running now, which the killer kills.
    running: Mutex<HashSet<u32>>,
    crashed: Mutex<FaultCounts>,
    /// Ids of the memories whose write was acknowledged.
    acknowledged: Mutex<Vec<String>>,
    /// Hook events acknowledged (the hook exited 0).
    hooks: Mutex<u64>,
}

/// A worker that does `work` (its `n`th time) until the round stops or the work gives up.
fn until_stopped(
    round: &Arc<Round>,
    mut work: impl FnMut(&Round, u64) -> Option<()> + Send + 'static,
) -> std::thread::JoinHandle<()> {
    let round = Arc::clone(round);
    std::thread::spawn(move || {
        let mut n = 0;
        while !round.stop.load(Ordering::SeqCst) && work(&round, n).is_some() {
            n += 1;
        }
    })
}

/// Waits for `child` while its pid is in `running`, where the killer finds it.
fn watched(running: &Mutex<HashSet<u32>>, child: Child) -> End {
    let pid = child.id();
    running.lock().unwrap().insert(pid);
    let end = wait(child, Duration::from_secs(60));
    running.lock().unwrap().remove(&pid);
    end
}

fn first_word(stdout: &str) -> Option<String> {
    stdout
        .split_whitespace()
        .next()
        .filter(|id| id.len() == 36)
        .map(String::from)
}

/// Reads the server's "listening on" line; the rest of its output is drained in the background.
fn listening(server: &mut Child) -> Result<String> {
    use std::io::BufRead;
    let stderr = server.stderr.take().context("the server's stderr")?;
    let mut lines = std::io::BufReader::new(stderr);
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            bail!("cairn serve exited before listening");
        }
        if let Some(rest) = line.strip_prefix("cairn listening on http://") {
            let address = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            std::thread::spawn(move || {
                let mut sink = String::new();
                while lines.read_line(&mut sink).is_ok_and(|n| n > 0) {
                    sink.clear();
                }
            });
            return Ok(address);
        }
    }
}

/// POSTs a memory; its id when the server answered 201.
fn post(address: &str, body: &Value) -> Option<String> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let body = body.to_string();
    let request = format!(
        "POST /v1/memories HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    if !answer.starts_with("HTTP/1.1 201") {
        return None;
    }
    let json: Value = serde_json::from_str(answer.split_once("\r\n\r\n")?.1).ok()?;
    json["memory"]["id"].as_str().map(String::from)
}

/// Writes into a store on a small file system of its own until it is full.
fn disk_full_rounds(options: &FaultsOptions, scratch: &Path) -> Result<FaultCounts> {
    let mut counts = FaultCounts {
        kind: "disk full (a 2 MiB tmpfs)",
        rounds: options.rounds.min(5),
        ..FaultCounts::default()
    };
    for round in 0..counts.rounds {
        let dir = scratch.join(format!("full-{round}"));
        std::fs::create_dir_all(&dir)?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(&dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            counts.rounds = 0;
            counts.skipped = Some("mounting a tmpfs needs root".into());
            return Ok(counts);
        }
        let home = Home {
            dir: dir.clone(),
            cairn: options.cairn.clone(),
            model_dir: None,
        };
        let mut acknowledged = Vec::new();
        let mut hooks = 0u64;
        for n in 0..5_000 {
            let text = format!("round {round} write {n}: {}", "room ".repeat(60));
            match home.run(&["store", &text, "--quiet"]) {
                End::Exited(0, stdout, _) => acknowledged.extend(first_word(&stdout)),
                End::Exited(_, _, stderr) => {
                    counts.refusals += u64::from(stderr.contains("disk full"));
                    break;
                }
                end => count_end(&end, &mut counts),
            }
            let payload = json!({"session_id": format!("full-{round}"), "cwd": dir,
                "hook_event_name": "UserPromptSubmit", "prompt": format!("prompt {n}")});
            match wait(
                home.hook("UserPromptSubmit", &payload)?,
                Duration::from_secs(60),
            ) {
                // A hook always exits 0 (an agent must never wait on it); one that could
                // neither record nor spool its event says so, and that is no acknowledgement.
                End::Exited(0, _, stderr) if stderr.contains("it is lost") => {
                    counts.refusals += u64::from(stderr.contains("disk is full"));
                }
                End::Exited(0, ..) => hooks += 1,
                end => count_end(&end, &mut counts),
            }
        }
        let spool = home.dir.join("home").join("cairn.spool");
        let empty_spool_files = std::fs::read_dir(&spool)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.metadata().is_ok_and(|m| m.len() == 0))
                    .count()
            })
            .unwrap_or(0);
        counts.crashes += empty_spool_files as u64;
        // Room again (a bigger file system), then everything acknowledged must be there.
        let _ = Command::new("mount")
            .args(["-o", "remount,size=64m"])
            .arg(&dir)
            .status();
        let found = home.ids().unwrap_or_default();
        counts.acknowledged += acknowledged.len() as u64;
        counts.found_after += acknowledged.iter().filter(|id| found.contains(*id)).count() as u64;
        let recorded = home.observations(&format!("claude-code/full-{round}"));
        counts.acknowledged += hooks;
        counts.found_after += recorded.min(hooks);
        let _ = Command::new("umount").arg(&dir).status();
    }
    Ok(counts)
}

/// Zeroed pages and flipped bytes in copies of a store, read by search, stats and doctor.
fn database_rounds(options: &FaultsOptions, scratch: &Path, rng: &mut Rng) -> Result<FaultCounts> {
    let mut counts = FaultCounts {
        kind: "database damage (a zeroed page, flipped bytes)",
        rounds: options.rounds,
        ..FaultCounts::default()
    };
    let source = Home {
        dir: scratch.join("pristine"),
        cairn: options.cairn.clone(),
        model_dir: None,
    };
    std::fs::create_dir_all(&source.dir)?;
    let corpus = source.dir.join("corpus.jsonl");
    write_corpus(&corpus, 2_000, options.seed)?;
    match source.run(&["import", corpus.to_str().unwrap_or_default()]) {
        End::Exited(0, ..) => {}
        _ => bail!("the pristine store could not be imported"),
    }
    let pristine = std::fs::read(source.database())?;
    let pages = pristine.len() as u64 / 4096;
    for round in 0..options.rounds {
        let home = Home {
            dir: scratch.join(format!("damaged-{round}")),
            cairn: options.cairn.clone(),
            model_dir: None,
        };
        std::fs::create_dir_all(home.dir.join("home"))?;
        let mut bytes = pristine.clone();
        // Never the first page: a broken header is refused at open, and counted elsewhere.
        let page = 1 + rng.below(pages.saturating_sub(1).max(1) as usize);
        if round % 2 == 0 {
            bytes[page * 4096..(page + 1) * 4096].fill(0);
        } else {
            for _ in 0..16 {
                let at = 4096 + rng.below(bytes.len() - 4096);
                bytes[at] ^= 1 + rng.below(255) as u8;
            }
        }
        std::fs::write(home.database(), &bytes)?;
        for args in [&["search", "release"][..], &["stats"], &["list"]] {
            let end = home.run(args);
            count_end(&end, &mut counts);
        }
        match home.run(&["doctor"]) {
            End::Exited(1, ..) => counts.detected += 1,
            end => count_end(&end, &mut counts),
        }
    }
    Ok(counts)
}

/// Flipped bytes in the HNSW index file of a store large enough to have one.
fn index_rounds(
    options: &FaultsOptions,
    scratch: &Path,
    rng: &mut Rng,
    progress: &mut dyn FnMut(&str),
) -> Result<FaultCounts> {
    let mut counts = FaultCounts {
        kind: "index damage (bytes flipped in the HNSW file, its size kept)",
        rounds: options.rounds,
        ..FaultCounts::default()
    };
    let Some(model_dir) = options.model_dir.clone() else {
        counts.rounds = 0;
        counts.skipped = Some("needs the embedding model (cairn model install)".into());
        return Ok(counts);
    };
    let home = Home {
        dir: scratch.join("index"),
        cairn: options.cairn.clone(),
        model_dir: Some(model_dir),
    };
    std::fs::create_dir_all(&home.dir)?;
    let corpus = home.dir.join("corpus.jsonl");
    write_corpus(&corpus, 6_000, options.seed)?;
    progress("embedding 6,000 memories for the index rounds");
    for args in [
        &["import", corpus.to_str().unwrap_or_default()][..],
        &["reindex", "--embeddings"],
    ] {
        match home.run_within(args, Duration::from_secs(3_600)) {
            End::Exited(0, ..) => {}
            End::Exited(code, _, stderr) => {
                bail!("the index store could not be made ({args:?}, {code}): {stderr}")
            }
            _ => bail!("the index store could not be made ({args:?})"),
        }
    }
    let index = {
        let mut name = home.database().into_os_string();
        name.push(".hnsw");
        PathBuf::from(name)
    };
    let size = std::fs::metadata(&index)
        .with_context(|| format!("no index at {}", index.display()))?
        .len();
    for _ in 0..options.rounds {
        {
            use std::io::{Seek, SeekFrom};
            let mut file = std::fs::OpenOptions::new().write(true).open(&index)?;
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(size as usize) as u64;
                let mut byte = [0u8];
                let mut reader = std::fs::File::open(&index)?;
                reader.seek(SeekFrom::Start(at))?;
                reader.read_exact(&mut byte)?;
                file.seek(SeekFrom::Start(at))?;
                file.write_all(&[byte[0] ^ (1 + rng.below(255) as u8)])?;
            }
        }
        // The search must answer, and say once that it did not use the index (it starts the
        // rebuild in the background itself).
        let end = home.run(&["search", "deploy pipeline", "--limit", "5"]);
        if let End::Exited(0 | 1, _, stderr) = &end
            && stderr.contains("cannot be used")
        {
            counts.detected += 1;
        }
        count_end(&end, &mut counts);
        // A sound index again for the next round, whatever the background rebuild has done.
        let end = home.run(&["reindex", "--vector-index"]);
        count_end(&end, &mut counts);
        // The rebuild the search started in the background must not replace the next round's
        // damaged file before that round's search has seen it.
        wait_for_background_rebuilds(&home.dir);
    }
    Ok(counts)
}

/// Waits (at most a minute) until no `cairn … reindex` started for a store under `dir` runs.
fn wait_for_background_rebuilds(dir: &Path) {
    let needle = dir.to_string_lossy().into_owned();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        let running = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| {
                std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| {
                    let cmdline = String::from_utf8_lossy(&cmdline);
                    cmdline.contains("reindex") && cmdline.contains(&needle)
                })
            });
        if !running {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn table(results: &[FaultCounts]) -> String {
    let mut out = String::from(
        "kind                                                         rounds  acknowledged  found after  crashes  hangs  detected  refusals\n",
    );
    for r in results {
        out.push_str(&format!(
            "{:<60} {:>6}  {:>12}  {:>11}  {:>7}  {:>5}  {:>8}  {:>8}\n",
            r.kind,
            r.rounds,
            r.acknowledged,
            r.found_after,
            r.crashes,
            r.hangs,
            r.detected,
            r.refusals
        ));
        if let Some(why) = &r.skipped {
            out.push_str(&format!("  (not run: {why})\n"));
        }
    }
    out
}
