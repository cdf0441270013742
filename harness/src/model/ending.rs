//! How a child process ended, as the process guard judged it (`process::Guarded`), and what it
//! said on stderr, which the judgement reads.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Lines of stderr kept for a failure message.
pub(crate) const STDERR_LINES: usize = 8;

/// What a child's stderr said, kept for its verdict.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stderr {
    /// The last [`STDERR_LINES`] lines.
    pub tail: Vec<String>,
    /// std's `memory allocation of N bytes failed` line, if it printed one.
    pub allocation_failed: Option<String>,
    /// std's `thread '…' has overflowed its stack`.
    pub stack_overflow: bool,
}

impl Stderr {
    /// Takes in one more line.
    pub(crate) fn add(&mut self, line: String) {
        if line.starts_with("memory allocation of") {
            self.allocation_failed = Some(line.clone());
        }
        self.stack_overflow |= line.contains("has overflowed its stack");
        if self.tail.len() == STDERR_LINES {
            self.tail.remove(0);
        }
        self.tail.push(line);
    }

    /// `; last stderr: a | b`, or nothing.
    pub(crate) fn suffix(&self) -> String {
        if self.tail.is_empty() {
            String::new()
        } else {
            format!("; last stderr: {}", self.tail.join(" | "))
        }
    }
}

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum Ending {
    /// It exited by itself with this code (0: success).
    Exited { code: i32 },
    /// A signal ended it (not one of ours, not one of the cases below).
    Signal { signal: i32 },
    /// It ran out of memory: `detail` is std's allocation-failure line, or says that an
    /// unexplained SIGKILL is presumably the kernel's out-of-memory killer.
    OutOfMemory { detail: String },
    /// It overflowed a thread's stack.
    StackOverflow,
    /// We killed it after `after` without progress.
    Hung {
        #[serde(with = "seconds")]
        after: Duration,
    },
    /// We killed it because the run was interrupted.
    Interrupted,
}

impl Ending {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        *self == Ending::Exited { code: 0 }
    }

    /// A short phrase: "exited with code 3", "killed by SIGSEGV (11)", "ran out of memory (...)".
    pub fn describe(&self) -> String {
        match self {
            Ending::Exited { code } => format!("exited with code {code}"),
            Ending::Signal { signal } if *signal == libc::SIGILL => format!(
                "killed by SIGILL ({signal}): an instruction this CPU does not have (the build's target features: {})",
                env!("SERPROF_TARGET_FEATURES")
            ),
            Ending::Signal { signal } => {
                format!("killed by {} ({signal})", signal_name(*signal))
            }
            Ending::OutOfMemory { detail } => format!("ran out of memory ({detail})"),
            Ending::StackOverflow => "overflowed its stack (SIGABRT)".into(),
            Ending::Hung { after } => format!("hung: killed after {} s", after.as_secs_f64()),
            Ending::Interrupted => "was stopped: the run was interrupted".into(),
        }
    }
}

/// Signal names for verdicts.
pub(crate) fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => "a signal",
    }
}

/// A `Duration` stored as seconds.
mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = f64::deserialize(d)?;
        Ok(Duration::try_from_secs_f64(s).unwrap_or_default())
    }
}
