//! The run layer: `serprof run`, the parent. It plans the run ([`plan`]: the selection, or
//! what a resumed folder lacks), has each recording of each configuration made by an
//! [`executor::Executor`] (worker children), merges their figures into `result.json` (written as
//! soon as a configuration finishes, so a later failure or Ctrl-C loses nothing), compares each
//! study's before/after steps ([`compare`]) and writes the report.

pub(crate) mod ab;
pub(crate) mod before_after;
pub(crate) mod compare;
pub(crate) mod compression;
pub(crate) mod corrupt;
pub(crate) mod executor;
pub(crate) mod folder;
pub(crate) mod functions;
pub(crate) mod instructions;
pub(crate) mod lane;
pub(crate) mod lockstep;
pub(crate) mod placement;
pub(crate) mod plan;
pub(crate) mod profiles;
pub(crate) mod progress;
pub(crate) mod relinked;
pub(crate) mod rounds;
pub(crate) mod session;
pub(crate) mod sides;
pub(crate) mod slots;
pub(crate) mod timed;
pub(crate) mod timing;

pub(crate) use plan::budgeted;
pub(crate) use timed::time_configs;
pub(crate) use timing::Unit;

use std::path::{Path, PathBuf};

use crate::model::Planned;
use anyhow::Result;

use crate::layout::{self, config_dir};
use crate::misuse;
use crate::model::{ConfigId, ConfigResult, Program, RunManifest, Settings};
use executor::Executor;
use session::{Opening, RunFolder, Session};

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
    let linking = std::time::Instant::now();
    let relinked = relink(program, req)?;
    let linking = linking.elapsed().as_secs_f64();
    let mut req = req.clone();
    if let Some((seed, r)) = &relinked {
        req.settings.seed = *seed;
        req.settings.processes = r.layouts.len();
    }
    let req = &req;
    let (mut folder, configs, mut session) = open_run(program, req, exec)?;
    let layout_execs: Vec<executor::ChildProcesses> = match &relinked {
        Some((_, r)) => {
            folder.manifest.layouts = r.layouts.clone();
            folder.manifest.layouts_notes = r.notes.clone();
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
    folder.save()?;
    tracing::info!(run_dir = %folder.dir.display(), configs = configs.len(), "run started");
    if relinked.is_some() {
        session.clock.layouts = linking;
    }
    let mut measuring = Measuring::new(program, &folder.dir, &configs, &session.progress);
    measuring.timed(&mut session, exec, &layouts)?;
    // A layout is a link of the kept inputs with its seed (in run.json): not worth its disk.
    drop(relinked);
    measuring.corrupt(&mut session, exec)?;
    let ended = session.end();
    let (results, kept) = measuring.finish();
    folder::compare_steps(program, &folder.dir, &results);
    let refs: Vec<&ConfigResult> = results.iter().collect();
    if let Some(e) = folder.close(program, &ended, kept, &refs)? {
        tracing::warn!(
            "could not write report.html: {}",
            crate::error::one_line(&e)
        );
    }
    if folder.manifest.complete {
        let out = folder.dir.parent().unwrap_or(Path::new("."));
        layout::update_latest(out, &folder.dir)?;
    }
    Ok(RunOutcome {
        run_dir: folder.dir,
        manifest: folder.manifest,
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
    let seed = placement::seed_or_clock(req.settings.seed);
    let r = relinked::link(program, &configs, (n, mode, seed), req.quiet)?;
    Ok(Some((seed, r)))
}

/// The run folder (a new run's, or the resumed one's) with its configurations, and the session
/// that measures them, opened once the selection is known to be good.
fn open_run<'a>(
    program: &'a Program,
    req: &RunRequest,
    exec: &dyn Executor,
) -> Result<(RunFolder, Vec<Planned>, Session<'a>)> {
    if let Some(dir) = &req.resume {
        let (mut folder, configs) = RunFolder::resume(program, dir)?;
        // The measurement settings are the run's own (results stay comparable), and so is
        // its CPU; only the guards may be changed for the rest of the run.
        let settings = &mut folder.manifest.settings;
        if let Some(t) = req.resume_child_timeout {
            settings.child_time_cap_s = t;
        }
        if let Some(m) = req.resume_memory_cap {
            settings.memory_cap_mib = m;
        }
        let session = Session::open(
            program,
            Opening {
                exec,
                cpu: None,
                settings: settings.clone(),
                quiet: req.quiet,
                units: Some(configs.len() as u64),
            },
        )?;
        return Ok((folder, configs, session));
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
    let mut settings = req.settings.clone();
    settings.studies = program.stamp();
    let session = Session::open(
        program,
        Opening {
            exec,
            cpu: Some(&req.cpu),
            settings,
            quiet: req.quiet,
            units: Some(configs.len() as u64),
        },
    )?;
    let run_dir = layout::create_run_dir(&req.out, program.git_rev())?;
    let folder = session.run_folder(run_dir, &configs, None)?;
    Ok((folder, configs, session))
}

/// What `run` hands its session: the configurations a resumed run already finished are kept,
/// the others measured.
struct Measuring<'a> {
    program: &'a Program,
    run_dir: &'a Path,
    configs: &'a [Planned],
    results: Vec<Option<ConfigResult>>,
    kept: Vec<ConfigId>,
}

impl<'a> Measuring<'a> {
    fn new(
        program: &'a Program,
        run_dir: &'a Path,
        configs: &'a [Planned],
        progress: &progress::Progress,
    ) -> Measuring<'a> {
        let mut kept = Vec::new();
        let results = configs
            .iter()
            .map(|config| {
                let dir = config_dir(run_dir, &config.id());
                let done = folder::finished_result(&dir);
                if done.is_some() {
                    progress.skip(&config.name());
                    kept.push(config.id());
                }
                done
            })
            .collect();
        Measuring {
            program,
            run_dir,
            configs,
            results,
            kept,
        }
    }

    /// The configurations not finished yet, of the timed studies (`corrupt`: false) or of the
    /// corrupt study (true), each with its result's place.
    fn pending(&mut self, corrupt: bool) -> Vec<(&'a Planned, &mut Option<ConfigResult>)> {
        let program = self.program;
        self.configs
            .iter()
            .zip(self.results.iter_mut())
            .filter(|(c, r)| r.is_none() && program.is_corrupt(&c.info().study) == corrupt)
            .collect()
    }

    /// The lock-step timing of every pending configuration (set `k` of its children in
    /// `layouts[k]` when there are layouts), then each one's recordings.
    fn timed(
        &mut self,
        session: &mut Session,
        exec: &dyn Executor,
        layouts: &[&dyn Executor],
    ) -> Result<()> {
        let run_dir = self.run_dir;
        let pending = self.pending(false);
        let configs: Vec<&Planned> = pending.iter().map(|(c, _)| *c).collect();
        let under_allocators = configs.iter().any(|c| c.allocator.is_some());
        let mut timings = match under_allocators {
            true => timed::time_allocators(session, exec, &configs, run_dir),
            false => time_configs(session, (exec, layouts), &configs, run_dir),
        };
        let units: Vec<Unit> = configs
            .iter()
            .map(|&config| Unit::in_run(exec, config, run_dir))
            .collect();
        let finished = session.record(units.iter().zip(timings.iter_mut()).collect())?;
        for (((_, slot), result), finished) in pending.into_iter().zip(timings).zip(finished) {
            if finished {
                *slot = Some(result);
            }
        }
        Ok(())
    }

    /// The corrupt study's configurations, after every timed one.
    fn corrupt(&mut self, session: &mut Session, exec: &dyn Executor) -> Result<()> {
        let run_dir = self.run_dir;
        let pending = self.pending(true);
        let configs: Vec<&Planned> = pending.iter().map(|(c, _)| *c).collect();
        let decoded = session.corrupt(exec, &configs, run_dir)?;
        for ((_, slot), result) in pending.into_iter().zip(decoded) {
            *slot = result;
        }
        Ok(())
    }

    /// The results there are, and the configurations kept from an earlier session.
    fn finish(self) -> (Vec<ConfigResult>, Vec<ConfigId>) {
        (self.results.into_iter().flatten().collect(), self.kept)
    }
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
    use slots::in_slots;

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
        let on_disk: ConfigResult = read_json(
            &config_dir(&done.run_dir, &ConfigId::new("formats", "postcard"))
                .join(layout::RESULT_JSON),
        )
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
            let dir = config_dir(&done.run_dir, &name.parse().unwrap());
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
