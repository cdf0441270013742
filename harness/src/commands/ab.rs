//! `serprof ab CONFIG_A CONFIG_B [--rounds N] [--processes P]`: interleaved A/B timing, for
//! changes of a few percent that separate runs cannot show on a noisy 2-core machine.
//!
//! The measurement is repeated in P guarded child processes (`serprof __ab-worker`, pinned to
//! one CPU, started one after another). In each, both workloads are built and verified (a
//! failing one is an exit-1 error naming it), both are warmed up (which also calibrates each
//! batch to about [`BATCH_MS`]), then every round times one batch of A and one of B back to
//! back, A first in even rounds and B first in odd ones so that drift and "second in line"
//! effects cancel. The ratio B/A of each round is one pair ratio, and the process's ratio is
//! their median. Slow drift of the machine hits both batches of a round alike, which is what
//! makes pair ratios tighter than a ratio of two separate runs.
//!
//! One process is not enough: measured here, two processes of the same binary differ (heap and
//! code layout, the CPU they land on), and an A/A comparison inside one process gave 1.0443
//! [1.0040, 1.0930] once in six runs, a false difference. So the figure is the median of the P
//! process ratios, and its 95% interval is the order-statistics interval of those P values
//! ([min, max] for 6 processes, 96.9% coverage), not of the pooled pairs.
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
//! - `ab.json`: both names, the settings, every pair ratio, each process's ratio, the median
//!   ratio and interval;
//! - `A/result.json`, `B/result.json`: each side's `ConfigResult`, its `time_ns` from the
//!   interleaved batches, one timing process per ab process (no CPU or allocation recordings),
//!
//! so that `serprof compare <ab>/A <ab>/B` works and uses the process ratios. The folder is
//! written under a hidden temporary name and renamed when complete, so an interrupted `ab`
//! leaves nothing that looks finished.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use serprof_engines::codec::CodecError;
use serprof_engines::studies::{self, Config};

use crate::layout::{self, utc_rfc3339, write_json};
use crate::measure::timing::timed_batch;
use crate::misuse;
use crate::model::ab::AbRecord;
use crate::model::stats::{ProcessTiming, RatioStats};
use crate::model::{ConfigId, ConfigResult, Failure, Machine, Recording, Settings, TimeStats};
use crate::process::{interrupt, Guarded, Limits, Verdict};
use crate::protocol::{AbProcess, AbReply, AbRounds, Request};
use crate::render::table::format_ns;
use crate::run::placement::{self, CpuChoice};
use crate::run::plan as select;
use serprof_engines::workload::{ops_per_batch, warm_up, Verified, Workload};

/// Rounds when `--rounds` is not given, over all processes: 100 rounds of two ~25 ms batches
/// are 5 s of measurement.
pub const DEFAULT_ROUNDS: usize = 100;
/// Processes when `--processes` is not given: [min, max] of 6 process ratios is a 96.9%
/// interval for their median.
pub const DEFAULT_PROCESSES: usize = 6;
/// Target duration of one batch, in milliseconds (as `serprof run`'s default).
pub const BATCH_MS: u64 = 25;
/// Warm-up of each side before the rounds, in milliseconds.
pub const WARMUP_MS: u64 = 500;

/// One side: its workload, verification and batch times.
struct Side {
    work: Box<dyn Workload>,
    verified: Verified,
    per_batch: u64,
    /// CPU and wall-clock nanoseconds per operation of every batch.
    batches: Vec<f64>,
    wall_batches: Vec<f64>,
}

/// Runs `f` on a side, turning a panic into a [`Failure`] too.
fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Failure::Panicked {
            message: crate::process::panic_text(p.as_ref()),
        })
    })
}

/// An engine error while timing.
fn engine(error: CodecError) -> Failure {
    Failure::Engine {
        recording: Recording::Timing,
        error,
    }
}

impl Side {
    /// The side's workload, built and verified.
    fn new(id: &ConfigId) -> Result<Side, Failure> {
        let config = studies::find(&id.to_string())
            .ok_or_else(|| Failure::harness(format_args!("unknown configuration {id}")))?;
        let (work, verified) = guarded(|| {
            let mut work = config.workload().map_err(engine)?;
            let verified = work
                .verify()
                .map_err(|error| Failure::Verification { error })?;
            Ok((work, verified))
        })?;
        Ok(Side {
            work,
            verified,
            per_batch: 1,
            batches: Vec::new(),
            wall_batches: Vec::new(),
        })
    }

    /// Warms up and sizes a batch to about [`BATCH_MS`].
    fn warm_up(&mut self) -> Result<(), Failure> {
        let work = &mut self.work;
        let (ops, took) =
            guarded(|| warm_up(work.as_mut(), Duration::from_millis(WARMUP_MS)).map_err(engine))?;
        self.per_batch = ops_per_batch(
            took.as_nanos() as f64 / ops as f64,
            Duration::from_millis(BATCH_MS),
        );
        Ok(())
    }

    /// Times one batch; returns CPU and wall-clock nanoseconds per operation.
    fn batch(&mut self) -> Result<(f64, f64), Failure> {
        let (work, n) = (&mut self.work, self.per_batch);
        let (cpu, wall) = guarded(|| timed_batch(work.as_mut(), n).map_err(engine))?;
        self.batches.push(cpu);
        self.wall_batches.push(wall);
        Ok((cpu, wall))
    }
}

/// The child: `rounds` interleaved rounds of A and B in this process; writes its [`AbReply`]
/// to the request's `out`.
pub fn worker(req: &AbRounds) -> Result<()> {
    // Engine panics become failures naming the side (see `guarded`), not a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let reply = match measure_sides(req) {
        Ok(p) => AbReply::Measured(p),
        Err((side, failure)) => AbReply::Failed { side, failure },
    };
    write_json(&req.out, &reply)
}

/// Both sides set up, verified, warmed up and timed in `req.rounds` rounds; or the side (`a`
/// or `b`) that failed, and why.
fn measure_sides(req: &AbRounds) -> Result<AbProcess, (char, Failure)> {
    let on = |side: char| move |f: Failure| (side, f);
    let mut side_a = Side::new(&req.a).map_err(on('a'))?;
    let mut side_b = Side::new(&req.b).map_err(on('b'))?;
    side_a.warm_up().map_err(on('a'))?;
    side_b.warm_up().map_err(on('b'))?;
    let (mut pair_ratios, mut wall_pair_ratios) = (Vec::new(), Vec::new());
    for round in 0..req.rounds {
        let (ta, tb) = if round % 2 == 0 {
            let ta = side_a.batch().map_err(on('a'))?;
            (ta, side_b.batch().map_err(on('b'))?)
        } else {
            let tb = side_b.batch().map_err(on('b'))?;
            (side_a.batch().map_err(on('a'))?, tb)
        };
        pair_ratios.push(tb.0 / ta.0);
        wall_pair_ratios.push(tb.1 / ta.1);
    }
    Ok(AbProcess {
        ops_per_batch: [side_a.per_batch, side_b.per_batch],
        pair_ratios,
        wall_pair_ratios,
        batches: [side_a.batches, side_b.batches],
        wall_batches: [side_a.wall_batches, side_b.wall_batches],
        payload_bytes: [side_a.verified.payload_bytes, side_b.verified.payload_bytes],
        shares_references: [
            side_a.verified.shares_references,
            side_b.verified.shares_references,
        ],
    })
}

/// Runs one ab process through the process guard, pinned to `cpu`.
fn run_process(
    exe: &Path,
    a: &ConfigId,
    b: &ConfigId,
    rounds: usize,
    cpu: Option<usize>,
    file: &Path,
) -> Result<AbProcess> {
    let _ = fs::remove_file(file);
    let cmd = Request::Ab(AbRounds {
        a: a.clone(),
        b: b.clone(),
        rounds,
        out: file.to_path_buf(),
    })
    .command(exe);
    let limits = Limits {
        address_space: Settings::defaults().memory_cap_mib * 1024 * 1024,
        cpu,
    };
    let ended = Guarded::spawn(cmd, limits)?
        .wait_capped(Duration::from_secs(Settings::defaults().child_time_cap_s))?;
    if ended.verdict == Verdict::Interrupted {
        anyhow::bail!("interrupted; nothing written");
    }
    let reply: Option<AbReply> = fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let _ = fs::remove_file(file);
    match reply {
        Some(AbReply::Measured(p)) if ended.verdict.success() => Ok(p),
        Some(AbReply::Failed { side, failure }) => {
            let name = if side == 'a' { a } else { b };
            anyhow::bail!("{name}: {failure}")
        }
        _ => anyhow::bail!(
            "an ab process {}{}",
            ended.verdict.describe(),
            ended.stderr.suffix()
        ),
    }
}

/// One side's `result.json`: its batches, one timing process per ab process.
fn side_result(
    config: &Config,
    processes: &[AbProcess],
    side: usize,
    other: &str,
    letter: char,
) -> ConfigResult {
    let mut r = ConfigResult::new(&config.info);
    r.verified = true;
    r.payload_bytes = processes.first().map(|p| p.payload_bytes[side]);
    r.shares_references = processes.first().and_then(|p| p.shares_references[side]);
    let timings: Vec<ProcessTiming> = processes
        .iter()
        .enumerate()
        .filter_map(|(round, p)| {
            let mut t = ProcessTiming::from_batches(
                p.batches[side].clone(),
                &p.wall_batches[side],
                p.ops_per_batch[side],
            )?;
            t.round = round;
            Some(t)
        })
        .collect();
    r.time_ns = TimeStats::from_processes(timings);
    r.warnings.push(format!(
        "timed by serprof ab as side {letter}, interleaved with {other}: time_ns is the thread's CPU time per operation, not wall time; no CPU or allocation recording"
    ));
    r
}

/// What `serprof ab` was asked.
#[derive(Debug, Clone)]
pub struct AbRequest {
    pub a: String,
    pub b: String,
    pub rounds: Option<usize>,
    pub processes: Option<usize>,
    pub cpu: CpuChoice,
    pub out: PathBuf,
    pub json: bool,
}

pub fn run(req: &AbRequest) -> Result<ExitCode> {
    let (a, b) = (req.a.as_str(), req.b.as_str());
    let rounds = req.rounds.unwrap_or(DEFAULT_ROUNDS);
    let processes = req.processes.unwrap_or(DEFAULT_PROCESSES);
    let [side_a_dir, side_b_dir] = layout::AB_SIDES;
    if rounds == 0 {
        misuse!("--rounds must be at least 1");
    }
    if !(1..=1000).contains(&processes) {
        misuse!("--processes {processes}: give between 1 and 1000 processes");
    }
    // Both names are checked before anything runs, so a typo in B costs no time.
    let (config_a, config_b) = (select::one(a)?, select::one(b)?);
    let (ca, cb) = (&config_a.info, &config_b.info);
    for c in [ca, cb] {
        if studies::is_corrupt(&c.study) {
            misuse!(
                "{}: the {} study decodes corrupt inputs and has no timing; ab times round trips and serializations",
                c.name(),
                c.study
            );
        }
    }
    if (&ca.dataset, ca.operation) != (&cb.dataset, cb.operation) {
        misuse!(
            "{a} ({} of {}) and {b} ({} of {}) do different work: give two configurations of one dataset and operation",
            ca.operation.as_str(),
            ca.dataset.as_str(),
            cb.operation.as_str(),
            cb.dataset.as_str()
        );
    }
    interrupt::install();
    let started = SystemTime::now();
    let clock = Instant::now();
    let placed = placement::place(&req.cpu)?;
    let exe = std::env::current_exe().context("cannot find serprof's own executable")?;
    let per_process = rounds.div_ceil(processes).max(1);
    fs::create_dir_all(&req.out).map_err(|e| {
        crate::error::misuse_err(format!(
            "cannot create output folder {}: {e}",
            req.out.display()
        ))
    })?;
    let mut records = Vec::new();
    for p in 0..processes {
        let file = req.out.join(format!(".ab-{}-{p}.json", std::process::id()));
        records.push(run_process(
            &exe,
            &crate::run::plan::config_id(&config_a),
            &crate::run::plan::config_id(&config_b),
            per_process,
            placed.cpu,
            &file,
        )?);
        if p == 0 {
            // After the first process, so that a failing side is the only line printed.
            eprintln!(
                "serprof ab: {processes} processes of {per_process} rounds of {a} (A) and {b} (B), ~{BATCH_MS} ms per batch, {}",
                placed.cpu.map_or("not pinned".to_string(), |c| format!("pinned to CPU {c}"))
            );
        }
        if interrupt::interrupted() {
            anyhow::bail!("interrupted after {p} of {processes} processes; nothing written");
        }
    }
    let seconds = clock.elapsed().as_secs_f64();
    let process_ratios: Vec<f64> = records
        .iter()
        .filter_map(|r| RatioStats::of_pairs(&r.pair_ratios).map(|s| s.ratio))
        .collect();
    let wall_process_ratios: Vec<f64> = records
        .iter()
        .filter_map(|r| RatioStats::of_pairs(&r.wall_pair_ratios).map(|s| s.ratio))
        .collect();
    let across = RatioStats::of_pairs(&process_ratios).context("no finite pair ratio")?;
    let wall = RatioStats::of_pairs(&wall_process_ratios).context("no finite pair ratio")?;
    let pooled = RatioStats::of_pairs(
        &records
            .iter()
            .flat_map(|r| r.pair_ratios.clone())
            .collect::<Vec<_>>(),
    )
    .context("no finite pair ratio")?;
    let record = AbRecord {
        a: a.to_string(),
        b: b.to_string(),
        rounds: per_process * processes,
        batch_ms: BATCH_MS,
        warmup_ms: WARMUP_MS,
        ops_per_batch: records[0].ops_per_batch,
        order: "A first in even rounds (0, 2, ...), B first in odd rounds, in every process".into(),
        clock: "thread CPU time (CLOCK_THREAD_CPUTIME_ID)".into(),
        pair_ratios: records.iter().flat_map(|r| r.pair_ratios.clone()).collect(),
        ratio: across.ratio,
        ci95: across.ci95,
        method: crate::model::stats::RatioMethod::AbProcesses,
        wall_pair_ratios: records
            .iter()
            .flat_map(|r| r.wall_pair_ratios.clone())
            .collect(),
        wall_ratio: wall.ratio,
        wall_ci95: wall.ci95,
        seconds,
        start: utc_rfc3339(started),
        git_rev: crate::model::git_rev().into(),
        machine: Machine::this(),
        processes,
        process_ratios: process_ratios.clone(),
        coverage: across.coverage,
        pooled_ci95: pooled.ci95,
        pinned_cpu: placed.cpu,
    };
    let result_a = side_result(&config_a, &records, 0, b, 'A');
    let result_b = side_result(&config_b, &records, 1, a, 'B');
    let dir = write_folder(&req.out, started, &record, &result_a, &result_b)?;
    let median_of = |r: &ConfigResult| r.time_ns.as_ref().map_or(f64::NAN, |t| t.median);
    let doc = serde_json::json!({
        "ab_dir": dir,
        "a": a,
        "b": b,
        "a_ns": median_of(&result_a),
        "b_ns": median_of(&result_b),
        "ratio": record.ratio,
        "ci95": record.ci95,
        "coverage": record.coverage,
        "within_noise": across.within_noise(),
        "process_ratios": record.process_ratios,
        "pooled_ci95": record.pooled_ci95,
        "method": record.method,
        "clock": record.clock,
        "wall_ratio": record.wall_ratio,
        "wall_ci95": record.wall_ci95,
        "processes": record.processes,
        "rounds": record.rounds,
        "seconds": record.seconds,
    });
    if req.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&record, [&result_a, &result_b]));
    }
    eprintln!("ab folder: {}", dir.display());
    eprintln!(
        "compare it: serprof compare {} {}",
        dir.join(side_a_dir).display(),
        dir.join(side_b_dir).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The human table of an A/B run.
fn render(r: &AbRecord, sides: [&ConfigResult; 2]) -> String {
    let mut s = format!(
        "ab: {} processes x {} rounds in {:.1} s (A/B batches of ~{} ms, alternating order{})\n",
        r.processes,
        r.rounds / r.processes.max(1),
        r.seconds,
        r.batch_ms,
        r.pinned_cpu.map_or(String::new(), |c| format!(", CPU {c}"))
    );
    for (letter, side) in ['A', 'B'].into_iter().zip(sides) {
        let t = side.time_ns.as_ref();
        s.push_str(&format!(
            "  {letter}  {:<34} {:>10} CPU time per op (median of {} process medians)\n",
            side.name(),
            format_ns(t.map_or(f64::NAN, |t| t.median)),
            t.map_or(0, |t| t.processes.len())
        ));
    }
    let within = r.ci95[0] <= 1.0 && 1.0 <= r.ci95[1];
    s.push_str(&format!(
        "  B/A  {:.4}  95% CI [{:.4}, {:.4}] ({:.1}% coverage, across processes)  ({:+.2}%){}\n  process ratios: {}\n  pooled pairs' interval (too narrow: one process's pairs are not independent of each other's layout): [{:.4}, {:.4}]\n  wall-clock B/A {:.4} [{:.4}, {:.4}] (includes waiting for a core)\n  method: {}; clock: {}\n",
        r.ratio,
        r.ci95[0],
        r.ci95[1],
        100.0 * r.coverage,
        100.0 * (r.ratio - 1.0),
        if within { "  within noise" } else { "" },
        r.process_ratios.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>().join(" "),
        r.pooled_ci95[0],
        r.pooled_ci95[1],
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
    let [side_a, side_b] = layout::AB_SIDES;
    let written = write_json(&tmp.join(side_a).join(layout::RESULT_JSON), a)
        .and_then(|()| write_json(&tmp.join(side_b).join(layout::RESULT_JSON), b))
        .and_then(|()| write_json(&tmp.join(layout::AB_JSON), record));
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let dir = match layout::reserve_run_name(out, started, "-ab") {
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
