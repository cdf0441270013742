//! One measuring session: what `run` (with `--layouts` and `--allocators`), `before-after` and
//! `ab` share. A command describes what to measure, the session measures it:
//!
//! - [`Session::open`] takes the machine's measuring lock, seeds, places the children on a CPU,
//!   installs the Ctrl-C handler and the progress display;
//! - [`Session::run_folder`] starts a run folder (its `run.json`) with the session's settings;
//! - [`Session::time`] verifies and times the lanes it is handed in one lock-step schedule;
//! - [`Session::record`] makes each timed unit's recordings (in slots side by side when it may),
//!   writing each `result.json` as soon as it is complete;
//! - [`Session::corrupt`] decodes the corrupt study's damaged inputs;
//! - [`Session::end`] lets the machine go, and [`RunFolder::close`] closes a folder's manifest
//!   with what the session did.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use crate::model::Planned;
use anyhow::{Context, Result};

use super::executor::{self, Executor};
use super::placement::{self, CpuChoice};
use super::profiles::Profiling;
use super::progress::Progress;
use super::slots::in_slots;
use super::timing::{time_lanes, TimedLane, Timings, Unit};
use super::{corrupt, folder};
use crate::layout::{self, utc_rfc3339, write_json};
use crate::model::lockstep::{Placement, Schedule};
use crate::model::manifest::{CpuPlacement, MachineLock, PhaseSeconds, SessionRecord};
use crate::model::{ConfigId, ConfigResult, Program, RunManifest, Settings};
use crate::process::interrupt;
use crate::process::machine::Exclusive;

/// How a session starts.
pub(crate) struct Opening<'a> {
    /// The executor whose [`Executor::exclusive`] takes the machine's lock (a test's stand-in
    /// takes none).
    pub exec: &'a dyn Executor,
    /// Where the children run; `None`: where `settings.pin_cpu` says (a resumed run's own CPU).
    pub cpu: Option<&'a CpuChoice>,
    /// The measurement settings (a seed of 0 is replaced by one from the clock).
    pub settings: Settings,
    /// No progress and no line about waiting for the machine.
    pub quiet: bool,
    /// The units whose end the progress display counts; `None`: no display.
    pub units: Option<u64>,
}

/// One measuring session, from the machine's lock to its release.
pub(crate) struct Session<'a> {
    program: &'a Program,
    /// The session's settings: its seed and the CPU its children are pinned to are set.
    pub settings: Settings,
    /// Where the children were placed; `None` when a resumed run keeps its own placement.
    placed: Option<CpuPlacement>,
    pub progress: Progress,
    /// `valgrind --version` when instructions are counted.
    valgrind: Option<String>,
    lock: Option<Exclusive>,
    start: String,
    /// Where the session's time went.
    pub clock: PhaseSeconds,
    schedules: Vec<Schedule>,
}

/// What a session did, once it let the machine go: for each run folder's manifest.
#[derive(Debug, Clone)]
pub(crate) struct SessionEnd {
    pub start: String,
    pub end: String,
    pub clock: PhaseSeconds,
    pub machine_lock: Option<MachineLock>,
    /// Its timing schedules (one, or one per allocator when they could not be timed in one).
    pub schedules: Vec<Schedule>,
    /// Ctrl-C cut it short.
    pub interrupted: bool,
}

impl<'a> Session<'a> {
    /// Takes the machine (waiting for another serprof's session, and saying so unless quiet),
    /// seeds and places the children. A missing valgrind, when instructions are to be counted,
    /// is an error before anything is measured.
    pub(crate) fn open(program: &'a Program, opening: Opening) -> Result<Session<'a>> {
        let Opening {
            exec,
            cpu,
            mut settings,
            quiet,
            units,
        } = opening;
        interrupt::install();
        let valgrind = match settings.instructions {
            true => Some(executor::valgrind_version()?),
            false => None,
        };
        let lock = exec.exclusive(quiet)?;
        settings.seed = placement::seed_or_clock(settings.seed);
        let placed = match cpu {
            Some(cpu) => {
                let placed = placement::place(program, cpu)?;
                settings.pin_cpu = placed.cpu;
                Some(placed)
            }
            None => None,
        };
        let show_bars = units.is_some() && !quiet && std::io::stderr().is_terminal();
        let progress = Progress::new(units.unwrap_or(0), show_bars, quiet || units.is_none());
        Ok(Session {
            program,
            settings,
            placed,
            progress,
            valgrind,
            lock,
            start: utc_rfc3339(SystemTime::now()),
            clock: PhaseSeconds::default(),
            schedules: Vec::new(),
        })
    }

    /// The CPU the children run on, as the session placed them.
    pub(crate) fn pinned_cpu(&self) -> Option<usize> {
        self.settings.pin_cpu
    }

    /// A new run folder at `dir` for `configs`, its `run.json` written with the session's
    /// settings and placement (`git_rev`: the build measured into it, when not this one).
    pub(crate) fn run_folder(
        &self,
        dir: PathBuf,
        configs: &[Planned],
        git_rev: Option<&str>,
    ) -> Result<RunFolder> {
        let mut manifest = folder::new_manifest(
            self.program,
            configs,
            self.settings.clone(),
            self.placed.clone(),
        );
        if let Some(rev) = git_rev {
            manifest.git_rev = rev.to_string();
        }
        RunFolder::create(dir, manifest)
    }

    /// Verifies and times the units of `lanes` in one lock-step schedule (on two CPUs at once
    /// with a split `placement`), keeping the schedule and its time.
    pub(crate) fn time(&mut self, lanes: &[TimedLane], placement: Option<Placement>) -> Timings {
        let started = Instant::now();
        let timings = time_lanes(lanes, placement, &self.settings, &self.progress);
        let timing = timings.schedule.as_ref().map_or(0.0, |s| s.seconds);
        self.clock.timing += timing;
        self.clock.verify += started.elapsed().as_secs_f64() - timing;
        self.schedules.extend(timings.schedule.clone());
        timings
    }

    /// The recordings after timing (CPU, allocations, instructions, as the settings ask) of each
    /// unit, merged into its timing result, and its `result.json` written as soon as they end;
    /// in `settings.jobs` slots side by side when every unit's executor may be shared, else one
    /// after another. Returns whether each unit finished, in their order (not when Ctrl-C cut
    /// it short).
    pub(crate) fn record(&mut self, units: Vec<(&Unit, &mut ConfigResult)>) -> Result<Vec<bool>> {
        let started = Instant::now();
        let mut finished = vec![false; units.len()];
        let shared: Option<Vec<&(dyn Executor + Sync)>> =
            units.iter().map(|(unit, _)| unit.exec.shared()).collect();
        let outcome = match shared.filter(|_| self.settings.jobs > 1 && units.len() > 1) {
            Some(execs) => {
                // Only what may be shared goes into the slots.
                let items: Vec<_> = units
                    .into_iter()
                    .map(|(unit, result)| (unit.config, unit.dir.as_path(), result))
                    .zip(execs)
                    .enumerate()
                    .collect();
                let (program, valgrind, progress) =
                    (self.program, self.valgrind.as_deref(), &self.progress);
                let (slots, done, outcome) = in_slots(
                    &self.settings,
                    items.into_iter(),
                    |settings, (i, ((config, dir, result), exec)), clock| {
                        let profiling = Profiling {
                            exec,
                            program,
                            settings,
                            valgrind,
                            progress,
                        };
                        Ok(record_one(&profiling, config, dir, result, clock)?.then_some(i))
                    },
                );
                self.clock.add_recordings(&slots);
                done.into_iter().for_each(|i| finished[i] = true);
                outcome
            }
            None => {
                let mut clock = PhaseSeconds::default();
                let mut outcome = Ok(());
                for ((unit, result), done) in units.into_iter().zip(finished.iter_mut()) {
                    let profiling = Profiling {
                        exec: unit.exec,
                        program: self.program,
                        settings: &self.settings,
                        valgrind: self.valgrind.as_deref(),
                        progress: &self.progress,
                    };
                    match record_one(&profiling, unit.config, &unit.dir, result, &mut clock) {
                        Ok(true) => *done = true,
                        Ok(false) => break,
                        Err(e) => {
                            outcome = Err(e);
                            break;
                        }
                    }
                }
                self.clock.add_recordings(&clock);
                outcome
            }
        };
        self.clock.recordings += started.elapsed().as_secs_f64();
        outcome.map(|()| finished)
    }

    /// The corrupt study's configurations (their damaged inputs decoded by `exec`'s children),
    /// each result written into its folder of `run_dir` as it finishes; in `settings.jobs` slots
    /// side by side when the executor may be shared (its figures are outcomes and a generous
    /// per-input time cap, which a neighbour on another CPU does not change). Returns each
    /// configuration's result, in their order (`None`: Ctrl-C came first).
    pub(crate) fn corrupt(
        &mut self,
        exec: &dyn Executor,
        configs: &[&Planned],
        run_dir: &Path,
    ) -> Result<Vec<Option<ConfigResult>>> {
        let started = Instant::now();
        let mut results: Vec<Option<ConfigResult>> = vec![None; configs.len()];
        let shared = exec
            .shared()
            .filter(|_| self.settings.jobs > 1 && configs.len() > 1);
        let this = &*self;
        let outcome = match shared {
            Some(exec) => {
                let items = configs.iter().copied().enumerate();
                let (_, done, outcome) =
                    in_slots(&self.settings, items, |settings, (i, config), _| {
                        let decoded = this.decode(exec, config, run_dir, settings)?;
                        Ok(decoded.map(|result| (i, result)))
                    });
                for (i, result) in done {
                    results[i] = Some(result);
                }
                outcome
            }
            None => configs
                .iter()
                .zip(results.iter_mut())
                .try_for_each(|(config, slot)| {
                    *slot = this.decode(exec, config, run_dir, &this.settings)?;
                    Ok(())
                }),
        };
        self.clock.corrupt += started.elapsed().as_secs_f64();
        outcome.map(|()| results)
    }

    /// Decodes `config`'s damaged inputs (its children pinned as `settings` say) and writes its
    /// result into its folder of `run_dir`; `None` when Ctrl-C came first.
    fn decode(
        &self,
        exec: &dyn Executor,
        config: &Planned,
        run_dir: &Path,
        settings: &Settings,
    ) -> Result<Option<ConfigResult>> {
        if interrupt::interrupted() {
            return Ok(None);
        }
        let dir = layout::config_dir(run_dir, &config.id());
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let damage = self
            .program
            .find_info(&config.info().study)
            .and_then(|s| s.damage)
            .with_context(|| format!("{}: the study has no damage", config.name()))?;
        let result = corrupt::measure_config(exec, &damage, config, &dir, settings, &self.progress);
        if interrupt::interrupted() {
            return Ok(None);
        }
        write_json(&dir.join(layout::RESULT_JSON), &result)?;
        self.progress.finish_config(&result);
        Ok(Some(result))
    }

    /// Lets the machine go: what the session did.
    pub(crate) fn end(self) -> SessionEnd {
        self.progress.done();
        SessionEnd {
            start: self.start,
            end: utc_rfc3339(SystemTime::now()),
            clock: self.clock,
            machine_lock: self.lock.map(Exclusive::release),
            schedules: self.schedules,
            interrupted: interrupt::interrupted(),
        }
    }
}

/// One unit's recordings by `profiling`'s executor and its `result.json`; false when Ctrl-C cut
/// them short (nothing written).
fn record_one(
    profiling: &Profiling,
    config: &Planned,
    dir: &Path,
    result: &mut ConfigResult,
    clock: &mut PhaseSeconds,
) -> Result<bool> {
    if interrupt::interrupted() {
        return Ok(false);
    }
    let _span = tracing::info_span!("config", name = %config.name()).entered();
    profiling.profile(config, dir, result, clock);
    if interrupt::interrupted() {
        // The recording in flight was cut short.
        return Ok(false);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_json(&dir.join(layout::RESULT_JSON), &*result)?;
    profiling.progress.finish_config(result);
    Ok(true)
}

/// A run folder being written: where it is and its manifest.
pub(crate) struct RunFolder {
    pub dir: PathBuf,
    pub manifest: RunManifest,
}

impl RunFolder {
    /// Creates `dir` and writes its first `run.json`.
    fn create(dir: PathBuf, manifest: RunManifest) -> Result<RunFolder> {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        write_json(&dir.join(layout::RUN_JSON), &manifest)?;
        Ok(RunFolder { dir, manifest })
    }

    /// Reopens an interrupted run folder (`--resume`): its manifest and selection.
    pub(crate) fn resume(program: &Program, dir: &Path) -> Result<(RunFolder, Vec<Planned>)> {
        let (dir, manifest, configs) = folder::resume(program, dir)?;
        Ok((RunFolder { dir, manifest }, configs))
    }

    /// Writes `run.json` as the manifest stands.
    pub(crate) fn save(&self) -> Result<()> {
        write_json(&self.dir.join(layout::RUN_JSON), &self.manifest)
    }

    /// Closes the manifest after `ended`: its session (the configurations it `kept` from an
    /// earlier session and the `results` it has, finished or failed), its schedules, failures,
    /// warnings and end; complete when the session was not interrupted and every configuration
    /// has a result. Writes `run.json` and the report; a report that cannot be written is
    /// returned, not an error.
    pub(crate) fn close(
        &mut self,
        program: &Program,
        ended: &SessionEnd,
        kept: Vec<ConfigId>,
        results: &[&ConfigResult],
    ) -> Result<Option<anyhow::Error>> {
        let measured = results
            .iter()
            .map(|r| r.id())
            .filter(|id| !kept.contains(id))
            .collect();
        let m = &mut self.manifest;
        m.sessions.push(SessionRecord {
            start: ended.start.clone(),
            end: ended.end.clone(),
            git_rev: m.git_rev.clone(),
            kept,
            measured,
            seconds: ended.clock.clone(),
            machine_lock: ended.machine_lock.clone(),
        });
        m.schedules.extend(ended.schedules.iter().cloned());
        folder::record_outcomes(m, results);
        m.end = Some(utc_rfc3339(SystemTime::now()));
        m.complete = !ended.interrupted && results.len() == m.configs.len();
        self.save()?;
        let _span = tracing::info_span!("render").entered();
        let report = crate::render::report::write_measured(
            program,
            &self.dir,
            &self.manifest,
            results.iter().copied(),
        );
        Ok(report.err())
    }
}
