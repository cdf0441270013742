//! `serprof report RUN_DIR` on hand-made run folders: misuse is a one-line error with exit 2,
//! and the report shows what exists (a failed row, a decode-only result without timing, an
//! unreadable result, a configuration an interrupted run never reached) with every string from
//! the files escaped.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};
use serprof::testing::Settings;

fn report(dir: &Path) -> std::process::Output {
    Command::cargo_bin("serprof")
        .unwrap()
        .env_remove("RUST_LOG")
        .arg("report")
        .arg(dir)
        .output()
        .unwrap()
}

fn assert_misuse(out: &std::process::Output, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit 2: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(says), "{err:?} says {says:?}");
}

fn manifest(configs: &[&str]) -> Value {
    json!({
        "serprof_version": "0.1.0", "git_rev": "abc1234", "rustc": "rustc 1.95.0",
        "engines": [{ "engine": "serde_json", "version": "1.0.154" }],
        "machine": { "os": "linux", "arch": "x86_64", "kernel": "6.1", "cpus": 2,
                     "cpu_model": "Test <CPU>", "hostname": "h" },
        "settings": Settings::quick(),
        "buffer_policy": "one Vec<u8>", "command": ["serprof", "run"],
        "configs": configs, "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:01:00Z",
        "complete": false, "failed": [], "warnings": ["a run-level <warning>"]
    })
}

fn measured(study: &str, config: &str, format: &str, median: f64) -> Value {
    json!({
        "study": study, "config": config, "engine": config, "engine_version": "1.0",
        "format": format, "operation": "roundtrip", "dataset": "orders",
        "notes": "writes <b>raw</b> & more", "engine_frames": "x", "verified": true,
        "payload_bytes": 9813.17, "shares_references": false,
        "time_ns": { "median": median, "ci95": [median * 0.9, median * 1.1], "mad": 1.0,
                     "ops_per_batch": 10, "batches": [median] },
        "alloc": { "allocs_per_op": 108.4, "reallocs_per_op": 0.0, "bytes_per_op": 11983.0,
                   "peak_live_bytes": 20000, "ops": 400, "stack_samples": 10, "sample_bytes": 65536 },
        "cpu": null, "profile": {
            "top_self": { "function": "serde_json::ser::write_str", "percent": 16.0 },
            "top_engine": [], "match_regex": "base64", "match_percent": 42.5,
            "finding": format!("{config}: 99% of samples in engine code; 16% in <write_str>")
        },
        "warnings": ["only 300 CPU samples"], "error": null
    })
}

fn write(path: &Path, v: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

#[test]
fn misuse_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    assert_misuse(&report(&dir.path().join("nope")), "not a run folder");
    assert_misuse(&report(dir.path()), "has no run.json");
    fs::write(dir.path().join("run.json"), b"{ not json").unwrap();
    assert_misuse(&report(dir.path()), "is not a valid serprof file");
}

#[test]
fn the_report_shows_what_exists_and_escapes_it() {
    let out = tempfile::tempdir().unwrap();
    let run = out.path().join("20260101T000000Z-abc1234");
    write(
        &run.join("run.json"),
        &manifest(&[
            "bytes/json-decimal",
            "bytes/json-base64-table",
            "bytes/<img src=x onerror=alert(1)>",
            "bytes/never-reached",
            "corrupt/postcard",
        ]),
    );
    write(
        &run.join("bytes/json-base64-table/result.json"),
        &measured("bytes", "json-base64-table", "json", 16_800.0),
    );
    write(
        &run.join("bytes/json-decimal/result.json"),
        &measured("bytes", "json-decimal", "json", 75_900.0),
    );
    fs::write(run.join("bytes/json-decimal/cpu.svg"), "<svg/>").unwrap();
    let mut failed = measured("bytes", "<img src=x onerror=alert(1)>", "json", 1.0);
    failed["time_ns"] = Value::Null;
    failed["error"] = json!("verification failed: <Order 3> differs");
    write(
        &run.join("bytes/<img src=x onerror=alert(1)>/result.json"),
        &failed,
    );
    // A decode-only study's result: no timing, figures of its own.
    let mut decoded = measured("corrupt", "postcard", "binary", 1.0);
    decoded["operation"] = json!("decode");
    decoded["time_ns"] = Value::Null;
    decoded["alloc"] = Value::Null;
    decoded["profile"] = Value::Null;
    decoded["corrupt"] = json!({
        "seed": "0x5eed", "inputs": 100, "skipped": 0, "per_input_cap_ms": 2000,
        "memory_cap_mib": 1024, "children": 1,
        "counts": { "clean_error": 91, "altered": 9, "unchanged": 0, "panic": 0, "abort": 0,
                    "hang": 0, "oom": 0 },
        "by_mutation": {}, "cases": []
    });
    write(&run.join("corrupt/postcard/result.json"), &decoded);
    fs::create_dir_all(run.join("corrupt/sonic-rs")).unwrap();
    fs::write(run.join("corrupt/sonic-rs/result.json"), b"{ truncated").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(run.file_name().unwrap(), out.path().join("latest")).unwrap();
    #[cfg(not(unix))]
    let _ = out.path();

    let o = report(&out.path().join("latest"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert!(printed.trim_end().ends_with("report.html"), "{printed}");
    let html = fs::read_to_string(run.join("report.html")).unwrap();

    // Escaped everywhere: names, errors, notes, findings, manifest strings.
    assert!(
        !html.contains("<img src=x"),
        "a name from a file is escaped"
    );
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("verification failed: &lt;Order 3&gt; differs"));
    assert!(html.contains("writes &lt;b&gt;raw&lt;/b&gt; &amp; more"));
    assert!(html.contains("Test &lt;CPU&gt;") && html.contains("a run-level &lt;warning&gt;"));
    // Links are relative and percent-encoded.
    assert!(html.contains("href=\"bytes/json-decimal/cpu.svg\""));
    assert!(
        html.contains("href=\"bytes/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E/result.json\"")
    );

    // Sorted by time, ratio to the fastest, the byte-array share, the charts.
    let fast = html.find(">json-base64-table</span>").unwrap();
    let slow = html.find(">json-decimal</span>").unwrap();
    assert!(fast < slow, "fastest first");
    assert!(html.contains("4.52×"), "75.9 / 16.8");
    assert!(html.contains("byte-array code share") && html.contains("42.5%"));
    assert_eq!(
        html.matches("<svg class=\"chart\"").count(),
        5,
        "bytes: 4 charts; corrupt: its payload chart"
    );

    // What exists of the rest: decode figures, an unreadable result, an unmeasured one.
    assert!(html.contains("<th title=\"counts.clean_error\">clean error</th>"));
    assert!(html.contains("<td>91</td>"));
    assert!(html.contains("result.json is unreadable"));
    assert!(html.contains("never-reached") && html.contains("not measured"));
    assert!(html.contains("incomplete"));
}
