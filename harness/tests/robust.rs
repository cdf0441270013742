//! Robustness of `serprof run`, on the real binary with the testkit doubles: engines
//! that panic, abort, hang or allocate without bound are reported while the others keep their
//! results; Ctrl-C leaves a consistent, resumable run folder; the `corrupt` study sorts every
//! damaged input of every engine into its outcome and still exits 0.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    // RUST_BACKTRACE would flood a crashing child's stderr; the harness must cope without it.
    c.env_remove("RUST_LOG").env_remove("RUST_BACKTRACE");
    c
}

fn read_json(p: &Path) -> Value {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `serprof run --json --quiet` with small settings; returns (exit code, stdout JSON).
fn run_json(out: &Path, args: &[&str]) -> (i32, Value) {
    let o = serprof()
        .args(["run", "--json", "--quiet", "--out", out.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code().unwrap(), doc)
}

/// The `result.json` of `name` (`STUDY/CONFIG`) as the run wrote it: what a later command reads.
fn result(doc: &Value, name: &str) -> Value {
    read_json(
        &Path::new(doc["run_dir"].as_str().unwrap())
            .join(name)
            .join("result.json"),
    )
}

#[test]
fn panicking_aborting_hanging_and_hoarding_engines_are_reported_and_ok_keeps_its_result() {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--quick", "--no-cpu", "--no-alloc", "--rounds", "5"];
    args.extend([
        "--memory-cap",
        "512",
        // Long enough that the hoarding child fills its 512 MiB on a loaded machine (the other
        // tests of this file run beside it).
        "--child-timeout",
        "6",
        "--study",
        "testkit",
    ]);
    for c in ["ok", "panic", "abort", "hang", "oom", "stack-overflow"] {
        args.extend(["--config", c]);
    }
    let started = Instant::now();
    let (code, doc) = run_json(out.path(), &args);
    assert_eq!(code, 1, "failed configurations make the run exit 1: {doc}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the hang was not cut short"
    );
    // Each failure keeps its kind and fields in result.json.
    let error = |name: &str| result(&doc, name)["error"].clone();
    let panicked = error("testkit/panic");
    assert_eq!(panicked["kind"], "panicked", "{panicked}");
    assert!(panicked["message"].as_str().unwrap().contains("on purpose"));
    let verdict = |e: &serde_json::Value| {
        assert_eq!(e["kind"], "child", "{e}");
        e["verdict"].clone()
    };
    let aborted = verdict(&error("testkit/abort"));
    assert_eq!(
        (aborted["ended"].as_str(), aborted["signal"].as_i64()),
        (Some("signal"), Some(6))
    );
    let hung = verdict(&error("testkit/hang"));
    assert_eq!(
        (hung["ended"].as_str(), hung["after"].as_f64()),
        (Some("hung"), Some(6.0))
    );
    let oom = verdict(&error("testkit/oom"));
    assert_eq!(oom["ended"], "out_of_memory", "{oom}");
    // The child's verdict names a stack overflow as such (not as a bare SIGABRT).
    let overflowed = verdict(&error("testkit/stack-overflow"));
    assert_eq!(overflowed["ended"], "stack_overflow", "{overflowed}");
    let ok = result(&doc, "testkit/ok");
    assert!(ok["error"].is_null(), "{ok}");
    assert!(ok["time_ns"]["median"].as_f64().unwrap() > 0.0);
    let run_dir = PathBuf::from(doc["run_dir"].as_str().unwrap());
    let manifest = read_json(&run_dir.join("run.json"));
    assert_eq!(manifest["complete"], true);
    let failed = manifest["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 5);
    assert!(failed
        .iter()
        .any(|f| f["config"] == "testkit/panic" && f["failure"]["kind"] == "panicked"));
    for c in ["ok", "panic", "abort", "hang", "oom"] {
        let on_disk = read_json(&run_dir.join("testkit").join(c).join("result.json"));
        assert_eq!(on_disk["config"], c);
    }
}

/// The recorders: one recorder serves one recording after another (verifications itself,
/// profiles each in a child it forks), and a recording that dies costs only that recording (its
/// verdict and stderr are its own).
#[test]
fn a_recorder_serves_many_recordings_and_a_crash_costs_only_its_own() {
    let out = tempfile::tempdir().unwrap();
    let trace = out.path().join("trace.jsonl");
    let mut args = vec![
        "--quick",
        "--no-alloc",
        "--jobs",
        "1",
        "--processes",
        "2",
        "--rounds",
        "3",
        "--cpu-samples",
        "20",
        "--study",
        "testkit",
        "--trace-json",
        trace.to_str().unwrap(),
    ];
    for c in ["ok", "drop-field", "abort", "extra-work"] {
        args.extend(["--config", c]);
    }
    let (code, doc) = run_json(out.path(), &args);
    assert_eq!(code, 1, "two configurations fail: {doc}");
    let error = |name: &str| result(&doc, name)["error"].clone();
    assert_eq!(error("testkit/drop-field")["kind"], "verification");
    let aborted = error("testkit/abort");
    assert_eq!(aborted["kind"], "child", "{aborted}");
    assert_eq!(aborted["verdict"]["signal"], 6, "{aborted}");
    assert_eq!(aborted["recording"], "verify", "{aborted}");
    for ok in ["testkit/ok", "testkit/extra-work"] {
        let r = result(&doc, ok);
        assert!(r["error"].is_null(), "{r}");
        assert!(r["cpu"]["samples"].as_u64().unwrap() >= 20, "{r}");
    }
    // Which process served which request, from the recorders' own trace lines.
    let mut served: Vec<(u64, String, String)> = Vec::new();
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["fields"]["message"] == "recorder request" {
            served.push((
                v["fields"]["pid"].as_u64().unwrap(),
                v["fields"]["config"].as_str().unwrap().to_string(),
                v["fields"]["recording"].as_str().unwrap().to_string(),
            ));
        }
    }
    let pid_of = |config: &str, recording: &str| {
        served
            .iter()
            .find(|(_, c, r)| c == config && r == recording)
            .unwrap_or_else(|| panic!("no {recording} request of {config}: {served:?}"))
            .0
    };
    // One slot. Verification: one recorder verifies ok, drop-field and abort itself; abort's
    // end is that recorder's, and extra-work is verified by the next one. The CPU recordings:
    // a forking recorder of their own makes both, each in a child it forks.
    let verifier = pid_of("testkit/ok", "verify");
    assert_eq!(pid_of("testkit/drop-field", "verify"), verifier);
    assert_eq!(pid_of("testkit/abort", "verify"), verifier);
    let next = pid_of("testkit/extra-work", "verify");
    assert_ne!(next, verifier);
    let profiler = pid_of("testkit/ok", "cpu");
    assert_eq!(pid_of("testkit/extra-work", "cpu"), profiler);
    assert!(![verifier, next].contains(&profiler), "{served:?}");
    assert_eq!(served.len(), 6, "{served:?}");
}

/// Every file below `dir`, for checking that nothing half-written is left.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all.extend(files_below(&p));
        } else {
            all.push(p);
        }
    }
    all
}

#[test]
fn ctrl_c_leaves_an_incomplete_resumable_run_and_resume_finishes_it() {
    let out = tempfile::tempdir().unwrap();
    let earlier = out.path().join("earlier");
    // A finished run that `latest` points at, and must keep pointing at through the interrupt.
    let (code, doc) = run_json(
        &earlier,
        &[
            "--quick",
            "--no-cpu",
            "--no-alloc",
            "--study",
            "testkit",
            "--config",
            "no-alloc",
        ],
    );
    assert_eq!(code, 0, "{doc}");
    let runs = out.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::os::unix::fs::symlink(
        earlier.join("latest").canonicalize().unwrap(),
        runs.join("latest"),
    )
    .unwrap();
    let latest_before = runs.join("latest").canonicalize().unwrap();

    // ok, hang (which sits in its verification child for 8 s) and no-alloc, timed in interleaved
    // rounds: interrupt while hang's first timing process runs, so nothing has finished.
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("serprof"))
        .env_remove("RUST_BACKTRACE")
        .args(["run", "--quiet", "--json", "--out", runs.to_str().unwrap()])
        .args([
            "--quick",
            "--no-alloc",
            "--cpu-samples",
            "40",
            "--rounds",
            "5",
            "--child-timeout",
            "8",
        ])
        .args([
            "--study", "testkit", "--config", "ok", "--config", "hang", "--config", "no-alloc",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let run_dir = loop {
        let dir = std::fs::read_dir(&runs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.join("testkit/hang").is_dir());
        if let Some(d) = dir {
            break d;
        }
        assert!(
            Instant::now() < deadline,
            "the run never reached testkit/hang"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "says how to finish: {stderr}");

    let manifest = read_json(&run_dir.join("run.json"));
    assert_eq!(manifest["complete"], false);
    // A configuration is finished when all its timing rounds and profiles are: none is yet.
    for c in ["ok", "hang", "no-alloc"] {
        assert!(
            !run_dir.join("testkit").join(c).join("result.json").exists(),
            "{c} is not finished"
        );
    }
    for f in files_below(&run_dir) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !name.contains(".tmp"),
            "half-written file left: {}",
            f.display()
        );
        if name.ends_with(".json") {
            read_json(&f); // every JSON file present is complete
        }
    }
    assert_eq!(
        runs.join("latest").canonicalize().unwrap(),
        latest_before,
        "latest moved"
    );

    let o = serprof()
        .args([
            "run",
            "--quiet",
            "--json",
            "--resume",
            run_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(1), "hang fails again: {doc}");
    assert_eq!(doc["complete"], true);
    let manifest = read_json(&run_dir.join("run.json"));
    assert_eq!(manifest["complete"], true);
    // How the run was pieced together: the interrupted session measured nothing to the end,
    // the resume measured all three.
    let sessions = manifest["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{manifest}");
    assert_eq!(sessions[0]["measured"].as_array().unwrap().len(), 0);
    assert_eq!(sessions[1]["measured"].as_array().unwrap().len(), 3);
    let ok = read_json(&run_dir.join("testkit/ok/result.json"));
    assert!(ok["error"].is_null(), "{ok}");
    assert_eq!(
        read_json(&run_dir.join("testkit/hang/result.json"))["error"]["verdict"]["ended"],
        "hung"
    );
    assert!(read_json(&run_dir.join("testkit/no-alloc/result.json"))["error"].is_null());
    assert_eq!(
        runs.join("latest").canonicalize().unwrap(),
        run_dir.canonicalize().unwrap()
    );
}

#[test]
fn corrupt_study_sorts_every_input_of_every_engine_and_exits_0() {
    let out = tempfile::tempdir().unwrap();
    // Every engine of the study, plus the trap double (testkit), which panics, aborts, hangs
    // and hoards memory on inputs 4, 8, 12 and 16.
    let (code, doc) = run_json(
        out.path(),
        &[
            "--quick",
            "--study",
            "corrupt",
            "--child-timeout",
            "1",
            "--memory-cap",
            "256",
        ],
    );
    assert_eq!(
        code, 0,
        "misbehaving engines are the study's finding: {doc}"
    );
    let run_dir = PathBuf::from(doc["run_dir"].as_str().unwrap());
    assert_eq!(read_json(&run_dir.join("run.json"))["complete"], true);
    let results = doc["results"].as_array().unwrap();
    assert!(
        results.len() >= 20,
        "every formats engine and our four codecs"
    );
    for r in results {
        let name = r["config"].as_str().unwrap();
        assert!(r["error"].is_null(), "{name}: {}", r["error"]);
        assert_eq!(r["operation"], "decode");
        let c = &r["corrupt"];
        let total: u64 = c["counts"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(total + c["skipped"].as_u64().unwrap(), 100, "{name}");
        let lines =
            std::fs::read_to_string(run_dir.join("corrupt").join(name).join("outcomes.jsonl"))
                .unwrap();
        assert_eq!(lines.lines().count(), 100, "{name}");
        for case in c["cases"].as_array().unwrap() {
            let repro = run_dir
                .join("corrupt")
                .join(name)
                .join(case["repro"].as_str().unwrap());
            assert!(repro.is_file(), "{}", repro.display());
        }
        if r["engine"] == "bytes_json" {
            assert_eq!(
                misbehaviours(c),
                0,
                "our own decoder {name} misbehaved: {c}"
            );
        }
    }
    let trap = result(&doc, "corrupt/testkit-trap")["corrupt"].clone();
    let trap = &trap;
    for (outcome, index) in [("panic", 4), ("abort", 8), ("hang", 12), ("oom", 16)] {
        assert_eq!(trap["counts"][outcome], 1, "{outcome}: {trap}");
        let case = trap["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["outcome"] == outcome)
            .unwrap();
        assert_eq!(case["index"], index);
        let repro = std::fs::read(
            run_dir
                .join("corrupt/testkit-trap")
                .join(case["repro"].as_str().unwrap()),
        )
        .unwrap();
        assert_eq!(
            repro.len(),
            index / 4,
            "the reproducer is the input that did it"
        );
    }
    assert_eq!(
        trap["children"], 4,
        "one child, then one more after each abort, hang and oom"
    );
    // The table names every engine and the trap's misbehaviour.
    let parsed: Vec<serprof::testing::ConfigResult> =
        serde_json::from_value(doc["results"].clone()).unwrap();
    let table = serprof::testing::corrupt_table("corrupt", &parsed);
    for r in results {
        assert!(table.contains(r["config"].as_str().unwrap()), "{table}");
    }
    assert!(
        table.contains("testkit serprof (testkit-trap): 1 panic, 1 abort, 1 hang, 1 oom"),
        "{table}"
    );
}

fn misbehaviours(c: &Value) -> u64 {
    ["panic", "abort", "hang", "oom"]
        .iter()
        .map(|o| c["counts"][o].as_u64().unwrap())
        .sum()
}
