//! The CI recipe (`docs/ci/serprof.yml`) cannot rot: its script, `scripts/ci-gate`, runs here on
//! a scratch crate of one's own (serprof-bench with serde_json only, one configuration) in a
//! git repository, with the test's `serprof` as the installed driver:
//!
//! - a commit that changes no code (a comment): the gate passes (exit 0);
//! - a commit that makes the crate's own serialize code do more work per value: the gate fails
//!   (exit 1) naming the configuration, and leaves `ci-gate/bmf.json` and both run folders.
//!
//! Needs git, cargo and valgrind; without valgrind the test says so and passes, except in CI.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

mod common;
use common::{git, have_valgrind, workspace, write_crate};

const MAIN: &str = r#"use serde::{Deserialize, Serialize};
use serprof::{Operation, Study};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub name: String,
    pub x: u64,
    pub y: u64,
}

fn points() -> Vec<Point> {
    (0..50u64).map(|i| Point { name: format!("p{i}"), x: i, y: i * i }).collect()
}

fn studies() -> Vec<Study> {
    vec![Study::new("points", "Which engine for points?")
        .dataset(points)
        .operations([Operation::Serialize])
        .engines(serprof::engines::serde())
        .into()]
}

serprof::main!(studies);
"#;

/// The slowdown: a `serialize_with` on `x` that spins before writing it.
const SLOW: &str = r#"
fn slow_x<S: serde::Serializer>(x: &u64, s: S) -> Result<S::Ok, S::Error> {
    let mut h = *x;
    for i in 0..std::hint::black_box(2_000u64) {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    s.serialize_u64(*x ^ (h & std::hint::black_box(0)))
}
"#;

fn scratch_crate(dir: &Path) -> PathBuf {
    let krate = dir.join("gated");
    let bench = workspace().join("bench");
    // The workspace's flags, so that its compiled dependencies serve this crate.
    let flags = std::fs::read_to_string(workspace().join(".cargo/config.toml")).unwrap();
    write_crate(
        &krate,
        "gated",
        &format!(
            "serprof = {{ package = \"serprof-bench\", path = {bench:?}, default-features = false }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\n"
        ),
        &flags,
    );
    std::fs::write(krate.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(krate.join(".gitignore"), "target\nci-gate\n").unwrap();
    git(&krate, &["init", "-q"]);
    git(&krate, &["add", "-A"]);
    git(&krate, &["commit", "-qm", "points"]);
    krate
}

/// `scripts/ci-gate HEAD~1` in `krate`, with the test's `serprof` first on `PATH`.
fn gate(krate: &Path) -> (Option<i32>, String) {
    let driver = Path::new(env!("CARGO_BIN_EXE_serprof")).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![driver.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let out = StdCommand::new(workspace().join("scripts/ci-gate"))
        .arg("HEAD~1")
        .current_dir(krate)
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .env("CARGO_TARGET_DIR", workspace().join("target"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn the_ci_gate_passes_a_no_op_and_fails_a_slowdown() {
    if !have_valgrind() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let krate = scratch_crate(scratch.path());
    let main = krate.join("src/main.rs");

    std::fs::write(&main, format!("// a comment\n{MAIN}")).unwrap();
    git(&krate, &["commit", "-qam", "a comment"]);
    let (code, text) = gate(&krate);
    assert_eq!(code, Some(0), "a no-op passes: {text}");

    let slow = format!("{MAIN}{SLOW}").replace(
        "    pub x: u64,",
        "    #[serde(serialize_with = \"slow_x\")]\n    pub x: u64,",
    );
    std::fs::write(&main, slow).unwrap();
    git(&krate, &["commit", "-qam", "slower x"]);
    let (code, text) = gate(&krate);
    assert_eq!(code, Some(1), "a slowdown fails: {text}");
    assert!(text.contains("points/serde_json"), "{text}");
    let out = krate.join("ci-gate");
    assert!(out.join("bmf.json").is_file() && out.join("check.json").is_file());
    assert!(
        out.join("base/latest/run.json").is_file() && out.join("head/latest/run.json").is_file()
    );
}
