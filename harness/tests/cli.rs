//! End-to-end tests of the `serprof` binary on `--quick`-sized settings: what a user sees.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

/// Runs `serprof run` with small settings into a fresh folder; returns (exit code, stdout JSON, out dir).
fn quick_run(args: &[&str]) -> (i32, Value, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let o = serprof()
        .args([
            "run",
            "--quick",
            "--json",
            "--quiet",
            "--rounds",
            "5",
            "--cpu-samples",
            "60",
        ])
        .args(["--out", out.path().to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code().unwrap(), doc, out)
}

fn result<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            format!(
                "{}/{}",
                r["study"].as_str().unwrap(),
                r["config"].as_str().unwrap()
            ) == name
        })
        .unwrap_or_else(|| panic!("no result for {name}"))
}

#[test]
fn dataset_order_zero_equals_the_golden_json() {
    let golden: Vec<&str> = include_str!("fixtures/orders-000-009.jsonl")
        .lines()
        .collect();
    for (n, expected) in golden.iter().enumerate().take(3) {
        let o = serprof()
            .args(["dataset", "--order", &n.to_string()])
            .output()
            .unwrap();
        assert!(o.status.success());
        let got: Value = serde_json::from_slice(&o.stdout).unwrap();
        let want: Value = serde_json::from_str(expected).unwrap();
        assert_eq!(got, want, "order {n}");
        assert_eq!(
            String::from_utf8(o.stdout).unwrap().trim_end(),
            *expected,
            "byte for byte"
        );
    }
}

#[test]
fn dataset_mean_length_is_jacksons_9814_14() {
    let o = serprof().arg("dataset").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 200);
    let total: usize = lines.iter().map(|l| l.len()).sum();
    assert_eq!(total, 1_962_828);
    let stats = serprof()
        .args(["dataset", "--stats", "--json"])
        .output()
        .unwrap();
    let facts: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(facts["order_lines"], 885);
    assert_eq!(facts["thumbnail_bytes"], 220_505);
    assert_eq!(facts["json_bytes"][0]["mean"], 9814.14);
}

#[test]
fn bad_names_and_ranges_are_exit_2_with_a_helpful_line() {
    let o = serprof().args(["run", "--study", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("unknown study") && err.contains("formats") && err.lines().count() == 1,
        "{err}"
    );
    let o = serprof()
        .args(["run", "--config", "formats/nope"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("formats/serde_json"));
    let o = serprof()
        .args(["dataset", "--order", "200"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("out of range"));
    let o = serprof()
        .args(["encode", "formats/nope", "--order", "0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // before-after's sets are its layouts: --processes counts them only without layouts, and
    // is refused before anything is built (here, outside any repository) with them.
    let outside = tempfile::tempdir().unwrap();
    for args in [&["--processes", "7"][..], &["--quick", "--processes", "7"]] {
        let o = serprof()
            .current_dir(outside.path())
            .args(["before-after", "HEAD"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.lines().count() == 1 && err.contains("give --layouts 7"),
            "{args:?}: {err}"
        );
    }
    let o = serprof()
        .current_dir(outside.path())
        .args(["before-after", "HEAD", "--layouts", "0", "--processes", "7"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("git repository"), "{err}");
}

#[test]
fn encode_then_decode_gives_the_value_back() {
    let payload = serprof()
        .args(["encode", "formats/postcard+bytes", "--value", "0"])
        .output()
        .unwrap();
    assert!(payload.status.success());
    let decoded = serprof()
        .args(["decode", "formats/postcard+bytes"])
        .write_stdin(payload.stdout.clone())
        .output()
        .unwrap();
    assert!(decoded.status.success());
    // The decoded value's `{:#?}`: Order 0 itself.
    assert_eq!(
        String::from_utf8(decoded.stdout).unwrap(),
        format!("{:#?}\n", serprof_engines::dataset::orders()[0])
    );
    let truncated = &payload.stdout[..payload.stdout.len() / 2];
    let bad = serprof()
        .args(["decode", "formats/postcard+bytes"])
        .write_stdin(truncated.to_vec())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1), "a malformed payload is exit 1");
    assert!(String::from_utf8(bad.stderr)
        .unwrap()
        .contains("could not decode"));
}

#[test]
fn a_failing_engine_is_reported_and_the_others_are_still_measured() {
    let (code, doc, out) = quick_run(&[
        "--study",
        "testkit",
        "--config",
        "testkit/ok",
        "--config",
        "testkit/drop-field",
        "--no-alloc",
    ]);
    assert_eq!(code, 1, "a failed configuration makes the run exit 1");
    let bad = result(&doc, "testkit/drop-field");
    let err = &bad["error"];
    assert_eq!(err["kind"], "verification", "{err}");
    assert_eq!(err["error"]["kind"], "differs", "{err}");
    assert!(
        err["error"]["difference"]
            .as_str()
            .unwrap()
            .starts_with("notes"),
        "{err}"
    );
    assert!(
        bad["time_ns"].is_null(),
        "a failed configuration is never timed"
    );
    let ok = result(&doc, "testkit/ok");
    assert!(ok["error"].is_null());
    assert!(ok["time_ns"]["median"].as_f64().unwrap() > 0.0);
    // Both results are on disk, the run is complete, and latest points at it.
    let run_dir = PathBuf::from(doc["run_dir"].as_str().unwrap());
    assert_eq!(read_json(&run_dir.join("run.json"))["complete"], true);
    assert!(run_dir.join("testkit/drop-field/result.json").is_file());
    assert_eq!(
        std::fs::canonicalize(out.path().join("latest")).unwrap(),
        std::fs::canonicalize(&run_dir).unwrap()
    );
}

#[test]
fn run_writes_every_file_and_a_readable_profile() {
    let (code, doc, _out) = quick_run(&["--config", "formats/serde_json"]);
    assert_eq!(code, 0, "{doc}");
    let r = result(&doc, "formats/serde_json");
    assert_eq!(r["verified"], true);
    let payload = r["payload_bytes"].as_f64().unwrap();
    assert!((payload - 9814.14).abs() / 9814.14 < 0.02, "{payload}");
    let dir = PathBuf::from(doc["run_dir"].as_str().unwrap()).join("formats/serde_json");
    for f in [
        "result.json",
        "cpu.folded",
        "cpu.svg",
        "cpu.pb",
        "alloc.folded",
        "alloc.svg",
    ] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} is missing or empty");
    }
    let folded = std::fs::read_to_string(dir.join("cpu.folded")).unwrap();
    assert!(
        folded.lines().all(|l| l.starts_with("formats/serde_json;")),
        "root frame renamed"
    );
    assert!(
        folded.contains("serde_json::de::"),
        "serde_json's deserializer frames by name"
    );
    let cpu = &r["cpu"];
    assert!(cpu["samples"].as_u64().unwrap() > 0);
    assert!(cpu["effective_hz"].as_f64().unwrap() > 0.0);
    assert!(cpu["overhead_ratio"].as_f64().unwrap() > 0.0);
    assert!(r["alloc"]["allocs_per_op"].as_f64().unwrap() > 0.0);
    // hotspots on the folder: the --match share lies in (0, 100].
    let o = serprof()
        .args([
            "hotspots",
            dir.to_str().unwrap(),
            "--match",
            "serde_json::de",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let h: Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = h["match_percent"].as_f64().unwrap();
    assert!(p > 0.0 && p <= 100.0, "{p}");
    assert!(h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["engine"] == true));
}

#[test]
fn allocation_counts_are_exact_and_exclude_the_harness() {
    let (code, doc, _out) = quick_run(&[
        "--study",
        "testkit",
        "--config",
        "testkit/alloc-3x1000",
        "--config",
        "testkit/no-alloc",
        "--no-cpu",
    ]);
    assert_eq!(code, 0, "{doc}");
    let a = &result(&doc, "testkit/alloc-3x1000")["alloc"];
    assert_eq!(a["allocs_per_op"], 3.0);
    assert_eq!(a["bytes_per_op"], 3000.0);
    assert_eq!(a["reallocs_per_op"], 0.0);
    let z = &result(&doc, "testkit/no-alloc")["alloc"];
    assert_eq!(
        (z["allocs_per_op"].as_f64(), z["bytes_per_op"].as_f64()),
        (Some(0.0), Some(0.0))
    );
}

#[test]
fn cpu_pb_decodes_with_the_effective_period() {
    use pprof::protos::Message;
    let (code, doc, _out) = quick_run(&["--config", "formats/postcard+bytes", "--no-alloc"]);
    assert_eq!(code, 0);
    let r = result(&doc, "formats/postcard+bytes");
    let dir = PathBuf::from(doc["run_dir"].as_str().unwrap()).join("formats/postcard+bytes");
    let bytes = std::fs::read(dir.join("cpu.pb")).unwrap();
    let profile = pprof::protos::Profile::decode(bytes.as_slice()).unwrap();
    let samples: i64 = profile.sample.iter().map(|s| s.value[0]).sum();
    let cpu_ns: i64 = profile.sample.iter().map(|s| s.value[1]).sum();
    assert_eq!(samples as u64, r["cpu"]["samples"].as_u64().unwrap());
    let effective = r["cpu"]["effective_hz"].as_f64().unwrap();
    assert_eq!(profile.period, (1e9 / effective).round() as i64);
    assert_eq!(cpu_ns, samples * profile.period);
    // The total CPU time the file claims is the child's measured CPU time, within rounding.
    let seconds = r["cpu"]["seconds"].as_f64().unwrap();
    assert!((cpu_ns as f64 / 1e9 - seconds).abs() / seconds < 0.01);
    // The folded file agrees with the protobuf.
    let folded = std::fs::read_to_string(dir.join("cpu.folded")).unwrap();
    let folded_total: i64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
        .sum();
    assert_eq!(folded_total, samples);
}

#[test]
fn hotspots_rejects_bad_paths_profiles_and_regexes() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("bad.folded");
    std::fs::write(&corrupt, "a;b 1\nthis line has no count\n").unwrap();
    let empty = dir.path().join("empty.folded");
    std::fs::write(&empty, "").unwrap();
    let good = dir.path().join("good.folded");
    std::fs::write(&good, "cfg;main;parse 3\ncfg;main;write 1\n").unwrap();
    for (args, needle) in [
        (
            vec![dir.path().join("missing").to_str().unwrap().to_string()],
            "no such file",
        ),
        (
            vec![dir.path().to_str().unwrap().to_string()],
            "not a configuration folder",
        ),
        (vec![corrupt.to_str().unwrap().to_string()], "line 2"),
        (vec![empty.to_str().unwrap().to_string()], "empty profile"),
        (
            vec![
                good.to_str().unwrap().to_string(),
                "--match".into(),
                "(".into(),
            ],
            "invalid --match",
        ),
    ] {
        let o = serprof().arg("hotspots").args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let o = serprof()
        .args(["hotspots", good.to_str().unwrap(), "--match", "parse"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("75.0% inclusive"), "{out}");
}

#[test]
fn list_prints_every_study_and_json_is_one_document() {
    let o = serprof().args(["list", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let studies: Vec<&str> = doc["studies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["study"].as_str().unwrap())
        .collect();
    for s in ["formats", "bytes", "reflection"] {
        assert!(studies.contains(&s), "{studies:?}");
    }
    assert!(
        !studies.contains(&"testkit"),
        "hidden studies are not listed"
    );
}
