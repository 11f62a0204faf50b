//! `cairn serve` under load from a real HTTP load generator (`wrk`, from Debian's packages).
//!
//! For each corpus size: import the synthetic corpus with `cairn import`, start `cairn serve` on
//! a free loopback port as its own process, read its idle RSS, then drive it with `wrk`:
//! searches first (the corpus's own query mix, GET /v1/search), then stores (POST /v1/memories,
//! every body distinct so none is a cheap duplicate). wrk reports throughput, latency
//! percentiles and every non-2xx answer or socket error; the server's peak RSS (VmHWM) is read
//! after the load. By default semantic search is off, as it is for a store without a model
//! (embedding 100K memories first takes about half an hour on two cores); `--semantic` embeds
//! the corpus with `cairn reindex --embeddings` first and serves hybrid search, each query
//! embedded by the server.
//!
//! With `--store URL` the corpus goes into a fresh schema of that PostgreSQL database and
//! `--servers N` starts N servers on it: the connections are spread evenly over them, one wrk
//! per server running at the same time. Each server's figures are reported, and a combined row:
//! requests and rates summed, and as percentiles the highest of the servers' (a bound on the
//! combined distribution's: no server had more than that share of slower requests).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::corpus::{Corpus, Rng};
use crate::scale::{Target, write_corpus};

#[derive(Clone)]
pub struct ServeOptions {
    pub sizes: Vec<u64>,
    pub cairn: PathBuf,
    pub connections: usize,
    pub threads: usize,
    pub seconds: u64,
    pub seed: u64,
    pub workdir: Option<PathBuf>,
    /// Embed the corpus and serve hybrid search (needs the model installed).
    pub semantic: bool,
    /// A PostgreSQL database to serve from (a fresh schema per size) instead of a SQLite file.
    pub store: Option<String>,
    /// Servers on the one store, sharing the connections.
    pub servers: usize,
}

/// What wrk measured for one kind of request.
#[derive(Debug, Clone, Serialize)]
pub struct LoadResult {
    /// `search` or `store`, with `@N` for server N's share when there are several.
    pub kind: String,
    pub requests: u64,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// Non-2xx answers plus socket errors (connect, read, write, timeout).
    pub errors: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServeResult {
    pub memories: u64,
    pub idle_rss_mib: f64,
    pub peak_rss_mib: f64,
    pub loads: Vec<LoadResult>,
}

/// A running `cairn serve`, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    /// `cairn serve` on `target`'s store; `config` names a file that does not exist (so no
    /// user configuration applies).
    fn start(cairn: &Path, target: &Target, config: &Path, semantic: bool) -> Result<Self> {
        let mut child = target
            .command(cairn)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env("CAIRN_EMBEDDING", if semantic { "on" } else { "off" })
            .env("CAIRN_CONFIG", config)
            .env_remove("CAIRN_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", cairn.display()))?;
        let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
        let mut line = String::new();
        loop {
            line.clear();
            if stderr.read_line(&mut line)? == 0 {
                bail!("cairn serve exited before listening");
            }
            if let Some(rest) = line.strip_prefix("cairn listening on ") {
                let base = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                // Keep draining stderr so the server never blocks on a full pipe.
                std::thread::spawn(move || for _ in stderr.lines() {});
                return Ok(Server { child, base });
            }
        }
    }

    /// A field of /proc/<pid>/status in MiB (VmRSS now, VmHWM the peak).
    fn memory_mib(&self, field: &str) -> Result<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let kib: f64 = status
            .lines()
            .find_map(|l| {
                l.strip_prefix(field)?
                    .trim()
                    .strip_suffix("kB")?
                    .trim()
                    .parse()
                    .ok()
            })
            .with_context(|| format!("no {field} in /proc status"))?;
        Ok(kib / 1024.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `%`-encodes a query string value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A wrk script that cycles through `paths` with GET.
fn search_script(paths: &[String]) -> String {
    let list: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    format!(
        "local paths = {{{}}}\n\
         local i = 0\n\
         local tid = 0\n\
         local threads = 0\n\
         function setup(thread) threads = threads + 1; thread:set(\"tid\", threads) end\n\
         function init(args) i = (tid or 0) * 97 end\n\
         function request()\n  i = i + 1\n  return wrk.format(\"GET\", paths[(i % #paths) + 1])\nend\n",
        list.join(", ")
    )
}

/// A wrk script whose every POST stores a distinct memory.
fn store_script(words: &[String]) -> String {
    let list: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
    format!(
        "local words = {{{}}}\n\
         local n = 0\n\
         local threads = 0\n\
         function setup(thread) threads = threads + 1; thread:set(\"tid\", threads) end\n\
         function request()\n  n = n + 1\n\
           local a = words[(n % #words) + 1]\n\
           local b = words[((n * 7 + (tid or 0)) % #words) + 1]\n\
           local body = string.format('{{\"content\":\"load note %d-%d: the %s step waits on %s\",\"tags\":[\"load\"]}}', tid or 0, n, a, b)\n\
           return wrk.format(\"POST\", \"/v1/memories\", {{[\"Content-Type\"] = \"application/json\"}}, body)\n\
         end\n",
        list.join(", ")
    )
}

/// `1.23ms`, `850.00us`, `1.02s` in milliseconds.
fn wrk_duration_ms(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    Some(match unit {
        "us" => value / 1e3,
        "ms" => value,
        "s" => value * 1e3,
        "m" => value * 60e3,
        _ => return None,
    })
}

fn parse_wrk(kind: &str, output: &str) -> Result<LoadResult> {
    let percentile = |p: &str| {
        output
            .lines()
            .find_map(|l| {
                let mut parts = l.split_whitespace();
                (parts.next()? == p).then(|| wrk_duration_ms(parts.next()?))?
            })
            .with_context(|| format!("wrk printed no {p} latency:\n{output}"))
    };
    let requests: u64 = output
        .lines()
        .find_map(|l| l.trim().split_once(" requests in ")?.0.parse().ok())
        .with_context(|| format!("wrk printed no request count:\n{output}"))?;
    let per_second: f64 = output
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:")?.trim().parse().ok())
        .context("wrk printed no rate")?;
    let non_2xx: u64 = output
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Non-2xx or 3xx responses:")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0);
    let socket_errors: u64 = output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Socket errors:"))
        .map(|l| {
            l.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Ok(LoadResult {
        kind: kind.to_string(),
        requests,
        per_second,
        p50_ms: percentile("50%")?,
        p90_ms: percentile("90%")?,
        p99_ms: percentile("99%")?,
        errors: non_2xx + socket_errors,
    })
}

fn run_wrk(options: &ServeOptions, base: &str, script: &Path, kind: &str) -> Result<LoadResult> {
    let output = Command::new("wrk")
        .arg(format!("-t{}", options.threads))
        .arg(format!("-c{}", options.connections))
        .arg(format!("-d{}s", options.seconds))
        .arg("--latency")
        .arg("-s")
        .arg(script)
        .arg(base)
        .output()
        .context("cannot run wrk; install it (Debian: apt-get install wrk)")?;
    if !output.status.success() {
        bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    parse_wrk(kind, &String::from_utf8_lossy(&output.stdout))
}

pub fn run(options: &ServeOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<ServeResult>> {
    let workdir = options.workdir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&workdir)?;
    let scratch = tempfile::Builder::new()
        .prefix("cairn-bench-serve-")
        .tempdir_in(workdir)?;
    let corpus = Corpus::new(options.seed);
    let mut rng = Rng::new(options.seed ^ 0x5eed);
    let paths: Vec<String> = (0..500)
        .map(|_| {
            format!(
                "/v1/search?query={}&limit=10",
                encode(&corpus.query(&mut rng))
            )
        })
        .collect();
    let words: Vec<String> = (0..200)
        .map(|_| corpus.word(&mut rng).to_string())
        .collect();
    let search_lua = scratch.path().join("search.lua");
    let store_lua = scratch.path().join("store.lua");
    std::fs::write(&search_lua, search_script(&paths))?;
    std::fs::write(&store_lua, store_script(&words))?;
    let mut results = Vec::new();
    for &size in &options.sizes {
        let corpus_path = scratch.path().join(format!("corpus-{size}.jsonl"));
        let target = Target::new(options.store.as_deref(), scratch.path(), size, 0)?;
        let config = scratch.path().join("no-config.toml");
        progress(&format!("{size}: importing the corpus"));
        write_corpus(&corpus_path, size, options.seed)?;
        let status = target
            .command(&options.cairn)
            .args(["--quiet", "import"])
            .arg(&corpus_path)
            .env("CAIRN_EMBEDDING", "off")
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("cairn import failed for {size} memories");
        }
        if options.semantic {
            progress(&format!("{size}: embedding the corpus"));
            let status = target
                .command(&options.cairn)
                .args(["--quiet", "reindex", "--embeddings"])
                .env("CAIRN_EMBEDDING", "on")
                .stdout(Stdio::null())
                .status()?;
            if !status.success() {
                bail!("cairn reindex --embeddings failed (is the model installed?)");
            }
        }
        let servers = (0..options.servers.max(1))
            .map(|_| Server::start(&options.cairn, &target, &config, options.semantic))
            .collect::<Result<Vec<_>>>()?;
        // A short load warms each server's connections and the first pages.
        let warm = ServeOptions {
            seconds: 2,
            ..options.clone()
        };
        load(&warm, &servers, &search_lua, "warm-up")?;
        let idle_rss_mib = max_of(&servers, "VmRSS:")?;
        progress(&format!("{size}: searching under load"));
        let mut loads = load(options, &servers, &search_lua, "search")?;
        progress(&format!("{size}: storing under load"));
        loads.extend(load(options, &servers, &store_lua, "store")?);
        results.push(ServeResult {
            memories: size,
            idle_rss_mib,
            peak_rss_mib: max_of(&servers, "VmHWM:")?,
            loads,
        });
    }
    Ok(results)
}

/// The highest of the servers' memory figures.
fn max_of(servers: &[Server], field: &str) -> Result<f64> {
    servers
        .iter()
        .map(|server| server.memory_mib(field))
        .try_fold(0.0, |most: f64, mib| Ok(most.max(mib?)))
}

/// One load spread over the servers at once, the connections shared evenly: one row, or with
/// several servers one per server (`kind@N`) and the combined row.
fn load(
    options: &ServeOptions,
    servers: &[Server],
    script: &Path,
    kind: &str,
) -> Result<Vec<LoadResult>> {
    if let [server] = servers {
        return Ok(vec![run_wrk(options, &server.base, script, kind)?]);
    }
    let share = ServeOptions {
        connections: (options.connections / servers.len()).max(1),
        threads: options
            .threads
            .clamp(1, (options.connections / servers.len()).max(1)),
        ..options.clone()
    };
    let each: Vec<LoadResult> = std::thread::scope(|scope| {
        let running: Vec<_> = servers
            .iter()
            .enumerate()
            .map(|(n, server)| {
                let share = &share;
                scope.spawn(move || {
                    run_wrk(share, &server.base, script, &format!("{kind}@{}", n + 1))
                })
            })
            .collect();
        running
            .into_iter()
            .map(|handle| handle.join().expect("a wrk thread"))
            .collect::<Result<_>>()
    })?;
    let most = |pick: fn(&LoadResult) -> f64| each.iter().map(pick).fold(0.0, f64::max);
    let combined = LoadResult {
        kind: kind.to_string(),
        requests: each.iter().map(|l| l.requests).sum(),
        per_second: each.iter().map(|l| l.per_second).sum(),
        p50_ms: most(|l| l.p50_ms),
        p90_ms: most(|l| l.p90_ms),
        p99_ms: most(|l| l.p99_ms),
        errors: each.iter().map(|l| l.errors).sum(),
    };
    Ok(each.into_iter().chain([combined]).collect())
}

pub fn table(results: &[ServeResult], options: &ServeOptions) -> String {
    let mut out = format!(
        "wrk: {} connections over {} server{} on {}, {} threads, {} s per load, search {}\n\
         memories  load      requests    req/s     p50 ms    p90 ms    p99 ms  errors  idle RSS  peak RSS\n",
        options.connections,
        options.servers,
        if options.servers == 1 { "" } else { "s" },
        if options.store.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        options.threads,
        options.seconds,
        if options.semantic {
            "hybrid (query embedded by the server)"
        } else {
            "without a model"
        }
    );
    for result in results {
        for load in &result.loads {
            out.push_str(&format!(
                "{:>8}  {:<9}{:>9} {:>8.0} {:>9.2} {:>9.2} {:>9.2} {:>7} {:>6.0} MiB {:>5.0} MiB\n",
                result.memories,
                load.kind,
                load.requests,
                load.per_second,
                load.p50_ms,
                load.p90_ms,
                load.p99_ms,
                load.errors,
                result.idle_rss_mib,
                result.peak_rss_mib,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_output_is_read_with_its_units() {
        let output = "Running 10s test @ http://127.0.0.1:1\n  2 threads and 10 connections\n  \
            Latency Distribution\n     50%  850.00us\n     75%    1.20ms\n     90%    2.50ms\n     \
            99%    1.02s\n  12345 requests in 10.00s, 4.00MB read\n  Socket errors: connect 0, \
            read 2, write 0, timeout 1\n  Non-2xx or 3xx responses: 4\nRequests/sec:   1234.50\n";
        let result = parse_wrk("search", output).unwrap();
        assert_eq!(result.requests, 12345);
        assert_eq!(result.p50_ms, 0.85);
        assert_eq!(result.p90_ms, 2.5);
        assert_eq!(result.p99_ms, 1020.0);
        assert_eq!(result.errors, 7);
        assert_eq!(result.per_second, 1234.5);
    }
}
