//! A pair of pipes to a guarded child: the child reads commands on one descriptor and writes
//! replies on another, whose numbers it is told. Every end is close-on-exec except the child's
//! two in that one child, and the parent closes its copies of those once the child runs, so a
//! child that dies is seen at once: reading its replies returns end of file.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// A pipe with both ends close-on-exec: (read end, write end).
pub(crate) fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array we own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error()).context("cannot create a pipe");
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Why a reply did not come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lost {
    /// The child closed its end (it exited or died).
    Closed,
    /// Nothing came within the time allowed.
    TimedOut,
    /// The run was interrupted.
    Interrupted,
}

/// The parent's ends: commands out, replies in (read line by line).
pub(crate) struct Pipes {
    /// `None` once closed ([`Pipes::close_commands`]).
    commands: Option<File>,
    replies: File,
    buffer: Vec<u8>,
}

/// The child's ends: drop them right after the child is spawned, or its death goes unseen.
pub(crate) struct ChildEnds {
    commands: OwnedFd,
    replies: OwnedFd,
}

impl ChildEnds {
    /// The descriptors the child reads commands from and writes replies to.
    pub(crate) fn fds(&self) -> [RawFd; 2] {
        [self.commands.as_raw_fd(), self.replies.as_raw_fd()]
    }

    /// Lets the child of `cmd` (and no other) inherit both ends.
    pub(crate) fn inherit(&self, cmd: &mut Command) {
        let fds = self.fds();
        // SAFETY: only fcntl, which is async-signal-safe, between fork and exec; it clears
        // close-on-exec on the child's copies only.
        unsafe {
            cmd.pre_exec(move || {
                for fd in fds {
                    if libc::fcntl(fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
}

impl Pipes {
    /// Makes the pipes. The child's ends keep the numbers they have here (which no other
    /// descriptor of the child can take: they are open in the parent when it forks), and are
    /// close-on-exec until [`ChildEnds::inherit`] clears that for one command's child.
    pub(crate) fn new() -> Result<(Pipes, ChildEnds)> {
        let (command_read, command_write) = pipe()?;
        let (reply_read, reply_write) = pipe()?;
        Ok((
            Pipes {
                commands: Some(File::from(command_write)),
                replies: File::from(reply_read),
                buffer: Vec::new(),
            },
            ChildEnds {
                commands: command_read,
                replies: reply_write,
            },
        ))
    }

    /// Sends one line (which must end in a newline). False when the child is gone.
    pub(crate) fn send(&mut self, line: &[u8]) -> bool {
        self.commands
            .as_mut()
            .is_some_and(|c| c.write_all(line).is_ok())
    }

    /// Closes the command pipe: the child reads its end, the sign to finish.
    pub(crate) fn close_commands(&mut self) {
        self.commands = None;
    }

    /// The next line from the child, without its newline, waiting at most `cap`; the wait is
    /// cut short when `interrupted` says so (it is asked every 100 ms).
    pub(crate) fn receive(
        &mut self,
        cap: Duration,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Lost> {
        let start = Instant::now();
        loop {
            if let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.pop();
                return Ok(line);
            }
            if interrupted() {
                return Err(Lost::Interrupted);
            }
            let left = cap.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(Lost::TimedOut);
            }
            let wait = left.min(Duration::from_millis(100));
            let mut poll = libc::pollfd {
                fd: self.replies.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll reads and writes the one pollfd we own.
            let ready = unsafe { libc::poll(&mut poll, 1, wait.as_millis().max(1) as i32) };
            if ready <= 0 {
                continue;
            }
            let mut chunk = [0u8; 4096];
            match self.replies.read(&mut chunk) {
                Ok(0) => return Err(Lost::Closed),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return Err(Lost::Closed),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_echoes_lines_and_its_death_is_seen() {
        // `sh` reads one line from its command end and echoes it to its reply end, then exits.
        let (mut pipes, ends) = Pipes::new().unwrap();
        let [from, to] = ends.fds();
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "read line <&{from}; echo \"got $line\" >&{to}; exit 0"
        ));
        ends.inherit(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        drop(ends);
        assert!(pipes.send(b"hello\n"));
        let never = || false;
        assert_eq!(
            pipes.receive(Duration::from_secs(10), &never).unwrap(),
            b"got hello"
        );
        assert_eq!(
            pipes.receive(Duration::from_secs(10), &never),
            Err(Lost::Closed)
        );
        child.wait().unwrap();
    }

    #[test]
    fn a_silent_child_times_out() {
        let mut cmd = Command::new("sleep");
        cmd.arg("5");
        let (mut pipes, ends) = Pipes::new().unwrap();
        ends.inherit(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        drop(ends);
        let never = || false;
        assert_eq!(
            pipes.receive(Duration::from_millis(150), &never),
            Err(Lost::TimedOut)
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}
