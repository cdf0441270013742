//! `serprof compare` and `serprof ab` through the real binary: a run compared with itself shows
//! no difference and no moved function; bad input is a one-line misuse (exit 2) naming the
//! folder; an A/B run writes a folder that `compare` reads with its pair ratios. Speed is
//! never asserted.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

fn serprof() -> Command {
    Command::cargo_bin("serprof").unwrap()
}

/// Runs `serprof ARGS --json` and returns the JSON document it printed.
fn json_of(args: &[&str]) -> Value {
    let out = serprof().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "serprof {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document on stdout")
}

/// Runs serprof expecting exit 2; returns stderr.
fn misuse(args: &[&str]) -> String {
    let out = serprof().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A quick real run of one configuration; returns the run folder.
fn quick_run(out: &Path) -> PathBuf {
    serprof()
        .args([
            "run",
            "--quick",
            "--no-alloc",
            "--cpu-samples",
            "100",
            "--config",
            "formats/postcard+bytes",
            "--quiet",
            "--out",
            s(out),
        ])
        .assert()
        .success();
    out.join("latest").canonicalize().unwrap()
}

/// A minimal `result.json` of a configuration folder.
fn fake_config(dir: &Path, config: &str, dataset: &str, operation: &str) -> PathBuf {
    let d = dir.join(config);
    std::fs::create_dir_all(&d).unwrap();
    let result = json!({
        "study": "formats", "config": config, "engine": "x", "engine_version": "1",
        "format": "binary", "operation": operation, "dataset": dataset, "notes": "",
        "engine_frames": "x", "verified": true, "payload_bytes": 100.0,
        "time_ns": { "median": 10.0, "ci95": [9.0, 11.0], "mad": 1.0, "ops_per_batch": 1,
                     "batches": [9.0, 10.0, 11.0, 10.0, 10.0, 9.5, 10.5] },
        "warnings": [], "error": null
    });
    std::fs::write(d.join("result.json"), result.to_string()).unwrap();
    d
}

#[test]
fn a_run_compared_with_itself_shows_no_difference_and_moves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let run = quick_run(tmp.path());
    let doc = json_of(&["compare", s(&run), s(&tmp.path().join("latest"))]);
    assert_eq!(doc["kind"], "runs");
    let cmps = doc["comparisons"].as_array().unwrap();
    assert_eq!(cmps.len(), 1);
    let c = &cmps[0];
    assert_eq!(c["after"], "formats/postcard+bytes");
    let ci = &c["time"]["ci95"];
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo <= 1.0 && 1.0 <= hi, "interval {lo}..{hi} holds 1");
    assert_eq!(c["time"]["ratio"].as_f64(), Some(1.0));
    // Two rows of one run come from one lock-step schedule.
    assert_eq!(c["time"]["method"], "lock_step");
    assert_eq!(c["moved"], json!([]), "nothing moves against itself");
    assert_eq!(c["payload_bytes"]["delta"].as_f64(), Some(0.0));
    // Outputs under the AFTER run, named after the BEFORE run.
    let out = run
        .join("compare")
        .join(run.file_name().unwrap())
        .join("formats/postcard+bytes");
    for f in ["compare.json", "diff.svg", "diff-reverse.svg"] {
        assert!(out.join(f).is_file(), "{f} in {}", out.display());
    }
    assert!(run
        .join("compare")
        .join(run.file_name().unwrap())
        .join("compare.json")
        .is_file());

    // The same as configuration folders, with --out, and the human table.
    let cfg = run.join("formats/postcard+bytes");
    let out = tmp.path().join("cfg-out");
    let table = serprof()
        .args(["compare", s(&cfg), s(&cfg), "--out", s(&out)])
        .output()
        .unwrap();
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("formats/postcard+bytes") && text.contains("none"),
        "{text}"
    );
    assert!(out.join("diff.svg").is_file() && out.join("compare.json").is_file());

    // Run folders with nothing in common: misuse listing both sides.
    let other = tmp.path().join("other-run");
    std::fs::create_dir_all(&other).unwrap();
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(run.join("run.json")).unwrap()).unwrap();
    manifest["configs"] = json!(["formats/serde_json"]);
    std::fs::write(other.join("run.json"), manifest.to_string()).unwrap();
    fake_config(&other.join("formats"), "serde_json", "orders", "roundtrip");
    let e = misuse(&["compare", s(&run), s(&other)]);
    assert!(
        e.contains("no configuration in common")
            && e.contains("formats/postcard+bytes")
            && e.contains("formats/serde_json"),
        "{e}"
    );
}

#[test]
fn different_datasets_or_operations_are_misuse_naming_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let orders = fake_config(tmp.path(), "a", "orders", "roundtrip");
    let samples = fake_config(tmp.path(), "b", "samples", "roundtrip");
    let serialize = fake_config(tmp.path(), "c", "orders", "serialize");
    let e = misuse(&["compare", s(&orders), s(&samples)]);
    assert!(e.contains(s(&samples)) && e.contains("dataset"), "{e}");
    let e = misuse(&["compare", s(&orders), s(&serialize)]);
    assert!(e.contains(s(&serialize)) && e.contains("operation"), "{e}");
    // Without profiles the comparison still works, and says why nothing moved.
    let other = fake_config(tmp.path(), "d", "orders", "roundtrip");
    let doc = json_of(&["compare", s(&orders), s(&other)]);
    assert_eq!(doc["comparisons"][0]["moved"], Value::Null);
    assert!(doc["comparisons"][0]["out_dir"]
        .as_str()
        .unwrap()
        .ends_with("a__vs__d"));
}

#[test]
fn missing_corrupt_or_unknown_folders_are_misuse() {
    let tmp = tempfile::tempdir().unwrap();
    let good = fake_config(tmp.path(), "good", "orders", "roundtrip");
    let corrupt = tmp.path().join("corrupt");
    std::fs::create_dir_all(&corrupt).unwrap();
    std::fs::write(corrupt.join("result.json"), "{\"study\": ").unwrap();
    let e = misuse(&["compare", s(&good), s(&corrupt)]);
    assert!(e.contains("corrupt/result.json"), "{e}");
    let neither = tmp.path().join("neither");
    std::fs::create_dir_all(&neither).unwrap();
    let e = misuse(&["compare", s(&neither), s(&good)]);
    assert!(e.contains(s(&neither)) && e.contains("neither"), "{e}");
    let e = misuse(&["compare", s(&good), s(&tmp.path().join("missing"))]);
    assert!(e.contains("missing"), "{e}");
    let bad_run = tmp.path().join("bad-run");
    std::fs::create_dir_all(&bad_run).unwrap();
    std::fs::write(bad_run.join("run.json"), "[").unwrap();
    let e = misuse(&["compare", s(&bad_run), s(&bad_run)]);
    assert!(e.contains("bad-run/run.json"), "{e}");
    let bad_folded = fake_config(tmp.path(), "bad-folded", "orders", "roundtrip");
    std::fs::write(bad_folded.join("cpu.folded"), "no count here\n").unwrap();
    std::fs::write(good.join("cpu.folded"), "good;main 3\n").unwrap();
    let e = misuse(&["compare", s(&good), s(&bad_folded)]);
    assert!(e.contains("bad-folded/cpu.folded"), "{e}");
}

#[test]
fn ab_of_identical_configurations_writes_a_folder_compare_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = json_of(&[
        "ab",
        "formats/postcard+bytes",
        "formats/postcard+bytes",
        "--rounds",
        "8",
        "--processes",
        "2",
        "--out",
        s(tmp.path()),
    ]);
    let ratio = doc["ratio"].as_f64().unwrap();
    let ci = doc["ci95"].as_array().unwrap();
    assert!(ratio.is_finite() && ratio > 0.0);
    assert!(ci[0].as_f64().unwrap() <= ratio && ratio <= ci[1].as_f64().unwrap());
    assert_eq!(doc["rounds"], 8);
    let dir = PathBuf::from(doc["ab_dir"].as_str().unwrap());
    assert!(dir.file_name().unwrap().to_str().unwrap().ends_with("-ab"));
    let ab: Value = serde_json::from_slice(&std::fs::read(dir.join("ab.json")).unwrap()).unwrap();
    assert_eq!(ab["pair_ratios"].as_array().unwrap().len(), 8);
    // The interval is across the two processes, each with its own median of 4 pair ratios.
    assert_eq!(ab["process_ratios"].as_array().unwrap().len(), 2);
    assert_eq!(ab["processes"], 2);
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no temporary folder left: {names:?}");

    let cmp = json_of(&["compare", s(&dir.join("A")), s(&dir.join("B"))]);
    let t = &cmp["comparisons"][0]["time"];
    assert_eq!(t["method"], "lock_step", "{t}");
    // Equal up to JSON's float parsing (serde_json without `float_roundtrip` may be 1 ulp off).
    assert!((t["ratio"].as_f64().unwrap() - ratio).abs() < 1e-12, "{t}");
    assert_eq!(t["samples"], 2, "one ratio per process");
    // Reversed, the pair ratios are inverted.
    let rev = json_of(&["compare", s(&dir.join("B")), s(&dir.join("A"))]);
    let r = rev["comparisons"][0]["time"]["ratio"].as_f64().unwrap();
    assert!((r * ratio - 1.0).abs() < 0.05, "{r} vs {ratio}");
}

#[test]
fn ab_refuses_unknown_or_mismatched_configurations() {
    let tmp = tempfile::tempdir().unwrap();
    let out = s(tmp.path());
    let e = misuse(&["ab", "formats/nope", "formats/postcard", "--out", out]);
    assert!(e.contains("formats/nope"), "{e}");
    let e = misuse(&[
        "ab",
        "formats/postcard",
        "formats/postcard",
        "--rounds",
        "0",
        "--out",
        out,
    ]);
    assert!(e.contains("--rounds"), "{e}");
    let e = misuse(&[
        "ab",
        "formats/postcard",
        "reflection/serde_json",
        "--out",
        out,
    ]);
    assert!(
        e.contains("reflection/serde_json") && e.contains("serialize"),
        "{e}"
    );
    let e = misuse(&["ab", "corrupt/postcard", "corrupt/postcard", "--out", out]);
    assert!(e.contains("corrupt/postcard"), "{e}");
}

#[test]
fn ab_of_a_failing_configuration_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    for (bad, why) in [
        ("testkit/drop-field", "verification"),
        ("testkit/panic", "panicked"),
    ] {
        let out = serprof()
            .args(["ab", "testkit/ok", bad, "--out", s(tmp.path())])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bad}: {stderr}");
        assert!(stderr.contains(bad) && stderr.contains(why), "{stderr}");
        // The schedule's header line, then the error in one line.
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("serprof: error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(
            errors[0].contains(bad) && errors[0].contains(why),
            "{stderr}"
        );
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
