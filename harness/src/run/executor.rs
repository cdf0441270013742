//! The executor seam: how the runner gets one recording of one configuration made.
//!
//! [`ChildProcesses`] (the real one) starts `serprof __worker` under the process guard, by
//! default this very binary; it can drive another serprof binary of the same worker protocol
//! (a build of another revision, for before/after comparisons), and checks that binary's
//! protocol first. Tests drive the runner with a stand-in that makes no process at all, so the
//! runner's logic (order, resume, failure handling, merging) is tested without spawning.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::measure::{self, Recording, WorkerReport, PROTOCOL};
use crate::model::{ConfigId, Settings};
use crate::process::{Guarded, Limits, Verdict};

/// How a recording ended.
#[derive(Debug)]
pub enum Outcome {
    /// The worker wrote its report (which may itself carry an engine error).
    Reported(Box<WorkerReport>),
    /// It died or hung before writing a report; the message says how.
    Crashed(String),
}

/// Makes recordings.
pub trait Executor {
    /// Makes one recording of `config` with `dir` as its folder.
    fn record(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> Result<Outcome>;

    /// The serprof binary whose children make the recordings (the corrupt study starts its own
    /// children from it).
    fn exe(&self) -> Result<PathBuf>;
}

/// Real worker children of a serprof binary.
#[derive(Debug, Clone)]
pub struct ChildProcesses {
    exe: PathBuf,
}

impl ChildProcesses {
    /// Children of this very binary.
    pub fn this() -> Result<ChildProcesses> {
        Ok(ChildProcesses {
            exe: std::env::current_exe().context("cannot find serprof's own executable")?,
        })
    }

    /// Children of another serprof binary, after checking that it speaks this protocol.
    pub fn of(exe: &Path) -> Result<ChildProcesses> {
        let theirs = protocol_of(exe)?;
        if theirs != PROTOCOL {
            anyhow::bail!(
                "{} speaks worker protocol {theirs}, this serprof speaks {PROTOCOL}",
                exe.display()
            );
        }
        Ok(ChildProcesses {
            exe: exe.to_path_buf(),
        })
    }
}

/// The worker protocol of the serprof binary `exe` (`serprof __protocol`). A binary from before
/// protocols were numbered has no such command: that is an error naming it.
pub fn protocol_of(exe: &Path) -> Result<u32> {
    let out = Command::new(exe)
        .arg("__protocol")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: serde_json::Value = serde_json::from_str(text.trim()).map_err(|_| {
        anyhow::anyhow!(
            "{} does not report a worker protocol (it predates protocol {PROTOCOL})",
            exe.display()
        )
    })?;
    doc["protocol"]
        .as_u64()
        .map(|p| p as u32)
        .with_context(|| format!("{} reports no protocol number", exe.display()))
}

impl Executor for ChildProcesses {
    fn record(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> Result<Outcome> {
        let name = config.to_string();
        let _span =
            tracing::info_span!("child", recording = recording.as_str(), config = %name).entered();
        let settings_json = serde_json::to_string(settings)?;
        let report = recording.report_path(dir);
        let _ = std::fs::remove_file(&report);
        let mut cmd = Command::new(&self.exe);
        cmd.arg("__worker")
            .arg("--protocol")
            .arg(PROTOCOL.to_string())
            .arg("--config")
            .arg(&name)
            .arg("--recording")
            .arg(recording.as_str())
            .arg("--dir")
            .arg(dir)
            .arg("--settings")
            .arg(settings_json)
            .stdout(Stdio::null());
        let limits = Limits {
            address_space: settings.memory_cap_mib.saturating_mul(1024 * 1024),
            cpu: settings.pin_cpu,
        };
        let ended = Guarded::spawn(cmd, limits)?
            .wait_capped(Duration::from_secs(settings.child_time_cap_s.max(1)))?;
        let what = recording.as_str();
        let last = ended.stderr.suffix();
        if let Verdict::Exited(_) = ended.verdict {
            if let Some(report) = measure::read_report(recording, dir) {
                return Ok(Outcome::Reported(Box::new(report)));
            }
        }
        Ok(Outcome::Crashed(match &ended.verdict {
            Verdict::OutOfMemory { detail } => format!(
                "{what} child ran out of memory past the {} MiB cap ({detail}){last}",
                settings.memory_cap_mib
            ),
            v => format!("{what} child {}{last}", v.describe()),
        }))
    }

    fn exe(&self) -> Result<PathBuf> {
        Ok(self.exe.clone())
    }
}
