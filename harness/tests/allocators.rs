//! `run --allocators`: every selected configuration measured under each allocator, a row each
//! named `CONFIG@ALLOCATOR` with `allocator` in its `result.json`, verified, timed with a lane
//! per allocator in one lock-step schedule, and counted by the counting allocator wrapping the
//! chosen one (so the counts, which depend only on what the engine asks for, are the same under
//! every allocator). A bad list is a one-line misuse.

use serde_json::Value;

mod common;
use common::run_once;

const ALLOCATORS: [&str; 3] = ["system", "jemalloc", "mimalloc"];

fn read(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn each_configuration_runs_under_each_allocator_in_one_schedule() {
    let out = tempfile::tempdir().unwrap();
    let run = run_once(
        out.path(),
        &[
            "--no-cpu",
            "--allocators",
            "system,jemalloc,mimalloc",
            "--study",
            "testkit",
        ],
        &["ok"],
    );
    let mut counts = Vec::new();
    for a in ALLOCATORS {
        let r = read(&run.join(format!("testkit/ok@{a}/result.json")));
        assert_eq!(r["config"], format!("ok@{a}"), "{r}");
        assert_eq!(r["allocator"], a, "{r}");
        assert_eq!(r["verified"], true, "{r}");
        assert!(r["error"].is_null(), "{r}");
        assert!(r["time_ns"]["median"].as_f64().unwrap() > 0.0, "{r}");
        let alloc = &r["alloc"];
        counts.push((
            alloc["allocs_per_op"].clone(),
            alloc["bytes_per_op"].clone(),
            r["retained_bytes"].clone(),
        ));
    }
    assert!(
        counts[0].0.as_f64().unwrap() > 0.0,
        "the round trip allocates"
    );
    assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
    let manifest = read(&run.join("run.json"));
    let schedules = manifest["schedules"].as_array().unwrap();
    assert_eq!(schedules.len(), 1, "one lock-step schedule");
    assert_eq!(schedules[0]["builds"], serde_json::json!(ALLOCATORS));
    let report = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        report.contains("ok  fastest "),
        "the report names the fastest allocator"
    );
    assert!(
        report.contains("by engine (") && report.contains("fastest outright in"),
        "the report names each engine's fastest allocator"
    );
    // Without the flag, nothing is named after an allocator.
    let plain = run_once(
        out.path(),
        &["--no-cpu", "--no-alloc", "--study", "testkit"],
        &["ok"],
    );
    let r = read(&plain.join("testkit/ok/result.json"));
    assert!(r.get("allocator").is_none(), "{r}");
}

#[test]
fn a_bad_allocator_list_is_a_one_line_misuse() {
    for (list, says) in [
        ("tcmalloc", "unknown allocator \"tcmalloc\""),
        ("system,system", "named twice"),
    ] {
        let o = assert_cmd::Command::cargo_bin("serprof")
            .unwrap()
            .args(["run", "--quick", "--allocators", list, "--study", "testkit"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}
