//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
use serde_json::Value;

/// A test that cannot run here (a tool or a file it needs is missing): it says why and passes,
/// unless `required` names an environment variable that is set (`CI`, or
/// `SERPROF_REQUIRE_CORPORA` for the standard documents), where it fails.
pub fn skip(why: &str, required: &str) {
    assert!(
        std::env::var_os(required).is_none(),
        "{why}, and {required} is set: this test must run"
    );
    eprintln!("skipped: {why}");
}

/// `chromium` or `chromium-browser` on PATH; without either, the test says it was skipped and
/// gets `None`, except in CI (`CI` set), where it fails: CI must install it (`scripts/test`
/// does).
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
        .find(|p| p.is_file());
    if found.is_none() {
        skip("chromium is not installed (apt-get install chromium)", "CI");
    }
    found
}

/// Whether valgrind is installed. Without it a test says so and passes, except in CI
/// (`CI=true`), where a missing valgrind fails it.
pub fn have_valgrind() -> bool {
    let ok = StdCommand::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip("valgrind is not installed (scripts/test installs it)", "CI");
    }
    ok
}

/// The workspace's top folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The before-after build cache the tests share (`$SERPROF_BA_CACHE`, default
/// `$TMPDIR/serprof-before-after-tests`): outside the workspace, whose .cargo/config.toml cargo
/// would merge into the sides' builds.
pub fn test_cache() -> PathBuf {
    match std::env::var_os("SERPROF_BA_CACHE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => std::env::temp_dir().join("serprof-before-after-tests"),
    }
}

/// A crate of one's own in `krate` (outside the workspace, its own `[workspace]`): its
/// `Cargo.toml` with `dependencies` and the workspace's release profile, `.cargo/config.toml`
/// holding `cargo_config`, and the workspace's lock file (so that its versions, and with the
/// same flags its compiled dependencies, serve the crate too).
pub fn write_crate(krate: &Path, name: &str, dependencies: &str, cargo_config: &str) {
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(krate.join(".cargo")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{dependencies}\n[profile.release]\ndebug = \"limited\"\nstrip = false\n\
             codegen-units = 16\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::write(krate.join(".cargo/config.toml"), cargo_config).unwrap();
    std::fs::copy(workspace().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
}

/// `git -C dir ARGS` (with a committer identity), its stdout; a failure fails the test.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = StdCommand::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=serprof test",
            "-c",
            "user.email=test@serprof",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// One small `serprof run` (one timing process of two batches, 300 CPU samples) of `configs`
/// into `out`, with `extra` flags; its run folder.
pub fn run_once(out: &Path, extra: &[&str], configs: &[&str]) -> PathBuf {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c.args([
        "run",
        "--quick",
        "--quiet",
        "--json",
        "--processes",
        "1",
        "--rounds",
        "2",
        "--cpu-samples",
        "300",
    ])
    .args(extra)
    .arg("--out")
    .arg(out);
    for cfg in configs {
        c.args(["--config", cfg]);
    }
    run_folder(&mut c)
}

/// Runs a `serprof run ... --json` command, which must succeed; its run folder.
pub fn run_folder(c: &mut Command) -> PathBuf {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    PathBuf::from(doc["run_dir"].as_str().expect("run_dir in the run's JSON"))
}

/// The text of `serprof COMMAND --help` (`serprof --help` for an empty `command`).
pub fn help(command: &str) -> String {
    let o = StdCommand::new(env!("CARGO_BIN_EXE_serprof"))
        .args([command, "--help"].into_iter().filter(|a| !a.is_empty()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{command} --help failed");
    String::from_utf8(o.stdout).unwrap()
}

/// The commands `serprof --help` lists (without clap's `help`).
pub fn commands() -> Vec<String> {
    help("")
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The entries of a help text's "Arguments:" and "Options:": the flags or the argument
/// (`-o, --output <FILE>`, `<PATH>`) and the description, the lines of a description written
/// below its flags joined to it.
pub fn entries(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut listing = false;
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            listing = matches!(line, "Arguments:" | "Options:");
            continue;
        }
        if !listing {
            continue;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent <= 6 && trimmed.starts_with(['-', '<', '[']) {
            let (flags, description) = trimmed.split_once("  ").unwrap_or((trimmed, ""));
            out.push((flags.to_string(), description.trim().to_string()));
        } else if let Some(last) = out.last_mut() {
            if !last.1.is_empty() {
                last.1.push(' ');
            }
            last.1.push_str(trimmed);
        }
    }
    out
}
