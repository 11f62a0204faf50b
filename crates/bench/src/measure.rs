//! Measuring: percentiles, and running a child process while reading its wall time and peak RSS.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;

/// Fewest samples with a p99 of its own: below it, the nearest-rank p99 is the maximum.
pub const MIN_P99_SAMPLES: usize = 100;

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Percentiles {
    pub samples: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    /// `None` with fewer than [`MIN_P99_SAMPLES`] samples (see `max_ms`).
    pub p99_ms: Option<f64>,
    pub max_ms: f64,
}

impl Percentiles {
    pub fn of(samples: &[Duration]) -> Self {
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        // Nearest-rank percentile.
        let at = |p: f64| {
            if ms.is_empty() {
                return f64::NAN;
            }
            let rank = ((p / 100.0) * ms.len() as f64).ceil() as usize;
            ms[rank.clamp(1, ms.len()) - 1]
        };
        Percentiles {
            samples: ms.len(),
            p50_ms: at(50.0),
            p95_ms: at(95.0),
            p99_ms: (ms.len() >= MIN_P99_SAMPLES).then(|| at(99.0)),
            max_ms: at(100.0),
        }
    }

    /// The p99 with `decimals`, or `-` when the samples are too few to have one.
    pub fn p99(&self, decimals: usize) -> String {
        match self.p99_ms {
            Some(ms) => format!("{ms:.decimals$}"),
            None => "-".into(),
        }
    }

    /// `p50 / p95 / p99 ms` for tables; `p50 / p95 / max ms` when the samples are too few for
    /// a p99.
    pub fn p50_p95_p99(&self) -> String {
        match self.p99_ms {
            Some(p99) => format!("{:.2} / {:.2} / {p99:.2} ms", self.p50_ms, self.p95_ms),
            None => format!(
                "{:.2} / {:.2} / max {:.2} ms",
                self.p50_ms, self.p95_ms, self.max_ms
            ),
        }
    }
}

/// What one child process took.
pub struct ChildRun {
    pub wall: Duration,
    pub peak_rss_bytes: u64,
}

/// The hidden subcommand through which [`run_child`] starts a child: `cairn-bench measure-child
/// PROGRAM ARGS…` runs it, waits, and prints `WALL_NANOS PEAK_RSS_BYTES` on standard output.
pub const MEASURE_CHILD: &str = "measure-child";

/// Runs `command` to completion, measuring wall time and its peak resident set. Standard
/// output is discarded; standard error is inherited.
///
/// Linux gives a child the peak RSS of the process it was spawned from: `exec` records the
/// departing memory map's high-water mark, and a spawned child's map before `exec` is its
/// parent's (shared by `vfork`, copied by `fork`). A benchmark that has loaded 400 MiB would
/// read 400 MiB for every child. So the child is started from a fresh, small copy of this
/// program ([`measure_child`]), whose own child's figure is the child's alone. So it works only
/// inside the `cairn-bench` binary, which it runs again as that wrapper.
pub fn run_child(command: &mut Command) -> Result<ChildRun> {
    let me = std::env::current_exe().context("cannot locate cairn-bench itself")?;
    let mut wrapper = Command::new(me);
    wrapper
        .arg(MEASURE_CHILD)
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapper.env(key, value),
            None => wrapper.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapper.current_dir(dir);
    }
    let output = wrapper
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot start the measuring process")?;
    let report = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!("child process failed ({}): {command:?}", output.status);
    }
    let figures: Vec<u64> = report
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("unreadable child measurement {report:?}"))?;
    let [wall_nanos, peak_rss_bytes] = figures[..] else {
        bail!("unreadable child measurement {report:?}");
    };
    Ok(ChildRun {
        wall: Duration::from_nanos(wall_nanos),
        peak_rss_bytes,
    })
}

/// The far side of [`run_child`]: runs `program` with `args` (standard output discarded),
/// waits with `wait4`, and prints its wall time in nanoseconds and its peak RSS in bytes. Exit
/// codes 0 and 1 (a search that found nothing) count as success.
pub fn measure_child(program: &std::ffi::OsStr, args: &[std::ffi::OsString]) -> Result<()> {
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own un-reaped child; `status` and `usage` are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if reaped != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || ![0, 1].contains(&libc::WEXITSTATUS(status)) {
        bail!(
            "child process failed with status {status}: {} {args:?}",
            program.to_string_lossy()
        );
    }
    // ru_maxrss is in KiB on Linux.
    println!("{} {}", wall.as_nanos(), usage.ru_maxrss as u64 * 1024);
    Ok(())
}

/// The median of repeated measurements.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// This process's peak resident set so far, in bytes (`getrusage`; KiB on Linux).
pub fn own_peak_rss_bytes() -> u64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    usage.ru_maxrss as u64 * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let p = Percentiles::of(&samples);
        assert_eq!(
            (p.p50_ms, p.p95_ms, p.p99_ms, p.max_ms),
            (50.0, 95.0, Some(99.0), 100.0)
        );
        // Too few samples for a p99: the table says max instead.
        let few = Percentiles::of(&samples[..50]);
        assert_eq!((few.p99_ms, few.max_ms), (None, 50.0));
        assert_eq!(few.p50_p95_p99(), "25.00 / 48.00 / max 50.00 ms");
        assert_eq!(few.p99(2), "-");
        assert_eq!(median(&mut [3.0, 1.0, 2.0, 10.0]), 2.5);
    }
}
