//! What `report.html` is made of, read back from a run folder: the manifest, every
//! `<study>/<config>/result.json`, and the differential flame graphs `serprof compare` left
//! under the folder.
//!
//! The report is the last thing a run writes and the one thing a person opens, so reading is
//! forgiving: `result.json` is read as [`ConfigResult`] itself, whose optional fields default
//! when a file lacks them; an unreadable one becomes a row that says so (and a one-line
//! warning on stderr), and a configuration the manifest selected but no result exists for (an
//! interrupted run) is shown as not measured. Only a missing or corrupt `run.json` stops the
//! report: without it the folder is not a run.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;
use serprof_api::__private::StudyInfo;

use crate::layout::{self, read_json};
use crate::model::{ConfigResult, Program, RunManifest};

/// Files of a configuration folder the report links to, with their link text, in this order.
pub(crate) const LINKED_FILES: [(&str, &str); 5] = [
    (layout::CPU_SVG, "CPU"),
    (layout::VIEWS_HTML, "views"),
    (layout::CPU_SPEEDSCOPE, "speedscope"),
    (layout::ALLOC_SVG, "alloc"),
    (layout::RESULT_JSON, "json"),
];

/// Everything the report shows.
#[derive(Debug)]
pub(crate) struct RunData {
    /// The run folder's name (its id).
    pub run_id: String,
    pub manifest: RunManifest,
    /// Studies in the order the run selected them (then any other folder found, by name).
    pub studies: Vec<StudyData>,
    /// Differential flame graphs under the run folder, relative to it, sorted.
    pub diffs: Vec<String>,
    /// Results that could not be shown at all, with the reason.
    pub problems: Vec<String>,
}

/// One study's rows.
#[derive(Debug)]
pub(crate) struct StudyData {
    pub name: String,
    /// The study as this build's registry describes it; `None` for a study this build lacks.
    pub info: Option<StudyInfo>,
    pub rows: Vec<ReportRow>,
}

/// One configuration of a study.
#[derive(Debug)]
pub(crate) struct ReportRow {
    pub result: ConfigResult,
    /// Why there is no usable `result.json` (absent or unreadable); the row shows only this.
    pub missing: Option<String>,
    /// A study's own figures (the corrupt study's outcome counts), flattened to `key.sub: value`
    /// pairs, so that the report shows what exists.
    pub extra: Vec<(String, String)>,
    /// Linked files that exist: (path relative to the run folder, link text).
    pub files: Vec<(String, &'static str)>,
}

impl ReportRow {
    /// Median time per operation, if measured.
    pub(crate) fn median(&self) -> Option<f64> {
        self.result.time_ns.as_ref().map(|t| t.median)
    }
}

/// Reads the run folder `run_dir`: its manifest and every `result.json` in it.
pub(crate) fn load(program: &Program, run_dir: &Path) -> Result<RunData> {
    let manifest: RunManifest = read_json(&run_dir.join(layout::RUN_JSON))?;
    // Every study folder with results: the run's studies, then any other, by name.
    let mut names: Vec<String> = studies_of(&manifest);
    for dir in sorted_subdirs(run_dir) {
        let name = file_name(&dir);
        if !names.contains(&name) && sorted_subdirs(&dir).iter().any(|c| has_result(c)) {
            names.push(name);
        }
    }
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        for dir in sorted_subdirs(&run_dir.join(&name)) {
            if has_result(&dir) {
                match read_row(program, run_dir, &name, &dir) {
                    Ok(row) => rows.push(row),
                    Err(e) => {
                        problems.push(format!("{}: {}", dir.display(), crate::error::one_line(&e)))
                    }
                }
            }
        }
    }
    Ok(assemble(program, run_dir, manifest, rows, problems))
}

/// The report's data from a run's results as just measured (its folder holds their files).
pub(crate) fn measured<'r>(
    program: &Program,
    run_dir: &Path,
    manifest: RunManifest,
    results: impl IntoIterator<Item = &'r ConfigResult>,
) -> RunData {
    let rows = results
        .into_iter()
        .map(|r| {
            let dir = layout::config_dir(run_dir, &r.id());
            row_of(run_dir, &dir, r.clone())
        })
        .collect();
    assemble(program, run_dir, manifest, rows, Vec::new())
}

/// The studies of a manifest's configurations, in its order.
fn studies_of(manifest: &RunManifest) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in &manifest.configs {
        if !names.contains(&c.study) {
            names.push(c.study.clone());
        }
    }
    names
}

/// The report's data: `rows` by study (the manifest's studies first, in its order), with a
/// row for each configuration of the manifest that has none.
fn assemble(
    program: &Program,
    run_dir: &Path,
    manifest: RunManifest,
    rows: Vec<ReportRow>,
    mut problems: Vec<String>,
) -> RunData {
    let run_id = run_dir
        .canonicalize()
        .unwrap_or_else(|_| run_dir.to_path_buf())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut names = studies_of(&manifest);
    for row in &rows {
        if !names.contains(&row.result.study) {
            names.push(row.result.study.clone());
        }
    }
    let mut rows = rows;
    let mut studies_out = Vec::new();
    for name in names {
        let (mut mine, rest): (Vec<ReportRow>, Vec<ReportRow>) =
            rows.into_iter().partition(|r| r.result.study == name);
        rows = rest;
        let seen: BTreeSet<String> = mine.iter().map(|r| r.result.config.clone()).collect();
        for c in manifest.configs.iter().filter(|c| c.study == name) {
            if !seen.contains(c.config.as_str()) {
                match placeholder(
                    program,
                    &name,
                    &c.config,
                    "not measured: the run ended before this configuration finished",
                ) {
                    Ok(row) => mine.push(row),
                    Err(e) => problems.push(format!("{c}: {}", crate::error::one_line(&e))),
                }
            }
        }
        sort_rows(&mut mine);
        studies_out.push(StudyData {
            info: program.find_info(&name),
            name,
            rows: mine,
        });
    }
    let mut diffs = Vec::new();
    find_diffs(run_dir, run_dir, 0, &mut diffs);
    diffs.sort();
    RunData {
        run_id,
        manifest,
        studies: studies_out,
        diffs,
        problems,
    }
}

/// Fastest first; unmeasured and failed rows last, by name.
fn sort_rows(rows: &mut [ReportRow]) {
    rows.sort_by(|a, b| {
        let key = |r: &ReportRow| r.median().unwrap_or(f64::INFINITY);
        key(a)
            .total_cmp(&key(b))
            .then_with(|| a.result.config.cmp(&b.result.config))
    });
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn has_result(dir: &Path) -> bool {
    dir.join(layout::RESULT_JSON).is_file()
}

/// Subfolders of `dir`, sorted by name (empty when `dir` is not a readable folder).
fn sorted_subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// Every `*diff*.svg` under `dir` (compare writes `diff.svg` and `diff-reverse.svg`-like
/// files into folders of its own), relative to `root`. Symlinks are not followed, so `latest`
/// links inside a parent folder are never walked twice.
fn find_diffs(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
    if depth > 6 {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            find_diffs(root, &path, depth + 1, out);
        } else if kind.is_file() {
            let name = file_name(&path);
            if name.ends_with(".svg") && name.contains("diff") {
                if let Ok(rel) = path.strip_prefix(root) {
                    out.push(relative(rel));
                }
            }
        }
    }
}

/// A relative path with `/` separators.
fn relative(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A row for a configuration without a usable `result.json`, described by the registry; a
/// configuration this build does not have cannot be described, so it is a problem instead.
fn placeholder(
    program: &Program,
    study: &str,
    config: &str,
    why: &str,
) -> anyhow::Result<ReportRow> {
    let planned = program.find(&format!("{study}/{config}")).ok_or_else(|| {
        anyhow::anyhow!("{why} (this serprof has no configuration {study}/{config})")
    })?;
    let mut result = ConfigResult::of(&planned);
    result.error = Some(crate::model::Failure::harness(why));
    Ok(ReportRow {
        result,
        missing: Some(why.to_string()),
        extra: Vec::new(),
        files: Vec::new(),
    })
}

fn read_row(
    program: &Program,
    run_dir: &Path,
    study: &str,
    dir: &Path,
) -> anyhow::Result<ReportRow> {
    let config = file_name(dir);
    let path = dir.join(layout::RESULT_JSON);
    let result: ConfigResult = match layout::read_json(&path) {
        Ok(r) => r,
        Err(e) => {
            let e = crate::error::one_line(&e);
            eprintln!(
                "serprof: warning: {} is unreadable, shown as not measured: {e}",
                path.display()
            );
            return placeholder(
                program,
                study,
                &config,
                &format!("result.json is unreadable: {e}"),
            );
        }
    };
    Ok(row_of(run_dir, dir, result))
}

/// The row of `result`, whose folder `dir` (in the run folder `run_dir`) holds its files.
fn row_of(run_dir: &Path, dir: &Path, result: ConfigResult) -> ReportRow {
    let files = LINKED_FILES
        .iter()
        .filter(|(f, _)| dir.join(f).is_file())
        .filter_map(|(f, text)| {
            let rel = dir.join(f);
            let rel = rel.strip_prefix(run_dir).ok()?;
            Some((relative(rel), *text))
        })
        .collect();
    ReportRow {
        extra: extra_figures(&result),
        result,
        missing: None,
        files,
    }
}

/// A study's own figures (the corrupt study's `corrupt` field) as `key: value` pairs:
/// scalars (`inputs: 100`), and objects of numbers one entry per number (`counts.clean_error:
/// 96`). Deeper structure and lists stay in `result.json`, which the row links.
fn extra_figures(result: &ConfigResult) -> Vec<(String, String)> {
    let Some(corrupt) = &result.corrupt else {
        return Vec::new();
    };
    let Ok(Value::Object(fields)) = serde_json::to_value(corrupt) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, y) in fields {
        match y {
            Value::Object(numbers) if numbers.values().all(Value::is_number) => {
                for (n, z) in numbers {
                    out.push((format!("{k}.{n}"), scalar(&z)));
                }
            }
            Value::Object(_) | Value::Array(_) | Value::Null => {}
            y => out.push((k, scalar(&y))),
        }
    }
    out
}

/// A JSON value in a few characters.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("{} items", a.len()),
        Value::Object(o) => format!("{} fields", o.len()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_result_without_later_fields_reads() {
        // Only the fields without a default.
        let v = serde_json::json!({
            "study": "formats", "config": "postcard", "engine": "postcard",
            "engine_version": "1.2.0", "format": "binary", "operation": "roundtrip",
            "dataset": "orders", "verified": true, "payload_bytes": 7.0
        });
        let r: ConfigResult = serde_json::from_value(v).unwrap();
        assert!(r.time_ns.is_none() && r.error.is_none() && r.warnings.is_empty());
        assert!(extra_figures(&r).is_empty());
    }

    #[test]
    fn corrupt_figures_become_key_value_pairs() {
        let info = crate::model::program::builtin()
            .find("corrupt/postcard")
            .unwrap();
        let mut r = ConfigResult::of(&info);
        r.corrupt = Some(crate::model::corrupt::CorruptStats {
            seed: "0x5eed".into(),
            inputs: 100,
            skipped: 0,
            per_input_cap_ms: 2000,
            memory_cap_mib: 1024,
            children: 1,
            counts: Default::default(),
            by_mutation: Default::default(),
            cases: Vec::new(),
        });
        let extra = extra_figures(&r);
        assert!(
            extra.contains(&("inputs".to_string(), "100".to_string())),
            "{extra:?}"
        );
        assert!(
            extra.iter().any(|(k, _)| k.starts_with("counts.")),
            "{extra:?}"
        );
    }

    #[test]
    fn a_vanished_configuration_is_a_problem_not_a_row() {
        let program = crate::model::program::builtin();
        assert!(placeholder(&program, "formats", "postcard", "x").is_ok());
        assert!(placeholder(&program, "formats", "no-such-engine", "x").is_err());
    }
}
