//! The run layer: `serprof run`, the parent. It plans the run ([`plan`]: the selection, or
//! what a resumed folder lacks), has each recording of each configuration made by an
//! [`executor::Executor`] (worker children), merges their figures into `result.json` (written as
//! soon as a configuration finishes, so a later failure or Ctrl-C loses nothing), compares each
//! study's before/after steps ([`compare`]) and writes the report.

pub mod before_after;
pub mod compare;
pub mod corrupt;
pub mod executor;
pub mod instructions;
pub mod placement;
pub mod plan;
pub mod progress;
pub mod sides;

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use serprof_engines::studies::{self, Config, StudyKind};

use crate::analyze::folded::Folded;
use crate::analyze::hotspots;
use crate::layout::{self, config_dir, read_json, utc_rfc3339, write_json};
use crate::misuse;
use crate::model::manifest::Session;
use crate::model::stats::{ProcessTiming, SplitMix64};
use crate::model::{
    ConfigId, ConfigResult, EngineVersion, Machine, RunManifest, Settings, TimeStats,
    BUFFER_POLICY, GIT_REV, RUSTC,
};
use crate::model::{Failed, Failure, Recording};
use crate::process::interrupt;
use crate::protocol::WorkerReport;
use executor::{Executor, Outcome};

/// What `serprof run` was asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub studies: Vec<String>,
    pub configs: Vec<String>,
    pub out: PathBuf,
    pub settings: Settings,
    /// Where the timing and CPU children run (a resumed run keeps its own).
    pub cpu: placement::CpuChoice,
    /// Finish this run folder instead of starting a new one.
    pub resume: Option<PathBuf>,
    /// With `resume`: a new child time cap / memory cap given on the command line (the run's
    /// measurement settings are otherwise its own).
    pub resume_child_timeout: Option<u64>,
    pub resume_memory_cap: Option<u64>,
    pub quiet: bool,
}

/// What a finished run hands back for printing.
#[derive(Debug)]
pub struct RunOutcome {
    pub run_dir: PathBuf,
    pub manifest: RunManifest,
    pub results: Vec<ConfigResult>,
}

fn engine_versions(configs: &[Config]) -> Vec<EngineVersion> {
    let set: BTreeSet<(String, String)> = configs
        .iter()
        .map(|c| (c.info.engine.clone(), c.info.engine_version.clone()))
        .collect();
    set.into_iter()
        .map(|(engine, version)| EngineVersion { engine, version })
        .collect()
}

/// Runs the request with worker children of this binary. Configuration failures are recorded,
/// not returned as errors.
pub fn run(req: &RunRequest) -> Result<RunOutcome> {
    run_with(req, &executor::ChildProcesses::this()?)
}

/// Runs the request, every recording made by `exec`.
pub fn run_with(req: &RunRequest, exec: &dyn Executor) -> Result<RunOutcome> {
    if req.resume.is_none() && req.settings.instructions {
        // Before any folder is made: a missing valgrind is a one-line misuse, nothing left.
        executor::valgrind_version()?;
    }
    interrupt::install();
    // The corpus study's documents: those of the resumed run (checked against their recorded
    // hashes) or those of the request; registered, they make the study's configurations.
    let corpus = match &req.resume {
        Some(dir) => {
            if !dir.is_dir() {
                misuse!("--resume {}: not a folder", dir.display());
            }
            let manifest: RunManifest = read_json(&dir.join(layout::RUN_JSON))?;
            if let Err(e) = studies::corpus::recheck(&manifest.settings.corpus) {
                misuse!("--resume {}: {e}", dir.display());
            }
            manifest.settings.corpus
        }
        None => req.settings.corpus.clone(),
    };
    studies::corpus::register(corpus);
    let (run_dir, mut manifest, configs) = match &req.resume {
        Some(dir) => {
            let (run_dir, mut manifest, configs) = resume(dir)?;
            // The measurement settings are the run's own (results stay comparable); only the
            // guards may be changed for the rest of the run.
            if let Some(t) = req.resume_child_timeout {
                manifest.settings.child_time_cap_s = t;
            }
            if let Some(m) = req.resume_memory_cap {
                manifest.settings.memory_cap_mib = m;
            }
            (run_dir, manifest, configs)
        }
        None => {
            let configs = plan::select(&req.studies, &req.configs)?;
            if configs.is_empty() {
                misuse!("the selection holds no configuration");
            }
            if req.studies.is_empty() && !req.quiet {
                eprintln!("serprof: {}", corpus_note(req.settings.corpus.len()));
            }
            let run_dir = layout::create_run_dir(&req.out)?;
            let mut settings = req.settings.clone();
            if settings.seed == 0 {
                settings.seed = placement::clock_seed();
            }
            let placed = placement::place(&req.cpu)?;
            settings.pin_cpu = placed.cpu;
            let manifest = new_manifest(&configs, settings, placed);
            (run_dir, manifest, configs)
        }
    };
    write_json(&run_dir.join(layout::RUN_JSON), &manifest)?;
    tracing::info!(run_dir = %run_dir.display(), configs = configs.len(), "run started");

    let show_bars = !req.quiet && std::io::stderr().is_terminal();
    let progress = progress::Progress::new(configs.len() as u64, show_bars, req.quiet);
    let session_start = utc_rfc3339(SystemTime::now());
    let settings = manifest.settings.clone();
    // The instructions recording needs valgrind: a one-line misuse error before anything runs.
    let valgrind = if settings.instructions {
        Some(executor::valgrind_version()?)
    } else {
        None
    };

    // Configurations a resumed run already finished are kept as they are.
    let mut results: Vec<Option<ConfigResult>> = Vec::new();
    let mut kept = Vec::new();
    for config in &configs {
        let dir = config_dir(&run_dir, &config.info.study, &config.info.config);
        let done = finished_result(&dir);
        if done.is_some() {
            progress.skip(&config.info.name());
            kept.push(config_id(config));
        }
        results.push(done);
    }
    let pending: Vec<usize> = (0..configs.len())
        .filter(|&i| results[i].is_none())
        .collect();
    let is_corrupt =
        |c: &Config| studies::find_info(&c.info.study).map(|s| s.kind) == Some(StudyKind::Corrupt);
    let timed: Vec<usize> = pending
        .iter()
        .copied()
        .filter(|&i| !is_corrupt(&configs[i]))
        .collect();

    // Timing: rounds of one process per configuration, in a shuffled order per round.
    let timed_configs: Vec<&Config> = timed.iter().map(|&i| &configs[i]).collect();
    let mut timings = time_in_rounds(exec, &timed_configs, &run_dir, &settings, &progress);

    // Then each configuration's profiles, and its result.json as soon as it is complete.
    for (k, &i) in timed.iter().enumerate() {
        if interrupt::interrupted() {
            break;
        }
        let config = &configs[i];
        let dir = config_dir(&run_dir, &config.info.study, &config.info.config);
        let _span = tracing::info_span!("config", name = %config.info.name()).entered();
        let mut result = std::mem::replace(&mut timings[k], ConfigResult::new(&config.info));
        if result.error.is_none() {
            let settings = budgeted(&settings, config);
            profile_config(exec, config, &dir, &settings, &progress, &mut result);
        }
        if let (None, Some(version)) = (&result.error, &valgrind) {
            progress.recording(&config.info.name(), "instructions (callgrind)");
            match instructions::record(exec, config, &dir, &settings, version) {
                Ok(stats) => result.instructions = Some(stats),
                Err(why) => result.error = Some(why),
            }
        }
        if interrupt::interrupted() {
            // The recording in flight was cut short: its configuration is not finished.
            break;
        }
        write_json(&dir.join(layout::RESULT_JSON), &result)?;
        progress.finish_config(&result);
        results[i] = Some(result);
    }
    for &i in pending.iter().filter(|&&i| is_corrupt(&configs[i])) {
        if interrupt::interrupted() {
            break;
        }
        let config = &configs[i];
        let dir = config_dir(&run_dir, &config.info.study, &config.info.config);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let result = corrupt::measure_config(exec, config, &dir, &settings, &progress);
        if interrupt::interrupted() {
            break;
        }
        write_json(&dir.join(layout::RESULT_JSON), &result)?;
        progress.finish_config(&result);
        results[i] = Some(result);
    }
    manifest.sessions.push(Session {
        start: session_start,
        end: utc_rfc3339(SystemTime::now()),
        git_rev: GIT_REV.into(),
        kept,
        measured: pending
            .iter()
            .filter(|&&i| results[i].is_some())
            .map(|&i| config_id(&configs[i]))
            .collect(),
    });
    let results: Vec<ConfigResult> = results.into_iter().flatten().collect();
    progress.done();

    let finished = results.len() == configs.len() && !interrupt::interrupted();
    record_outcomes(&mut manifest, &results.iter().collect::<Vec<_>>());
    manifest.end = Some(utc_rfc3339(SystemTime::now()));
    manifest.complete = finished;
    write_json(&run_dir.join(layout::RUN_JSON), &manifest)?;
    compare_steps(&run_dir, &results);
    {
        let _span = tracing::info_span!("render").entered();
        if let Err(e) = crate::render::report::write(&run_dir) {
            tracing::warn!(
                "could not write report.html: {}",
                crate::error::one_line(&e)
            );
        }
    }
    if finished {
        let out = run_dir.parent().unwrap_or(Path::new("."));
        layout::update_latest(out, &run_dir)?;
    }
    Ok(RunOutcome {
        run_dir,
        manifest,
        results,
    })
}

/// A manifest's list of failed configurations and of warnings, from their results.
pub fn record_outcomes(manifest: &mut RunManifest, results: &[&ConfigResult]) {
    manifest.failed = results
        .iter()
        .filter_map(|r| {
            r.error.as_ref().map(|failure| Failed {
                config: r.id(),
                failure: failure.clone(),
            })
        })
        .collect();
    manifest.warnings = results
        .iter()
        .flat_map(|r| r.warnings.iter().map(move |w| format!("{}: {w}", r.name())))
        .collect();
}

/// The manifest of a new run of `configs`, as this binary writes it (a before/after side
/// overwrites the revision with its own).
pub fn new_manifest(
    configs: &[Config],
    settings: Settings,
    placed: crate::model::manifest::Placement,
) -> RunManifest {
    RunManifest {
        serprof_version: env!("CARGO_PKG_VERSION").into(),
        git_rev: GIT_REV.into(),
        rustc: RUSTC.into(),
        engines: engine_versions(configs),
        machine: Machine::this(),
        settings,
        buffer_policy: BUFFER_POLICY.into(),
        unwinder: crate::measure::cpu::UNWINDER.into(),
        command: std::env::args().collect(),
        configs: configs.iter().map(config_id).collect(),
        start: utc_rfc3339(SystemTime::now()),
        end: None,
        complete: false,
        failed: Vec::new(),
        warnings: Vec::new(),
        sessions: Vec::new(),
        placement: Some(placed),
        health: Some(placement::health()),
    }
}

/// Compares each before/after step of the studies in this run with the step before it
/// (`json-decimal` -> `json-base64-twopass` -> `json-base64-table`), writing `compare.json`,
/// `diff.svg` and `diff-reverse.svg` under `<run>/compare/`. A step that failed or has no
/// profile is skipped; a comparison that cannot be made is logged, never fatal.
fn compare_steps(run_dir: &Path, results: &[ConfigResult]) {
    let _span = tracing::info_span!("compare_steps").entered();
    let mut studies_seen: Vec<&str> = Vec::new();
    for r in results {
        if !studies_seen.contains(&r.study.as_str()) {
            studies_seen.push(&r.study);
        }
    }
    for study in studies_seen {
        let steps = studies::find_info(study)
            .map(|s| s.steps)
            .unwrap_or_default();
        let measured: Vec<&String> = steps
            .iter()
            .filter(|step| {
                results.iter().any(|r| {
                    r.study == study && &r.config == *step && r.error.is_none() && r.cpu.is_some()
                })
            })
            .collect();
        for pair in measured.windows(2) {
            let before = config_dir(run_dir, study, pair[0]);
            let after = config_dir(run_dir, study, pair[1]);
            if let Err(e) = compare::compare_config_dirs(&before, &after) {
                tracing::warn!(
                    "cannot compare {study}/{} with {study}/{}: {}",
                    pair[0],
                    pair[1],
                    crate::error::one_line(&e)
                );
            }
        }
    }
}

/// A configuration folder's finished result, if it has one (for `--resume`).
fn finished_result(dir: &Path) -> Option<ConfigResult> {
    let bytes = std::fs::read(dir.join(layout::RESULT_JSON)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Reopens an interrupted run: its manifest, settings and selection.
fn resume(dir: &Path) -> Result<(PathBuf, RunManifest, Vec<Config>)> {
    if !dir.is_dir() {
        misuse!("--resume {}: not a folder", dir.display());
    }
    let manifest: RunManifest = read_json(&dir.join(layout::RUN_JSON))?;
    let mut configs = Vec::new();
    for name in &manifest.configs {
        match studies::find(&name.to_string()) {
            Some(c) => configs.push(c),
            None => misuse!(
                "--resume {}: configuration {name} no longer exists",
                dir.display()
            ),
        }
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    Ok((dir, manifest, configs))
}

/// The id of a configuration.
pub fn config_id(config: &Config) -> ConfigId {
    ConfigId::new(&config.info.study, &config.info.config)
}

/// The timing phase: `settings.processes` rounds; round r runs the r-th timing process of every
/// configuration still standing, in the order [`schedule`] gives (shuffled per round from
/// `settings.seed`), so that drift of the machine over minutes hits every configuration alike
/// and each round's processes make pairs for ratios. A configuration whose process fails
/// (verification, a crash, a hang) is not timed again; its result carries the reason.
/// Returns one result per configuration, with `time_ns` across its processes.
pub fn time_in_rounds(
    exec: &dyn Executor,
    configs: &[&Config],
    run_dir: &Path,
    settings: &Settings,
    progress: &progress::Progress,
) -> Vec<ConfigResult> {
    let units: Vec<Unit> = configs
        .iter()
        .map(|&config| Unit {
            exec,
            config,
            dir: config_dir(run_dir, &config.info.study, &config.info.config),
            label: config.info.name(),
        })
        .collect();
    let rounds = schedule(configs.len(), settings.processes.max(1), settings.seed);
    time_units(&units, &rounds, settings, progress)
}

/// One thing to time: a configuration as one executor's children run it, into one folder.
pub struct Unit<'a> {
    pub exec: &'a dyn Executor,
    pub config: &'a Config,
    pub dir: PathBuf,
    /// How progress names it.
    pub label: String,
}

/// Times `units` in the given rounds: `rounds[r]` is the order of round r (indexes into
/// `units`), and every process it runs is recorded with round r, which is what pairs processes
/// for ratios. A unit whose process fails is not timed again.
pub fn time_units(
    units: &[Unit],
    rounds: &[Vec<usize>],
    settings: &Settings,
    progress: &progress::Progress,
) -> Vec<ConfigResult> {
    let mut results: Vec<ConfigResult> = units
        .iter()
        .map(|u| ConfigResult::new(&u.config.info))
        .collect();
    let mut processes: Vec<Vec<ProcessTiming>> = vec![Vec::new(); units.len()];
    // A study's budget may give its configurations fewer rounds.
    let own_rounds: Vec<usize> = units
        .iter()
        .map(|u| {
            budgeted(settings, u.config)
                .processes
                .max(1)
                .min(rounds.len())
        })
        .collect();
    // Each configuration is verified once, in a child of its own, before any of its timing
    // processes: one that fails verification is not timed.
    for (unit, result) in units.iter().zip(results.iter_mut()) {
        if interrupt::interrupted() {
            return results;
        }
        verify_unit(unit, settings, progress, result);
    }
    for (round, order) in rounds.iter().enumerate() {
        for &i in order {
            if interrupt::interrupted() {
                return results;
            }
            let result = &mut results[i];
            if result.error.is_some() || round >= own_rounds[i] {
                continue;
            }
            let unit = &units[i];
            progress.recording(
                &unit.label,
                &format!("timing process {}/{}", round + 1, own_rounds[i]),
            );
            match record_unit(unit, Recording::Timing, settings) {
                Ok(r) => {
                    result.error = r.error;
                    match r.timing {
                        Some(mut p) => {
                            p.round = round;
                            processes[i].push(p);
                        }
                        None if result.error.is_none() => {
                            result.error = Some(Failure::Silent {
                                recording: Recording::Timing,
                            })
                        }
                        None => {}
                    }
                }
                Err(why) => result.error = Some(why),
            }
        }
    }
    for (result, p) in results.iter_mut().zip(processes) {
        if result.error.is_none() {
            result.time_ns = TimeStats::from_processes(p);
        }
    }
    results
}

/// The verification child of `unit`: its verdict, payload size and findings go into `result`.
fn verify_unit(
    unit: &Unit,
    settings: &Settings,
    progress: &progress::Progress,
    result: &mut ConfigResult,
) {
    progress.recording(&unit.label, "verify");
    match record_unit(unit, Recording::Verify, settings) {
        Ok(r) => {
            result.verified = r.verified;
            result.payload_bytes = r.payload_bytes;
            result.shares_references = r.shares_references;
            result.findings = r.findings;
            result.error = r.error;
            if result.error.is_none() && !result.verified {
                result.error = Some(Failure::Silent {
                    recording: Recording::Verify,
                });
            }
        }
        Err(why) => result.error = Some(why),
    }
}

/// One recording of `unit` in its folder: the worker's report, or why there is none (the
/// folder cannot be made, the child crashed, it could not be started).
fn record_unit(
    unit: &Unit,
    recording: Recording,
    settings: &Settings,
) -> std::result::Result<WorkerReport, Failure> {
    std::fs::create_dir_all(&unit.dir)
        .map_err(|e| Failure::harness(format_args!("cannot create {}: {e}", unit.dir.display())))?;
    match unit
        .exec
        .record(&config_id(unit.config), recording, &unit.dir, settings)
    {
        Ok(Outcome::Reported(report)) => Ok(*report),
        Ok(Outcome::Crashed(why)) => Err(why),
        Err(e) => Err(Failure::of(e)),
    }
}

/// The one line `serprof run` without `--study` says about the corpus study.
pub fn corpus_note(documents: usize) -> String {
    let study = studies::corpus::name();
    if documents == 0 {
        format!("the {study} study is left out: give --corpus PATH to include it")
    } else {
        format!("the {study} study is included: {documents} document(s) from --corpus")
    }
}

/// The settings of one configuration: the run's, within its study's budget (fewer timing
/// processes, CPU samples and overhead pairs for a study of many configurations).
pub fn budgeted(settings: &Settings, config: &Config) -> Settings {
    let Some(b) = studies::find_info(&config.info.study).and_then(|s| s.budget) else {
        return settings.clone();
    };
    let (processes, cpu_samples, overhead_pairs) = if settings.quick {
        (
            b.quick_processes,
            b.quick_cpu_samples,
            b.quick_overhead_pairs,
        )
    } else {
        (b.processes, b.cpu_samples, b.overhead_pairs)
    };
    Settings {
        processes: settings.processes.min(processes),
        cpu_samples: settings.cpu_samples.min(cpu_samples),
        overhead_pairs: settings.overhead_pairs.min(overhead_pairs),
        ..settings.clone()
    }
}

/// The order of each round: round r is a permutation of `0..n`, shuffled (Fisher-Yates) by a
/// generator seeded from `seed` and r, so a run's schedule is reproducible from its manifest.
pub fn schedule(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    (0..rounds)
        .map(|r| {
            let mut rng = SplitMix64(seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i + 1));
            }
            order
        })
        .collect()
}

/// The rounds of a before/after comparison of `n` configurations: units `2i` (before) and
/// `2i + 1` (after) are configuration i's two sides. Each round visits the configurations in
/// [`schedule`]'s shuffled order, and runs a configuration's two sides back to back, before
/// first in even rounds and after first in odd ones (A B, B A, A B, ...), so that neither side
/// always runs second (warmer caches, a drift of the clock within the round).
pub fn alternating_pairs(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    schedule(n, rounds, seed)
        .into_iter()
        .enumerate()
        .map(|(r, order)| {
            order
                .into_iter()
                .flat_map(|i| {
                    if r % 2 == 0 {
                        [2 * i, 2 * i + 1]
                    } else {
                        [2 * i + 1, 2 * i]
                    }
                })
                .collect()
        })
        .collect()
}

/// The CPU and allocation recordings of one timed configuration, merged into `result`.
pub fn profile_config(
    exec: &dyn Executor,
    config: &Config,
    dir: &Path,
    settings: &Settings,
    progress: &progress::Progress,
    result: &mut ConfigResult,
) {
    let name = config.info.name();
    let id = config_id(config);
    if settings.cpu {
        progress.recording(&name, &format!("cpu ({} samples)", settings.cpu_samples));
        match exec.record(&id, Recording::Cpu, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => {
                if let Some(cpu) = r.cpu {
                    let quick = if settings.quick { " (quick run)" } else { "" };
                    if cpu.effective_hz < 0.8 * cpu.requested_hz {
                        result.warnings.push(format!(
                            "effective sampling rate {:.0} Hz is below 80% of the requested {:.0} Hz{quick}",
                            cpu.effective_hz, cpu.requested_hz
                        ));
                    }
                    if cpu.samples < 500 {
                        result.warnings.push(format!(
                            "only {} CPU samples{quick}: shares are rough",
                            cpu.samples
                        ));
                    }
                    result.cpu = Some(cpu);
                    result.profile = summarize_profile(config, dir);
                }
            }
            Ok(Outcome::Reported(r)) => result.error = r.error,
            Ok(Outcome::Crashed(why)) => result.error = Some(why),
            Err(e) => result.error = Some(Failure::of(e)),
        }
        if result.error.is_some() || interrupt::interrupted() {
            return;
        }
    }

    if settings.alloc {
        progress.recording(&name, "alloc");
        match exec.record(&id, Recording::Alloc, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => result.alloc = r.alloc,
            Ok(Outcome::Reported(r)) => result.error = r.error,
            Ok(Outcome::Crashed(why)) => result.error = Some(why),
            Err(e) => result.error = Some(Failure::of(e)),
        }
    }
}

/// The profile summary of a configuration from its `cpu.folded`.
fn summarize_profile(config: &Config, dir: &Path) -> Option<crate::model::ProfileSummary> {
    let text = std::fs::read_to_string(dir.join(layout::CPU_FOLDED)).ok()?;
    let folded = Folded::parse(&text).ok()?;
    let question = studies::find_info(&config.info.study).and_then(|s| s.question);
    Some(hotspots::summarize(
        &folded,
        &config.info.config,
        config.info.engine_frames.regex(),
        question.as_ref().map(|q| q.frames.regex()),
    ))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::model::Verdict;
    use crate::protocol::WorkerReport;
    use serprof_engines::verify::VerifyError;

    /// A stand-in for worker children: canned reports, one configuration crashes, and every
    /// call is remembered.
    struct Canned {
        calls: RefCell<Vec<(String, Recording)>>,
        /// Its timing children crash.
        crash: &'static str,
        /// It fails verification.
        unverified: &'static str,
    }

    impl Executor for Canned {
        fn record(
            &self,
            config: &ConfigId,
            recording: Recording,
            _dir: &Path,
            _settings: &Settings,
        ) -> Result<Outcome> {
            self.calls
                .borrow_mut()
                .push((config.to_string(), recording));
            if config.to_string() == self.crash && recording == Recording::Timing {
                return Ok(Outcome::Crashed(Failure::Child {
                    recording,
                    verdict: Verdict::Signal { signal: 11 },
                    stderr: Vec::new(),
                    memory_cap_mib: 0,
                }));
            }
            if recording == Recording::Verify && config.to_string() == self.unverified {
                return Ok(Outcome::Reported(Box::new(WorkerReport {
                    error: Some(Failure::Verification {
                        error: VerifyError::Differs {
                            index: 3,
                            difference: "id".into(),
                        },
                    }),
                    ..WorkerReport::default()
                })));
            }
            if recording == Recording::Verify {
                return Ok(Outcome::Reported(Box::new(WorkerReport {
                    verified: true,
                    payload_bytes: Some(7.0),
                    ..WorkerReport::default()
                })));
            }
            // Each process of a configuration reads 10 ns more than the one before.
            let n = self
                .calls
                .borrow()
                .iter()
                .filter(|c| c.0 == config.to_string() && c.1 == Recording::Timing)
                .count();
            let ns = 100.0 + 10.0 * (n - 1) as f64;
            Ok(Outcome::Reported(Box::new(WorkerReport {
                timing: ProcessTiming::from_batches(vec![ns; 4], &[ns; 4], 10),
                ..WorkerReport::default()
            })))
        }

        fn exe(&self) -> Result<PathBuf> {
            anyhow::bail!("this test starts no process")
        }
    }

    fn request(out: &Path) -> RunRequest {
        let mut settings = Settings::quick();
        settings.processes = 3;
        settings.cpu = false;
        settings.alloc = false;
        RunRequest {
            studies: Vec::new(),
            configs: vec!["formats/postcard".into(), "formats/bincode".into()],
            out: out.to_path_buf(),
            settings,
            cpu: placement::CpuChoice::None,
            resume: None,
            resume_child_timeout: None,
            resume_memory_cap: None,
            quiet: true,
        }
    }

    #[test]
    fn the_runner_merges_reports_keeps_failures_apart_and_resumes_without_rerunning() {
        let out = tempfile::tempdir().unwrap();
        let exec = Canned {
            calls: RefCell::new(Vec::new()),
            crash: "formats/bincode",
            unverified: "",
        };
        let done = run_with(&request(out.path()), &exec).unwrap();
        // Each is verified once, before its timing; bincode crashes in round 0 and is not
        // timed again; postcard gets its 3 processes.
        let calls = exec.calls.borrow().clone();
        let count = |n: &str, r: Recording| calls.iter().filter(|c| c.0 == n && c.1 == r).count();
        assert_eq!(count("formats/postcard", Recording::Verify), 1);
        assert_eq!(count("formats/bincode", Recording::Verify), 1);
        assert_eq!(
            calls[..2]
                .iter()
                .filter(|c| c.1 == Recording::Verify)
                .count(),
            2
        );
        assert_eq!(count("formats/postcard", Recording::Timing), 3);
        assert_eq!(count("formats/bincode", Recording::Timing), 1);
        assert_eq!(calls.len(), 6, "no CPU or allocation recording: {calls:?}");
        let by_name = |n: &str| done.results.iter().find(|r| r.name() == n).unwrap();
        let ok = by_name("formats/postcard");
        let t = ok.time_ns.as_ref().unwrap();
        // The figure is across processes: median of 100, 110, 120, interval [min, max].
        assert_eq!(
            (t.median, t.ci95, t.processes.len()),
            (110.0, [100.0, 120.0], 3)
        );
        let rounds: Vec<usize> = t.processes.iter().map(|p| p.round).collect();
        assert_eq!(rounds, [0, 1, 2]);
        assert_eq!(ok.payload_bytes, Some(7.0));
        assert!(ok.error.is_none());
        let failed = by_name("formats/bincode");
        assert!(matches!(
            failed.error,
            Some(Failure::Child {
                verdict: Verdict::Signal { signal: 11 },
                ..
            })
        ));
        assert_eq!(done.manifest.failed.len(), 1);
        assert!(done.manifest.complete);
        let on_disk: ConfigResult =
            read_json(&config_dir(&done.run_dir, "formats", "postcard").join(layout::RESULT_JSON))
                .unwrap();
        assert_eq!(&on_disk, ok);

        // Resume: every configuration has its result, so nothing is recorded again.
        exec.calls.borrow_mut().clear();
        let mut again = request(out.path());
        again.resume = Some(done.run_dir.clone());
        let resumed = run_with(&again, &exec).unwrap();
        assert!(exec.calls.borrow().is_empty());
        assert_eq!(resumed.results.len(), 2);
        let sessions = &resumed.manifest.sessions;
        assert_eq!(sessions.len(), 2, "the first run and the resume");
        assert_eq!((sessions[0].measured.len(), sessions[1].kept.len()), (2, 2));
    }

    #[test]
    fn a_configuration_that_fails_verification_is_never_timed_and_keeps_the_reason() {
        let out = tempfile::tempdir().unwrap();
        let exec = Canned {
            calls: RefCell::new(Vec::new()),
            crash: "",
            unverified: "formats/bincode",
        };
        let done = run_with(&request(out.path()), &exec).unwrap();
        let calls = exec.calls.borrow().clone();
        let of = |n: &str| {
            calls
                .iter()
                .filter(|c| c.0 == n)
                .map(|c| c.1)
                .collect::<Vec<_>>()
        };
        assert_eq!(of("formats/bincode"), [Recording::Verify]);
        assert_eq!(
            of("formats/postcard"),
            [
                Recording::Verify,
                Recording::Timing,
                Recording::Timing,
                Recording::Timing
            ]
        );
        let failed = done
            .results
            .iter()
            .find(|r| r.name() == "formats/bincode")
            .unwrap();
        assert!(!failed.verified);
        assert!(failed.time_ns.is_none());
        assert!(matches!(
            failed.error,
            Some(Failure::Verification {
                error: VerifyError::Differs { index: 3, .. }
            })
        ));
        assert_eq!(done.manifest.failed.len(), 1);
    }

    #[test]
    fn every_round_runs_each_configuration_once_in_a_seeded_order() {
        let plan = schedule(7, 6, 42);
        assert_eq!(plan.len(), 6);
        for order in &plan {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(
                sorted,
                (0..7).collect::<Vec<_>>(),
                "a permutation: {order:?}"
            );
        }
        assert_eq!(plan, schedule(7, 6, 42), "the seed decides the order");
        assert_ne!(plan, schedule(7, 6, 43));
        assert!(
            plan.windows(2).any(|w| w[0] != w[1]),
            "rounds differ: {plan:?}"
        );
        assert!(schedule(0, 3, 1).iter().all(Vec::is_empty));
    }

    #[test]
    fn ratios_pair_processes_of_the_same_round() {
        // Three configurations timed in rounds by a stand-in whose speed drifts per call: the
        // pairs of one round see the same drift, so the ratio of identical engines is 1.
        struct Drifting(RefCell<u32>);
        impl Executor for Drifting {
            fn record(
                &self,
                _: &ConfigId,
                recording: Recording,
                _: &Path,
                _: &Settings,
            ) -> Result<Outcome> {
                if recording == Recording::Verify {
                    return Ok(Outcome::Reported(Box::new(WorkerReport {
                        verified: true,
                        ..WorkerReport::default()
                    })));
                }
                *self.0.borrow_mut() += 1;
                let round = (*self.0.borrow() - 1) / 3;
                let ns = 100.0 * (1.0 + round as f64);
                Ok(Outcome::Reported(Box::new(WorkerReport {
                    verified: true,
                    timing: ProcessTiming::from_batches(vec![ns], &[ns], 1),
                    ..WorkerReport::default()
                })))
            }
            fn exe(&self) -> Result<PathBuf> {
                anyhow::bail!("no processes")
            }
        }
        let names = ["formats/postcard", "formats/bincode", "formats/bitcode"];
        let configs: Vec<Config> = names.iter().map(|n| studies::find(n).unwrap()).collect();
        let refs: Vec<&Config> = configs.iter().collect();
        let mut settings = Settings::quick();
        settings.processes = 4;
        let dir = tempfile::tempdir().unwrap();
        let progress = progress::Progress::new(3, false, true);
        let results = time_in_rounds(
            &Drifting(RefCell::new(0)),
            &refs,
            dir.path(),
            &settings,
            &progress,
        );
        let (a, b) = (
            results[0].time_ns.as_ref().unwrap(),
            results[1].time_ns.as_ref().unwrap(),
        );
        // Across processes the drift is 4x wide; paired by round it vanishes.
        assert_eq!(a.ci95, [100.0, 400.0]);
        let r = crate::model::stats::RatioStats::by_round(a, b).unwrap();
        assert_eq!((r.ratio, r.ci95, r.pairs), (1.0, [1.0, 1.0], 4));
    }
}
