//! `serprof compare BEFORE AFTER [--out DIR] [--json]`: what changed between two measurements.
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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::analyze::compare::{
    compact_name, compare_results, incompatibility, moved_rule, with_root, ConfigComparison,
    ShareKind,
};
use crate::analyze::folded::Folded;
use crate::commands::ab::AbRecord;
use crate::error::misuse_err;
use crate::misuse;
use crate::render::flame::diff_svg;
use crate::render::table::{format_ns, format_thousands};
use crate::result::{ConfigResult, RunManifest};
use crate::snapshot::{read_json, write_atomic, write_json};

/// What a side of the comparison is.
enum Side {
    /// A configuration folder and its `result.json` (boxed: it is much larger than a path).
    Config(PathBuf, Box<ConfigResult>),
    /// A run folder and its `run.json`.
    Run(PathBuf, Box<RunManifest>),
}

/// Resolves and reads one side; every problem is a misuse error naming the folder.
fn open(path: &Path) -> Result<Side> {
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
    if dir.join("result.json").exists() {
        let result = read_json(&dir.join("result.json"))?;
        Ok(Side::Config(dir, Box::new(result)))
    } else if dir.join("run.json").exists() {
        let manifest = read_json(&dir.join("run.json"))?;
        Ok(Side::Run(dir, Box::new(manifest)))
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
        .find(|d| d.join("run.json").is_file() || d.join("ab.json").is_file())
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
    let base = run_a.join("compare").join(name_of(&run_b));
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
    let ab_json = pa.join("ab.json");
    if pb != pa || !ab_json.is_file() {
        return Ok(None);
    }
    let record: AbRecord = read_json(&ab_json)?;
    Ok(match (name_of(before).as_str(), name_of(after).as_str()) {
        ("A", "B") => Some(record.pair_ratios),
        ("B", "A") => Some(record.pair_ratios.iter().map(|r| 1.0 / r).collect()),
        _ => None,
    })
}

/// A configuration's CPU profile: `None` (with a note) when it has none or an empty one; a
/// corrupt file is a misuse error naming it.
fn profile(dir: &Path, notes: &mut Vec<String>) -> Result<Option<Folded>> {
    let file = dir.join("cpu.folded");
    if !file.exists() {
        notes.push(format!(
            "no cpu.folded in {}: no moved functions or flame graphs",
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
    let profiles = match (
        profile(before_dir, &mut notes)?,
        profile(after_dir, &mut notes)?,
    ) {
        (Some(b), Some(a)) => Some((b, a)),
        _ => None,
    };
    let mut cmp = compare_results(
        before,
        after,
        profiles.as_ref().map(|(b, a)| (b, a)),
        pairs.as_deref(),
    );
    cmp.notes.extend(notes);
    cmp.before_dir = before_dir.display().to_string();
    cmp.after_dir = after_dir.display().to_string();
    cmp.out_dir = out.display().to_string();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    if let Some((b, a)) = &profiles {
        let root = if cmp.before == cmp.after {
            cmp.after.clone()
        } else {
            format!("{} vs {}", cmp.before, cmp.after)
        };
        let (bt, at) = (with_root(b, &root).to_text(), with_root(a, &root).to_text());
        let counts = format!(
            "before {} samples, after {} samples, normalised to equal totals",
            format_thousands(b.total() as f64, 0),
            format_thousands(a.total() as f64, 0)
        );
        let graphs = [
            (
                "diff.svg",
                diff_svg(
                    &bt,
                    &at,
                    &format!("{} -> {}: shape of AFTER", cmp.before, cmp.after),
                    &format!("red: grew from BEFORE to AFTER, blue: shrank; {counts}"),
                ),
            ),
            (
                "diff-reverse.svg",
                diff_svg(
                    &at,
                    &bt,
                    &format!("{} -> {}: shape of BEFORE (reverse)", cmp.before, cmp.after),
                    &format!(
                        "red: larger in BEFORE (shrank in AFTER), blue: grew in AFTER; {counts}"
                    ),
                ),
            ),
        ];
        for (file, svg) in graphs {
            match svg {
                Ok(bytes) => {
                    write_atomic(&out.join(file), &bytes)?;
                    let path = out.join(file).display().to_string();
                    if file == "diff.svg" {
                        cmp.diff_svg = Some(path);
                    } else {
                        cmp.diff_reverse_svg = Some(path);
                    }
                }
                Err(e) => cmp
                    .notes
                    .push(format!("{file} not drawn: {}", crate::error::one_line(&e))),
            }
        }
    }
    write_json(&out.join("compare.json"), &cmp)?;
    Ok(cmp)
}

/// `STUDY/CONFIG` names of a run whose `result.json` exists, in the manifest's order.
fn present(dir: &Path, manifest: &RunManifest) -> Vec<String> {
    manifest
        .configs
        .iter()
        .filter(|name| dir.join(name.as_str()).join("result.json").is_file())
        .cloned()
        .collect()
}

/// The whole comparison: printed with `--json`, and written as the summary `compare.json` of
/// two run folders.
#[derive(Debug, Serialize)]
struct Report {
    /// `configurations` or `runs`.
    kind: &'static str,
    before: PathBuf,
    after: PathBuf,
    out_dir: PathBuf,
    moved_rule: String,
    comparisons: Vec<ConfigComparison>,
    /// Configurations present in only one of two run folders (not compared).
    only_before: Vec<String>,
    only_after: Vec<String>,
}

/// Compares two configuration folders of one run, writing into the default place under the run
/// (`<RUN>/compare/<RUN_NAME>/<study>/<before>__vs__<after>/`). The runner calls this for the
/// before/after steps of a study (`serprof_engines::studies::steps`), so the report links each
/// step's differential flame graph.
pub fn compare_config_dirs(before: &Path, after: &Path) -> Result<ConfigComparison> {
    match (open(before)?, open(after)?) {
        (Side::Config(bd, br), Side::Config(ad, ar)) => {
            let out = config_out(&bd, &ad);
            compare_dirs(&bd, &br, &ad, &ar, &out)
        }
        _ => misuse!(
            "{} and {} are not both configuration folders",
            before.display(),
            after.display()
        ),
    }
}

/// Compares two configuration folders.
fn compare_configs(
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

/// Compares every configuration two run folders have in common.
fn compare_runs(
    (bd, bm): (PathBuf, &RunManifest),
    (ad, am): (PathBuf, &RunManifest),
    out: Option<&Path>,
) -> Result<Report> {
    let (pb, pa) = (present(&bd, bm), present(&ad, am));
    let common: Vec<&String> = pa.iter().filter(|n| pb.contains(n)).collect();
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
        .unwrap_or_else(|| ad.join("compare").join(name_of(&bd)));
    let mut comparisons = Vec::new();
    for name in common {
        let (cb, ca) = (bd.join(name), ad.join(name));
        let rb: ConfigResult = read_json(&cb.join("result.json"))?;
        let ra: ConfigResult = read_json(&ca.join("result.json"))?;
        comparisons.push(compare_dirs(&cb, &rb, &ca, &ra, &out_dir.join(name))?);
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
    write_json(&report.out_dir.join("compare.json"), &report)?;
    Ok(report)
}

pub fn run(before: &Path, after: &Path, out: Option<&Path>, json: bool) -> Result<ExitCode> {
    let report = match (open(before)?, open(after)?) {
        (Side::Config(bd, br), Side::Config(ad, ar)) => compare_configs((bd, &br), (ad, &ar), out)?,
        (Side::Run(bd, bm), Side::Run(ad, am)) => compare_runs((bd, &bm), (ad, &am), out)?,
        (Side::Config(dir, _), Side::Run(..)) | (Side::Run(..), Side::Config(dir, _)) => {
            misuse!(
                "cannot compare a configuration folder with a run folder ({} is a configuration folder): give two of one kind",
                dir.display()
            )
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
        eprintln!("compare outputs: {}", report.out_dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `+1.2%`, or `-` without a figure.
fn percent(d: Option<&crate::analyze::compare::Delta>) -> String {
    match d.and_then(|d| d.percent.map(|p| (p, d.delta))) {
        Some((p, _)) => format!("{p:+.1}%"),
        None => d
            .map(|d| format!("{:+.0}", d.delta))
            .unwrap_or_else(|| "-".into()),
    }
}

/// The human table: one row per configuration, then each one's moved functions.
fn render(report: &Report) -> String {
    let cmps = &report.comparisons;
    let (only_before, only_after) = (&report.only_before, &report.only_after);
    let mut s = format!(
        "compare: {} -> {}\n",
        report.before.display(),
        report.after.display()
    );
    let label = |c: &ConfigComparison| {
        if c.before == c.after {
            c.after.clone()
        } else {
            format!("{} -> {}", c.before, c.after)
        }
    };
    let w = cmps
        .iter()
        .map(|c| label(c).chars().count())
        .max()
        .unwrap_or(0)
        .max(13);
    let _ = writeln!(
        s,
        "{:<w$} {:>10} {:>10} {:>24} {:>9} {:>10}  top moved (Δ share, points)",
        "configuration", "before", "after", "after/before [95% CI]", "payload Δ", "bytes/op Δ"
    );
    for c in cmps {
        let label = label(c);
        let (tb, ta, ratio) = match &c.time {
            Some(t) => (
                format_ns(t.before_ns),
                format_ns(t.after_ns),
                format!("{:.3} [{:.3}, {:.3}]", t.ratio, t.ci95[0], t.ci95[1]),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let moved = match &c.moved {
            None => "(no profiles)".to_string(),
            Some(m) if m.is_empty() => "none".to_string(),
            Some(m) => m
                .iter()
                .take(2)
                .map(|m| format!("{:+.0} {}", m.delta_pp, compact_name(&m.function)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let _ = writeln!(
            s,
            "{label:<w$} {tb:>10} {ta:>10} {ratio:>24} {:>9} {:>10}  {moved}",
            percent(c.payload_bytes.as_ref()),
            percent(c.bytes_per_op.as_ref())
        );
    }
    for c in cmps {
        if let Some(m) = c.moved.as_ref().filter(|m| !m.is_empty()) {
            let _ = writeln!(s, "\nmoved in {} ({} of them):", c.after, m.len());
            for f in m.iter().take(10) {
                let kind = match f.kind {
                    ShareKind::SelfTime => "self",
                    ShareKind::Inclusive => "incl",
                };
                let _ = writeln!(
                    s,
                    "  {:>5.1}% -> {:>5.1}% {:>+6.1}  {kind:<4} z={:>+6.1}  {}",
                    f.before_percent,
                    f.after_percent,
                    f.delta_pp,
                    f.z,
                    compact_name(&f.function)
                );
            }
        }
        for n in &c.notes {
            let _ = writeln!(s, "note ({}): {n}", c.after);
        }
    }
    if !only_before.is_empty() || !only_after.is_empty() {
        let _ = writeln!(
            s,
            "\nnot compared: only before [{}]; only after [{}]",
            only_before.join(", "),
            only_after.join(", ")
        );
    }
    if let Some(c) = cmps.first() {
        if let Some(t) = &c.time {
            let _ = writeln!(s, "\nratio: {}", t.method);
        }
        let _ = writeln!(s, "moved: {}", c.moved_rule);
        if let Some(d) = &c.diff_svg {
            let _ = writeln!(s, "flame graphs: {d} (and diff-reverse.svg next to it)");
        }
    }
    s
}
