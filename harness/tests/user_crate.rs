//! serprof as a library, from a crate of the user's own outside the workspace: the example's
//! program (a type with the derives of ten libraries besides serde's, a hand-written codec with
//! a hot `#[inline(never)]` function, every serde engine and every derive engine, serialize and
//! deserialize rows) in a scratch git repository, depending on `serprof-bench` (serprof without
//! its driver) by path under serprof's name, with the engines it calls named as features. Its binary hands every command to the driver,
//! here the test's own `serprof` (`SERPROF_DRIVER`).
//!
//! - without a driver, the program says in one line how to install it and exits 2;
//! - its command line shows only what applies to its studies (no `dataset`, no `--order`);
//! - `run --quick`: at least 19 engines, every configuration verified and measured, each
//!   serialize and deserialize row's ratio to serde_json's row of its own operation; `run.json`
//!   names the crate's own lock file and the versions it resolved; the codec's flame graph and
//!   `hotspots --match` name the hot function, and `report.html` shows the study;
//! - `before-after HEAD~1 HEAD` (the codec and serde_json) after a commit that doubles the hot
//!   function's work: the codec's instructions grow with the hot function at the top of its
//!   moved list, and serde_json's total moves by less than 0.1% with no function of the crate
//!   listed as changed work (a layout effect of a few instructions may be listed);
//! - `run --allocators system,jemalloc` stops at start with exit 2 and one line naming the
//!   feature the crate lacks;
//! - a misspelled baseline stops the program at start with exit 2 and one line naming it.
//!
//! The crate builds into the workspace's target folder with the workspace's profile and
//! rustflags, so that the registry crates compiled for the workspace serve it (serprof's own
//! crates compile again: without the driver, and outside their workspace); its before-after
//! sides build in the shared test cache, seeded from that folder. Needs git, cargo
//! and valgrind; without valgrind the test says so and passes, except in CI.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use serde_json::Value;

mod common;
use common::{git, have_valgrind, test_cache, workspace, write_crate};

/// The serprof-bench features of the engines the example calls: `serprof::engines::serde()`'s
/// (serde_json is always built) and each derive engine's.
const ENGINES: [&str; 18] = [
    "sonic-rs",
    "simd-json",
    "rmp-serde",
    "ciborium",
    "bincode",
    "postcard",
    "bitcode",
    "bincode1",
    "borsh",
    "rkyv",
    "speedy",
    "wincode",
    "musli",
    "nanoserde",
    "msgpacker",
    "minicbor",
    "bilrost",
    "fory",
];

/// A scratch repository holding the user's crate, committed.
fn user_crate(dir: &Path) -> PathBuf {
    let krate = dir.join("readings-user");
    let bench = workspace().join("bench");
    // The example's own dependencies besides serprof (serde and the derive libraries).
    let example =
        std::fs::read_to_string(workspace().join("examples/readings/Cargo.toml")).unwrap();
    let deps: String = example
        .split_once("[dependencies]")
        .unwrap()
        .1
        .lines()
        .filter(|l| !l.starts_with("serprof "))
        .map(|l| format!("{l}\n"))
        .collect();
    // The workspace's flags, so that the registry crates the workspace compiled serve it.
    let flags = std::fs::read_to_string(workspace().join(".cargo/config.toml")).unwrap();
    // The engines the example's studies call, named as docs/guide/your-crate.md tells a user
    // to (serprof-bench's defaults add the schema engines and the corpus study's, which only
    // serprof's own studies use, and about a third of the engines crate's build).
    let features = ENGINES.map(|f| format!("{f:?}")).join(", ");
    write_crate(
        &krate,
        "readings-user",
        &format!(
            "serprof = {{ package = \"serprof-bench\", path = {bench:?}, default-features = false, \
             features = [{features}] }}\n{deps}"
        ),
        &flags,
    );
    std::fs::copy(
        workspace().join("examples/readings/src/main.rs"),
        krate.join("src/main.rs"),
    )
    .unwrap();
    git(&krate, &["init", "-q"]);
    git(&krate, &["add", "-A"]);
    git(&krate, &["commit", "-qm", "readings"]);
    krate
}

/// `cargo build --release` of the crate into the workspace's target folder; the binary.
fn build(krate: &Path) -> PathBuf {
    let target = workspace().join("target");
    let out = StdCommand::new("cargo")
        .current_dir(krate)
        // As a shell in the crate's folder: serprof's build script finds the crate's own lock
        // file from it (the target folder is the workspace's).
        .env("PWD", krate)
        .env("CARGO_TARGET_DIR", &target)
        .args(["build", "--release", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("release/readings-user")
}

/// The user's program, with the test's `serprof` as its driver.
fn program(exe: &Path) -> StdCommand {
    let mut cmd = StdCommand::new(exe);
    cmd.env("SERPROF_DRIVER", env!("CARGO_BIN_EXE_serprof"));
    cmd
}

fn run_json(exe: &Path, cwd: &Path, args: &[&str]) -> Value {
    let out = program(exe)
        .current_dir(cwd)
        .env("SERPROF_BA_CACHE", test_cache())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

#[test]
fn a_users_own_type_and_codec_run_profile_and_compare_before_and_after() {
    if !have_valgrind() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let krate = user_crate(scratch.path());
    let exe = build(&krate);
    // Without a driver: one line naming the install command, exit 2 (an empty SERPROF_DRIVER
    // counts as unset, not as a path).
    let nowhere = tempfile::tempdir().unwrap();
    let alone = StdCommand::new(&exe)
        .arg("list")
        .env("SERPROF_DRIVER", "")
        .env("PATH", "/usr/bin:/bin")
        .env("CARGO_HOME", nowhere.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&alone.stderr);
    assert_eq!(alone.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cargo install --locked --path"), "{err}");
    assert!(err.contains("which is not installed"), "{err}");
    // Only the commands that apply to its studies: no Order dataset, no `dataset` command.
    let help = program(&exe).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let listed = |name: &str| {
        help.lines()
            .any(|l| l.trim_start().starts_with(&format!("{name} ")))
    };
    assert!(listed("run") && !listed("dataset"), "{help}");
    let encode = program(&exe).args(["encode", "--help"]).output().unwrap();
    let encode = String::from_utf8_lossy(&encode.stdout);
    assert!(
        !encode.contains("Order") && !encode.contains("--order"),
        "{encode}"
    );
    let dataset = program(&exe).arg("dataset").output().unwrap();
    assert_eq!(dataset.status.code(), Some(2));
    let runs = scratch.path().join("runs");
    let runs_arg = runs.display().to_string();

    // run --quick: every configuration verified and timed. Fewer CPU samples and timing
    // children than --quick's own, and no allocation recording (this checks what the run
    // writes, not its figures; ci_gate gates a crate's allocations): about 40 configurations
    // each cost a CPU recording and their share of every timing child.
    let doc = run_json(
        &exe,
        &krate,
        &[
            "run",
            "--quick",
            "--cpu-samples",
            "100",
            "--processes",
            "3",
            "--rounds",
            "4",
            "--no-alloc",
            "--quiet",
            "--json",
            "--out",
            &runs_arg,
        ],
    );
    let results = doc["results"].as_array().unwrap();
    let mut engines: Vec<&str> = results
        .iter()
        .map(|r| r["config"].as_str().unwrap().split('.').next().unwrap())
        .collect();
    engines.dedup();
    assert!(
        engines.len() >= 20,
        "nine serde engines, ten derives, the codec: {engines:?}"
    );
    for r in results {
        assert_eq!(r["verified"], true, "{r}");
        assert!(r["error"].is_null(), "{r}");
        assert!(r["time_ns"]["median"].as_f64().unwrap() > 0.0, "{r}");
    }
    // run.json: the crate's own lock file, and the versions it resolved.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(runs.join("latest/run.json")).unwrap())
            .unwrap();
    let lock = krate.join("Cargo.lock");
    assert_eq!(
        manifest["lockfile"].as_str().map(Path::new),
        Some(lock.as_path()),
        "{}",
        manifest["lockfile"]
    );
    let locked = std::fs::read_to_string(&lock).unwrap();
    let borsh = manifest["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["engine"] == "borsh")
        .unwrap();
    let entry = format!(
        "name = \"borsh\"\nversion = \"{}\"",
        borsh["version"].as_str().unwrap()
    );
    assert!(locked.contains(&entry), "{borsh} in the crate's lock file");
    let run_dir = PathBuf::from(doc["run_dir"].as_str().unwrap());
    let codec = run_dir.join("readings/handwritten.serialize");
    let svg = std::fs::read_to_string(codec.join("cpu.svg")).unwrap();
    assert!(
        svg.contains("checksum"),
        "the hot function in the flame graph"
    );
    let hot = program(&exe)
        .args(["hotspots", "--match", "checksum"])
        .arg(&codec)
        .output()
        .unwrap();
    let hot = String::from_utf8_lossy(&hot.stdout);
    assert!(hot.contains("readings_user::checksum"), "{hot}");
    let report = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(report.contains("Which engine for our sensor readings?"));
    // Each serialize and deserialize row's ratio is to serde_json's row of its operation.
    assert!(
        report.contains("ratios are to the study's baseline of each row's operation, <b>serde_json.serialize</b>, <b>serde_json.deserialize</b>; for the other operations, to the fastest"),
        "the references named in the report"
    );

    // A commit that doubles the hot function's work.
    let main = krate.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    let once = "    for &b in raw {";
    assert!(
        text.contains(once),
        "update this test to the example's checksum"
    );
    let twice = "    for &b in raw.iter().chain(raw) {";
    std::fs::write(&main, text.replace(once, twice)).unwrap();
    git(&krate, &["commit", "-qam", "checksum twice"]);
    let ba = scratch.path().join("ba").display().to_string();
    let record = run_json(
        &exe,
        &krate,
        &[
            "before-after",
            "HEAD~1",
            "HEAD",
            "--quick",
            "--no-alloc",
            "--quiet",
            "--json",
            "--config",
            "readings/handwritten.*",
            "--config",
            "readings/serde_json.*",
            "--out",
            &ba,
        ],
    );
    let rows = record["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "the configurations asked for compared");
    for row in rows {
        let name = row["config"].as_str().unwrap();
        let counts = &row["comparison"]["instructions"];
        let delta = counts["delta_per_op"].as_f64().unwrap();
        let before = counts["before_per_op"].as_f64().unwrap();
        if name.starts_with("readings/handwritten") {
            assert!(delta > 0.0, "the codec does more: {counts}");
            let top = counts["moved"][0]["function"].as_str().unwrap();
            assert!(
                top.contains("checksum"),
                "the hot function on top: {counts}"
            );
        } else {
            assert!(
                delta.abs() < 1e-3 * before,
                "{name} moves by less than 0.1%: {counts}"
            );
            for m in counts["moved"].as_array().unwrap() {
                let f = m["function"].as_str().unwrap();
                // A function of the crate may be listed as a layout effect (a few instructions
                // of a loop whose path depends on an address), never as changed work.
                assert!(
                    !f.contains("readings_user") || m["layout"] == true,
                    "{name}: no engine function of the crate changes its work: {counts}"
                );
            }
        }
    }

    // An allocator the crate was not built with (serprof-bench leaves jemalloc out): one line,
    // exit 2, naming the feature, before anything runs.
    let out = program(&exe)
        .current_dir(&krate)
        .args([
            "run",
            "--quick",
            "--allocators",
            "system,jemalloc",
            "--out",
            &runs_arg,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("built without jemalloc"), "{err}");

    // A misspelled baseline: one line, exit 2, before anything runs (an engine added twice
    // takes the same path: `Study::problem`, whose unit tests check both messages).
    let text = std::fs::read_to_string(&main).unwrap();
    let changed = text.replace(".baseline(\"serde_json\")", ".baseline(\"serde_jsn\")");
    assert_ne!(changed, text, "update this test to the example's study");
    std::fs::write(&main, changed).unwrap();
    let exe = build(&krate);
    let out = program(&exe)
        .args(["run", "--quick", "--out", &runs_arg])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("the baseline \"serde_jsn\" names no configuration or engine"),
        "{err}"
    );
}
