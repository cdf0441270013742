//! `serprof ab CONFIG_A CONFIG_B [--rounds N]`: interleaved A/B timing in one process, for
//! changes of a few percent that separate runs cannot show on a noisy 2-core machine.
//!
//! Both workloads are built and verified first (a failing one is an exit-1 error naming it),
//! both are warmed up (which also calibrates each batch to about [`BATCH_MS`]), then every round
//! times one batch of A and one of B back to back, A first in even rounds and B first in odd
//! ones so that drift and "second in line" effects cancel. The ratio B/A of each round is one
//! pair ratio; the result is their median with a distribution-free 95% interval from order
//! statistics ([`crate::analyze::compare::median_of_pairs`]). Slow drift of the machine (other
//! builds starting and stopping) hits both batches of a round alike, which is what makes pair
//! ratios tighter than a ratio of two separate runs.
//!
//! The clock is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time: on a 2-core
//! machine shared with builds, a 25 ms batch's wall time mostly varies with how long the thread
//! waited for a core, which has nothing to do with either engine. Measured here under a load
//! average of 4-5 with identical configurations: wall-time pair ratios spread over 0.93-1.07
//! (interquartile) and one of two runs gave 1.030 [1.022, 1.035], a false difference; CPU-time
//! pair ratios spread over 0.98-1.01 and gave 0.998-1.001. CPU time still counts cache and
//! frequency effects of sharing the machine. Wall-time ratios are kept in `ab.json` too.
//!
//! The ab folder, `<out>/<UTC time>-<git rev>-ab/`, holds:
//! - `ab.json`: both names, the settings, every pair ratio, the median ratio and interval;
//! - `A/result.json`, `B/result.json`: each side's `ConfigResult`, its `time_ns` from the
//!   interleaved batches (no CPU or allocation recordings),
//!
//! so that `serprof compare <ab>/A <ab>/B` works and uses the pair ratios. The folder is
//! written under a hidden temporary name and renamed when complete, so an interrupted `ab`
//! leaves nothing that looks finished.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};
use serprof_engines::studies::{Config, Operation};

use crate::analyze::compare::median_of_pairs;
use crate::record::{ops_per_batch, warm_up, workload, Measured, Verified};
use crate::render::table::format_ns;
use crate::result::{ConfigResult, Machine};
use crate::snapshot::{utc_rfc3339, write_json, GIT_REV};
use crate::stats::TimeStats;
use crate::{interrupt, misuse, select};

/// Rounds when `--rounds` is not given. Measured on the 2-core machine under other builds'
/// load (see issue 7's report): 100 rounds of two ~25 ms batches take 6-9 s and put the 95%
/// interval of identical configurations within about ±1%; the interval narrows roughly as
/// 1/sqrt(rounds).
pub const DEFAULT_ROUNDS: usize = 100;
/// Target duration of one batch, in milliseconds (as `serprof run`'s default).
pub const BATCH_MS: u64 = 25;
/// Warm-up of each side before the rounds, in milliseconds.
pub const WARMUP_MS: u64 = 500;

/// `ab.json`: what an A/B run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbRecord {
    /// Configuration A and B, `STUDY/CONFIG` (may be the same one twice).
    pub a: String,
    pub b: String,
    pub rounds: usize,
    pub batch_ms: u64,
    pub warmup_ms: u64,
    /// Operations per batch of A and of B.
    pub ops_per_batch: [u64; 2],
    /// Which side ran first in a round.
    pub order: String,
    /// What `pair_ratios` measure: the thread's CPU time.
    pub clock: String,
    /// B/A CPU time per operation of every round, in the order they ran.
    pub pair_ratios: Vec<f64>,
    /// Median of `pair_ratios` and its 95% interval.
    pub ratio: f64,
    pub ci95: [f64; 2],
    pub method: String,
    /// The same from wall-clock time, for reference (noisier under load).
    pub wall_pair_ratios: Vec<f64>,
    pub wall_ratio: f64,
    pub wall_ci95: [f64; 2],
    /// Wall-clock seconds from the first warm-up to the last batch.
    pub seconds: f64,
    pub start: String,
    pub git_rev: String,
    pub machine: Machine,
}

/// One side: its configuration, workload, verification and batch times.
struct Side {
    name: String,
    config: Config,
    work: Box<dyn Measured>,
    verified: Verified,
    per_batch: u64,
    /// CPU and wall-clock nanoseconds per operation of every batch.
    batches: Vec<f64>,
    wall_batches: Vec<f64>,
}

/// CPU time of the calling thread, in nanoseconds.
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Runs `f` on the side named `name`, turning an engine error or panic into an error naming it.
fn guarded<T>(name: &str, what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(anyhow!("{name}: {what} failed: {e}")),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(anyhow!("{name}: the engine panicked during {what}: {msg}"))
        }
    }
}

impl Side {
    fn new(name: &str) -> Result<Side> {
        let config = select::one(name)?;
        let mut work = guarded(name, "setup", || {
            workload(&config).map_err(|e| e.to_string())
        })?;
        let verified = guarded(name, "verification", || work.verify())?;
        Ok(Side {
            name: name.to_string(),
            config,
            work,
            verified,
            per_batch: 1,
            batches: Vec::new(),
            wall_batches: Vec::new(),
        })
    }

    /// Warms up and sizes a batch to about [`BATCH_MS`].
    fn warm_up(&mut self) -> Result<()> {
        let work = &mut self.work;
        let (ops, took) = guarded(&self.name, "warm-up", || {
            warm_up(work.as_mut(), Duration::from_millis(WARMUP_MS)).map_err(|e| e.to_string())
        })?;
        self.per_batch = ops_per_batch(
            took.as_nanos() as f64 / ops as f64,
            Duration::from_millis(BATCH_MS),
        );
        Ok(())
    }

    /// Times one batch; returns CPU and wall-clock nanoseconds per operation.
    fn batch(&mut self) -> Result<(f64, f64)> {
        let (work, n) = (&mut self.work, self.per_batch);
        let (cpu, wall) = guarded(&self.name, "timing", || {
            let (cpu0, wall0) = (thread_cpu_ns(), Instant::now());
            work.run(n).map_err(|e| e.to_string())?;
            let wall = wall0.elapsed().as_nanos() as f64;
            Ok(((thread_cpu_ns() - cpu0) / n as f64, wall / n as f64))
        })?;
        self.batches.push(cpu);
        self.wall_batches.push(wall);
        Ok((cpu, wall))
    }

    fn batches_median(&self) -> f64 {
        crate::stats::median(&self.batches)
    }

    /// The side's `result.json`: timing from the interleaved batches only.
    fn result(&self, other: &str, letter: char) -> ConfigResult {
        let mut r = ConfigResult::new(&self.config.info);
        r.verified = true;
        r.payload_bytes = Some(self.verified.payload_bytes);
        r.shares_references = self.verified.shares_references;
        r.time_ns = TimeStats::from_batches(self.batches.clone(), self.per_batch);
        r.warnings.push(format!(
            "timed by serprof ab as side {letter}, interleaved with {other}: time_ns is the thread's CPU time per operation, not wall time; no CPU or allocation recording"
        ));
        r
    }
}

pub fn run(a: &str, b: &str, rounds: Option<usize>, out: &Path, json: bool) -> Result<ExitCode> {
    let rounds = rounds.unwrap_or(DEFAULT_ROUNDS);
    if rounds == 0 {
        misuse!("--rounds must be at least 1");
    }
    // Both names are checked before anything runs, so a typo in B costs no time.
    let (ca, cb) = (select::one(a)?.info, select::one(b)?.info);
    for c in [&ca, &cb] {
        if c.operation == Operation::Decode {
            misuse!(
                "{}: the {} study decodes corrupt inputs and has no timing; ab times round trips and serializations",
                c.name(),
                c.study
            );
        }
    }
    if (ca.dataset, ca.operation) != (cb.dataset, cb.operation) {
        misuse!(
            "{a} ({} of {}) and {b} ({} of {}) do different work: give two configurations of one dataset and operation",
            ca.operation.as_str(),
            ca.dataset.as_str(),
            cb.operation.as_str(),
            cb.dataset.as_str()
        );
    }
    interrupt::install();
    // Engine panics become one-line errors naming the side (see `guarded`), not a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut side_a = Side::new(a)?;
    let mut side_b = Side::new(b)?;
    side_a.warm_up()?;
    side_b.warm_up()?;
    eprintln!(
        "serprof ab: {rounds} rounds of {a} (A, {} ops/batch) and {b} (B, {} ops/batch), ~{BATCH_MS} ms per batch",
        side_a.per_batch, side_b.per_batch
    );
    let (mut pair_ratios, mut wall_pair_ratios) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if interrupt::interrupted() {
            anyhow::bail!("interrupted after {round} of {rounds} rounds; nothing written");
        }
        let (ta, tb) = if round % 2 == 0 {
            let ta = side_a.batch()?;
            (ta, side_b.batch()?)
        } else {
            let tb = side_b.batch()?;
            (side_a.batch()?, tb)
        };
        pair_ratios.push(tb.0 / ta.0);
        wall_pair_ratios.push(tb.1 / ta.1);
    }
    let seconds = clock.elapsed().as_secs_f64();
    let (ratio, ci95) = median_of_pairs(&pair_ratios).context("no finite pair ratio")?;
    let (wall_ratio, wall_ci95) =
        median_of_pairs(&wall_pair_ratios).context("no finite pair ratio")?;
    let record = AbRecord {
        a: a.to_string(),
        b: b.to_string(),
        rounds,
        batch_ms: BATCH_MS,
        warmup_ms: WARMUP_MS,
        ops_per_batch: [side_a.per_batch, side_b.per_batch],
        order: "A first in even rounds (0, 2, ...), B first in odd rounds".into(),
        clock: "thread CPU time (CLOCK_THREAD_CPUTIME_ID)".into(),
        pair_ratios,
        ratio,
        ci95,
        method: crate::analyze::compare::INTERLEAVED_METHOD.into(),
        wall_pair_ratios,
        wall_ratio,
        wall_ci95,
        seconds,
        start: utc_rfc3339(started),
        git_rev: GIT_REV.into(),
        machine: crate::runner::machine(),
    };
    let dir = write_folder(
        out,
        started,
        &record,
        &side_a.result(b, 'A'),
        &side_b.result(a, 'B'),
    )?;
    let doc = serde_json::json!({
        "ab_dir": dir,
        "a": a,
        "b": b,
        "a_ns": side_a.batches_median(),
        "b_ns": side_b.batches_median(),
        "ratio": record.ratio,
        "ci95": record.ci95,
        "method": record.method,
        "clock": record.clock,
        "wall_ratio": record.wall_ratio,
        "wall_ci95": record.wall_ci95,
        "rounds": record.rounds,
        "seconds": record.seconds,
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&record, &side_a, &side_b));
    }
    eprintln!("ab folder: {}", dir.display());
    eprintln!(
        "compare it: serprof compare {} {}",
        dir.join("A").display(),
        dir.join("B").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The human table of an A/B run.
fn render(r: &AbRecord, a: &Side, b: &Side) -> String {
    let mut s = format!(
        "ab: {} rounds in {:.1} s (A/B batches of ~{} ms, alternating order)\n",
        r.rounds, r.seconds, r.batch_ms
    );
    for (letter, side) in [('A', a), ('B', b)] {
        s.push_str(&format!(
            "  {letter}  {:<34} {:>10} CPU time per op (median of {} batches)\n",
            side.name,
            format_ns(side.batches_median()),
            side.batches.len()
        ));
    }
    s.push_str(&format!(
        "  B/A  {:.4}  95% CI [{:.4}, {:.4}]  ({:+.2}%)\n  wall-clock B/A {:.4} [{:.4}, {:.4}] (includes waiting for a core)\n  method: {}; clock: {}\n",
        r.ratio,
        r.ci95[0],
        r.ci95[1],
        100.0 * (r.ratio - 1.0),
        r.wall_ratio,
        r.wall_ci95[0],
        r.wall_ci95[1],
        r.method,
        r.clock
    ));
    s
}

/// Writes the ab folder under a hidden name, then renames it to `<stamp>-<rev>-ab` (with `-2`,
/// `-3` ... when taken). The final name is reserved by creating it empty first; renaming a
/// folder onto an empty folder replaces it atomically on Linux.
fn write_folder(
    out: &Path,
    started: SystemTime,
    record: &AbRecord,
    a: &ConfigResult,
    b: &ConfigResult,
) -> Result<PathBuf> {
    fs::create_dir_all(out)
        .with_context(|| format!("cannot create output folder {}", out.display()))?;
    let tmp = out.join(format!(".ab-{}.partial", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    let written = write_json(&tmp.join("A").join("result.json"), a)
        .and_then(|()| write_json(&tmp.join("B").join("result.json"), b))
        .and_then(|()| write_json(&tmp.join("ab.json"), record));
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let dir = match crate::snapshot::reserve_run_name(out, started, "-ab") {
        Ok(dir) => dir,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    fs::rename(&tmp, &dir)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), dir.display()))?;
    Ok(dir)
}
