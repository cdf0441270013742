//! The instructions recording's parent side: after the instrumented worker (see
//! [`super::executor::instrumented`]) has run, read callgrind's dump of the counted call, check
//! that it holds exactly that call of the measured loop, and write the figures,
//! `instructions.folded` and `instructions.svg`. Parsing runs here, natively, not in the
//! instrumented child (where it would run 50 times slower).

use std::path::Path;
use std::time::Instant;

use crate::model::Planned;
use anyhow::{Context, Result};

use super::executor::{callgrind_dumps, Executor, Outcome};
use crate::analyze::callgrind::{base_name, Event, FoldOptions, Profile};
use crate::layout::{self, write_atomic};
use crate::model::Recording;
use crate::model::{Failure, InstructionStats, InstructionsFailure, Settings};
use crate::profile::folded::Folded;
use crate::profile::sources::Sources;
use crate::render::flame::{flame_svg, Kind};
use crate::render::speedscope::{speedscope_json, WeightUnit};

/// Runs the instrumented worker of `config` in `dir` and reads its counts.
pub(crate) fn record(
    exec: &dyn Executor,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    tool_version: &str,
) -> std::result::Result<InstructionStats, Failure> {
    let id = config.id();
    let started = Instant::now();
    let outcome = exec
        .record(&id, Recording::Instructions, dir, settings)
        .map_err(Failure::of)?;
    let seconds = started.elapsed().as_secs_f64();
    let ops = match outcome {
        Outcome::Reported(r) => match (r.error, r.counted_ops) {
            (Some(e), _) => return Err(e),
            (None, Some(ops)) => ops,
            (None, None) => {
                return Err(Failure::Silent {
                    recording: Recording::Instructions,
                })
            }
        },
        Outcome::Crashed(why) => return Err(why),
    };
    let loop_fn = &*config.info().loop_function;
    let stats = read_counts(dir, &config.name(), loop_fn, ops, tool_version, seconds);
    let _ = std::fs::remove_file(dir.join(layout::INSTRUCTIONS_JOB));
    for dump in callgrind_dumps(dir) {
        let _ = std::fs::remove_file(dump);
    }
    stats.map_err(Failure::of)
}

/// A count that cannot be read, as an error that keeps its kind.
fn no_count(reason: InstructionsFailure) -> anyhow::Error {
    anyhow::Error::new(Failure::Instructions { reason })
}

/// The counted dump: the one written after the second (counted) call of the loop, which
/// callgrind names `<out>.2` (`.1` is the uncounted pass; the file without a number is what
/// ran after, at exit).
fn counted_dump(dir: &Path) -> Result<std::path::PathBuf> {
    let path = dir.join(format!("{}.2", layout::CALLGRIND_OUT));
    if !path.is_file() {
        return Err(no_count(InstructionsFailure::NoDump {
            path: path.display().to_string(),
        }));
    }
    Ok(path)
}

/// Reads the counted dump, checks it, writes the profile files; the figures.
pub(crate) fn read_counts(
    dir: &Path,
    name: &str,
    loop_fn: &str,
    ops: u64,
    tool_version: &str,
    seconds: f64,
) -> Result<InstructionStats> {
    let path = counted_dump(dir)?;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let shown = || path.display().to_string();
    let profile = Profile::parse(&text).map_err(|e| {
        no_count(InstructionsFailure::Unreadable {
            path: shown(),
            message: e.to_string(),
        })
    })?;
    let ir = profile
        .event("Ir")
        .ok_or_else(|| no_count(InstructionsFailure::NoInstructions { path: shown() }))?;
    let total = profile.total(ir);
    let loops: Vec<usize> = (0..profile.functions.len())
        .filter(|&i| {
            base_name(&profile.functions[i].name) == loop_fn
                && profile.functions[i].inclusive[ir] > 0
        })
        .collect();
    if loops.is_empty() || total == 0 {
        return Err(no_count(InstructionsFailure::NothingCounted {
            loop_fn: loop_fn.to_string(),
        }));
    }
    let inside: u64 = loops
        .iter()
        .map(|&i| profile.functions[i].inclusive[ir])
        .sum();
    if inside != total {
        return Err(no_count(InstructionsFailure::MoreThanTheCall {
            total,
            inside,
            loop_fn: loop_fn.to_string(),
        }));
    }
    let folded = profile.folded(&FoldOptions {
        event: ir,
        roots: Some(loops.clone()),
        ..FoldOptions::default()
    });
    let mut ours = Folded::default();
    for (frames, count) in folded.iter() {
        ours.add(name, &frames, count);
    }
    let mut sources = Sources::default();
    for f in &profile.functions {
        let file = (f.file != "???").then_some(f.file.as_str());
        sources.note(base_name(&f.name), file, Some(&f.object));
    }
    write_atomic(
        &dir.join(layout::INSTRUCTIONS_SOURCES),
        sources.to_text().as_bytes(),
    )?;
    write_atomic(
        &dir.join(layout::INSTRUCTIONS_SPEEDSCOPE),
        &speedscope_json(
            &ours,
            &sources,
            &format!("{name} (instructions)"),
            WeightUnit::None,
        ),
    )?;
    let folded_text = ours.to_text();
    write_atomic(
        &dir.join(layout::INSTRUCTIONS_FOLDED),
        folded_text.as_bytes(),
    )?;
    let per_op = total as f64 / ops as f64;
    let mut profile = profile;
    let simulated = simulated_counts(&mut profile, ops);
    for event in [Event::BranchMispredicts, Event::D1Misses, Event::LlMisses] {
        let Some(column) = event.column(&mut profile) else {
            continue;
        };
        let mut folded = Folded::default();
        let stacks = profile.folded(&FoldOptions {
            event: column,
            roots: Some(loops.clone()),
            ..FoldOptions::default()
        });
        for (frames, count) in stacks.iter() {
            folded.add(name, &frames, count);
        }
        write_atomic(&dir.join(event.folded_file()), folded.to_text().as_bytes())?;
    }
    let subtitle = format!(
        "{} instructions per operation over {ops} operations (callgrind, {tool_version}; valgrind's emulated CPU)",
        crate::render::table::format_thousands(per_op, 1)
    );
    let svg = flame_svg(
        &folded_text,
        Kind::Instructions,
        &format!("{name} (instructions)"),
        &subtitle,
    )?;
    write_atomic(&dir.join(layout::INSTRUCTIONS_SVG), &svg)?;
    std::fs::copy(&path, dir.join(layout::INSTRUCTIONS_CALLGRIND))
        .with_context(|| format!("cannot keep {}", path.display()))?;
    Ok(InstructionStats {
        per_op,
        ops,
        total,
        loop_fn: loop_fn.to_string(),
        tool_version: tool_version.to_string(),
        seconds,
        ..simulated
    })
}

/// The simulated counts per operation of `profile` (a dump of `ops` operations); each `None`
/// when the dump lacks its columns.
fn simulated_counts(profile: &mut Profile, ops: u64) -> InstructionStats {
    let mut per_op = |columns: &[&str], name: &str| {
        let column = profile.derive_event(name, columns)?;
        Some(profile.total(column) as f64 / ops.max(1) as f64)
    };
    InstructionStats {
        data_reads_per_op: per_op(&["Dr"], "Dr"),
        data_writes_per_op: per_op(&["Dw"], "Dw"),
        branches_per_op: per_op(&["Bc", "Bi"], "branches"),
        branch_mispredicts_per_op: per_op(
            Event::BranchMispredicts.columns(),
            Event::BranchMispredicts.name(),
        ),
        d1_misses_per_op: per_op(Event::D1Misses.columns(), Event::D1Misses.name()),
        ll_misses_per_op: per_op(Event::LlMisses.columns(), Event::LlMisses.name()),
        ..InstructionStats::default()
    }
}
