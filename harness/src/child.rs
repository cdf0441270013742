//! Spawning and guarding worker children: a time cap, an address-space cap, the exit status or
//! signal, and the last lines of the child's stderr for the failure message.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::settings::Settings;
use crate::worker::{self, Recording, WorkerReport};

/// How a worker child ended.
#[derive(Debug)]
pub enum Outcome {
    /// It wrote its report (which may itself carry an engine error).
    Reported(Box<WorkerReport>),
    /// It died or hung before writing a report; the message says how.
    Crashed(String),
}

/// Lines of stderr kept for a failure message.
const STDERR_LINES: usize = 8;

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => "signal",
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => format!("killed by {} ({sig})", signal_name(sig)),
        _ => "ended abnormally".into(),
    }
}

/// Sets up a worker child's guards: an address-space cap of `cap_bytes` (`setrlimit(RLIMIT_AS)`;
/// 0 for none), its own process group (a terminal's Ctrl-C reaches only the parent, which stops
/// the child itself and records what finished), and no backtraces (a backtrace would push the
/// allocation-failure line out of the stderr lines kept for the failure message).
pub fn guard(cmd: &mut Command, cap_bytes: u64) {
    cmd.env("RUST_BACKTRACE", "0");
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: only async-signal-safe calls (setrlimit, setpgid) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if cap_bytes > 0 {
                    let lim = libc::rlimit {
                        rlim_cur: cap_bytes as libc::rlim_t,
                        rlim_max: cap_bytes as libc::rlim_t,
                    };
                    libc::setrlimit(libc::RLIMIT_AS, &lim);
                }
                libc::setpgid(0, 0);
                Ok(())
            });
        }
    }
}

/// Runs one recording of `config` in a child process with `dir` as its folder, and waits for it
/// under the settings' time cap.
pub fn run_recording(
    config: &str,
    recording: Recording,
    dir: &Path,
    settings: &Settings,
) -> Result<Outcome> {
    let _span = tracing::info_span!("child", recording = recording.as_str(), config).entered();
    let exe = std::env::current_exe().context("cannot find serprof's own executable")?;
    let settings_json = serde_json::to_string(settings)?;
    let _ = std::fs::remove_file(recording.report_path(dir));
    let mut cmd = Command::new(exe);
    cmd.arg("__worker")
        .arg("--config")
        .arg(config)
        .arg("--recording")
        .arg(recording.as_str())
        .arg("--dir")
        .arg(dir)
        .arg("--settings")
        .arg(settings_json)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    guard(
        &mut cmd,
        settings.memory_cap_mib.saturating_mul(1024 * 1024),
    );
    let mut child = cmd.spawn().context("cannot start a worker child")?;
    crate::interrupt::register_child(child.id());
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let reader = child.stderr.take().map(|stderr| {
        let tail = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        })
    });
    let status = wait_capped(
        &mut child,
        Duration::from_secs(settings.child_time_cap_s.max(1)),
    );
    crate::interrupt::unregister_child();
    if let Some(r) = reader {
        let _ = r.join();
    }
    let tail: Vec<String> = tail
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .cloned()
        .collect();
    let last = if tail.is_empty() {
        String::new()
    } else {
        format!("; last stderr: {}", tail.join(" | "))
    };
    match status? {
        Waited::Exited(status) => match worker::read_report(recording, dir) {
            Some(report) => Ok(Outcome::Reported(Box::new(report))),
            None if tail.iter().any(|l| l.contains("memory allocation of")) => {
                Ok(Outcome::Crashed(format!(
                    "{} child ran out of memory past the {} MiB cap ({}){last}",
                    recording.as_str(),
                    settings.memory_cap_mib,
                    describe(status)
                )))
            }
            None => Ok(Outcome::Crashed(format!(
                "{} child {}{last}",
                recording.as_str(),
                describe(status)
            ))),
        },
        Waited::TimedOut(cap) => Ok(Outcome::Crashed(format!(
            "{} child hung: killed after {} s{last}",
            recording.as_str(),
            cap.as_secs()
        ))),
    }
}

enum Waited {
    Exited(ExitStatus),
    TimedOut(Duration),
}

fn wait_capped(child: &mut Child, cap: Duration) -> Result<Waited> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for a worker child")? {
            return Ok(Waited::Exited(status));
        }
        if start.elapsed() >= cap {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Waited::TimedOut(cap));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
