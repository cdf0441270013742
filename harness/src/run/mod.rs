//! The run layer: `serprof run`, the parent. It plans the run ([`plan`]: the selection, or
//! what a resumed folder lacks), has each recording of each configuration made by an
//! [`executor::Executor`] (worker children), merges their figures into `result.json` (written as
//! soon as a configuration finishes, so a later failure or Ctrl-C loses nothing), compares each
//! study's before/after steps ([`compare`]) and writes the report.

pub(crate) mod ab;
pub(crate) mod before_after;
pub(crate) mod compare;
pub(crate) mod corrupt;
pub(crate) mod executor;
pub(crate) mod folder;
pub(crate) mod instructions;
pub(crate) mod lane;
pub(crate) mod lockstep;
pub(crate) mod placement;
pub(crate) mod plan;
pub(crate) mod profiles;
pub(crate) mod progress;
pub(crate) mod relinked;
pub(crate) mod sides;
pub(crate) mod slots;
pub(crate) mod timing;

pub(crate) use folder::{new_manifest, record_outcomes};
pub(crate) use plan::{budgeted, config_id};
pub(crate) use profiles::Profiling;
pub(crate) use timing::{time_configs, time_lanes, Unit};

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use serprof_api::__private::Config;

use crate::layout::{self, config_dir, utc_rfc3339, write_json};
use crate::misuse;
use crate::model::lockstep::Schedule;
use crate::model::manifest::{PhaseSeconds, Session};
use crate::model::{ConfigId, ConfigResult, Program, RunManifest, Settings};
use crate::process::interrupt;
use crate::process::machine::Exclusive;
use executor::Executor;
use slots::in_slots;

/// What `serprof run` was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct RunRequest {
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
    /// Layouts the timing children run (`--layouts N`, 2 or more; one set of children each),
    /// and how they differ; 0 or 1: this binary.
    pub layouts: (usize, sides::LayoutMode),
    /// Measure every timed configuration under each of these allocators (`--allocators`), as
    /// `CONFIG@ALLOCATOR`; empty: as the program allocates.
    pub allocators: Vec<crate::model::allocator::Allocator>,
}

/// What a finished run hands back for printing.
#[derive(Debug)]
pub(crate) struct RunOutcome {
    pub run_dir: PathBuf,
    pub manifest: RunManifest,
    pub results: Vec<ConfigResult>,
}

/// Runs the request with worker children of this binary. Configuration failures are recorded,
/// not returned as errors.
pub(crate) fn run(program: &Program, req: &RunRequest) -> Result<RunOutcome> {
    run_with(program, req, &executor::ChildProcesses::this(program)?)
}

/// Runs the request, every recording made by `exec`.
pub(crate) fn run_with(
    program: &Program,
    req: &RunRequest,
    exec: &dyn Executor,
) -> Result<RunOutcome> {
    if req.resume.is_none() && req.settings.instructions {
        // Before any folder is made: a missing valgrind is a one-line misuse, nothing left.
        executor::valgrind_version()?;
    }
    interrupt::install();
    let linking = std::time::Instant::now();
    let relinked = relink(program, req)?;
    let linking = linking.elapsed().as_secs_f64();
    let mut req = req.clone();
    if let Some((seed, r)) = &relinked {
        req.settings.seed = *seed;
        req.settings.processes = r.layouts.len();
    }
    let req = &req;
    let (run_dir, mut manifest, configs, lock) = open_run(program, req, exec)?;
    let layout_execs: Vec<executor::ChildProcesses> = match &relinked {
        Some((_, r)) => {
            manifest.layouts = r.layouts.clone();
            manifest.layouts_notes = r.notes.clone();
            if !req.quiet {
                r.notes.iter().for_each(|n| eprintln!("serprof: {n}"));
            }
            r.layouts
                .iter()
                .map(|l| executor::ChildProcesses::of(Path::new(&l.exe), program))
                .collect::<Result<_>>()?
        }
        None => Vec::new(),
    };
    let layouts: Vec<&dyn Executor> = layout_execs.iter().map(|e| e as &dyn Executor).collect();
    if !req.quiet {
        for s in crate::model::BuildInfo::this().shortcomings() {
            eprintln!("serprof: warning: this binary was {s}");
        }
    }
    write_json(&run_dir.join(layout::RUN_JSON), &manifest)?;
    tracing::info!(run_dir = %run_dir.display(), configs = configs.len(), "run started");
    let session_start = utc_rfc3339(SystemTime::now());
    let mut session = Measuring::new(program, req, &run_dir, &manifest.settings, &configs)?;
    if relinked.is_some() {
        session.clock.layouts = linking;
    }
    session.timed(exec, &layouts)?;
    // A layout is a link of the kept inputs with its seed (in run.json): not worth its disk.
    drop(relinked);
    session.corrupt(exec)?;
    let (results, mut record, schedule) = session.finish(session_start);
    record.machine_lock = lock.map(Exclusive::release);
    manifest.sessions.push(record);
    manifest.schedules.extend(schedule);
    let finished = results.len() == configs.len() && !interrupt::interrupted();
    finish_run(program, &run_dir, &mut manifest, &results, finished)?;
    Ok(RunOutcome {
        run_dir,
        manifest,
        results,
    })
}

/// `--layouts N` (2 or more): the seed of the run (the layouts' seeds come from it) and the
/// layouts linked, before any folder is made.
fn relink(program: &Program, req: &RunRequest) -> Result<Option<(u64, relinked::Relinked)>> {
    let (n, mode) = req.layouts;
    if n < 2 || req.resume.is_some() {
        return Ok(None);
    }
    let configs = plan::select(program, &req.studies, &req.configs)?;
    let seed = match req.settings.seed {
        0 => placement::clock_seed(),
        s => s,
    };
    let r = relinked::link(program, &configs, (n, mode, seed), req.quiet)?;
    Ok(Some((seed, r)))
}

/// The run folder, its manifest and its configurations (a new run's, or the resumed one's), and
/// the machine's measuring lock: taken once the selection is known to be good, before the CPU
/// probe that places the children, and held until the last recording; builds (the layouts) and
/// the report overlap other measurements.
fn open_run(
    program: &Program,
    req: &RunRequest,
    exec: &dyn Executor,
) -> Result<(PathBuf, RunManifest, Vec<Config>, Option<Exclusive>)> {
    if let Some(dir) = &req.resume {
        let (run_dir, mut manifest, configs) = folder::resume(program, dir)?;
        let lock = exec.exclusive(req.quiet)?;
        // The measurement settings are the run's own (results stay comparable); only the
        // guards may be changed for the rest of the run.
        if let Some(t) = req.resume_child_timeout {
            manifest.settings.child_time_cap_s = t;
        }
        if let Some(m) = req.resume_memory_cap {
            manifest.settings.memory_cap_mib = m;
        }
        return Ok((run_dir, manifest, configs, lock));
    }
    let configs = plan::select(program, &req.studies, &req.configs)?;
    if configs.is_empty() {
        misuse!("the selection holds no configuration");
    }
    let configs = plan::under_allocators(program, configs, &req.allocators);
    if req.studies.is_empty() && !req.quiet {
        for note in plan::unavailable_notes(program) {
            eprintln!("serprof: {note}");
        }
    }
    let lock = exec.exclusive(req.quiet)?;
    let run_dir = layout::create_run_dir(&req.out, program.git_rev())?;
    let mut settings = req.settings.clone();
    settings.studies = program.stamp();
    if settings.seed == 0 {
        settings.seed = placement::clock_seed();
    }
    let placed = placement::place(program, &req.cpu)?;
    settings.pin_cpu = placed.cpu;
    let manifest = new_manifest(program, &configs, settings, placed);
    Ok((run_dir, manifest, configs, lock))
}

/// One session of measuring a run's configurations: those a resumed run already finished are
/// kept, the others measured, each `result.json` written as soon as it is complete.
struct Measuring<'a> {
    program: &'a Program,
    run_dir: &'a Path,
    settings: &'a Settings,
    configs: &'a [Config],
    progress: progress::Progress,
    /// `valgrind --version` when instructions are counted.
    valgrind: Option<String>,
    results: Vec<Option<ConfigResult>>,
    kept: Vec<ConfigId>,
    /// Indexes of the configurations this session measures.
    pending: Vec<usize>,
    /// The session's timing schedules (one, or one per allocator when they could not be timed
    /// in one).
    schedules: Vec<crate::model::lockstep::Schedule>,
    clock: PhaseSeconds,
}

impl<'a> Measuring<'a> {
    fn new(
        program: &'a Program,
        req: &RunRequest,
        run_dir: &'a Path,
        settings: &'a Settings,
        configs: &'a [Config],
    ) -> Result<Measuring<'a>> {
        let show_bars = !req.quiet && std::io::stderr().is_terminal();
        let progress = progress::Progress::new(configs.len() as u64, show_bars, req.quiet);
        // The instructions recording needs valgrind: a one-line misuse before anything runs.
        let valgrind = match settings.instructions {
            true => Some(executor::valgrind_version()?),
            false => None,
        };
        let mut results = Vec::new();
        let mut kept = Vec::new();
        for config in configs {
            let done = folder::finished_result(&Self::dir_of(run_dir, config));
            if done.is_some() {
                progress.skip(&config.info.name());
                kept.push(config_id(config));
            }
            results.push(done);
        }
        let pending = (0..configs.len())
            .filter(|&i| results[i].is_none())
            .collect();
        Ok(Measuring {
            program,
            run_dir,
            settings,
            configs,
            progress,
            valgrind,
            results,
            kept,
            pending,
            schedules: Vec::new(),
            clock: PhaseSeconds::default(),
        })
    }

    fn dir_of(run_dir: &Path, config: &Config) -> PathBuf {
        config_dir(run_dir, &config.info.study, &config.info.config)
    }

    /// The pending configurations of the timed studies (`corrupt`: false) or of the corrupt
    /// study (true).
    fn pending_of(&self, corrupt: bool) -> Vec<usize> {
        self.pending
            .iter()
            .copied()
            .filter(|&i| self.program.is_corrupt(&self.configs[i].info.study) == corrupt)
            .collect()
    }

    /// The lock-step timing of every pending configuration, then each one's profiles and
    /// instruction count.
    /// `layouts`: the binaries set `k` of timing children runs (`layouts[k]`), or none.
    fn timed(&mut self, exec: &dyn Executor, layouts: &[&dyn Executor]) -> Result<()> {
        let timed = self.pending_of(false);
        let configs: Vec<&Config> = timed.iter().map(|&i| &self.configs[i]).collect();
        let start = std::time::Instant::now();
        let under_allocators = configs
            .iter()
            .any(|c| crate::model::allocator::split(&c.info.config).1.is_some());
        let (timings, schedules) = match under_allocators {
            true => {
                timing::time_allocators(exec, &configs, self.run_dir, self.settings, &self.progress)
            }
            false => {
                let (timings, schedule) = time_configs(
                    (exec, layouts),
                    &configs,
                    self.run_dir,
                    self.settings,
                    &self.progress,
                );
                (timings, schedule.into_iter().collect())
            }
        };
        let timing = schedules.iter().map(|s| s.seconds).sum::<f64>();
        self.clock.timing += timing;
        self.clock.verify += start.elapsed().as_secs_f64() - timing;
        self.schedules = schedules;
        let started = std::time::Instant::now();
        let shared = exec
            .shared()
            .filter(|_| self.settings.jobs > 1 && timed.len() > 1);
        match shared {
            Some(exec) => self.profile_side_by_side(exec, &timed, timings)?,
            None => {
                let profiling = Profiling {
                    exec,
                    program: self.program,
                    settings: self.settings,
                    valgrind: self.valgrind.as_deref(),
                    progress: &self.progress,
                };
                let mut clock = PhaseSeconds::default();
                for (&i, result) in timed.iter().zip(timings) {
                    match self.profile_one(&profiling, i, result, &mut clock)? {
                        Some(result) => self.results[i] = Some(result),
                        None => break,
                    }
                }
                self.clock.add_recordings(&clock);
            }
        }
        self.clock.recordings += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// The recordings of configuration `i` after its timing `result`, written as its
    /// `result.json`; `None` when the run was interrupted (its configuration is not finished).
    fn profile_one(
        &self,
        profiling: &Profiling,
        i: usize,
        mut result: ConfigResult,
        clock: &mut PhaseSeconds,
    ) -> Result<Option<ConfigResult>> {
        if interrupt::interrupted() {
            return Ok(None);
        }
        let config = &self.configs[i];
        let dir = Self::dir_of(self.run_dir, config);
        let _span = tracing::info_span!("config", name = %config.info.name()).entered();
        profiling.profile(config, &dir, &mut result, clock);
        if interrupt::interrupted() {
            // The recording in flight was cut short.
            return Ok(None);
        }
        self.write_result(&dir, &result)?;
        Ok(Some(result))
    }

    /// The recordings of the timed configurations in `settings.jobs` slots side by side
    /// ([`slots::in_slots`]).
    fn profile_side_by_side(
        &mut self,
        exec: &(dyn Executor + Sync),
        timed: &[usize],
        timings: Vec<ConfigResult>,
    ) -> Result<()> {
        let this = &*self;
        let items = timed.iter().copied().zip(timings);
        let (clock, done, outcome) =
            in_slots(self.settings, items, |settings, (i, result), clock| {
                let profiling = Profiling {
                    exec,
                    program: this.program,
                    settings,
                    valgrind: this.valgrind.as_deref(),
                    progress: &this.progress,
                };
                Ok(this
                    .profile_one(&profiling, i, result, clock)?
                    .map(|r| (i, r)))
            });
        self.clock.add_recordings(&clock);
        for (i, result) in done {
            self.results[i] = Some(result);
        }
        outcome
    }

    /// The corrupt study's configurations, after every timed one: in `settings.jobs` slots side
    /// by side when the executor may be shared (its figures are outcomes and a generous
    /// per-input time cap, which a neighbour on another CPU does not change), else one after
    /// another; the phase's wall time goes into the clock.
    fn corrupt(&mut self, exec: &dyn Executor) -> Result<()> {
        let pending = self.pending_of(true);
        let started = std::time::Instant::now();
        let shared = exec
            .shared()
            .filter(|_| self.settings.jobs > 1 && pending.len() > 1);
        let outcome = match shared {
            Some(exec) => {
                let this = &*self;
                let (_, done, outcome) =
                    in_slots(self.settings, pending.into_iter(), |settings, i, _| {
                        if interrupt::interrupted() {
                            return Ok(None);
                        }
                        let (dir, result) = this.corrupt_one(exec, i, settings)?;
                        if interrupt::interrupted() {
                            return Ok(None);
                        }
                        this.write_result(&dir, &result)?;
                        Ok(Some((i, result)))
                    });
                for (i, result) in done {
                    self.results[i] = Some(result);
                }
                outcome
            }
            None => pending.into_iter().try_for_each(|i| {
                if interrupt::interrupted() {
                    return Ok(());
                }
                let (dir, result) = self.corrupt_one(exec, i, self.settings)?;
                if !interrupt::interrupted() {
                    self.keep(i, &dir, result)?;
                }
                Ok(())
            }),
        };
        self.clock.corrupt += started.elapsed().as_secs_f64();
        outcome
    }

    /// Decodes configuration `i`'s damaged inputs (its children pinned as `settings` say):
    /// its folder and result.
    fn corrupt_one(
        &self,
        exec: &dyn Executor,
        i: usize,
        settings: &Settings,
    ) -> Result<(PathBuf, ConfigResult)> {
        let config = &self.configs[i];
        let dir = Self::dir_of(self.run_dir, config);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let damage = self
            .program
            .find_info(&config.info.study)
            .and_then(|s| s.damage)
            .with_context(|| format!("{}: the study has no damage", config.info.name()))?;
        let result = corrupt::measure_config(exec, &damage, config, &dir, settings, &self.progress);
        Ok((dir, result))
    }

    /// Writes a finished result and says so.
    fn write_result(&self, dir: &Path, result: &ConfigResult) -> Result<()> {
        write_json(&dir.join(layout::RESULT_JSON), result)?;
        self.progress.finish_config(result);
        Ok(())
    }

    /// Writes configuration `i`'s finished result.
    fn keep(&mut self, i: usize, dir: &Path, result: ConfigResult) -> Result<()> {
        self.write_result(dir, &result)?;
        self.results[i] = Some(result);
        Ok(())
    }

    /// The results there are, and the session's record (the configurations it kept and those
    /// it measured, where its time went) with its schedules.
    fn finish(self, start: String) -> (Vec<ConfigResult>, Session, Vec<Schedule>) {
        let measured = self
            .pending
            .iter()
            .filter(|&&i| self.results[i].is_some())
            .map(|&i| config_id(&self.configs[i]))
            .collect();
        self.progress.done();
        let results = self.results.into_iter().flatten().collect();
        let session = Session {
            start,
            end: utc_rfc3339(SystemTime::now()),
            git_rev: self.program.git_rev().into(),
            kept: self.kept,
            measured,
            seconds: self.clock,
            machine_lock: None,
        };
        (results, session, self.schedules)
    }
}

/// The end of a run: its manifest complete (or not), its step comparisons, its report, and
/// `latest` pointing at it when it finished.
fn finish_run(
    program: &Program,
    run_dir: &Path,
    manifest: &mut RunManifest,
    results: &[ConfigResult],
    finished: bool,
) -> Result<()> {
    record_outcomes(manifest, &results.iter().collect::<Vec<_>>());
    manifest.end = Some(utc_rfc3339(SystemTime::now()));
    manifest.complete = finished;
    write_json(&run_dir.join(layout::RUN_JSON), manifest)?;
    folder::compare_steps(program, run_dir, results);
    {
        let _span = tracing::info_span!("render").entered();
        if let Err(e) = crate::render::report::write(program, run_dir) {
            tracing::warn!(
                "could not write report.html: {}",
                crate::error::one_line(&e)
            );
        }
    }
    if finished {
        let out = run_dir.parent().unwrap_or(Path::new("."));
        layout::update_latest(out, run_dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    use super::*;
    use crate::layout::read_json;
    use crate::model::{Ending, Failure, Recording};
    use crate::protocol::WorkerReport;
    use executor::Outcome;
    use serprof_api::__private::VerifyError;

    /// A stand-in for worker children: canned reports, one configuration crashes its timing
    /// child, and every recording and timing child is remembered.
    struct Canned {
        calls: Mutex<Vec<(String, Recording)>>,
        /// Timing children started.
        children: AtomicUsize,
        /// It lets several threads share it (recording slots side by side).
        shared: bool,
        /// Its sample crashes the timing child.
        crash: &'static str,
        /// It fails verification.
        unverified: &'static str,
    }

    impl Canned {
        fn new(crash: &'static str, unverified: &'static str) -> Canned {
            Canned {
                calls: Mutex::new(Vec::new()),
                children: AtomicUsize::new(0),
                shared: false,
                crash,
                unverified,
            }
        }
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
                .lock()
                .unwrap()
                .push((config.to_string(), recording));
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
            Ok(Outcome::Reported(Box::new(WorkerReport {
                verified: true,
                payload_bytes: Some(7.0),
                ..WorkerReport::default()
            })))
        }

        fn exe(&self) -> Result<PathBuf> {
            anyhow::bail!("this test starts no process")
        }

        fn shared(&self) -> Option<&(dyn Executor + Sync)> {
            self.shared.then_some(self as &(dyn Executor + Sync))
        }

        fn timing_child(
            &self,
            configs: &[ConfigId],
            ops: Option<Vec<u64>>,
            _: &Settings,
            _: Option<usize>,
        ) -> Result<Box<dyn executor::TimingChild>> {
            // Each child reads 10 ns more than the one started before it.
            let started = self.children.fetch_add(1, Ordering::Relaxed) + 1;
            for c in configs {
                self.calls
                    .lock()
                    .unwrap()
                    .push((c.to_string(), Recording::Timing));
            }
            let ns = 100.0 + 10.0 * (started - 1) as f64;
            let crash = self.crash;
            let sampler: executor::fake::Sampler =
                std::rc::Rc::new(move |id: &ConfigId| (id.to_string() != crash).then_some(ns));
            Ok(Box::new(executor::fake::FakeChild::new(
                configs, ops, sampler,
            )))
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
            layouts: (0, sides::LayoutMode::Both),
            allocators: Vec::new(),
        }
    }

    #[test]
    fn the_runner_merges_reports_keeps_failures_apart_and_resumes_without_rerunning() {
        let out = tempfile::tempdir().unwrap();
        let exec = Canned::new("formats/bincode", "");
        let done = run_with(
            &crate::model::program::builtin(),
            &request(out.path()),
            &exec,
        )
        .unwrap();
        // Each is verified once, before its timing; bincode crashes the first timing child and
        // is not timed again; the first child is started again without it, and postcard gets
        // its 3 children.
        let calls = exec.calls.lock().unwrap().clone();
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
        assert_eq!(count("formats/postcard", Recording::Timing), 4);
        assert_eq!(count("formats/bincode", Recording::Timing), 1);
        assert_eq!(calls.len(), 7, "no CPU or allocation recording: {calls:?}");
        let by_name = |n: &str| done.results.iter().find(|r| r.name() == n).unwrap();
        let ok = by_name("formats/postcard");
        let t = ok.time_ns.as_ref().unwrap();
        // The figure is across children: median of 110, 120, 130 (the lost child's samples
        // are not kept), interval [min, max].
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(near(t.median, 120.0), "{t:?}");
        assert!(near(t.ci95[0], 110.0) && near(t.ci95[1], 130.0), "{t:?}");
        assert_eq!(t.processes.len(), 3);
        let rounds: Vec<usize> = t.processes.iter().map(|p| p.round).collect();
        assert_eq!(rounds, [0, 1, 2]);
        assert_eq!(ok.payload_bytes, Some(7.0));
        assert!(ok.error.is_none());
        let failed = by_name("formats/bincode");
        assert!(matches!(
            failed.error,
            Some(Failure::Child {
                verdict: Ending::Signal { signal: 11 },
                ..
            })
        ));
        assert_eq!(done.manifest.failed.len(), 1);
        assert!(done.manifest.complete);
        let on_disk: ConfigResult =
            read_json(&config_dir(&done.run_dir, "formats", "postcard").join(layout::RESULT_JSON))
                .unwrap();
        // serde_json (without float_roundtrip, which would change the engines' serde_json)
        // may read a float back one unit in the last place away.
        let disk_time = on_disk.time_ns.as_ref().unwrap();
        let slots = |t: &crate::model::TimeStats| {
            t.processes
                .iter()
                .map(|p| p.slots.clone())
                .collect::<Vec<_>>()
        };
        assert!(near(disk_time.median, t.median) && slots(disk_time) == slots(t));
        assert_eq!(
            (on_disk.name(), on_disk.payload_bytes),
            (ok.name(), ok.payload_bytes)
        );

        // Resume: every configuration has its result, so nothing is recorded again.
        exec.calls.lock().unwrap().clear();
        let mut again = request(out.path());
        again.resume = Some(done.run_dir.clone());
        let resumed = run_with(&crate::model::program::builtin(), &again, &exec).unwrap();
        assert!(exec.calls.lock().unwrap().is_empty());
        assert_eq!(resumed.results.len(), 2);
        let sessions = &resumed.manifest.sessions;
        assert_eq!(sessions.len(), 2, "the first run and the resume");
        assert_eq!((sessions[0].measured.len(), sessions[1].kept.len()), (2, 2));
    }

    #[test]
    fn a_configuration_that_fails_verification_is_never_timed_and_keeps_the_reason() {
        let out = tempfile::tempdir().unwrap();
        let exec = Canned::new("", "formats/bincode");
        let done = run_with(
            &crate::model::program::builtin(),
            &request(out.path()),
            &exec,
        )
        .unwrap();
        let calls = exec.calls.lock().unwrap().clone();
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
            ],
            "verified, then in each of the 3 timing children"
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
    fn recording_slots_side_by_side_record_every_configuration_once() {
        let out = tempfile::tempdir().unwrap();
        let mut exec = Canned::new("", "");
        exec.shared = true;
        let mut req = request(out.path());
        req.configs = vec![
            "formats/postcard".into(),
            "formats/bincode".into(),
            "formats/bitcode".into(),
        ];
        req.settings.cpu = true;
        req.settings.alloc = true;
        req.settings.jobs = 2;
        let done = run_with(&crate::model::program::builtin(), &req, &exec).unwrap();
        let calls = exec.calls.lock().unwrap().clone();
        for name in &req.configs {
            // One child makes both recordings.
            for (r, want) in [(Recording::Cpu, 1), (Recording::Alloc, 0)] {
                let n = calls.iter().filter(|c| &c.0 == name && c.1 == r).count();
                assert_eq!(n, want, "{name} {r:?}: {calls:?}");
            }
            let dir = config_dir(
                &done.run_dir,
                "formats",
                name.trim_start_matches("formats/"),
            );
            let on_disk: ConfigResult = read_json(&dir.join(layout::RESULT_JSON)).unwrap();
            assert_eq!(&on_disk.name(), name);
        }
        assert_eq!(done.results.len(), 3);
        assert!(done.manifest.complete);
        let seconds = &done.manifest.sessions[0].seconds;
        assert!(seconds.recordings > 0.0 && seconds.total() >= seconds.recordings);
    }

    #[test]
    fn slots_take_every_item_once_each_pinned_to_its_cpu() {
        let settings = Settings {
            jobs: 3,
            pin_cpu: Some(0),
            ..Settings::default()
        };
        // The first three items wait for each other, so three different slots take them.
        let first = std::sync::Barrier::new(3);
        let (clock, mut done, outcome) = in_slots(&settings, 0..20u32, |s, i, clock| {
            if i < 3 {
                first.wait();
            }
            clock.cpu += 1.0;
            Ok(Some((i, s.pin_cpu)))
        });
        outcome.unwrap();
        done.sort();
        assert_eq!(
            done.iter().map(|d| d.0).collect::<Vec<_>>(),
            (0..20).collect::<Vec<_>>()
        );
        let cpus = settings.recording_cpus(&crate::measure::reference::allowed_cpus());
        let mut firsts: Vec<_> = done[..3].iter().map(|d| d.1).collect();
        firsts.sort();
        let mut slots = cpus.clone();
        slots.sort();
        assert_eq!(firsts, slots, "one item on each slot's CPU");
        assert_eq!(clock.cpu, 20.0, "every slot's seconds are summed");
    }

    #[test]
    fn a_slot_that_is_interrupted_or_fails_stops_and_the_first_error_is_kept() {
        let settings = Settings {
            jobs: 2,
            ..Settings::default()
        };
        let (_, done, outcome) = in_slots(&settings, 0..10u32, |_, i, _| match i {
            3 => Err(anyhow::anyhow!("item 3 failed")),
            _ => Ok(Some(i)),
        });
        assert_eq!(outcome.unwrap_err().to_string(), "item 3 failed");
        assert!(!done.contains(&3));
        // A slot whose work returns None (interrupted) takes nothing more.
        let settings = Settings {
            jobs: 1,
            ..Settings::default()
        };
        let (_, done, outcome) = in_slots(&settings, 0..10u32, |_, i, _| Ok((i < 4).then_some(i)));
        outcome.unwrap();
        assert_eq!(done, [0, 1, 2, 3]);
    }
}
