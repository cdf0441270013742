//! `serprof ab`'s measurement: lock-step A/B timing of two configurations of one binary, for
//! changes of a few percent on a noisy 2-core machine. `commands::ab` reads the arguments and
//! prints what [`measure`] hands back.
//!
//! Both configurations are verified (a failing one is an exit-1 error naming it), then timed in
//! one lock-step schedule ([`crate::run::lockstep`]): P timing children one after another, each
//! holding both, pinned to one CPU, running a sample of a few ms of A and of B in turn (A first
//! in even rounds, B first in odd ones). Each child's ratio B/A is the ratio of its
//! state-adjusted medians; the figure is the median of the P child ratios, and its 95% interval
//! is the order-statistics interval of those P values ([min, max] for 6 children, 96.9%
//! coverage), not of the pooled samples: two processes of one binary differ (heap and code
//! layout), which no within-process figure can see.
//!
//! The clock is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): on a 2-core machine shared
//! with builds, a sample's wall time mostly varies with how long the thread waited for a core.
//! Wall-time figures are kept beside it in `ab.json`.
//!
//! The ab folder, `<out>/<UTC time>-<git rev>-ab/`, holds:
//! - `ab.json`: both names, the settings, every round's B/A pair ratio, each child's ratio, the
//!   median ratio and interval, the schedule;
//! - `A/result.json`, `B/result.json`: each side's `ConfigResult`, its `time_ns` from the
//!   lock-step children (no CPU or allocation recordings),
//!
//! so that `serprof compare <ab>/A <ab>/B` works and gives the same lock-step ratio. The folder
//! is written under a hidden temporary name and renamed when complete, so an interrupted `ab`
//! leaves nothing that looks finished.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};

use super::executor::{ChildProcesses, Executor};
use super::lane::LaneKind;
use super::placement::CpuChoice;
use super::plan as select;
use super::session::{Opening, Session};
use super::timing::TimedLane;
use super::Unit;
use crate::layout::{self, utc_rfc3339, write_json};
use crate::misuse;
use crate::model::ab::AbRecord;
use crate::model::stats::{RatioMethod, RatioStats};
use crate::model::{ConfigResult, Machine, Program, Settings, TimeStats};
use crate::process::interrupt;

/// The default `--processes`: [min, max] of 6 child ratios is a 96.9% interval for their
/// median.
pub(crate) const DEFAULT_PROCESSES: usize = 6;
/// Measured time per child when `--rounds` is not given, in ms: a child runs as many rounds
/// as fill it.
pub(crate) const CHILD_MS: u64 = 2000;

/// What `serprof ab` measures.
#[derive(Debug, Clone)]
pub(crate) struct AbRequest {
    pub a: String,
    pub b: String,
    pub rounds: Option<usize>,
    pub processes: usize,
    pub cpu: CpuChoice,
    pub out: PathBuf,
}

/// What an A/B run measured, as written into its folder.
#[derive(Debug)]
pub(crate) struct AbOutcome {
    /// The finished folder.
    pub dir: PathBuf,
    pub record: AbRecord,
    /// Side A's and side B's results.
    pub a: ConfigResult,
    pub b: ConfigResult,
    /// The interval holds 1.
    pub within_noise: bool,
}

/// Verifies both configurations (a failing one is an error naming it), times them in one
/// lock-step schedule and writes the ab folder.
pub(crate) fn measure(program: &Program, req: &AbRequest) -> Result<AbOutcome> {
    let (a, b) = (req.a.as_str(), req.b.as_str());
    let processes = req.processes;
    let [side_a_dir, side_b_dir] = layout::AB_SIDES;
    if req.rounds == Some(0) {
        misuse!("--rounds must be at least 1");
    }
    if !(1..=1000).contains(&processes) {
        misuse!("--processes {processes}: give between 1 and 1000 processes");
    }
    // Both names are checked before anything runs, so a typo in B costs no time.
    let (config_a, config_b) = (select::one(program, a)?, select::one(program, b)?);
    let (ca, cb) = (config_a.info(), config_b.info());
    for c in [ca, cb] {
        if program.is_corrupt(&c.study) {
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
    let started = SystemTime::now();
    let clock = Instant::now();
    let exec = ChildProcesses::this(program)?;
    let mut settings = Settings::defaults();
    settings.processes = processes;
    settings.seed = 0;
    settings.studies = program.stamp();
    match req.rounds {
        Some(rounds) => {
            settings.rounds = rounds.div_ceil(processes).max(1);
            settings.child_ms = 0;
        }
        None => settings.child_ms = CHILD_MS,
    }
    fs::create_dir_all(&req.out).map_err(|e| {
        crate::error::misuse_err(format!(
            "cannot create output folder {}: {e}",
            req.out.display()
        ))
    })?;
    // The machine is this run's from the CPU probe that places its children to its last
    // sample.
    let opening = Opening {
        exec: &exec,
        cpu: Some(&req.cpu),
        settings,
        quiet: false,
        units: None,
    };
    let mut session = Session::open(program, opening)?;
    let tmp = req.out.join(format!(".ab-{}.partial", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    let lane = TimedLane {
        kind: LaneKind::This,
        layouts: Vec::new(),
        units: [(&config_a, side_a_dir), (&config_b, side_b_dir)]
            .map(|(config, dir)| Unit {
                exec: &exec as &dyn Executor,
                config,
                dir: tmp.join(dir),
                label: format!("{dir} {}", config.name()),
            })
            .into(),
    };
    let pinned = session.pinned_cpu();
    eprintln!(
        "serprof ab: {processes} lock-step children of {a} (A) and {b} (B), samples of ~{} ms, {}",
        session.settings.sample_ms,
        pinned.map_or("not pinned".to_string(), |c| format!("pinned to CPU {c}"))
    );
    let mut timings = session.time(&[lane], None);
    let settings = session.settings.clone();
    let ended = session.end();
    let (mut results, schedule, machine_lock) = (
        timings.take(LaneKind::This),
        ended.schedules.into_iter().next(),
        ended.machine_lock,
    );
    if interrupt::interrupted() {
        let _ = fs::remove_dir_all(&tmp);
        anyhow::bail!("interrupted; nothing written");
    }
    for (result, name) in results.iter().zip([a, b]) {
        if let Some(failure) = &result.error {
            let _ = fs::remove_dir_all(&tmp);
            anyhow::bail!("{name}: {failure}");
        }
    }
    let schedule = schedule.context("nothing was timed")?;
    let (ta, tb) = match results.as_slice() {
        [ra, rb] => match (&ra.time_ns, &rb.time_ns) {
            (Some(ta), Some(tb)) => (ta.clone(), tb.clone()),
            _ => anyhow::bail!("a side has no timing"),
        },
        _ => anyhow::bail!("ab timed other than two configurations"),
    };
    let across = RatioStats::by_round(&tb, &ta).context("no finite ratio")?;
    let process_ratios = child_ratios(&ta, &tb, |p| p.median);
    let wall_ratios = child_ratios(&ta, &tb, |p| p.wall_median);
    let wall = RatioStats::of_pairs(&wall_ratios).context("no finite wall-time ratio")?;
    let pair_ratios = round_ratios(&ta, &tb);
    let pooled = RatioStats::of_pairs(&pair_ratios).context("no finite pair ratio")?;
    let record = AbRecord {
        a: a.to_string(),
        b: b.to_string(),
        rounds: schedule.rounds * schedule.children,
        batch_ms: settings.sample_ms,
        warmup_ms: settings.calibrate_ms,
        ops_per_batch: [schedule.ops[0][0], schedule.ops[0][1]],
        order:
            "lock-step: A first in even rounds (0, 2, ...), B first in odd rounds, in every child"
                .into(),
        clock: "thread CPU time (CLOCK_THREAD_CPUTIME_ID)".into(),
        pair_ratios,
        ratio: across.ratio,
        ci95: across.ci95,
        method: RatioMethod::LockStep,
        wall_pair_ratios: wall_ratios,
        wall_ratio: wall.ratio,
        wall_ci95: wall.ci95,
        seconds: clock.elapsed().as_secs_f64(),
        start: utc_rfc3339(started),
        git_rev: program.git_rev().into(),
        machine: Machine::this(),
        processes,
        process_ratios,
        coverage: across.coverage,
        pooled_ci95: pooled.ci95,
        pinned_cpu: pinned,
        schedule: Some(schedule),
        machine_lock,
    };
    for (result, (letter, other)) in results.iter_mut().zip([('A', b), ('B', a)]) {
        result.warnings.push(format!(
            "timed by serprof ab as side {letter}, in lock-step with {other}: time_ns is the thread's CPU time per operation, not wall time; no CPU or allocation recording"
        ));
    }
    let dir = write_folder(&req.out, &tmp, started, &record, &results)?;
    let within_noise = across.within_noise();
    let mut results = results.into_iter();
    let (Some(a), Some(b)) = (results.next(), results.next()) else {
        anyhow::bail!("ab timed other than two configurations");
    };
    Ok(AbOutcome {
        dir,
        record,
        a,
        b,
        within_noise,
    })
}

/// Per child (paired by its round number), `figure(B) / figure(A)`.
fn child_ratios(
    a: &TimeStats,
    b: &TimeStats,
    figure: fn(&crate::model::stats::ProcessTiming) -> f64,
) -> Vec<f64> {
    a.processes
        .iter()
        .filter_map(|pa| {
            let pb = b.processes.iter().find(|p| p.round == pa.round)?;
            Some(figure(pb) / figure(pa))
        })
        .collect()
}

/// B/A of every round of every child: a child runs one sample of each side per round, so the
/// r-th samples of both are round r's.
fn round_ratios(a: &TimeStats, b: &TimeStats) -> Vec<f64> {
    a.processes
        .iter()
        .filter_map(|pa| {
            b.processes
                .iter()
                .find(|p| p.round == pa.round)
                .map(|pb| (pa, pb))
        })
        .flat_map(|(pa, pb)| {
            pa.batches
                .iter()
                .zip(&pb.batches)
                .map(|(x, y)| y / x)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Writes the results and `ab.json` into the hidden folder `tmp`, then renames it to
/// `<stamp>-<rev>-ab` (with `-2`, `-3` ... when taken). The final name is reserved by creating
/// it empty first; renaming a folder onto an empty folder replaces it atomically on Linux.
fn write_folder(
    out: &Path,
    tmp: &Path,
    started: SystemTime,
    record: &AbRecord,
    results: &[ConfigResult],
) -> Result<PathBuf> {
    let written = layout::AB_SIDES
        .iter()
        .zip(results)
        .try_for_each(|(side, r)| write_json(&tmp.join(side).join(layout::RESULT_JSON), r))
        .and_then(|()| write_json(&tmp.join(layout::AB_JSON), record));
    if let Err(e) = written {
        let _ = fs::remove_dir_all(tmp);
        return Err(e);
    }
    let dir = match layout::reserve_run_name(out, started, &record.git_rev, "-ab") {
        Ok(dir) => dir,
        Err(e) => {
            let _ = fs::remove_dir_all(tmp);
            return Err(e);
        }
    };
    fs::rename(tmp, &dir)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), dir.display()))?;
    Ok(dir)
}
