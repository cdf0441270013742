//! The one process guard: every child serprof starts (a worker recording, a corrupt decoder,
//! an `ab` side) is spawned, watched and judged here.
//!
//! A guarded child gets an address-space cap (`setrlimit(RLIMIT_AS)`), its own process group (a
//! terminal's Ctrl-C reaches only the parent, which then stops the child itself, see
//! [`interrupt`]), no backtraces (a backtrace would push the telling line out of the stderr tail)
//! and a piped stderr whose last lines are kept. When it ends, [`Ending`] says how: exited (with
//! its code), killed by a signal, out of memory (std's `memory allocation of N bytes failed`, or
//! a SIGKILL we did not send: the kernel's OOM killer), a stack overflow (std's `has overflowed
//! its stack`), hung (we killed it at a time cap), or interrupted (we killed it on Ctrl-C).

pub(crate) mod interrupt;
pub(crate) mod machine;
pub(crate) mod pipes;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// How often a waiting parent looks at its child.
pub(crate) const POLL: Duration = Duration::from_millis(5);

pub(crate) use crate::model::ending::{Ending, Stderr};

/// The verdict of a child that ended by itself with `status`.
pub(crate) fn judge(status: ExitStatus, stderr: &Stderr) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    if let Some(line) = &stderr.allocation_failed {
        if !status.success() {
            return Ending::OutOfMemory {
                detail: line.clone(),
            };
        }
    }
    if stderr.stack_overflow && !status.success() {
        return Ending::StackOverflow;
    }
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited { code },
        // Not ours (ours are Hung or Interrupted): the kernel's OOM killer sends SIGKILL.
        (None, Some(libc::SIGKILL)) => Ending::OutOfMemory {
            detail: "killed by SIGKILL, presumably the kernel's out-of-memory killer".into(),
        },
        (None, Some(signal)) => Ending::Signal { signal },
        _ => Ending::Exited { code: -1 },
    }
}

/// How a guarded child ended: the verdict and what its stderr said.
#[derive(Debug, Clone)]
pub(crate) struct Ended {
    pub verdict: Ending,
    pub stderr: Stderr,
}

/// Settings of a guarded child.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// Address-space cap in bytes (`RLIMIT_AS`); 0 for none.
    pub address_space: u64,
    /// The CPU the child is pinned to (`sched_setaffinity`), if any.
    pub cpu: Option<usize>,
}

/// A running guarded child.
pub(crate) struct Guarded {
    child: Child,
    stderr: Arc<Mutex<Stderr>>,
    reader: Option<JoinHandle<()>>,
    started: Instant,
    done: bool,
}

/// Applies the guards to `cmd` (see the module doc).
fn apply(cmd: &mut Command, limits: Limits) {
    cmd.env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    use std::os::unix::process::CommandExt;
    let cap = limits.address_space;
    // Built before the fork: the child only hands it to the kernel.
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let pin = limits.cpu.map(|c| unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(c, &mut set);
        set
    });
    // SAFETY: only async-signal-safe calls (setrlimit, sched_setaffinity, setpgid) between fork
    // and exec.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(set) = &pin {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
            }
            if cap > 0 {
                let lim = libc::rlimit {
                    rlim_cur: cap as libc::rlim_t,
                    rlim_max: cap as libc::rlim_t,
                };
                libc::setrlimit(libc::RLIMIT_AS, &lim);
            }
            libc::setpgid(0, 0);
            Ok(())
        });
    }
}

impl Guarded {
    /// Starts `cmd` under the guards. The caller sets the program, arguments, environment and
    /// stdout; stdin is null and stderr is taken here.
    pub(crate) fn spawn(mut cmd: Command, limits: Limits) -> Result<Guarded> {
        apply(&mut cmd, limits);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
        interrupt::register_child(child.id());
        let stderr = Arc::new(Mutex::new(Stderr::default()));
        let reader = child.stderr.take().map(|pipe| {
            let seen = Arc::clone(&stderr);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    seen.lock().unwrap_or_else(|e| e.into_inner()).add(line);
                }
            })
        });
        Ok(Guarded {
            child,
            stderr,
            reader,
            started: Instant::now(),
            done: false,
        })
    }

    /// Time since the child started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Forgets what its stderr said so far: a child that serves several requests (a recorder)
    /// is judged on what it said since the current one began.
    pub(crate) fn clear_stderr(&self) {
        *self.stderr.lock().unwrap_or_else(|e| e.into_inner()) = Stderr::default();
    }

    /// Its status when it has ended by itself.
    pub(crate) fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        self.child
            .try_wait()
            .context("cannot wait for a child process")
    }

    /// Kills it and its process group (a recorder's recording child is in it) and waits for
    /// it; the verdict is `verdict` (ours: Hung or Interrupted).
    pub(crate) fn kill(mut self, verdict: Ending) -> Ended {
        self.kill_group();
        let _ = self.child.wait();
        self.finish(verdict)
    }

    /// SIGKILL to the child's process group (it leads one: see `apply`), then to the child.
    fn kill_group(&mut self) {
        // SAFETY: kill only sends a signal; the group is the child's own, made at its start.
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.child.kill();
    }

    /// The judgement of a child that a recorder forked (`status` from its `waitpid`), from
    /// what it said on stderr; this guarded child, the recorder, goes on.
    pub(crate) fn judge_forked(status: i32, stderr: &Stderr) -> Ending {
        use std::os::unix::process::ExitStatusExt;
        judge(ExitStatus::from_raw(status), stderr)
    }

    /// Waits for it to end by itself.
    pub(crate) fn wait(mut self) -> Result<Ended> {
        let status = self
            .child
            .wait()
            .context("cannot wait for a child process")?;
        let stderr = self.stderr_now();
        Ok(self.finish(judge(status, &stderr)))
    }

    /// Waits until it ends, killing it as hung once `cap` has passed, or as interrupted when the
    /// run is interrupted.
    pub(crate) fn wait_capped(mut self, cap: Duration) -> Result<Ended> {
        loop {
            if self.try_wait()?.is_some() {
                return self.wait();
            }
            if interrupt::interrupted() {
                return Ok(self.kill(Ending::Interrupted));
            }
            if self.started.elapsed() >= cap {
                return Ok(self.kill(Ending::Hung { after: cap }));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Like [`Guarded::wait_capped`], reading the child's piped stdout to the end meanwhile
    /// (the caller set `Stdio::piped()` for it).
    pub(crate) fn wait_with_stdout(mut self, cap: Duration) -> Result<(Ended, Vec<u8>)> {
        let reader = self.child.stdout.take().map(|mut out| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = std::io::Read::read_to_end(&mut out, &mut bytes);
                bytes
            })
        });
        let ended = self.wait_capped(cap)?;
        let bytes = reader.and_then(|r| r.join().ok()).unwrap_or_default();
        Ok((ended, bytes))
    }

    fn stderr_now(&mut self) -> Stderr {
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn finish(mut self, verdict: Ending) -> Ended {
        self.done = true;
        interrupt::unregister_child();
        Ended {
            verdict,
            stderr: self.stderr_now(),
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if !self.done {
            self.kill_group();
            let _ = self.child.wait();
            interrupt::unregister_child();
        }
    }
}

/// The text of a panic payload (`panic!("...")` gives `&str` or `String`).
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ending::STDERR_LINES;
    use std::os::unix::process::ExitStatusExt;

    fn stderr(lines: &[&str]) -> Stderr {
        let mut s = Stderr::default();
        for l in lines {
            s.add(l.to_string());
        }
        s
    }

    #[test]
    fn verdicts_name_what_happened() {
        let abrt = ExitStatus::from_raw(libc::SIGABRT);
        let oom = stderr(&["memory allocation of 67108864 bytes failed"]);
        assert!(matches!(judge(abrt, &oom), Ending::OutOfMemory { .. }));
        let so = stderr(&[
            "thread 'main' has overflowed its stack",
            "fatal runtime error: stack overflow",
        ]);
        assert_eq!(judge(abrt, &so), Ending::StackOverflow);
        assert_eq!(
            judge(abrt, &Stderr::default()),
            Ending::Signal {
                signal: libc::SIGABRT
            }
        );
        assert!(matches!(
            judge(ExitStatus::from_raw(libc::SIGKILL), &Stderr::default()),
            Ending::OutOfMemory { .. }
        ));
        assert_eq!(
            judge(ExitStatus::from_raw(3 << 8), &so),
            Ending::StackOverflow
        );
        assert_eq!(
            judge(ExitStatus::from_raw(0), &oom),
            Ending::Exited { code: 0 }
        );
        assert!(Ending::Signal { signal: 11 }.describe().contains("SIGSEGV"));
    }

    #[test]
    fn the_tail_keeps_the_last_lines() {
        let lines: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let s = stderr(&refs);
        assert_eq!(s.tail.len(), STDERR_LINES);
        assert_eq!(s.tail.last().unwrap(), "19");
    }

    #[test]
    fn a_real_child_is_judged_and_a_hang_is_killed() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo boom >&2; exit 3"]);
        let ended = Guarded::spawn(cmd, Limits::default())
            .unwrap()
            .wait_capped(Duration::from_secs(30))
            .unwrap();
        assert_eq!(ended.verdict, Ending::Exited { code: 3 });
        assert_eq!(ended.stderr.tail, ["boom"]);
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let ended = Guarded::spawn(cmd, Limits::default())
            .unwrap()
            .wait_capped(Duration::from_millis(100))
            .unwrap();
        assert!(matches!(ended.verdict, Ending::Hung { .. }));
    }
}
