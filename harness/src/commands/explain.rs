//! `serprof explain CONFIG`: a configuration's findings with their evidence, remedy and bound,
//! from a run folder (docs/guide/findings.md).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::analyze::findings::{diagnose_dir, remedies, Found};
use crate::layout;
use crate::misuse;
use crate::model::diagnosis::{Diagnosis, EvidenceKind, Measure, NearThreshold};
use crate::model::ConfigResult;

/// What `serprof explain` prints with `--json`.
#[derive(Debug, Serialize)]
struct Explained {
    config: String,
    folder: PathBuf,
    /// Whether the findings were computed now from the folder's recordings (a run made before
    /// findings were stored), rather than read from `result.json`.
    computed_now: bool,
    diagnoses: Vec<Diagnosis>,
    /// The sampled findings too near their threshold for one run to say.
    near_threshold: Vec<NearThreshold>,
    /// Under `--allocators`: each allocator's row of this configuration, its median time as a
    /// ratio to this row's.
    allocators: Vec<(String, f64)>,
}

/// The configuration folder `config` names: a folder with a `result.json`, or `STUDY/CONFIG`
/// inside the run folder `run`.
fn folder(config: &str, run: &Path) -> Result<PathBuf> {
    let direct = Path::new(config);
    if direct.join(layout::RESULT_JSON).is_file() {
        return Ok(direct.to_path_buf());
    }
    let inside = run.join(config);
    if inside.join(layout::RESULT_JSON).is_file() {
        return Ok(inside);
    }
    if !run.join(layout::RUN_JSON).is_file() {
        misuse!(
            "explain: {} is not a run folder (give one with --run DIR, or a configuration folder)",
            run.display()
        );
    }
    misuse!(
        "explain: {config} is neither a configuration folder nor STUDY/CONFIG of {} (`serprof list` names the configurations)",
        run.display()
    )
}

/// Reads a configuration's `result.json`.
pub(crate) fn read_result(dir: &Path) -> Result<ConfigResult> {
    let file = dir.join(layout::RESULT_JSON);
    let bytes = std::fs::read(&file)
        .map_err(|e| crate::error::misuse_err(format!("cannot read {}: {e}", file.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        crate::error::misuse_err(format!("{} is not a result.json: {e}", file.display()))
    })
}

/// The findings of a configuration folder: stored, or computed now for a run made before they
/// were stored (then `true`).
pub(crate) fn findings_of(dir: &Path, result: &ConfigResult) -> (Found, bool) {
    if !result.diagnoses.is_empty() || !result.near_threshold.is_empty() {
        let stored = Found {
            diagnoses: result.diagnoses.clone(),
            near: result.near_threshold.clone(),
        };
        return (stored, false);
    }
    let stored_before = result.cpu.is_some() || !result.findings.is_empty();
    (diagnose_dir(dir, result), stored_before)
}

/// Each allocator's row of the configuration `dir` holds (siblings `CONFIG@ALLOCATOR`), its
/// median time as a ratio to `result`'s.
fn allocator_rows(dir: &Path, result: &ConfigResult) -> Vec<(String, f64)> {
    let me_id = result.id();
    let Some(me) = result.time_ns.as_ref().map(|t| t.median) else {
        return Vec::new();
    };
    let Some(study) = dir.parent() else {
        return Vec::new();
    };
    let mut rows: Vec<(String, f64)> = std::fs::read_dir(study)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let r = read_result(&e.path()).ok()?;
            let (id, alloc) = (r.id(), r.allocator?);
            if id.under(None) != me_id.under(None) || id == me_id {
                return None;
            }
            let t = r.time_ns?.median;
            Some((alloc.name().to_string(), t / me))
        })
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    rows
}

/// `serprof explain CONFIG [--run DIR] [--json]`.
pub(crate) fn run(config: &str, run: &Path, json: bool) -> Result<ExitCode> {
    let dir = folder(config, run)?;
    let result = read_result(&dir)?;
    let (found, computed_now) = findings_of(&dir, &result);
    let allocators = allocator_rows(&dir, &result);
    let explained = Explained {
        config: result.name(),
        folder: dir,
        computed_now,
        diagnoses: found.diagnoses,
        near_threshold: found.near,
        allocators,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&explained)?);
    } else {
        print!("{}", text(&explained, &result));
    }
    Ok(ExitCode::SUCCESS)
}

/// The text of `explain`.
fn text(e: &Explained, r: &ConfigResult) -> String {
    let mut s = format!(
        "{} ({}, {}, {}): {} finding(s)\n",
        e.config,
        r.engine,
        r.format.as_str(),
        r.operation,
        e.diagnoses.len()
    );
    if e.computed_now {
        s.push_str("(computed now from the folder's recordings: this run stored none)\n");
    }
    if r.cpu.is_none() {
        s.push_str("no CPU profile: only the payload's and verification's findings can fire\n");
    }
    for d in &e.diagnoses {
        let _ = writeln!(s, "\n{} — {}", d.kind, d.kind.title());
        if d.measure == Measure::Values {
            let _ = writeln!(s, "  evidence: {}", d.evidence_text(2));
        } else {
            let _ = write!(
                s,
                "  {:.1}% {} (95% interval {:.1}-{:.1}%; fires from {:.0}%)",
                d.share * 100.0,
                d.measure.of(),
                d.interval[0] * 100.0,
                d.interval[1] * 100.0,
                d.threshold * 100.0
            );
            let of = match d.measure {
                Measure::PayloadBytes => "smaller",
                _ => "faster",
            };
            match d.bound {
                Some(b) => {
                    let _ = write!(s, "; removing it all: at most {b:.2}x {of}");
                }
                None => s.push_str("; it is nearly all of it: no bound"),
            }
            s.push('\n');
            for ev in &d.evidence {
                let what = match ev.what {
                    EvidenceKind::Function => "function",
                    EvidenceKind::Field => "field",
                    EvidenceKind::Type => "type",
                    EvidenceKind::AllocationSite => "allocates",
                    EvidenceKind::Figure => "figure",
                    EvidenceKind::Row => "row",
                    EvidenceKind::Example => "first",
                };
                let value = match ev.what {
                    EvidenceKind::Figure => format!("{:.2}", ev.value),
                    EvidenceKind::Example => String::new(),
                    EvidenceKind::Row => format!("{:.2}x", ev.value),
                    _ => format!("{:5.1}%", ev.value * 100.0),
                };
                let _ = writeln!(s, "    {what:<9} {value:>7}  {}", ev.name);
            }
        }
        let _ = writeln!(s, "  reads: {}", remedies::reads(d.kind));
        let _ = writeln!(s, "  remedy: {}", d.remedy);
        if d.kind == crate::model::diagnosis::DiagnosisKind::Allocator {
            if let Some((name, ratio)) = e.allocators.first() {
                let _ = writeln!(
                    s,
                    "  fastest allocator of this row's --allocators: {name} ({ratio:.2}x this row's time)"
                );
            }
        }
    }
    if e.diagnoses.is_empty() {
        s.push_str("nothing reaches a finding's threshold (docs/guide/findings.md lists them)\n");
    }
    if !e.near_threshold.is_empty() {
        s.push_str(
            "\nnear a threshold (a share that fires in some runs and not in others; one run cannot say):\n",
        );
        for n in &e.near_threshold {
            let _ = writeln!(
                s,
                "  {:<16} {:.1}% of the CPU samples (95% interval {:.1}-{:.1}%; fires from {:.0}%)",
                n.kind.to_string(),
                n.share * 100.0,
                n.interval[0] * 100.0,
                n.interval[1] * 100.0,
                n.threshold * 100.0
            );
        }
    }
    s
}
