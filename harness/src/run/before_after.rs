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

use crate::model::Planned;
use anyhow::{Context, Result};

use super::executor::{ChildProcesses, Executor};
use super::lane::LaneKind;
use super::session::{Opening, RunFolder, Session, SessionEnd};
use super::timing::TimedLane;
use super::{placement, plan, sides, Unit};
use crate::analyze::before_after::{
    cpu_alarm_rule, BeforeAfterRecord, BySide, Layout, Row, Side, SideRecord, INSTRUCTION_MOVE_RULE,
};
use crate::analyze::moved::SetProfile;
use crate::layout::{self, write_atomic, write_json};
use crate::misuse;
use crate::model::lockstep::Placement;
use crate::model::{ConfigResult, Program, Settings};

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
/// CPU time of each timing child's profile of each configuration it holds, after its rounds,
/// in milliseconds (`--no-functions`: none): about 400 samples at 3,989 Hz per layout, side
/// and configuration, 16,000 per side over 40 layouts. For four configurations and 40 layouts,
/// 4 x 40 x 2 x 0.1 s = 32 s of sampled loops on top of the timing.
pub(crate) const FUNCTIONS_MS: u64 = 100;
/// Rounds of each timing child at least when layouts are sampled (a run's: 30).
pub(crate) const LAYOUT_ROUNDS: usize = 12;

/// What to measure, once both sides are built.
#[derive(Debug, Clone)]
pub(crate) struct BeforeAfterRequest {
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
) -> Result<(Vec<Planned>, Vec<String>)> {
    let all = plan::select(program, studies_, globs)?;
    let measured = |c: &Planned| !program.is_corrupt(&c.info().study);
    let left: Vec<String> = all
        .iter()
        .filter(|c| !measured(c))
        .map(|c| c.name())
        .collect();
    let configs: Vec<Planned> = all.into_iter().filter(measured).collect();
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
    req: &BeforeAfterRequest,
    before: &SideRecord,
    after: &SideRecord,
    mut notes: Vec<String>,
) -> Result<BeforeAfterRecord> {
    let (configs, selection_notes) = select(program, &req.studies, &req.configs)?;
    notes.extend(selection_notes);
    let execs = BySide {
        before: driver(program, before)?,
        after: driver(program, after)?,
    };
    let mut settings = req.settings.clone();
    no_valgrind_note(&mut settings, &mut notes);
    let started = Instant::now();
    let mut sides = BySide {
        before: before.clone(),
        after: after.clone(),
    };
    settings.seed = placement::seed_or_clock(settings.seed);
    let wanted = req.layouts;
    let linking = Instant::now();
    link_both_sides(
        sides.as_mut(),
        req.layout_mode,
        (wanted, settings.seed),
        &mut notes,
        req.quiet,
    );
    let linking = linking.elapsed().as_secs_f64();
    let layout_execs: BySide<Vec<ChildProcesses>> = sides
        .as_ref()
        .map(|_, side| {
            side.layouts
                .iter()
                .map(|l| ChildProcesses::of(Path::new(&l.exe), program))
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    if wanted >= 2 {
        // One set of timing children per layout: each set is an independent pair of layouts,
        // which the interval over layouts needs.
        settings.processes = wanted;
    }
    // The machine is this before-after's from the CPU probe that places its children to its
    // last recording; the links above and the comparison below overlap others.
    let opening = Opening {
        exec: &execs.before,
        cpu: Some(&req.cpu),
        settings,
        quiet: req.quiet,
        units: Some(2 * configs.len() as u64),
    };
    let opened = Session::open(program, opening).and_then(|session| {
        let folder = Folder::open(&session, req, &sides, &configs)?;
        Ok((session, folder))
    });
    let (mut session, mut folder) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            remove_layouts(&sides);
            return Err(e);
        }
    };
    session.clock.layouts = linking;
    let sampled = layout_execs.iter().all(|(_, l)| l.len() > 1);

    // Timing: one lane per side, its children taking turns with the other side's.
    let lanes: Vec<TimedLane> = Side::BOTH
        .into_iter()
        .map(|side| {
            let exec: &dyn Executor = execs.get(side);
            let run_dir = &folder.runs.get(side).dir;
            TimedLane {
                kind: LaneKind::Side(side),
                layouts: layout_execs
                    .get(side)
                    .iter()
                    .map(|e| e as &dyn Executor)
                    .collect(),
                units: configs
                    .iter()
                    .map(|config| Unit {
                        label: format!("{side} {}", config.name()),
                        ..Unit::in_run(exec, config, run_dir)
                    })
                    .collect(),
            }
        })
        .collect();
    let placement = match req.split {
        true => Some(split_placement(session.pinned_cpu())?),
        false => None,
    };
    let mut timings = session.time(&lanes, placement);
    let mut measured: BySide<Measured> = BySide::new(|side| Measured {
        units: Vec::new(),
        results: timings.take(LaneKind::Side(side)),
        profiles: timings.take_profiles(LaneKind::Side(side)),
        finished: Vec::new(),
    });
    for (lane, (_, m)) in lanes.into_iter().zip(measured.iter_mut()) {
        m.units = lane.units;
    }
    // The layouts' timing children are gone: their binaries are not needed again.
    remove_layouts(&sides);
    record_both(&mut session, &mut measured)?;
    let settings = session.settings.clone();
    let ended = session.end();
    folder.close(program, &ended, &measured, &mut notes)?;
    if ended.interrupted {
        notes.push("interrupted: the configurations not finished are not compared".into());
    }
    let (rows, not_compared) = compare_sides(&folder, &configs, &measured, sampled)?;
    let BySide { before, after } = sides;
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
    let runs = folder
        .runs
        .as_ref()
        .map(|_, run| run.dir.display().to_string());
    let record = BeforeAfterRecord {
        before: before.clone(),
        after: after.clone(),
        out_dir: folder.dir.display().to_string(),
        before_run: runs.before,
        after_run: runs.after,
        settings,
        rows,
        not_compared,
        cpu_alarm_rule: cpu_alarm_rule(),
        instruction_move_rule: INSTRUCTION_MOVE_RULE.into(),
        functions_rule: crate::analyze::moved::rule(),
        measure_seconds: started.elapsed().as_secs_f64(),
        seconds: ended.clock,
        binary_diff,
        schedule: ended.schedules.into_iter().next(),
        machine_lock: ended.machine_lock,
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
    mut sides: BySide<&mut SideRecord>,
    mode: sides::LayoutMode,
    (wanted, seed): (usize, u64),
    notes: &mut Vec<String>,
    quiet: bool,
) {
    if wanted < 2 {
        notes.push("layouts not sampled (--layouts below 2): each side is timed as cargo linked it, and a time verdict may be a layout effect".into());
        return;
    }
    let mut why = sides.iter().find_map(|(_, side)| {
        let note = side.layouts_note.as_ref()?;
        Some(format!("the {} side: {note}", side.label))
    });
    let kept = sides.as_ref().map(|_, side| {
        side.link
            .as_deref()
            .and_then(|d| sides::KeptLink::read(Path::new(d)))
    });
    if why.is_none() {
        why = kept
            .iter()
            .find(|(_, k)| k.is_none())
            .map(|(side, _)| format!("the {side} side's kept link is gone"));
    }
    let (
        BySide {
            before: Some(kept_before),
            after: Some(kept_after),
        },
        None,
    ) = (kept, &why)
    else {
        let why = why.unwrap_or_default();
        notes.push(format!(
            "layouts not sampled: {why}; each side is timed as cargo linked it, and a time verdict may be a layout effect"
        ));
        return;
    };
    let kept = BySide {
        before: kept_before,
        after: kept_after,
    };
    let mode = sides::linkable(mode, &[&kept.before, &kept.after], notes);
    // Both sides' links at once, one on each CPU (nothing is timed yet).
    let linked: BySide<Result<Vec<Layout>, sides::LayoutError>> = std::thread::scope(|scope| {
        let spawn = |side: Side| {
            let (record, kept): (&SideRecord, _) = (sides.get(side), kept.get(side));
            scope.spawn(move || {
                sides::link_layouts(record, kept, side as usize, mode, (wanted, seed))
            })
        };
        let handles = BySide::new(spawn);
        handles.map(|_, h| h.join().unwrap_or(Err(sides::LayoutError::Panicked)))
    });
    if let Some(e) = linked.iter().find_map(|(_, r)| r.as_ref().err()) {
        why = Some(e.to_string());
    }
    if why.is_some() {
        linked
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .flatten()
            .for_each(sides::remove_layout);
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
            for ((_, side), (_, layouts)) in sides.iter_mut().zip(linked.iter()) {
                side.layouts = layouts.clone().unwrap_or_default();
            }
        }
    }
}

/// Removes the layouts' binaries once they are timed: a layout is a few seconds' link from its
/// seed and the kept link, and a cache that kept every invocation's layouts would grow by
/// dozens of binaries each time.
fn remove_layouts(sides: &BySide<SideRecord>) {
    for layout in sides.iter().flat_map(|(_, s)| &s.layouts) {
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

/// Without valgrind, no instruction counts and a note saying so.
fn no_valgrind_note(settings: &mut Settings, notes: &mut Vec<String>) {
    if settings.instructions && super::executor::valgrind_version().is_err() {
        settings.instructions = false;
        notes.push("no instruction counts: valgrind is not installed (apt-get install valgrind); the moved list then has only CPU-share alarms".into());
    }
}

/// The before-after folder and its two run folders.
struct Folder {
    dir: PathBuf,
    /// `before/` and `after/`.
    runs: BySide<RunFolder>,
}

/// One side as measured: its units (one per configuration), their results, and whether each
/// one's recordings finished, in one order.
struct Measured<'a> {
    units: Vec<Unit<'a>>,
    results: Vec<ConfigResult>,
    /// Per unit, the short CPU profile of each set (layout) it was timed in.
    profiles: Vec<Vec<SetProfile>>,
    finished: Vec<bool>,
}

impl Folder {
    /// Reserves the folder and starts each side's run folder with the session's settings.
    fn open(
        session: &Session,
        req: &BeforeAfterRequest,
        sides: &BySide<SideRecord>,
        configs: &[Planned],
    ) -> Result<Folder> {
        std::fs::create_dir_all(&req.out)
            .with_context(|| format!("cannot create {}", req.out.display()))?;
        let name = format!(
            "{}-{}-vs-{}",
            layout::utc_stamp(SystemTime::now()),
            sides.before.git_rev.replace('+', "-"),
            sides.after.git_rev.replace('+', "-")
        );
        let dir = layout::reserve_dir(&req.out, &name)?;
        let runs = BySide::new(|side| {
            let rev = Some(sides.get(side).git_rev.as_str());
            session.run_folder(dir.join(side.as_str()), configs, rev)
        })
        .transpose()?;
        Ok(Folder { dir, runs })
    }

    /// Closes both sides' manifests after `ended` and writes their reports.
    fn close(
        &mut self,
        program: &Program,
        ended: &SessionEnd,
        measured: &BySide<Measured>,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        for (side, run) in self.runs.iter_mut() {
            let mine: Vec<&ConfigResult> = measured.get(side).results.iter().collect();
            if let Some(e) = run.close(program, ended, Vec::new(), &mine)? {
                notes.push(format!(
                    "the {side} side's report.html was not written: {}",
                    crate::error::one_line(&e)
                ));
            }
        }
        Ok(())
    }
}

/// Each unit's recordings (each by its own side's binary) and its `result.json`, the two sides
/// of a configuration one after the other.
fn record_both(session: &mut Session, measured: &mut BySide<Measured>) -> Result<()> {
    let BySide { before, after } = measured;
    let pairs: Vec<(&Unit, &mut ConfigResult)> = before
        .units
        .iter()
        .zip(before.results.iter_mut())
        .zip(after.units.iter().zip(after.results.iter_mut()))
        .flat_map(|(b, a)| [b, a])
        .collect();
    let mut finished = session.record(pairs)?.into_iter();
    for _ in 0..before.units.len() {
        before.finished.push(finished.next().unwrap_or(false));
        after.finished.push(finished.next().unwrap_or(false));
    }
    Ok(())
}

/// The rows of the configurations both sides finished (compared with `compare_runs`), and why
/// each other one was not compared.
fn compare_sides(
    folder: &Folder,
    configs: &[Planned],
    measured: &BySide<Measured>,
    layouts: bool,
) -> Result<(Vec<Row>, Vec<String>)> {
    let mut not_compared = Vec::new();
    let mut both: BySide<Vec<&ConfigResult>> = BySide::new(|_| Vec::new());
    let side = |m| {
        let m: &Measured = m;
        m.results.iter().zip(m.finished.iter().copied())
    };
    let profiles_of = |m: &Measured, name: &str| -> Vec<SetProfile> {
        let at = m.results.iter().position(|r| r.name() == name);
        at.and_then(|i| m.profiles.get(i))
            .cloned()
            .unwrap_or_default()
    };
    let per_config = configs
        .iter()
        .zip(side(&measured.before))
        .zip(side(&measured.after));
    for ((config, before), after) in per_config {
        let per_side = BySide { before, after };
        let complete = per_side
            .iter()
            .all(|(_, (result, finished))| *finished && result.time_ns.is_some());
        if complete {
            let BySide { before, after } = per_side;
            both.before.push(before.0);
            both.after.push(after.0);
            continue;
        }
        let why: Vec<String> = per_side
            .iter()
            .filter_map(|(side, (result, _))| {
                let error = result.error.as_ref()?;
                Some(format!("{side} side: {error}"))
            })
            .collect();
        let why = match why.is_empty() {
            true => "not finished".to_string(),
            false => why.join("; "),
        };
        not_compared.push(format!("{}: {why}", config.name()));
    }
    if both.before.is_empty() {
        return Ok((Vec::new(), not_compared));
    }
    let report = super::compare::compare_measured(
        (folder.runs.before.dir.clone(), &both.before),
        (folder.runs.after.dir.clone(), &both.after),
        Some(&folder.dir),
    )?;
    let mut rows = Vec::new();
    for c in report.comparisons {
        let Some(results) = BySide::new(|side| {
            let list = both.get(side);
            list.iter().copied().find(|r| r.name() == *c.after.as_str())
        })
        .transpose_option() else {
            rows.push(Row::new(c, layouts));
            continue;
        };
        let profiles = measured.as_ref().map(|_, m| profiles_of(m, &c.after));
        let dirs = BySide::new(|side| {
            let r = results.get(side);
            layout::config_dir(&folder.runs.get(side).dir, &r.id())
        });
        let row = Row::new(c, layouts);
        let sides = BySide::new(|side| {
            (
                dirs.get(side).as_path(),
                *results.get(side),
                profiles.get(side).as_slice(),
            )
        });
        rows.push(super::functions::add_functions(row, sides)?);
    }
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
