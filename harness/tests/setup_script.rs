//! `scripts/test` on a machine where a tool is missing and nothing may install it: it names the
//! one command to run and exits 2 before it builds anything.
//!
//! The script runs with a PATH of stand-ins: every tool it looks for is a script that exits 0,
//! except valgrind, which is absent. As root the test drops to `nobody` (setpriv), because a root
//! script would install valgrind with apt-get.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn which(tool: &str) -> Option<PathBuf> {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && path.starts_with('/')).then(|| PathBuf::from(path))
}

fn stub(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Runs a copy of scripts/test (in `bin`, so `nobody` can read it wherever the checkout is) with
/// `bin` as the whole PATH, as a user who is not root.
fn run_unprivileged(bin: &Path) -> Option<std::process::Output> {
    let script = bin.join("scripts/test");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::copy(root().join("scripts/test"), &script).unwrap();
    let mut cmd = if is_root() {
        let Some(setpriv) = which("setpriv") else {
            println!("skipped: running as root and there is no setpriv to drop to nobody");
            return None;
        };
        let mut c = Command::new(setpriv);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        c.arg(which("bash").unwrap());
        c
    } else {
        Command::new(which("bash").unwrap())
    };
    cmd.arg(&script)
        .env_clear()
        .env("PATH", bin)
        .env("HOME", bin)
        .current_dir(bin);
    Some(cmd.output().unwrap())
}

/// A folder readable by `nobody` holding the stand-ins and the few real tools the script needs
/// before it decides (uname, id, dirname).
fn stand_ins(sudo: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("serprof-setup-")
        .tempdir()
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for tool in ["uname", "id", "dirname"] {
        std::os::unix::fs::symlink(which(tool).unwrap(), dir.path().join(tool)).unwrap();
    }
    for tool in [
        "cargo", "chromium", "perf", "capnp", "flatc", "python3", "apt-get", "true",
    ] {
        stub(dir.path(), tool, "exit 0");
    }
    // A stand-in that would show if the script went on to build or install.
    stub(dir.path(), "cargo", "echo 'cargo ran' >&2; exit 0");
    stub(dir.path(), "apt-get", "echo 'apt-get ran' >&2; exit 0");
    if let Some(body) = sudo {
        stub(dir.path(), "sudo", body);
    }
    dir
}

fn assert_prints_the_command(out: &std::process::Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("missing valgrind") && stderr.contains("sudo apt-get install valgrind"),
        "no install command in: {stderr}"
    );
    assert!(
        !stderr.contains("cargo ran") && !stderr.contains("apt-get ran"),
        "the script went on: {stderr}"
    );
}

#[test]
fn without_root_or_sudo_it_prints_the_install_command_and_exits_2() {
    let bin = stand_ins(None);
    if let Some(out) = run_unprivileged(bin.path()) {
        assert_prints_the_command(&out);
    }
}

#[test]
fn with_a_sudo_that_asks_for_a_password_it_prints_the_install_command_and_exits_2() {
    let bin = stand_ins(Some("echo 'sudo: a password is required' >&2; exit 1"));
    if let Some(out) = run_unprivileged(bin.path()) {
        assert_prints_the_command(&out);
    }
}

#[test]
fn with_a_sudo_that_works_it_installs_through_it() {
    // The stand-in sudo runs its command, so apt-get's stand-in says it ran; nothing is installed.
    let bin = stand_ins(Some("[ \"$1\" = -n ] && shift; exec \"$@\""));
    if let Some(out) = run_unprivileged(bin.path()) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("installing valgrind") && stderr.contains("apt-get ran"),
            "stderr: {stderr}"
        );
    }
}
