//! The files a run writes, and where: every file and folder name of a run folder is written
//! once, here; run ids, atomic writes, the `latest` link, and reading them back.
//!
//! Every file is written to a temporary name in the same folder and renamed, so a crash or
//! Ctrl-C never leaves a file that looks complete and is not.
//!
//! ```text
//! <out>/<run-id>/               run.json, report.html
//!   <study>/<config>/           result.json, cpu.folded, cpu.svg, cpu.pb, alloc.folded, alloc.svg
//!                               (cpu.sources, alloc.sources, instructions.sources: files)
//!                               (corrupt study: outcomes.jsonl, repro/)
//!   compare/<before-run>/...    compare.json, diff.svg, diff-reverse.svg
//! <out>/latest -> <run-id>
//! <out>/<run-id>-ab/            ab.json, A/result.json, B/result.json
//! ```

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::misuse_err;
use crate::model::ConfigId;

/// The run manifest, in a run folder.
pub(crate) const RUN_JSON: &str = "run.json";
/// A configuration's figures, in its folder.
pub(crate) const RESULT_JSON: &str = "result.json";
/// The report of a run.
pub(crate) const REPORT_HTML: &str = "report.html";
/// The CPU profile: folded stacks, flame graph, pprof protobuf.
pub(crate) const CPU_FOLDED: &str = "cpu.folded";
pub(crate) const CPU_SVG: &str = "cpu.svg";
pub(crate) const CPU_PB: &str = "cpu.pb";
/// Where each function of a profile is: `function<TAB>source file<TAB>library` per line, next to
/// its folded stacks (`profile::sources`).
pub(crate) const CPU_SOURCES: &str = "cpu.sources";
pub(crate) const ALLOC_SOURCES: &str = "alloc.sources";
pub(crate) const INSTRUCTIONS_SOURCES: &str = "instructions.sources";
/// A configuration's CPU profile views (hot spots, backtraces, call trees), linked from the
/// report.
pub(crate) const VIEWS_HTML: &str = "views.html";
/// Each profile in speedscope's file format.
pub(crate) const CPU_SPEEDSCOPE: &str = "cpu.speedscope.json";
pub(crate) const ALLOC_SPEEDSCOPE: &str = "alloc.speedscope.json";
pub(crate) const INSTRUCTIONS_SPEEDSCOPE: &str = "instructions.speedscope.json";
/// The allocation profile: folded stacks (bytes) and flame graph.
pub(crate) const ALLOC_FOLDED: &str = "alloc.folded";
pub(crate) const ALLOC_SVG: &str = "alloc.svg";
/// The instruction profile: folded stacks (instructions), flame graph, and the counted
/// callgrind dump (for callgrind_annotate or KCachegrind).
pub(crate) const INSTRUCTIONS_FOLDED: &str = "instructions.folded";
pub(crate) const INSTRUCTIONS_SVG: &str = "instructions.svg";
pub(crate) const INSTRUCTIONS_CALLGRIND: &str = "instructions.callgrind";
/// The job file of an instrumented worker (its arguments, so that its command line has the same
/// length in every run), and the prefix of callgrind's dumps, in the configuration's folder.
pub(crate) const INSTRUCTIONS_JOB: &str = ".instructions-job.json";
pub(crate) const CALLGRIND_OUT: &str = ".callgrind.out";
/// A comparison's differential flame graph of instructions.
pub(crate) const INSTRUCTIONS_DIFF_SVG: &str = "instructions-diff.svg";
/// A before-after's flame graph of the after side over layouts, coloured where a function's
/// change is called (`analyze::moved`).
pub(crate) const FUNCTIONS_DIFF_SVG: &str = "functions-diff.svg";
/// A comparison's figures and its two differential flame graphs.
pub(crate) const COMPARE_JSON: &str = "compare.json";
pub(crate) const DIFF_SVG: &str = "diff.svg";
pub(crate) const DIFF_REVERSE_SVG: &str = "diff-reverse.svg";
/// The folder of comparisons inside a run folder.
pub(crate) const COMPARE_DIR: &str = "compare";
/// What `serprof ab` measured, in its folder; its two sides' folders.
pub(crate) const AB_JSON: &str = "ab.json";
pub(crate) const AB_SIDES: [&str; 2] = ["A", "B"];
/// What `serprof before-after` concluded (record, table, page), and its two sides' run folders,
/// in its folder.
pub(crate) const BEFORE_AFTER_JSON: &str = "before-after.json";
pub(crate) const BEFORE_AFTER_TXT: &str = "before-after.txt";
pub(crate) const BEFORE_AFTER_HTML: &str = "before-after.html";
pub(crate) const BEFORE_AFTER_SIDES: [&str; 2] = ["before", "after"];
/// The default parent folder of before-after folders, under the run folders' parent.
pub(crate) const BEFORE_AFTER_DIR: &str = "before-after";
/// The link to the newest complete run.
pub(crate) const LATEST: &str = "latest";
/// The corrupt study: one line per input, and the reproducer folder.
pub(crate) const OUTCOMES_JSONL: &str = "outcomes.jsonl";
pub(crate) const REPRO_DIR: &str = "repro";
/// The progress file a corrupt child appends to (removed at the end).
pub(crate) const CORRUPT_PROGRESS: &str = ".corrupt-progress";
/// The valid payloads of the 200 Orders, written by the first corrupt child so that every later
/// child and the parent damage the very same bytes (removed at the end).
pub(crate) const CORRUPT_PAYLOADS: &str = ".corrupt-payloads.bin";
/// A verification child's payloads (one per value), which the driver compresses and removes.
pub(crate) const VERIFY_PAYLOADS: &str = ".verify-payloads.bin";

/// The folder of a configuration inside a run folder.
pub(crate) fn config_dir(run_dir: &Path, id: &ConfigId) -> PathBuf {
    run_dir.join(&id.study).join(id.in_study().as_ref())
}

/// The file a worker child writes its report to, inside the configuration's folder.
pub(crate) fn worker_report(dir: &Path, recording: &str) -> PathBuf {
    dir.join(format!(".{recording}.json"))
}

/// The reproducer file of a corrupt input, relative to the configuration's folder.
pub(crate) fn repro_file(outcome: &str, index: usize) -> String {
    format!("{REPRO_DIR}/{outcome}-{index}.bin")
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let mut f =
        fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_data())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    drop(f);
    fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
}

/// Writes `value` as pretty JSON to `path`, atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Reads JSON the user pointed us at: a missing, unreadable or corrupt file is a misuse error
/// (exit 2) naming the path.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes =
        fs::read(path).map_err(|e| misuse_err(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        misuse_err(format!(
            "{} is not a valid serprof file: {e}",
            path.display()
        ))
    })
}

/// UTC time as `YYYYMMDDTHHMMSSZ`.
pub(crate) fn utc_stamp(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// UTC time as RFC 3339 (`2026-11-30T10:15:00Z`).
pub(crate) fn utc_rfc3339(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// UTC time as RFC 3339 with milliseconds (`2026-11-30T10:15:00.250Z`): instants that must be
/// ordered against another process's (the machine's measuring lock).
pub(crate) fn utc_rfc3339_ms(t: SystemTime) -> String {
    let ms = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_millis())
        .unwrap_or(0);
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
}

/// Calendar fields of a UTC time (Howard Hinnant's days-to-civil algorithm).
fn civil(t: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

/// Creates a fresh run folder under `out`: `<UTC time>-<git rev>`, with `-2`, `-3` ... when two
/// runs start in the same second.
pub(crate) fn create_run_dir(out: &Path, rev: &str) -> Result<PathBuf> {
    fs::create_dir_all(out).map_err(|e| {
        misuse_err(format!(
            "cannot create output folder {}: {e}",
            out.display()
        ))
    })?;
    reserve_run_name(out, SystemTime::now(), rev, "")
}

/// Creates the empty folder `out/<UTC time of started>-<git rev><suffix>` (with `-2`, `-3` ...
/// when taken) and returns it: the one naming rule of run folders (`serprof ab` renames its
/// finished folder onto the reserved name).
pub(crate) fn reserve_run_name(
    out: &Path,
    started: SystemTime,
    rev: &str,
    suffix: &str,
) -> Result<PathBuf> {
    reserve_dir(
        out,
        &format!("{}-{}{suffix}", utc_stamp(started), rev.replace('+', "-")),
    )
}

/// Creates the empty folder `out/<base>` (with `-2`, `-3` ... when taken) and returns it.
pub(crate) fn reserve_dir(out: &Path, base: &str) -> Result<PathBuf> {
    for n in 1.. {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}-{n}")
        };
        let dir = out.join(name);
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(misuse_err(format!(
                    "cannot create run folder {}: {e}",
                    dir.display()
                )))
            }
        }
    }
    unreachable!()
}

/// Points `out/latest` at `run_dir` (a relative symlink), replacing it atomically.
pub(crate) fn update_latest(out: &Path, run_dir: &Path) -> Result<()> {
    let name = run_dir.file_name().context("run folder has no name")?;
    let tmp = out.join(format!(".latest.tmp{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    #[cfg(unix)]
    std::os::unix::fs::symlink(name, &tmp)
        .with_context(|| format!("cannot create {}", tmp.display()))?;
    #[cfg(not(unix))]
    fs::write(&tmp, name.to_string_lossy().as_bytes())?;
    fs::rename(&tmp, out.join(LATEST))
        .with_context(|| format!("cannot update {}/latest", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn stamps_are_utc_calendar_times() {
        let t = UNIX_EPOCH + Duration::from_secs(1_764_497_700); // 2025-11-30T10:15:00Z
        assert_eq!(utc_stamp(t), "20251130T101500Z");
        assert_eq!(utc_rfc3339(t), "2025-11-30T10:15:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29T00:00:00Z
        assert_eq!(utc_rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_json(&p, &serde_json::json!({"x": 1})).unwrap();
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.json"]);
        let back: serde_json::Value = read_json(&p).unwrap();
        assert_eq!(back["x"], 1);
    }

    #[test]
    fn latest_points_at_the_run_and_run_dirs_are_unique() {
        let dir = tempfile::tempdir().unwrap();
        let a = create_run_dir(dir.path(), "abc1234").unwrap();
        let b = create_run_dir(dir.path(), "abc1234").unwrap();
        assert_ne!(a, b);
        update_latest(dir.path(), &b).unwrap();
        assert_eq!(
            fs::canonicalize(dir.path().join("latest")).unwrap(),
            fs::canonicalize(&b).unwrap()
        );
    }
}
