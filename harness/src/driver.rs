//! The driver: everything `serprof` (the command line) runs and a measured program does not.
//! `lib.rs` gates this one module on the `driver` feature; the measured program's part (the
//! API, the worker children, the sampler, the counting allocator, the protocol, the profile
//! formats) is outside it and compiles without it.
//!
//! Its layers keep their folders under `src/` (`#[path]` below): the command line ([`cli`]),
//! the subcommands ([`commands`]), planning and measuring ([`run`]), analysis ([`analyze`]) and
//! rendering ([`render`]); the crate root re-exports them, so they are `crate::run` and so on.
//! This file itself is the driver's side of the seam with a measured program: which program a
//! command measures (`--program EXE`, the crate in the working folder, or this binary's own
//! studies), reading what that program says of itself, and the commands it serves on its own
//! values.

#[path = "analyze/mod.rs"]
pub(crate) mod analyze;
#[path = "cli.rs"]
pub(crate) mod cli;
#[path = "commands/mod.rs"]
pub(crate) mod commands;
#[path = "render/mod.rs"]
pub(crate) mod render;
#[path = "run/mod.rs"]
pub(crate) mod run;

use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode, Stdio};

use anyhow::{Context, Result};

use crate::error::misuse_err;
use crate::model::described::Description;
use crate::model::Program;
use crate::protocol::{identity_of, Serve, DESCRIBE_COMMAND, PROTOCOL, SERVE_COMMAND};

/// The program a command that `measures` measures when `--program` named none: the binary of
/// the crate in the working folder (built first) when that crate is not serprof's own.
/// `None`: `own` (or a command that measures nothing).
pub(crate) fn program_for(measures: bool, own: &Program) -> Result<Option<Program>> {
    if !measures {
        return Ok(None);
    }
    // A program that is not serprof's own measures itself (its serprof has the driver).
    if !own.binary().is_serprof() {
        return Ok(None);
    }
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(None);
    };
    let Some(dir) = crate_folder(&cwd) else {
        return Ok(None);
    };
    let exe = build_program(&dir)?;
    describe(&exe, own).map(Some)
}

/// The folder of the cargo package around `cwd`, unless it is in a checkout of serprof (this
/// one or another clone: a folder above it holds `harness/Cargo.toml` of the package
/// `serprof`), whose own binary measures serprof's studies.
fn crate_folder(cwd: &Path) -> Option<PathBuf> {
    let found = cwd.ancestors().find(|d| d.join("Cargo.toml").is_file())?;
    let serprofs = |d: &Path| {
        std::fs::read_to_string(d.join("harness/Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "name = \"serprof\""))
    };
    if found.ancestors().any(serprofs) {
        return None;
    }
    Some(found.to_path_buf())
}

/// Builds the crate in `dir` (`cargo build --release`, cargo's progress on stderr) and returns
/// its one binary that is a serprof program.
fn build_program(dir: &Path) -> Result<PathBuf> {
    eprintln!(
        "serprof: building the crate in {} (cargo build --release)",
        dir.display()
    );
    let out = Process::new("cargo")
        .args([
            "build",
            "--release",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo")?;
    if !out.status.success() {
        return Err(misuse_err(format!(
            "cargo build --release failed in {}",
            dir.display()
        )));
    }
    let exes = executables(&String::from_utf8_lossy(&out.stdout));
    let programs: Vec<PathBuf> = exes.into_iter().filter(|e| is_program(e)).collect();
    match programs.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(misuse_err(format!(
            "no binary of the crate in {} ends in serprof::main!: add one (docs/guide/your-crate.md), or name a program with --program EXE",
            dir.display()
        ))),
        many => Err(misuse_err(format!(
            "several binaries of the crate in {} are serprof programs ({}): name one with --program EXE",
            dir.display(),
            many.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The executables of a cargo build's JSON messages.
fn executables(messages: &str) -> Vec<PathBuf> {
    messages
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
        .collect()
}

/// Whether `exe` is a serprof program: it holds [`crate::protocol::PROGRAM_MARKER`] (read from
/// the file, not run: the crate's other binaries are not ours to start).
fn is_program(exe: &Path) -> bool {
    let needle = crate::protocol::PROGRAM_MARKER;
    std::fs::read(exe).is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
}

/// The program `exe`, from its description, after checking that it speaks this protocol.
pub(crate) fn describe(exe: &Path, own: &Program) -> Result<Program> {
    let exe = exe
        .canonicalize()
        .map_err(|e| misuse_err(format!("--program {}: {e}", exe.display())))?;
    let id = identity_of(&exe).map_err(|e| {
        misuse_err(format!(
            "{e}: --program names a binary that ends in serprof::main!"
        ))
    })?;
    if id.protocol != PROTOCOL {
        return Err(misuse_err(format!(
            "{} speaks worker protocol {} (serprof {}) and this driver protocol {PROTOCOL} (serprof {}): install the driver of the program's serprof with `cargo install --locked --path <its serprof checkout>/harness`",
            exe.display(),
            id.protocol,
            id.serprof_version,
            env!("CARGO_PKG_VERSION")
        )));
    }
    let out = Process::new(&exe)
        .arg(DESCRIBE_COMMAND)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !out.status.success() {
        return Err(misuse_err(format!(
            "{} {DESCRIBE_COMMAND} failed ({})",
            exe.display(),
            out.status
        )));
    }
    let d: Description = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("unreadable description from {}", exe.display()))?;
    Ok(d.into_program(exe, own.builtins()))
}

/// Has `program` run `request` on its own values, its output and exit code passed through.
pub(crate) fn serve(program: &Program, request: &Serve) -> Result<ExitCode> {
    let status = Process::new(program.exe())
        .arg(SERVE_COMMAND)
        .arg(serde_json::to_string(request)?)
        .status()
        .with_context(|| format!("cannot run {}", program.exe().display()))?;
    Ok(ExitCode::from(
        status.code().unwrap_or(1).clamp(0, 255) as u8
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builds_executables_are_read_from_its_messages() {
        let messages = r#"{"reason":"compiler-artifact","executable":null}
{"reason":"compiler-artifact","executable":"/t/release/logbench"}
{"reason":"build-finished","success":true}
not json"#;
        assert_eq!(
            executables(messages),
            [PathBuf::from("/t/release/logbench")]
        );
    }

    #[test]
    fn serprofs_own_checkout_is_not_a_crate_to_build() {
        let own = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(crate_folder(own), None);
        assert_eq!(crate_folder(&own.join("src")), None);
        // Another clone of serprof, anywhere.
        let clone = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(clone.path().join("harness/src")).unwrap();
        std::fs::write(clone.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(
            clone.path().join("harness/Cargo.toml"),
            "[package]\nname = \"serprof\"\n",
        )
        .unwrap();
        assert_eq!(crate_folder(&clone.path().join("harness/src")), None);
        assert_eq!(crate_folder(clone.path()), None);
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("Cargo.toml"), "").unwrap();
        let inner = elsewhere.path().join("src");
        std::fs::create_dir(&inner).unwrap();
        assert_eq!(crate_folder(&inner).as_deref(), Some(elsewhere.path()));
    }
}
