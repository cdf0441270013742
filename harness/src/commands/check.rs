//! `serprof check BASELINE CURRENT [--max-regression PCT] [--json] [--bmf FILE]`: the gate an
//! engine author puts in CI. Compares the exact figures of two run folders per configuration
//! (instructions, allocations and bytes allocated per operation, payload bytes; see
//! [`crate::analyze::check`]), exits 1 naming every regression past the threshold, 0 otherwise.
//! A figure or a configuration one run has and the other has not is named (`absent`), and so is
//! a metric neither run has (`unmeasured`): what is not compared is never passed in silence.
//!
//! The default threshold is 1%: instruction and allocation counts are exact, so any change is
//! real, and the threshold says how large a change the gate should stop a merge for. A larger
//! payload counts as a regression like any other growth.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::analyze::check::{bmf, check, Change, Metric};
use crate::error::misuse_err;
use crate::layout::{self, read_json};
use crate::misuse;
use crate::model::{ConfigResult, RunManifest};
use crate::render::table::format_thousands;

/// The default `--max-regression`, in percent.
pub(crate) const DEFAULT_MAX_REGRESSION: f64 = 1.0;

/// Every readable result of a run folder, in its manifest's order.
fn results_of(run_dir: &Path) -> Result<Vec<ConfigResult>> {
    if !run_dir.join(layout::RUN_JSON).is_file() {
        misuse!("{}: not a run folder (no run.json)", run_dir.display());
    }
    let manifest: RunManifest = read_json(&run_dir.join(layout::RUN_JSON))?;
    let mut out = Vec::new();
    for id in &manifest.configs {
        let file = layout::config_dir(run_dir, id).join(layout::RESULT_JSON);
        if file.is_file() {
            out.push(read_json(&file)?);
        }
    }
    Ok(out)
}

pub(crate) fn run(
    baseline: &Path,
    current: &Path,
    threshold: f64,
    json: bool,
    bmf_file: Option<&Path>,
) -> Result<ExitCode> {
    if !(threshold.is_finite() && threshold >= 0.0) {
        misuse!("--max-regression {threshold}: give a percentage of 0 or more");
    }
    let (base, cur) = (results_of(baseline)?, results_of(current)?);
    let checked = check(&base, &cur, threshold);
    let changes = &checked.compared;
    if changes.is_empty() {
        misuse!(
            "{} and {} have no figure of any configuration in common (check compares instructions, allocations and payloads: run with --instructions)",
            baseline.display(),
            current.display()
        );
    }
    if let Some(file) = bmf_file {
        let doc = serde_json::to_vec_pretty(&bmf(&cur))?;
        std::fs::write(file, doc)
            .map_err(|e| misuse_err(format!("cannot write --bmf {}: {e}", file.display())))?;
    }
    let regressions: Vec<_> = changes
        .iter()
        .filter(|c| c.verdict == Change::Regression)
        .collect();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "baseline": baseline,
                "current": current,
                "max_regression_percent": threshold,
                "changes": changes,
                "regressions": regressions,
                "absent": checked.absent,
                "unmeasured": checked.unmeasured,
                "passed": regressions.is_empty(),
            }))?
        );
    } else {
        let mut s = format!(
            "check: {} -> {} (regression: a figure grew by more than {threshold}%)\n",
            baseline.display(),
            current.display()
        );
        let moved: Vec<_> = changes
            .iter()
            .filter(|c| c.verdict != Change::Same)
            .collect();
        let _ = writeln!(
            s,
            "{} figures of {} compared; {} changed",
            changes.len(),
            {
                let mut names: Vec<&str> = changes.iter().map(|c| c.config.as_str()).collect();
                names.dedup();
                match names.len() {
                    1 => "1 configuration".to_string(),
                    n => format!("{n} configurations"),
                }
            },
            moved.len()
        );
        for c in moved {
            let _ = writeln!(
                s,
                "  {:<36} {:<16} {:>14} -> {:>14} {:>+8.2}%  {}",
                c.config,
                c.metric.name(),
                format_thousands(c.baseline, 1),
                format_thousands(c.current, 1),
                c.percent,
                c.verdict.word()
            );
        }
        for a in &checked.absent {
            let what = a.metric.map_or("(configuration)", Metric::name);
            let _ = writeln!(
                s,
                "  {:<36} {:<16} absent from the {} run: not compared",
                a.config,
                what,
                a.from.word()
            );
        }
        if !checked.unmeasured.is_empty() {
            let names: Vec<_> = checked.unmeasured.iter().map(|m| m.name()).collect();
            let _ = writeln!(
                s,
                "not measured in either run, not compared: {}",
                names.join(", ")
            );
        }
        print!("{s}");
    }
    for r in &regressions {
        eprintln!(
            "serprof check: regression: {} {} {:+.2}% ({} -> {})",
            r.config,
            r.metric.name(),
            r.percent,
            format_thousands(r.baseline, 1),
            format_thousands(r.current, 1)
        );
    }
    Ok(if regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
