//! What `report.html` is made of, read back from a run folder: the manifest, every
//! `<study>/<config>/result.json`, and the differential flame graphs `serprof compare` left
//! under the folder.
//!
//! The report is the last thing a run writes and the one thing a person opens, so reading is
//! forgiving: a `result.json` of an older or newer shape (say, a `corrupt` study result without
//! `time_ns`) is read field by field, an unreadable one becomes a row that says so, and a
//! configuration the manifest selected but no result exists for (an interrupted run) is shown as
//! not measured. Only a missing or corrupt `run.json` stops the report: without it the folder
//! is not a run.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;
use serprof_engines::studies::{self, StudyInfo};

use crate::result::{ConfigResult, RunManifest};
use crate::snapshot::read_json;

/// Files of a configuration folder the report links to, with their link text, in this order.
pub const LINKED_FILES: [(&str, &str); 3] = [
    ("cpu.svg", "CPU"),
    ("alloc.svg", "alloc"),
    ("result.json", "json"),
];

/// Everything the report shows.
#[derive(Debug)]
pub struct RunData {
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
pub struct StudyData {
    pub name: String,
    /// The study as the registry describes it now; `None` for a study this build no longer has.
    pub info: Option<StudyInfo>,
    pub rows: Vec<Row>,
}

/// One configuration of a study.
#[derive(Debug)]
pub struct Row {
    pub result: ConfigResult,
    /// Why there is no usable `result.json` (absent or unreadable); the row shows only this.
    pub missing: Option<String>,
    /// Figures of `result.json` this build does not know (a newer study's), flattened to
    /// `key.sub: value` pairs, so that the report shows what exists.
    pub extra: Vec<(String, String)>,
    /// Linked files that exist: (path relative to the run folder, link text).
    pub files: Vec<(String, &'static str)>,
}

impl Row {
    /// Median time per operation, if measured.
    pub fn median(&self) -> Option<f64> {
        self.result.time_ns.as_ref().map(|t| t.median)
    }
}

/// Reads the run folder `run_dir`.
pub fn load(run_dir: &Path) -> Result<RunData> {
    let manifest: RunManifest = read_json(&run_dir.join("run.json"))?;
    let run_id = run_dir
        .canonicalize()
        .unwrap_or_else(|_| run_dir.to_path_buf())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    // Study order: as the run selected its configurations, then any other folder with results.
    let mut names: Vec<String> = Vec::new();
    for c in &manifest.configs {
        if let Some((s, _)) = c.split_once('/') {
            if !names.iter().any(|n| n == s) {
                names.push(s.to_string());
            }
        }
    }
    for dir in sorted_subdirs(run_dir) {
        let name = file_name(&dir);
        if !names.contains(&name) && sorted_subdirs(&dir).iter().any(|c| has_result(c)) {
            names.push(name);
        }
    }

    let mut studies_out = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        let mut rows = Vec::new();
        let mut seen = BTreeSet::new();
        for dir in sorted_subdirs(&run_dir.join(&name)) {
            if has_result(&dir) {
                seen.insert(file_name(&dir));
                match read_row(run_dir, &name, &dir) {
                    Ok(row) => rows.push(row),
                    Err(e) => problems.push(format!("{}: {e}", dir.display())),
                }
            }
        }
        let prefix = format!("{name}/");
        for c in &manifest.configs {
            if let Some(config) = c.strip_prefix(&prefix) {
                if !seen.contains(config) {
                    match placeholder(
                        &name,
                        config,
                        "not measured: the run ended before this configuration finished",
                    ) {
                        Ok(row) => rows.push(row),
                        Err(e) => problems.push(format!("{c}: {e}")),
                    }
                }
            }
        }
        sort_rows(&mut rows);
        studies_out.push(StudyData {
            info: studies::find_study(&name),
            name,
            rows,
        });
    }

    let mut diffs = Vec::new();
    find_diffs(run_dir, run_dir, 0, &mut diffs);
    diffs.sort();
    Ok(RunData {
        run_id,
        manifest,
        studies: studies_out,
        diffs,
        problems,
    })
}

/// Fastest first; unmeasured and failed rows last, by name.
fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        let key = |r: &Row| r.median().unwrap_or(f64::INFINITY);
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
    dir.join("result.json").is_file()
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

/// A row for a configuration without a usable `result.json`.
fn placeholder(study: &str, config: &str, why: &str) -> Result<Row, String> {
    let mut result = lenient(&serde_json::json!({ "study": study, "config": config }))?;
    result.error = Some(why.to_string());
    Ok(Row {
        result,
        missing: Some(why.to_string()),
        extra: Vec::new(),
        files: Vec::new(),
    })
}

fn read_row(run_dir: &Path, study: &str, dir: &Path) -> Result<Row, String> {
    let config = file_name(dir);
    let path = dir.join("result.json");
    let value: Value = match fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            return placeholder(study, &config, &format!("result.json is unreadable: {e}"));
        }
    };
    let mut result = match serde_json::from_value::<ConfigResult>(value.clone()) {
        Ok(r) => r,
        Err(_) => lenient(&value)?,
    };
    if result.study.is_empty() || result.config.is_empty() {
        (result.study, result.config) = (study.to_string(), config);
    }
    let files = LINKED_FILES
        .iter()
        .filter(|(f, _)| dir.join(f).is_file())
        .filter_map(|(f, text)| {
            let rel = dir.join(f);
            let rel = rel.strip_prefix(run_dir).ok()?;
            Some((relative(rel), *text))
        })
        .collect();
    Ok(Row {
        extra: extra_figures(&value),
        result,
        missing: None,
        files,
    })
}

/// Fields of `result.json` that must be present to build a [`ConfigResult`], with the value
/// a file without them gets. Every other field is optional.
fn required_defaults() -> [(&'static str, Value); 11] {
    let empty = || Value::String(String::new());
    [
        ("study", empty()),
        ("config", empty()),
        ("engine", empty()),
        ("engine_version", empty()),
        ("format", empty()),
        ("operation", empty()),
        ("dataset", empty()),
        ("notes", empty()),
        ("engine_frames", empty()),
        ("verified", Value::Bool(false)),
        ("warnings", Value::Array(Vec::new())),
    ]
}

/// A [`ConfigResult`] from whatever fields `v` has: missing or ill-typed fields get their
/// defaults (empty text, absent figures), and a `time_ns` with only a median still counts.
/// Works field by field through serde, so a field added to [`ConfigResult`] later needs no
/// change here as long as it is optional.
fn lenient(v: &Value) -> Result<ConfigResult, String> {
    let mut obj = serde_json::Map::new();
    for (k, d) in required_defaults() {
        obj.insert(k.to_string(), d);
    }
    let template = obj.clone();
    let parses = |obj: &serde_json::Map<String, Value>| {
        serde_json::from_value::<ConfigResult>(Value::Object(obj.clone())).is_ok()
    };
    for (k, x) in v.as_object().into_iter().flatten() {
        let mut one = template.clone();
        one.insert(k.clone(), x.clone());
        if parses(&one) {
            obj.insert(k.clone(), x.clone());
        } else if k == "time_ns" {
            if let Some(median) = x.get("median").and_then(Value::as_f64) {
                let ci95 = x
                    .get("ci95")
                    .filter(|c| c.as_array().is_some_and(|a| a.len() == 2))
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!([median, median]));
                let t = serde_json::json!({
                    "median": median, "ci95": ci95, "mad": 0.0, "ops_per_batch": 0, "batches": []
                });
                obj.insert(k.clone(), t);
            }
        }
    }
    // Fails only when ConfigResult gained a required field that required_defaults() lacks
    // (a unit test below catches that).
    serde_json::from_value(Value::Object(obj)).map_err(|e| e.to_string())
}

/// The fields of `result.json` the report's table and charts show; any other field (a newer
/// study's figures, like the `corrupt` study's outcomes) is listed as it is.
const SHOWN_FIELDS: [&str; 18] = [
    "study",
    "config",
    "engine",
    "engine_version",
    "format",
    "operation",
    "dataset",
    "notes",
    "engine_frames",
    "verified",
    "payload_bytes",
    "shares_references",
    "time_ns",
    "alloc",
    "cpu",
    "profile",
    "warnings",
    "error",
];

/// Fields of `v` the report does not otherwise show, as `key: value` pairs: scalars one level
/// down (`inputs: 100`), and objects of numbers one entry per number (`counts.clean_error:
/// 96`). Deeper structure and lists stay in `result.json`, which the row links. A field named
/// like the study (`"corrupt"` in the `corrupt` study) is not repeated in the keys.
fn extra_figures(v: &Value) -> Vec<(String, String)> {
    let study = v.get("study").and_then(Value::as_str).unwrap_or("");
    let mut out = Vec::new();
    for (key, x) in v.as_object().into_iter().flatten() {
        if SHOWN_FIELDS.contains(&key.as_str()) {
            continue;
        }
        let name = |k: &str| {
            if key == study {
                k.to_string()
            } else {
                format!("{key}.{k}")
            }
        };
        match x {
            Value::Null | Value::Array(_) => {}
            Value::Object(o) => {
                for (k, y) in o {
                    match y {
                        Value::Object(numbers) if numbers.values().all(Value::is_number) => {
                            for (n, z) in numbers {
                                out.push((format!("{}.{n}", name(k)), scalar(z)));
                            }
                        }
                        Value::Object(_) | Value::Array(_) | Value::Null => {}
                        y => out.push((name(k), scalar(y))),
                    }
                }
            }
            y => out.push((key.clone(), scalar(y))),
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
    fn a_decode_result_without_timing_is_read_field_by_field() {
        let v = serde_json::json!({
            "study": "corrupt", "config": "postcard", "operation": "decode",
            "corrupt": { "inputs": 100, "cases": [1, 2], "seed": "0x5eed",
                         "counts": { "clean-error": 91, "accepted-altered": 9, "panic": 0 },
                         "by_mutation": { "truncate": { "clean-error": 3 } } },
            "other": { "n": 1 },
            "time_ns": "not a figure", "error": null
        });
        let r = lenient(&v).unwrap();
        assert_eq!(
            (r.study.as_str(), r.operation.as_str()),
            ("corrupt", "decode")
        );
        assert!(r.time_ns.is_none() && r.error.is_none() && !r.verified);
        let extra = extra_figures(&v);
        assert_eq!(
            extra,
            [
                ("counts.accepted-altered".to_string(), "9".to_string()),
                ("counts.clean-error".into(), "91".into()),
                ("counts.panic".into(), "0".into()),
                ("inputs".into(), "100".into()),
                ("seed".into(), "0x5eed".into()),
                ("other.n".into(), "1".into()),
            ]
        );
    }

    #[test]
    fn every_required_field_has_a_default() {
        // Fails when ConfigResult gains a field that is neither optional nor defaulted here.
        assert!(lenient(&Value::Null).is_ok());
    }

    #[test]
    fn a_partial_timing_keeps_its_median() {
        let r = lenient(&serde_json::json!({ "time_ns": { "median": 12.5 } })).unwrap();
        let t = r.time_ns.unwrap();
        assert_eq!((t.median, t.ci95), (12.5, [12.5, 12.5]));
    }
}
