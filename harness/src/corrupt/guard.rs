//! One guarded corrupt child: spawn it under the memory cap, follow its progress file, kill it
//! when an input passes the per-input cap, and say how it ended.
//!
//! [`crate::child`] guards the other recordings with one cap for the whole child; here the
//! clock restarts at every finished input, and the progress file (not a final report) tells the
//! parent how far the child got, which is why this is a loop of its own.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::outcome::{InputRecord, Outcome};
use super::{memory_cap_mib, per_input_cap, PROGRESS_FILE};
use crate::interrupt;
use crate::settings::Settings;

/// How often the parent looks at the child and its progress file.
const POLL: Duration = Duration::from_millis(5);

/// What the child said through its progress file, in order.
#[derive(Debug)]
pub enum Event {
    Ready,
    Finished(InputRecord),
    Failed(String),
}

/// How a child ended.
#[derive(Debug, PartialEq)]
pub enum End {
    /// It exited by itself with status 0.
    Exited,
    /// It died (or exited with an error) on its own; `outcome` is what that means for the input
    /// it was decoding (`Abort` or `Oom`), `how` says what happened.
    Died { outcome: Outcome, how: String },
    /// We killed it: `setup` says whether it was still setting up, else an input passed the cap.
    TimedOut { setup: bool, after: Duration },
    /// The run was interrupted; we killed it.
    Interrupted,
}

/// One child's run: its events and its end.
#[derive(Debug)]
pub struct ChildRun {
    pub events: Vec<Event>,
    pub end: End,
}

/// Reads the lines a child appends to its progress file, as they come.
struct ProgressReader {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

impl ProgressReader {
    fn new(path: PathBuf) -> ProgressReader {
        // Start after what earlier children wrote: the file is appended to across restarts.
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        ProgressReader {
            path,
            offset,
            partial: Vec::new(),
        }
    }

    /// The complete lines written since the last call.
    fn poll(&mut self) -> Result<Vec<Event>> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", self.path.display()))
            }
        };
        file.seek(SeekFrom::Start(self.offset))?;
        let read = file.read_to_end(&mut self.partial)?;
        self.offset += read as u64;
        let Some(last_newline) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return Ok(Vec::new());
        };
        let complete: Vec<u8> = self.partial.drain(..=last_newline).collect();
        complete
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(parse_line)
            .collect()
    }
}

fn parse_line(line: &[u8]) -> Result<Event> {
    let text = String::from_utf8_lossy(line);
    if let Some(message) = text.strip_prefix("# error: ") {
        return Ok(Event::Failed(message.to_string()));
    }
    if text.starts_with("# ready") {
        return Ok(Event::Ready);
    }
    serde_json::from_str(&text)
        .map(Event::Finished)
        .with_context(|| format!("unreadable progress line {text:?}"))
}

/// What the child's stderr said, kept for the verdict: its last lines, and whether an
/// allocation failed (std prints `memory allocation of N bytes failed` before aborting).
#[derive(Default)]
struct Stderr {
    tail: Vec<String>,
    /// std's `memory allocation of N bytes failed` line, if it printed one.
    allocation_failed: Option<String>,
    stack_overflow: bool,
}

fn follow_stderr(child: &mut Child) -> (Arc<Mutex<Stderr>>, Option<JoinHandle<()>>) {
    let seen = Arc::new(Mutex::new(Stderr::default()));
    let handle = child.stderr.take().map(|pipe| {
        let seen = Arc::clone(&seen);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
                if line.starts_with("memory allocation of") {
                    s.allocation_failed = Some(line.clone());
                }
                s.stack_overflow |= line.contains("has overflowed its stack");
                if s.tail.len() == 4 {
                    s.tail.remove(0);
                }
                s.tail.push(line);
            }
        })
    });
    (seen, handle)
}

/// Signal names for the verdict (`killed by SIGSEGV`).
const SIGNALS: [(i32, &str); 8] = [
    (libc::SIGABRT, "SIGABRT"),
    (libc::SIGSEGV, "SIGSEGV"),
    (libc::SIGKILL, "SIGKILL"),
    (libc::SIGBUS, "SIGBUS"),
    (libc::SIGILL, "SIGILL"),
    (libc::SIGFPE, "SIGFPE"),
    (libc::SIGTRAP, "SIGTRAP"),
    (libc::SIGTERM, "SIGTERM"),
];

/// Classifies a child that ended without being killed by us.
fn verdict(status: ExitStatus, stderr: &Stderr) -> End {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return End::Exited;
    }
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => {
            let name = SIGNALS
                .iter()
                .find(|(n, _)| *n == sig)
                .map_or("a signal", |(_, name)| name);
            format!("killed by {name} ({sig})")
        }
        _ => "ended abnormally".into(),
    };
    let last = stderr
        .tail
        .last()
        .map(|l| format!(": {l}"))
        .unwrap_or_default();
    if let Some(line) = &stderr.allocation_failed {
        End::Died {
            outcome: Outcome::Oom,
            how: format!("out of memory under the memory cap ({line}), {how}"),
        }
    } else if status.signal() == Some(libc::SIGKILL) {
        // Not ours (we report our kills as time-outs): the kernel's OOM killer sends SIGKILL.
        End::Died {
            outcome: Outcome::Oom,
            how: format!("{how}, presumably the kernel's out-of-memory killer"),
        }
    } else if stderr.stack_overflow {
        End::Died {
            outcome: Outcome::Abort,
            how: format!("stack overflow, {how}"),
        }
    } else {
        End::Died {
            outcome: Outcome::Abort,
            how: format!("{how}{last}"),
        }
    }
}

/// Runs one child on `config` from input `start` and follows it until it ends.
pub fn run_child(config: &str, dir: &Path, settings: &Settings, start: usize) -> Result<ChildRun> {
    let exe = std::env::current_exe().context("cannot find serprof's own executable")?;
    let mut reader = ProgressReader::new(dir.join(PROGRESS_FILE));
    let mut cmd = Command::new(exe);
    cmd.arg("__corrupt-worker")
        .arg("--config")
        .arg(config)
        .arg("--dir")
        .arg(dir)
        .arg("--settings")
        .arg(serde_json::to_string(settings)?)
        .arg("--start")
        .arg(start.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // The same guards as every worker child, with the corrupt study's own memory cap.
    crate::child::guard(
        &mut cmd,
        memory_cap_mib(settings).saturating_mul(1024 * 1024),
    );
    let mut child = cmd.spawn().context("cannot start a corrupt child")?;
    interrupt::register_child(child.id());
    let (stderr, stderr_thread) = follow_stderr(&mut child);
    let watched = watch(&mut child, &mut reader, settings);
    interrupt::unregister_child();
    if watched.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    if let Some(t) = stderr_thread {
        let _ = t.join();
    }
    let (mut events, end) = watched?;
    events.extend(reader.poll()?);
    let end = match end {
        Some(end) => end,
        None => {
            let status = child.wait().context("cannot wait for a corrupt child")?;
            verdict(status, &stderr.lock().unwrap_or_else(|e| e.into_inner()))
        }
    };
    Ok(ChildRun { events, end })
}

/// Polls until the child exits (`None`: the caller classifies it) or we end it.
fn watch(
    child: &mut Child,
    reader: &mut ProgressReader,
    settings: &Settings,
) -> Result<(Vec<Event>, Option<End>)> {
    let setup_cap = Duration::from_secs(settings.child_time_cap_s.max(1));
    let input_cap = per_input_cap(settings);
    let mut events = Vec::new();
    let mut ready = false;
    let mut last = Instant::now();
    loop {
        let new = reader.poll()?;
        if !new.is_empty() {
            last = Instant::now();
            ready |= new.iter().any(|e| matches!(e, Event::Ready));
            events.extend(new);
        }
        if child.try_wait()?.is_some() {
            return Ok((events, None));
        }
        let stop = if interrupt::interrupted() {
            Some(End::Interrupted)
        } else {
            let cap = if ready { input_cap } else { setup_cap };
            (last.elapsed() >= cap).then_some(End::TimedOut {
                setup: !ready,
                after: cap,
            })
        };
        if let Some(end) = stop {
            let _ = child.kill();
            let _ = child.wait();
            return Ok((events, Some(end)));
        }
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_returns_complete_lines_only_and_skips_earlier_children() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        std::fs::write(&path, "# ready 0\n").unwrap();
        let mut r = ProgressReader::new(path.clone());
        assert!(r.poll().unwrap().is_empty());
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        write!(
            f,
            "# ready 5\n{{\"index\":5,\"outcome\":\"panic\",\"detail\":\"x\"}}\n{{\"ind"
        )
        .unwrap();
        let events = r.poll().unwrap();
        assert!(matches!(events[0], Event::Ready));
        assert!(matches!(&events[1], Event::Finished(rec) if rec.index == 5));
        assert_eq!(events.len(), 2);
        writeln!(f, "ex\":6,\"outcome\":\"clean-error\"}}\n# error: boom").unwrap();
        let events = r.poll().unwrap();
        assert!(matches!(&events[0], Event::Finished(rec) if rec.index == 6));
        assert!(matches!(&events[1], Event::Failed(m) if m == "boom"));
    }

    #[test]
    fn an_allocation_failure_is_out_of_memory_and_a_signal_is_an_abort() {
        use std::os::unix::process::ExitStatusExt;
        let abrt = ExitStatus::from_raw(libc::SIGABRT);
        let oom = Stderr {
            tail: vec!["note: run with `RUST_BACKTRACE=1`".into()],
            allocation_failed: Some("memory allocation of 67108864 bytes failed".into()),
            stack_overflow: false,
        };
        assert!(matches!(
            verdict(abrt, &oom),
            End::Died {
                outcome: Outcome::Oom,
                ..
            }
        ));
        match verdict(abrt, &Stderr::default()) {
            End::Died { outcome, how } => {
                assert_eq!(outcome, Outcome::Abort);
                assert!(how.contains("SIGABRT"), "{how}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            verdict(ExitStatus::from_raw(0), &Stderr::default()),
            End::Exited
        );
    }
}
