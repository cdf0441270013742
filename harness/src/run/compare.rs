//! Comparing two measurements on disk (`serprof compare`, and the runner's before/after steps):
//! what changed between them.
//!
//! Each side is a configuration folder (holds `result.json`) or a run folder (holds `run.json`;
//! then every configuration present in both runs is compared). Both sides must be of one kind.
//! Per configuration: the time ratio after/before with a 95% interval (bootstrap over batches,
//! or the interleaved pair ratios when both sides come from one `serprof ab` folder), payload
//! and allocation deltas, the functions whose share of CPU samples moved (see
//! [`crate::analyze::compare`] for the rule), and two differential flame graphs.
//!
//! Where the outputs go (`RUN` is the folder holding a configuration folder, that is its
//! grandparent for a run's `<study>/<config>`, or the ab folder for `<ab>/A`):
//! - with `--out DIR`: configuration folders write into `DIR/`; run folders into
//!   `DIR/<study>/<config>/` plus a summary `DIR/compare.json`;
//! - otherwise, under the AFTER side's run, so the report can link them:
//!   `<AFTER_RUN>/compare/<BEFORE_RUN_NAME>/<study>/<config>/` for run folders (summary in
//!   `<AFTER_RUN>/compare/<BEFORE_RUN_NAME>/compare.json`), and for configuration folders the
//!   same path when both are the same configuration, else
//!   `<AFTER_RUN>/compare/<BEFORE_RUN_NAME>/<after study>/<before config>__vs__<after config>/`.
//!
//! Each output folder holds `compare.json` (one [`ConfigComparison`]), `diff.svg` (shape of
//! AFTER: red grew, blue shrank from BEFORE to AFTER, counts normalised to equal totals) and
//! `diff-reverse.svg` (shape of BEFORE, the same data drawn from the other side, so that
//! frames that vanished in AFTER can be seen). Paths are resolved first, so `latest` becomes
//! the run's id in these names.
//!
//! Bad input is a one-line misuse error (exit 2) naming the folder: a missing folder, a folder
//! that is neither kind, a missing or corrupt `result.json`/`run.json`/`cpu.folded`, sides of
//! different datasets or operations, or run folders with no configuration in common.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::analyze::compare::{
    compare_results, incompatibility, moved_rule, with_root, ConfigComparison,
};
use crate::error::misuse_err;
use crate::layout::{self, read_json, write_atomic, write_json};
use crate::misuse;
use crate::model::ab::AbRecord;
use crate::model::{ConfigId, ConfigResult, InstructionStats, RunManifest};
use crate::profile::folded::Folded;
use crate::render::flame::{diff_svg, diff_svg_of};
use crate::render::table::format_thousands;

/// What a side of the comparison is.
pub(crate) enum Compared {
    /// A configuration folder and its `result.json` (boxed: it is much larger than a path).
    Config(PathBuf, Box<ConfigResult>),
    /// A run folder and its `run.json`.
    Run(PathBuf, Box<RunManifest>),
}

/// Resolves and reads one side; every problem is a misuse error naming the folder.
pub(crate) fn open(path: &Path) -> Result<Compared> {
    if !path.exists() {
        misuse!("{}: no such folder", path.display());
    }
    if !path.is_dir() {
        misuse!(
            "{} is not a folder: give a run folder (with run.json) or a configuration folder (with result.json)",
            path.display()
        );
    }
    let dir = path
        .canonicalize()
        .map_err(|e| misuse_err(format!("cannot resolve {}: {e}", path.display())))?;
    if dir.join(layout::RESULT_JSON).exists() {
        let result = read_json(&dir.join(layout::RESULT_JSON))?;
        Ok(Compared::Config(dir, Box::new(result)))
    } else if dir.join(layout::RUN_JSON).exists() {
        let manifest = read_json(&dir.join(layout::RUN_JSON))?;
        Ok(Compared::Run(dir, Box::new(manifest)))
    } else {
        misuse!(
            "{} is neither a configuration folder (no result.json) nor a run folder (no run.json)",
            path.display()
        )
    }
}

/// The run (or ab) folder a configuration folder belongs to: the nearest of its parent and
/// grandparent holding `run.json` or `ab.json`, else its parent.
fn run_of(config_dir: &Path) -> PathBuf {
    let parent = config_dir.parent().unwrap_or(config_dir);
    [Some(parent), parent.parent()]
        .into_iter()
        .flatten()
        .find(|d| d.join(layout::RUN_JSON).is_file() || d.join(layout::AB_JSON).is_file())
        .unwrap_or(parent)
        .to_path_buf()
}

fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into())
}

/// The default output folder of two configuration folders (see the module doc).
fn config_out(before: &Path, after: &Path) -> PathBuf {
    let (run_b, run_a) = (run_of(before), run_of(after));
    let base = run_a.join(layout::COMPARE_DIR).join(name_of(&run_b));
    let rel_b = before.strip_prefix(&run_b).unwrap_or(before);
    let rel_a = after.strip_prefix(&run_a).unwrap_or(after);
    if rel_b == rel_a {
        return base.join(rel_a);
    }
    let parent = rel_a.parent().unwrap_or(Path::new(""));
    base.join(parent)
        .join(format!("{}__vs__{}", name_of(before), name_of(after)))
}

/// Both sides' pair ratios after/before, when they are the `A` and `B` of one ab folder.
fn ab_pair_ratios(before: &Path, after: &Path) -> Result<Option<Vec<f64>>> {
    let (Some(pb), Some(pa)) = (before.parent(), after.parent()) else {
        return Ok(None);
    };
    let ab_json = pa.join(layout::AB_JSON);
    if pb != pa || !ab_json.is_file() {
        return Ok(None);
    }
    let mut record: AbRecord = read_json(&ab_json)?;
    // Across processes when the folder has them (the pooled pairs' interval is too narrow).
    if !record.process_ratios.is_empty() {
        record.pair_ratios = record.process_ratios;
    }
    Ok(match (name_of(before).as_str(), name_of(after).as_str()) {
        (b, a) if [b, a] == layout::AB_SIDES => Some(record.pair_ratios),
        (b, a) if [a, b] == layout::AB_SIDES => {
            Some(record.pair_ratios.iter().map(|r| 1.0 / r).collect())
        }
        _ => None,
    })
}

/// A configuration's CPU profile: `None` (with a note) when it has none or an empty one; a
/// corrupt file is a misuse error naming it.
fn profile(dir: &Path, notes: &mut Vec<String>) -> Result<Option<Folded>> {
    folded_file(dir, layout::CPU_FOLDED, notes)
}

/// A configuration's folded profile `name`, as [`profile`] reads the CPU one.
fn folded_file(dir: &Path, name: &str, notes: &mut Vec<String>) -> Result<Option<Folded>> {
    let file = dir.join(name);
    if !file.exists() {
        notes.push(format!(
            "no {name} in {}: no moved functions or flame graphs from it",
            dir.display()
        ));
        return Ok(None);
    }
    let text = std::fs::read_to_string(&file)
        .map_err(|e| misuse_err(format!("cannot read {}: {e}", file.display())))?;
    let folded = Folded::parse(&text)
        .map_err(|e| misuse_err(format!("{} is not a folded profile: {e}", file.display())))?;
    if folded.total() == 0 {
        notes.push(format!("{} holds no samples", file.display()));
        return Ok(None);
    }
    Ok(Some(folded))
}

/// Compares two configuration folders and writes `compare.json` and the flame graphs to `out`.
fn compare_dirs(
    before_dir: &Path,
    before: &ConfigResult,
    after_dir: &Path,
    after: &ConfigResult,
    out: &Path,
) -> Result<ConfigComparison> {
    if let Some(why) = incompatibility(before, after) {
        misuse!(
            "{}: {why} ({}); compare configurations of one dataset and operation",
            after_dir.display(),
            before_dir.display()
        );
    }
    let pairs = ab_pair_ratios(before_dir, after_dir)?;
    let mut notes = Vec::new();
    let profiles = profile(before_dir, &mut notes)?.zip(profile(after_dir, &mut notes)?);
    // The instruction profiles, when both sides were counted.
    let counted = before.instructions.is_some() && after.instructions.is_some();
    let instruction_profiles = if counted {
        let before_counts = folded_file(before_dir, layout::INSTRUCTIONS_FOLDED, &mut notes)?;
        let after_counts = folded_file(after_dir, layout::INSTRUCTIONS_FOLDED, &mut notes)?;
        before_counts.zip(after_counts)
    } else {
        None
    };
    let mut cmp = compare_results(
        before,
        after,
        profiles.as_ref().map(|(b, a)| (b, a)),
        pairs.as_deref(),
        instruction_profiles.as_ref().map(|(b, a)| (b, a)),
    );
    cmp.notes.extend(notes);
    cmp.before_dir = before_dir.display().to_string();
    cmp.after_dir = after_dir.display().to_string();
    cmp.out_dir = out.display().to_string();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    if let Some((b, a)) = &profiles {
        write_cpu_diffs(&mut cmp, b, a, out)?;
    }
    if let (Some((b, a)), Some(bi), Some(ai)) = (
        &instruction_profiles,
        &before.instructions,
        &after.instructions,
    ) {
        write_instructions_diff(&mut cmp, (b, bi), (a, ai), out)?;
    }
    write_json(&out.join(layout::COMPARE_JSON), &cmp)?;
    Ok(cmp)
}

/// The root frame of a comparison's differential flame graphs: the configuration, or both
/// when the sides are different configurations.
fn diff_root(cmp: &ConfigComparison) -> String {
    if cmp.before == cmp.after {
        cmp.after.clone()
    } else {
        format!("{} vs {}", cmp.before, cmp.after)
    }
}

/// Writes a drawn flame graph to `out/file` and returns its path; a graph that could not be
/// drawn is a note instead, and `None`.
fn write_graph(
    out: &Path,
    file: &str,
    svg: Result<Vec<u8>>,
    notes: &mut Vec<String>,
) -> Result<Option<String>> {
    match svg {
        Ok(bytes) => {
            let path = out.join(file);
            write_atomic(&path, &bytes)?;
            Ok(Some(path.display().to_string()))
        }
        Err(e) => {
            notes.push(format!("{file} not drawn: {}", crate::error::one_line(&e)));
            Ok(None)
        }
    }
}

/// Draws `diff.svg` and `diff-reverse.svg` from both sides' CPU profiles (normalised to equal
/// totals), writes them to `out` and records their paths in `cmp`.
fn write_cpu_diffs(cmp: &mut ConfigComparison, b: &Folded, a: &Folded, out: &Path) -> Result<()> {
    let root = diff_root(cmp);
    let (bt, at) = (with_root(b, &root).to_text(), with_root(a, &root).to_text());
    let counts = format!(
        "before {} samples, after {} samples, normalised to equal totals",
        format_thousands(b.total() as f64, 0),
        format_thousands(a.total() as f64, 0)
    );
    let graphs = [
        (
            layout::DIFF_SVG,
            diff_svg(
                &bt,
                &at,
                &format!("{} -> {}: shape of AFTER", cmp.before, cmp.after),
                &format!("red: grew from BEFORE to AFTER, blue: shrank; {counts}"),
            ),
        ),
        (
            layout::DIFF_REVERSE_SVG,
            diff_svg(
                &at,
                &bt,
                &format!("{} -> {}: shape of BEFORE (reverse)", cmp.before, cmp.after),
                &format!("red: larger in BEFORE (shrank in AFTER), blue: grew in AFTER; {counts}"),
            ),
        ),
    ];
    for (file, svg) in graphs {
        if let Some(path) = write_graph(out, file, svg, &mut cmp.notes)? {
            if file == layout::DIFF_SVG {
                cmp.diff_svg = Some(path);
            } else {
                cmp.diff_reverse_svg = Some(path);
            }
        }
    }
    Ok(())
}

/// Draws `instructions-diff.svg` from both sides' instruction profiles and counts, writes it to
/// `out` and records its path in `cmp`.
fn write_instructions_diff(
    cmp: &mut ConfigComparison,
    (b, bi): (&Folded, &InstructionStats),
    (a, ai): (&Folded, &InstructionStats),
    out: &Path,
) -> Result<()> {
    // Per operation on both sides, so the counts compare as they are.
    let root = diff_root(cmp);
    let per_op = |f: &Folded, ops: u64| {
        let mut scaled = with_root(f, &root);
        for v in scaled.stacks.values_mut() {
            *v = (*v as f64 / ops.max(1) as f64).round() as u64;
        }
        scaled.to_text()
    };
    let svg = diff_svg_of(
        &per_op(b, bi.ops),
        &per_op(a, ai.ops),
        &format!(
            "{} -> {}: instructions per operation",
            cmp.before, cmp.after
        ),
        &format!(
            "red: more instructions in AFTER, blue: fewer; {} -> {} per operation, not normalised",
            format_thousands(bi.per_op, 1),
            format_thousands(ai.per_op, 1)
        ),
        false,
        "instructions",
    );
    if let Some(path) = write_graph(out, layout::INSTRUCTIONS_DIFF_SVG, svg, &mut cmp.notes)? {
        cmp.instructions_diff_svg = Some(path);
    }
    Ok(())
}

/// The configurations of a run whose `result.json` exists, in the manifest's order.
fn present<'m>(dir: &Path, manifest: &'m RunManifest) -> Vec<&'m ConfigId> {
    manifest
        .configs
        .iter()
        .filter(|id| {
            layout::config_dir(dir, id)
                .join(layout::RESULT_JSON)
                .is_file()
        })
        .collect()
}

/// The whole comparison: printed with `--json`, and written as the summary `compare.json` of
/// two run folders.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    /// `configurations` or `runs`.
    pub kind: &'static str,
    pub before: PathBuf,
    pub after: PathBuf,
    pub out_dir: PathBuf,
    pub moved_rule: String,
    pub comparisons: Vec<ConfigComparison>,
    /// Configurations present in only one of two run folders (not compared).
    pub only_before: Vec<String>,
    pub only_after: Vec<String>,
}

/// Compares two configurations of one run as measured (their folders hold their profiles),
/// writing into the default place under the run
/// (`<RUN>/compare/<RUN_NAME>/<study>/<before>__vs__<after>/`). The runner calls this for the
/// before/after steps of a study (its `StudyInfo::steps`), so the report links each
/// step's differential flame graph.
pub(crate) fn compare_step(
    (before_dir, before): (&Path, &ConfigResult),
    (after_dir, after): (&Path, &ConfigResult),
) -> Result<ConfigComparison> {
    let out = config_out(before_dir, after_dir);
    compare_dirs(before_dir, before, after_dir, after, &out)
}

/// Compares two configuration folders.
pub(crate) fn compare_configs(
    (bd, br): (PathBuf, &ConfigResult),
    (ad, ar): (PathBuf, &ConfigResult),
    out: Option<&Path>,
) -> Result<Report> {
    let out_dir = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| config_out(&bd, &ad));
    let cmp = compare_dirs(&bd, br, &ad, ar, &out_dir)?;
    Ok(Report {
        kind: "configurations",
        before: bd,
        after: ad,
        out_dir,
        moved_rule: moved_rule(),
        comparisons: vec![cmp],
        only_before: Vec::new(),
        only_after: Vec::new(),
    })
}

/// Compares every configuration two run folders have in common, their results read from the
/// folders.
pub(crate) fn compare_runs(
    (bd, bm): (PathBuf, &RunManifest),
    (ad, am): (PathBuf, &RunManifest),
    out: Option<&Path>,
) -> Result<Report> {
    let read = |dir: &Path, manifest: &RunManifest| -> Result<Vec<ConfigResult>> {
        present(dir, manifest)
            .iter()
            .map(|id| read_json(&layout::config_dir(dir, id).join(layout::RESULT_JSON)))
            .collect()
    };
    let (rb, ra) = (read(&bd, bm)?, read(&ad, am)?);
    let (rb, ra): (Vec<&ConfigResult>, Vec<&ConfigResult>) =
        (rb.iter().collect(), ra.iter().collect());
    compare_measured((bd, &rb), (ad, &ra), out)
}

/// Compares every configuration two measured runs have in common, from their results as
/// measured (each run's folder holds their profiles), into `out` (default: the after run's
/// `compare/<before run's name>/`); writes the summary `compare.json` there.
pub(crate) fn compare_measured(
    (bd, rb): (PathBuf, &[&ConfigResult]),
    (ad, ra): (PathBuf, &[&ConfigResult]),
    out: Option<&Path>,
) -> Result<Report> {
    let names = |rs: &[&ConfigResult]| rs.iter().map(|r| r.name()).collect::<Vec<_>>();
    let (pb, pa) = (names(rb), names(ra));
    let common: Vec<(&ConfigResult, &ConfigResult)> = ra
        .iter()
        .filter_map(|&a| Some((*rb.iter().find(|b| b.id() == a.id())?, a)))
        .collect();
    if common.is_empty() {
        misuse!(
            "{} and {} have no configuration in common: before has [{}], after has [{}]",
            bd.display(),
            ad.display(),
            pb.join(", "),
            pa.join(", ")
        );
    }
    let out_dir = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ad.join(layout::COMPARE_DIR).join(name_of(&bd)));
    let mut comparisons = Vec::new();
    for (b, a) in common {
        let cb = layout::config_dir(&bd, &b.id());
        let ca = layout::config_dir(&ad, &a.id());
        let into = layout::config_dir(&out_dir, &a.id());
        comparisons.push(compare_dirs(&cb, b, &ca, a, &into)?);
    }
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|n| !y.contains(n)).cloned().collect()
    };
    let report = Report {
        kind: "runs",
        only_before: only(&pb, &pa),
        only_after: only(&pa, &pb),
        before: bd,
        after: ad,
        out_dir,
        moved_rule: moved_rule(),
        comparisons,
    };
    write_json(&report.out_dir.join(layout::COMPARE_JSON), &report)?;
    Ok(report)
}
