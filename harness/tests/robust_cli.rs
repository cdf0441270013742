//! Bad command lines and bad files, for every subcommand that reads a folder or a file: each is
//! a one-line `serprof: error: ...` on stderr and exit code 2 (README, "Commands"), never a
//! panic, a backtrace or a half-written output. The files are made up here:
//! missing folders, empty folders, corrupt JSON, valid JSON of another tool, binary garbage.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c
}

/// Runs `serprof args` and checks it is a misuse: exit 2, one `serprof: error:` line naming
/// `needle`. Returns the line.
fn misuse(args: &[&str], needle: &str) -> String {
    let o = serprof().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.lines().count() == 1 && err.starts_with("serprof: error: ") && err.contains(needle),
        "{args:?}: expected one line with {needle:?}, got: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// A scratch folder with the usual suspects.
struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    fn new() -> Fixtures {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("other-tool.json"), r#"{"traceEvents":[]}"#).unwrap();
        std::fs::write(p.join("garbage.bin"), [0u8, 0xFF, 0xFE, 0x80, b'\n']).unwrap();
        std::fs::create_dir(p.join("empty")).unwrap();
        // A run folder whose run.json is cut off, with a corrupt configuration inside.
        std::fs::create_dir_all(p.join("cut/formats/serde_json")).unwrap();
        std::fs::write(p.join("cut/run.json"), r#"{"serprof_version": "0.1"#).unwrap();
        std::fs::write(p.join("cut/formats/serde_json/result.json"), "{\"study\":").unwrap();
        std::fs::write(
            p.join("cut/formats/serde_json/cpu.folded"),
            "a;b 3\nb;c three\n",
        )
        .unwrap();
        // A run folder of another tool: valid JSON, not ours.
        std::fs::create_dir_all(p.join("foreign/formats/serde_json")).unwrap();
        std::fs::write(p.join("foreign/run.json"), r#"{"version": 2, "runs": []}"#).unwrap();
        std::fs::write(
            p.join("foreign/formats/serde_json/result.json"),
            r#"[1, 2, 3]"#,
        )
        .unwrap();
        Fixtures { dir }
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).to_str().unwrap().to_string()
    }
}

#[test]
fn run_resume_rejects_missing_empty_corrupt_and_foreign_run_folders() {
    let f = Fixtures::new();
    misuse(&["run", "--resume", &f.path("missing")], "not a folder");
    misuse(&["run", "--resume", &f.path("garbage.bin")], "not a folder");
    misuse(&["run", "--resume", &f.path("empty")], "run.json");
    misuse(&["run", "--resume", &f.path("cut")], "run.json");
    misuse(&["run", "--resume", &f.path("foreign")], "run.json");
}

#[test]
fn run_rejects_bad_numbers_and_names() {
    misuse(&["run", "--frequency", "0"], "--frequency");
    misuse(&["run", "--rounds", "0"], "--rounds");
    misuse(&["run", "--cpu-samples", "0"], "--cpu-samples");
    misuse(&["run", "--study", "corrupt", "--config", "nope"], "nope");
    misuse(&["run", "--config", "["], "invalid --config glob");
}

#[test]
fn hotspots_rejects_other_tools_files_and_garbage() {
    let f = Fixtures::new();
    misuse(
        &["hotspots", &f.path("other-tool.json")],
        "not a folded profile",
    );
    misuse(&["hotspots", &f.path("garbage.bin")], "garbage.bin");
    misuse(&["hotspots", &f.path("cut/formats/serde_json")], "line 2");
    misuse(
        &["hotspots", &f.path("empty")],
        "not a configuration folder",
    );
    misuse(&["hotspots", &f.path("missing")], "no such file");
}

#[test]
fn report_rejects_missing_empty_corrupt_and_foreign_run_folders() {
    let f = Fixtures::new();
    misuse(&["report", &f.path("missing")], "not a run folder");
    misuse(&["report", &f.path("garbage.bin")], "not a run folder");
    misuse(&["report", &f.path("empty")], "no run.json");
    misuse(&["report", &f.path("cut")], "not a valid serprof file");
    misuse(&["report", &f.path("foreign")], "not a valid serprof file");
}

#[test]
fn compare_rejects_missing_empty_corrupt_and_foreign_folders() {
    let f = Fixtures::new();
    let (cut, foreign) = (f.path("cut"), f.path("foreign"));
    misuse(&["compare", &f.path("missing"), &cut], "missing");
    misuse(&["compare", &f.path("empty"), &f.path("empty")], "empty");
    misuse(&["compare", &cut, &cut], "not a valid serprof file");
    misuse(&["compare", &foreign, &foreign], "not a valid serprof file");
    let (a, b) = (
        f.path("cut/formats/serde_json"),
        f.path("foreign/formats/serde_json"),
    );
    misuse(&["compare", &a, &b], "result.json");
    misuse(&["compare", &b, &a], "result.json");
}

#[test]
fn decode_encode_and_ab_reject_bad_files_and_names() {
    let f = Fixtures::new();
    misuse(
        &["decode", "formats/postcard", &f.path("missing")],
        "missing",
    );
    misuse(&["decode", "formats/postcard", &f.path("empty")], "empty");
    misuse(
        &["decode", "corrupt/nope", &f.path("garbage.bin")],
        "corrupt/nope",
    );
    misuse(
        &["encode", "formats/serde_json", "--order", "200"],
        "out of range",
    );
    misuse(
        &["ab", "formats/nope", "formats/serde_json"],
        "formats/nope",
    );
    misuse(
        &[
            "ab",
            "formats/serde_json",
            "formats/postcard",
            "--rounds",
            "0",
        ],
        "--rounds",
    );
    // A payload that is garbage is not misuse: the command ran and the check failed (exit 1).
    let o = serprof()
        .args(["decode", "formats/postcard", &f.path("garbage.bin")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
}

/// A finished run of the cheapest configuration, copied so that its files can be damaged.
fn finished_run() -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().unwrap();
    let o = serprof()
        .args([
            "run",
            "--quick",
            "--quiet",
            "--no-cpu",
            "--no-alloc",
            "--rounds",
            "3",
        ])
        .args(["--study", "testkit", "--config", "no-alloc"])
        .args(["--out", out.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = out.path().join("latest").canonicalize().unwrap();
    (out, run)
}

fn damage(path: &Path, with: &str) {
    assert!(path.is_file(), "{}", path.display());
    std::fs::write(path, with).unwrap();
}

#[test]
fn a_real_run_with_a_damaged_result_or_manifest_is_misuse_for_compare_and_resume() {
    let (_out, run) = finished_run();
    let config = run.join("testkit/no-alloc");
    let good = run.to_str().unwrap().to_string();
    // `latest/...` paths are accepted everywhere; a damaged result.json is named in the error.
    damage(
        &config.join("result.json"),
        "{\"study\": \"testkit\", \"conf",
    );
    misuse(&["compare", &good, &good], "result.json");
    misuse(
        &[
            "compare",
            config.to_str().unwrap(),
            config.to_str().unwrap(),
        ],
        "result.json",
    );
    damage(&run.join("run.json"), "\u{0}\u{1}");
    misuse(&["run", "--resume", &good], "run.json");
    misuse(&["report", &good], "run.json");
}
