//! `serprof before-after`'s measurement: two built sides ([`super::sides`]) measured as one
//! run, and compared.
//!
//! - Timing: one lock-step schedule ([`super::lockstep`]) with a lane per side: a timing child
//!   of each side's binary, both alive, taking turns sample by sample on the one CPU the start
//!   probe chose (the first side alternating: A B, B A, ...), one set of children after
//!   another. The ratio per configuration is the median of the per-set ratios of
//!   state-adjusted times, with the order-statistics interval (the same rule as the ratios of
//!   a run).
//! - Then per configuration and side: one CPU recording, one allocation recording and (with
//!   valgrind) one instructions recording, each by that side's own binary.
//! - Each side is written as an ordinary run folder (`before/`, `after/`: its report, flame
//!   graphs, `run.json` with the side's revision), and [`super::compare::compare_runs`] compares
//!   them into the folder itself: `<study>/<config>/compare.json`, `diff.svg`,
//!   `diff-reverse.svg`, `instructions-diff.svg`, and the summary `compare.json`.
//! - On top: `before-after.json` (the verdicts and the sides), `before-after.txt` (the table
//!   printed) and `before-after.html`.
//!
//! Each side's binary is driven through the worker protocol, which it reports
//! (`serprof __protocol`) and which is checked before anything runs.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use serprof_api::__private::Config;

use super::executor::ChildProcesses;
use super::{placement, plan, progress, sides, Unit};
use crate::analyze::before_after::{
    cpu_alarm_rule, BeforeAfterRecord, Layout, Row, Side, SideRecord, INSTRUCTION_MOVE_RULE,
};
use crate::layout::{self, config_dir, utc_rfc3339, write_atomic, write_json};
use crate::misuse;
use crate::model::lockstep::{Placement, Schedule};
use crate::model::manifest::{PhaseSeconds, Session};
use crate::model::Program;
use crate::model::{ConfigResult, RunManifest, Settings};
use crate::process::interrupt;

/// Layouts per side of a before-after, one set of timing children each. With a layout spread
/// `s` (the relative standard deviation of one layout's time against another's) the interval's
/// half-width is about `2.02 s sqrt(2/40)`: at `s` = 5%, ±2.3%, so that a 5% change is called
/// in about 99 of 100 before-afters and a 3% one in about 7 of 10; at 2%, ±0.9%.
pub(crate) const DEFAULT_LAYOUTS: usize = 40;
/// The same for `--quick`.
pub(crate) const QUICK_LAYOUTS: usize = 8;
/// Measured time of each set of timing children when layouts are sampled, in milliseconds:
/// shorter than a run's children (2 s), since a child's own noise is averaged over the layouts
/// too, and far smaller than their spread.
pub(crate) const LAYOUT_CHILD_MS: u64 = 600;
/// The same for `--quick`.
pub(crate) const QUICK_LAYOUT_CHILD_MS: u64 = 400;
/// Rounds of each timing child at least when layouts are sampled (a run's: 30).
pub(crate) const LAYOUT_ROUNDS: usize = 12;

/// What to measure, once both sides are built.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub studies: Vec<String>,
    pub configs: Vec<String>,
    pub settings: Settings,
    pub cpu: placement::CpuChoice,
    /// The two builds' children on two CPUs at once, swapping every round, instead of taking
    /// turns on one.
    pub split: bool,
    /// The parent folder of the before-after folder.
    pub out: PathBuf,
    pub quiet: bool,
    /// Layouts per side, one set of timing children each; 0 or 1, the binaries as cargo
    /// linked them (timed in `settings.processes` sets).
    pub layouts: usize,
    pub layout_mode: sides::LayoutMode,
}

/// The selection of a before-after: measured studies only (the corrupt study has no timing to
/// compare), and a note when some were left out.
pub(crate) fn select(
    program: &Program,
    studies_: &[String],
    globs: &[String],
) -> Result<(Vec<Config>, Vec<String>)> {
    let all = plan::select(program, studies_, globs)?;
    let measured = |c: &Config| !program.is_corrupt(&c.info.study);
    let left: Vec<String> = all
        .iter()
        .filter(|c| !measured(c))
        .map(|c| c.info.name())
        .collect();
    let configs: Vec<Config> = all.into_iter().filter(measured).collect();
    if configs.is_empty() {
        misuse!("the selection holds no measured configuration (the corrupt study is not timed; give --study or --config)");
    }
    let mut notes = Vec::new();
    if !left.is_empty() {
        notes.push(format!(
            "left out (not timed, nothing to compare): {}",
            left.join(", ")
        ));
    }
    Ok((configs, notes))
}

/// Checks that a side's binary speaks this serprof's worker protocol.
pub(crate) fn driver(program: &Program, side: &SideRecord) -> Result<ChildProcesses> {
    ChildProcesses::of(Path::new(&side.exe), program).map_err(|e| {
        crate::error::misuse_err(format!(
            "the {} side ({}) cannot be driven: {}",
            side.label,
            side.describe,
            crate::error::one_line(&e)
        ))
    })
}

/// Measures both sides and writes the before-after folder. Failures of a configuration are
/// recorded in its row, never returned as errors.
pub(crate) fn measure(
    program: &Program,
    req: &Request,
    before: &SideRecord,
    after: &SideRecord,
    mut notes: Vec<String>,
) -> Result<BeforeAfterRecord> {
    let (configs, selection_notes) = select(program, &req.studies, &req.configs)?;
    notes.extend(selection_notes);
    let execs = [driver(program, before)?, driver(program, after)?];
    let mut settings = req.settings.clone();
    let valgrind = valgrind_or_note(&mut settings, &mut notes);
    interrupt::install();
    let started = Instant::now();
    let (mut before, mut after) = (before.clone(), after.clone());
    let folder = Folder::open(program, req, &[&before, &after], &configs, &mut settings)?;
    let mut clock = PhaseSeconds::default();
    let wanted = req.layouts;
    if wanted >= 2 {
        // One set of timing children per layout: each set is an independent pair of layouts,
        // which the interval over layouts needs.
        settings.processes = wanted;
    }
    clock.time(
        |c| &mut c.layouts,
        || {
            let seeds = (wanted, settings.seed);
            link_both_sides(
                [&mut before, &mut after],
                req.layout_mode,
                seeds,
                &mut notes,
                req.quiet,
            )
        },
    );
    let layout_execs: Vec<Vec<ChildProcesses>> = [&before, &after]
        .iter()
        .map(|side| {
            side.layouts
                .iter()
                .map(|l| ChildProcesses::of(Path::new(&l.exe), program))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<_>>()?;
    let layout_refs: Vec<Vec<&dyn super::Executor>> = layout_execs
        .iter()
        .map(|l| l.iter().map(|e| e as &dyn super::Executor).collect())
        .collect();
    let sampled = layout_refs.iter().all(|l| l.len() > 1);
    let sides = [&before, &after];
    let session_start = utc_rfc3339(SystemTime::now());
    let show_bars = !req.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let progress = progress::Progress::new(2 * configs.len() as u64, show_bars, req.quiet);

    // Timing: the sides of each configuration alternate in whole-process rounds.
    let mut units = Vec::new();
    for config in &configs {
        for (k, exec) in execs.iter().enumerate() {
            units.push(Unit {
                exec,
                config,
                dir: config_dir(&folder.runs[k], &config.info.study, &config.info.config),
                label: format!("{} {}", sides[k].label, config.info.name()),
            });
        }
    }
    let timing_start = Instant::now();
    let placement = match req.split {
        true => Some(split_placement(settings.pin_cpu)?),
        false => None,
    };
    let (mut results, schedule) =
        super::time_units(&units, 2, placement, &layout_refs, &settings, &progress);
    clock.timing = schedule.as_ref().map_or(0.0, |s| s.seconds);
    clock.verify = timing_start.elapsed().as_secs_f64() - clock.timing;
    drop(layout_refs);
    drop(layout_execs);
    remove_layouts(&[&before, &after]);
    let profiling = super::Profiling {
        exec: &execs[0],
        program,
        settings: &settings,
        valgrind: valgrind.as_deref(),
        progress: &progress,
    };
    profile_units(&units, &mut results, &profiling, &mut clock)?;
    progress.done();
    let mut folder = folder;
    let finished = !interrupt::interrupted();
    let closing = Closing {
        program,
        session_start: &session_start,
        finished,
        clock: &clock,
        schedule: schedule.as_ref(),
    };
    folder.finish(&results, &closing, &sides, &mut notes)?;
    if !finished {
        notes.push("interrupted: the configurations not finished are not compared".into());
    }
    let (rows, not_compared) = compare_sides(&folder, &configs, &units, &results, &sides, sampled)?;
    let binary_diff = match before.key == after.key {
        true => None,
        false => {
            let d =
                crate::analyze::sections::diff_files(Path::new(&before.exe), Path::new(&after.exe));
            match d {
                Ok(d) => {
                    notes.push(d.summary());
                    Some(d)
                }
                Err(why) => {
                    notes.push(format!("the two binaries were not compared: {why}"));
                    None
                }
            }
        }
    };
    let record = BeforeAfterRecord {
        before: before.clone(),
        after: after.clone(),
        out_dir: folder.dir.display().to_string(),
        before_run: folder.runs[0].display().to_string(),
        after_run: folder.runs[1].display().to_string(),
        settings,
        rows,
        not_compared,
        cpu_alarm_rule: cpu_alarm_rule(),
        instruction_move_rule: INSTRUCTION_MOVE_RULE.into(),
        measure_seconds: started.elapsed().as_secs_f64(),
        seconds: clock,
        binary_diff,
        schedule,
        notes,
    };
    write_json(&folder.dir.join(layout::BEFORE_AFTER_JSON), &record)?;
    write_views(&record, &folder.dir)?;
    layout::update_latest(&req.out, &folder.dir)?;
    Ok(record)
}

/// Links each side again in `wanted` layouts (seeds from `seed`, distinct per side and set)
/// into its `layouts`. Layouts are sampled on both sides or on neither: a side that cannot be
/// linked again (its `layouts_note`), or a link that fails, leaves both as cargo linked them,
/// and `notes` says why.
fn link_both_sides(
    sides: [&mut SideRecord; 2],
    mode: sides::LayoutMode,
    (wanted, seed): (usize, u64),
    notes: &mut Vec<String>,
    quiet: bool,
) {
    if wanted < 2 {
        notes.push("layouts not sampled (--layouts below 2): each side is timed as cargo linked it, and a time verdict may be a layout effect".into());
        return;
    }
    let mut why = sides.iter().find_map(|side| {
        let note = side.layouts_note.as_ref()?;
        Some(format!("the {} side: {note}", side.label))
    });
    let mut kept = Vec::new();
    for side in &sides {
        if why.is_some() {
            break;
        }
        match side
            .link
            .as_deref()
            .and_then(|d| sides::KeptLink::read(Path::new(d)))
        {
            Some(k) => kept.push(k),
            None => why = Some(format!("the {} side's kept link is gone", side.label)),
        }
    }
    let mode = match why {
        Some(_) => mode,
        None => sides::LayoutMode::linkable(mode, &kept, notes),
    };
    let mut linked: [Vec<Layout>; 2] = [Vec::new(), Vec::new()];
    if why.is_none() {
        // Both sides' links at once, one on each CPU (nothing is timed yet).
        let results: Vec<Result<Vec<Layout>, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = sides
                .iter()
                .zip(&kept)
                .enumerate()
                .map(|(i, (side, kept))| {
                    let side: &SideRecord = side;
                    scope.spawn(move || sides::link_layouts(side, kept, i, mode, (wanted, seed)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("a link panicked".into())))
                .collect()
        });
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Ok(l) => linked[i] = l,
                Err(e) => {
                    why.get_or_insert(e);
                }
            }
        }
        if why.is_some() {
            linked.iter().flatten().for_each(sides::remove_layout);
        }
    }
    match why {
        Some(why) => notes.push(format!(
            "layouts not sampled: {why}; each side is timed as cargo linked it, and a time verdict may be a layout effect"
        )),
        None => {
            if !quiet {
                sides::stderr_line(&format!(
                    "{wanted} layouts per side linked ({}; seeds in before-after.json)",
                    mode.as_str()
                ));
            }
            let [b, a] = sides;
            let [lb, la] = linked;
            b.layouts = lb;
            a.layouts = la;
        }
    }
}

/// Removes the layouts' binaries once they are timed: a layout is a few seconds' link from its
/// seed and the kept link, and a cache that kept every invocation's layouts would grow by
/// dozens of binaries each time.
fn remove_layouts(sides: &[&SideRecord; 2]) {
    for layout in sides.iter().flat_map(|s| &s.layouts) {
        sides::remove_layout(layout);
    }
}

/// Both CPUs of a split placement: the chosen one first, then another this process may use.
fn split_placement(chosen: Option<usize>) -> Result<Placement> {
    let allowed = crate::measure::reference::allowed_cpus();
    let first = chosen.or(allowed.first().copied());
    let second = allowed.iter().copied().find(|&c| Some(c) != first);
    match (first, second) {
        (Some(a), Some(b)) => Ok(Placement::Split { cpus: [a, b] }),
        _ => misuse!(
            "--placement split needs two CPUs this process may run on; it may run on {allowed:?}"
        ),
    }
}

/// `valgrind --version` when instructions are to be counted; without valgrind, no counts and a
/// note saying so.
fn valgrind_or_note(settings: &mut Settings, notes: &mut Vec<String>) -> Option<String> {
    if !settings.instructions {
        return None;
    }
    match super::executor::valgrind_version() {
        Ok(v) => Some(v),
        Err(_) => {
            settings.instructions = false;
            notes.push("no instruction counts: valgrind is not installed (apt-get install valgrind); the moved list then has only CPU-share alarms".into());
            None
        }
    }
}

/// How the measuring ended, for both sides' manifests.
struct Closing<'a> {
    /// The studies (the sides' reports describe them).
    program: &'a Program,
    session_start: &'a str,
    /// Not interrupted.
    finished: bool,
    clock: &'a PhaseSeconds,
    schedule: Option<&'a Schedule>,
}

/// The before-after folder and its two run folders with their manifests.
struct Folder {
    dir: PathBuf,
    /// `before/` and `after/`.
    runs: [PathBuf; 2],
    manifests: Vec<RunManifest>,
}

impl Folder {
    /// Reserves the folder, places the children (the CPU, into `settings`) and writes each
    /// side's first `run.json`.
    fn open(
        program: &Program,
        req: &Request,
        sides: &[&SideRecord; 2],
        configs: &[Config],
        settings: &mut Settings,
    ) -> Result<Folder> {
        std::fs::create_dir_all(&req.out)
            .with_context(|| format!("cannot create {}", req.out.display()))?;
        let name = format!(
            "{}-{}-vs-{}",
            layout::utc_stamp(SystemTime::now()),
            sides[0].git_rev.replace('+', "-"),
            sides[1].git_rev.replace('+', "-")
        );
        let dir = layout::reserve_dir(&req.out, &name)?;
        if settings.seed == 0 {
            settings.seed = placement::clock_seed();
        }
        let placed = placement::place(program, &req.cpu)?;
        settings.pin_cpu = placed.cpu;
        let runs = Side::BOTH.map(|s| dir.join(s.as_str()));
        let mut manifests = Vec::new();
        for (side, run_dir) in sides.iter().zip(&runs) {
            std::fs::create_dir_all(run_dir)
                .with_context(|| format!("cannot create {}", run_dir.display()))?;
            let mut m = super::new_manifest(program, configs, settings.clone(), placed.clone());
            m.git_rev = side.git_rev.clone();
            write_json(&run_dir.join(layout::RUN_JSON), &m)?;
            manifests.push(m);
        }
        Ok(Folder {
            dir,
            runs,
            manifests,
        })
    }

    /// Closes both sides' manifests and writes their reports.
    fn finish(
        &mut self,
        results: &[ConfigResult],
        closing: &Closing,
        sides: &[&SideRecord; 2],
        notes: &mut Vec<String>,
    ) -> Result<()> {
        for (k, m) in self.manifests.iter_mut().enumerate() {
            let mine: Vec<&ConfigResult> = results.iter().skip(k).step_by(2).collect();
            finish_manifest(
                m,
                &mine,
                closing.session_start,
                closing.finished,
                closing.clock,
            );
            m.schedules.extend(closing.schedule.cloned());
            write_json(&self.runs[k].join(layout::RUN_JSON), m)?;
            if let Err(e) = crate::render::report::write(closing.program, &self.runs[k]) {
                notes.push(format!(
                    "the {} side's report.html was not written: {}",
                    sides[k].label,
                    crate::error::one_line(&e)
                ));
            }
        }
        Ok(())
    }
}

/// Each unit's CPU, allocation and instructions recordings (each by its own side's binary),
/// and its `result.json`; in `settings.jobs` slots side by side when both sides' executors may
/// be shared ([`super::slots::in_slots`]), else one after another.
fn profile_units(
    units: &[Unit],
    results: &mut [ConfigResult],
    profiling: &super::Profiling,
    clock: &mut PhaseSeconds,
) -> Result<()> {
    let started = Instant::now();
    let shared: Option<Vec<&(dyn super::Executor + Sync)>> =
        units.iter().map(|unit| unit.exec.shared()).collect();
    let outcome = match shared.filter(|_| profiling.settings.jobs > 1 && units.len() > 1) {
        Some(execs) => {
            let items: Vec<_> = units
                .iter()
                .map(|unit| (unit.config, unit.dir.as_path()))
                .zip(execs)
                .zip(results.iter_mut())
                .collect();
            // Only what may be shared goes into the slots (not `profiling`'s own executor).
            let (valgrind, progress, program) =
                (profiling.valgrind, profiling.progress, profiling.program);
            let (slots, _, outcome) = super::slots::in_slots(
                profiling.settings,
                items.into_iter(),
                |settings, (((config, dir), exec), result), slot| {
                    let side = super::Profiling {
                        exec,
                        program,
                        settings,
                        valgrind,
                        progress,
                    };
                    profile_unit(&side, config, dir, result, slot)
                },
            );
            clock.add_recordings(&slots);
            outcome
        }
        None => (|| {
            for (unit, result) in units.iter().zip(results.iter_mut()) {
                let side = super::Profiling {
                    exec: unit.exec,
                    ..*profiling
                };
                if profile_unit(&side, unit.config, &unit.dir, result, clock)?.is_none() {
                    break;
                }
            }
            Ok(())
        })(),
    };
    clock.recordings += started.elapsed().as_secs_f64();
    outcome
}

/// One unit's recordings by `side`'s executor and its `result.json`; `None` when the run was
/// interrupted.
fn profile_unit(
    side: &super::Profiling,
    config: &Config,
    dir: &Path,
    result: &mut ConfigResult,
    clock: &mut PhaseSeconds,
) -> Result<Option<()>> {
    if interrupt::interrupted() {
        return Ok(None);
    }
    side.profile(config, dir, result, clock);
    if interrupt::interrupted() {
        return Ok(None);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_json(&dir.join(layout::RESULT_JSON), &*result)?;
    side.progress.finish_config(result);
    Ok(Some(()))
}

/// The rows of the configurations both sides finished (compared with `compare_runs`), and why
/// each other one was not compared.
fn compare_sides(
    folder: &Folder,
    configs: &[Config],
    units: &[Unit],
    results: &[ConfigResult],
    sides: &[&SideRecord; 2],
    layouts: bool,
) -> Result<(Vec<Row>, Vec<String>)> {
    let complete = |i: usize| {
        [2 * i, 2 * i + 1].iter().all(|&u| {
            units[u].dir.join(layout::RESULT_JSON).is_file() && results[u].time_ns.is_some()
        })
    };
    let mut not_compared = Vec::new();
    for (i, config) in configs.iter().enumerate().filter(|(i, _)| !complete(*i)) {
        let why: Vec<String> = [2 * i, 2 * i + 1]
            .iter()
            .filter_map(|&u| {
                results[u]
                    .error
                    .as_ref()
                    .map(|e| format!("{} side: {e}", sides[u % 2].label))
            })
            .collect();
        let why = match why.is_empty() {
            true => "not finished".to_string(),
            false => why.join("; "),
        };
        not_compared.push(format!("{}: {why}", config.info.name()));
    }
    let both: Vec<String> = (0..configs.len())
        .filter(|&i| complete(i))
        .map(|i| configs[i].info.name())
        .collect();
    if both.is_empty() {
        return Ok((Vec::new(), not_compared));
    }
    let report = super::compare::compare_runs(
        (folder.runs[0].clone(), &folder.manifests[0]),
        (folder.runs[1].clone(), &folder.manifests[1]),
        Some(&folder.dir),
    )?;
    let rows = report
        .comparisons
        .into_iter()
        .map(|c| Row::new(c, layouts))
        .filter(|r| both.contains(&r.config))
        .collect();
    Ok((rows, not_compared))
}

/// Writes the table (`before-after.txt`) and the page (`before-after.html`) of `record` into
/// its folder `dir`; `serprof report` calls it again on a finished folder. Returns the page.
pub(crate) fn write_views(record: &BeforeAfterRecord, dir: &Path) -> Result<PathBuf> {
    write_atomic(
        &dir.join(layout::BEFORE_AFTER_TXT),
        crate::render::before_after::table(record).as_bytes(),
    )?;
    let page = dir.join(layout::BEFORE_AFTER_HTML);
    write_atomic(
        &page,
        crate::render::before_after::page(record, dir).as_bytes(),
    )?;
    Ok(page)
}

/// Closes a side's manifest: its session, failures, warnings, end.
fn finish_manifest(
    m: &mut RunManifest,
    results: &[&ConfigResult],
    start: &str,
    finished: bool,
    clock: &PhaseSeconds,
) {
    let now = utc_rfc3339(SystemTime::now());
    m.sessions.push(Session {
        start: start.to_string(),
        end: now.clone(),
        git_rev: m.git_rev.clone(),
        kept: Vec::new(),
        measured: results
            .iter()
            .map(|r| crate::model::ConfigId::new(&r.study, &r.config))
            .collect(),
        seconds: clock.clone(),
    });
    super::record_outcomes(m, results);
    m.end = Some(now);
    m.complete = finished && results.len() == m.configs.len();
}
