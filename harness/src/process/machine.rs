//! One measurement at a time per machine: a measuring session holds an exclusive `flock` on one
//! file for as long as it times and records (the CPU probe that places its children, the
//! timing children, the recordings), so that two `serprof` commands started together (two
//! terminals, two CI jobs on one runner) never time on the same CPUs at the same moment. The
//! second one waits, says so in one line (as cargo does for its file locks), and records the
//! wait. Builds, links and analysis run outside the lock and may overlap.
//!
//! The file is `/tmp/serprof-measuring.lock`, or `SERPROF_MACHINE_LOCK` when set (a fixed path,
//! not `TMPDIR`'s: two processes with different temporary folders share one machine). The
//! holder writes its process id and command line into it, which the waiting one prints. The
//! lock is the kernel's: it goes with the holder's process, however that ends.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use crate::layout::utc_rfc3339_ms;
use crate::model::manifest::MachineLock;

use super::interrupt;

/// The environment variable that moves the lock file.
pub(crate) const LOCK_VAR: &str = "SERPROF_MACHINE_LOCK";

/// How often a waiting session tries the lock again (and looks at Ctrl-C).
const RETRY: Duration = Duration::from_millis(100);

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    /// The lock file cannot be opened or created.
    #[error("cannot open the measuring lock {}: {source} (set {LOCK_VAR} to a file this user may create)", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `flock` failed for another reason than another holder.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Ctrl-C while waiting.
    #[error("interrupted while waiting for another measurement on this machine")]
    Interrupted,
}

/// The machine's measuring lock, held until dropped (or [`Exclusive::release`]d).
#[derive(Debug)]
pub(crate) struct Exclusive {
    file: File,
    path: PathBuf,
    asked: SystemTime,
    acquired: SystemTime,
    waited_for: Option<String>,
}

/// The lock file's path.
pub(crate) fn lock_path() -> PathBuf {
    match std::env::var_os(LOCK_VAR) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from("/tmp/serprof-measuring.lock"),
    }
}

impl Exclusive {
    /// Takes the machine's measuring lock, waiting for its holder (unless `quiet`, one line on
    /// stderr says who, and one when the wait is over). Ctrl-C while waiting is
    /// [`LockError::Interrupted`].
    pub(crate) fn acquire(quiet: bool) -> Result<Exclusive, LockError> {
        let path = lock_path();
        let asked = SystemTime::now();
        // Read-write where this user may write it (to leave the holder's name), else read only:
        // flock needs no write permission, so another user's lock file still serves.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o666)
            .open(&path)
            .or_else(|_| File::open(&path))
            .map_err(|source| LockError::Open {
                path: path.clone(),
                source,
            })?;
        let mut waited_for = None;
        let started = Instant::now();
        loop {
            // SAFETY: flock on a descriptor this function owns.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r == 0 {
                break;
            }
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(LockError::Lock { path, source: err });
            }
            if waited_for.is_none() {
                let holder = holder(&file);
                if !quiet {
                    eprintln!(
                    "serprof: waiting for another measurement on this machine to finish ({}; lock {})",
                    holder.as_deref().unwrap_or("holder unknown"),
                    path.display()
                    );
                }
                waited_for = Some(holder.unwrap_or_else(|| "unknown".into()));
            }
            if interrupt::interrupted() {
                return Err(LockError::Interrupted);
            }
            std::thread::sleep(RETRY);
        }
        let mut lock = Exclusive {
            file,
            path,
            asked,
            acquired: SystemTime::now(),
            waited_for,
        };
        if lock.waited_for.is_some() && !quiet {
            eprintln!(
                "serprof: the machine is ours after {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        lock.write_holder();
        Ok(lock)
    }

    /// Leaves this process's id and command line in the lock file for a waiting one to print
    /// (nothing when the file is another user's).
    fn write_holder(&mut self) {
        let args: Vec<String> = std::env::args().collect();
        let line = format!("pid {}: {}", std::process::id(), args.join(" "));
        let _ = self
            .file
            .set_len(0)
            .and_then(|()| self.file.rewind())
            .and_then(|()| self.file.write_all(line.as_bytes()));
    }

    /// Lets go of the lock, with the record of this hold for `run.json`.
    pub(crate) fn release(self) -> MachineLock {
        let released = SystemTime::now();
        let waited = self
            .acquired
            .duration_since(self.asked)
            .unwrap_or_default()
            .as_secs_f64();
        let record = MachineLock {
            path: self.path.display().to_string(),
            asked: utc_rfc3339_ms(self.asked),
            acquired: utc_rfc3339_ms(self.acquired),
            released: utc_rfc3339_ms(released),
            waited_s: (waited * 1000.0).round() / 1000.0,
            waited_for: self.waited_for.clone(),
        };
        drop(self);
        record
    }
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        // SAFETY: unlocking a descriptor this value owns (closing it would unlock it too).
        unsafe {
            libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// What the holder wrote into the lock file.
fn holder(file: &File) -> Option<String> {
    let mut text = String::new();
    let mut f = file;
    f.rewind().ok()?;
    f.take(4096).read_to_string(&mut text).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // SAFETY (environment): this test module's tests are the only users of the variable,
        // and this is the only test that sets it.
        std::env::set_var(LOCK_VAR, &path);
        let first = Exclusive::acquire(true).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with(&format!("pid {}:", std::process::id())),
            "{text}"
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let second = std::thread::spawn(move || {
            // flock locks belong to the open file description: a second open in this process
            // conflicts with the first like another process's would.
            let lock = Exclusive::acquire(true).unwrap();
            tx.send(()).unwrap();
            lock.release()
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(400)).is_err(),
            "the second took the lock while the first held it"
        );
        let first = first.release();
        assert!(first.waited_for.is_none());
        let second = second.join().unwrap();
        assert!(second.waited_s >= 0.3, "{second:?}");
        assert!(
            second
                .waited_for
                .as_deref()
                .is_some_and(|w| w.starts_with("pid ")),
            "{second:?}"
        );
        assert!(first.released <= second.acquired, "{first:?} {second:?}");
        std::env::remove_var(LOCK_VAR);
    }
}
