//! A child's ends of the pipes its parent handed down (a lock-step timing child, a recorder):
//! one JSON line per command in, one per reply out.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::protocol::json_line;

/// The pipes to the parent.
pub(crate) struct ParentPipes {
    commands: std::io::Lines<BufReader<File>>,
    replies: File,
}

impl ParentPipes {
    /// The descriptors `[commands, replies]` the parent handed down.
    pub(crate) fn open([command_fd, reply_fd]: [i32; 2]) -> Result<ParentPipes> {
        for fd in [command_fd, reply_fd] {
            // SAFETY: F_GETFD only asks whether the descriptor is open.
            if fd < 3 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
                anyhow::bail!(
                    "this worker child needs its parent's pipes (fd {fd} is not one); it is started by serprof run, ab and before-after"
                );
            }
        }
        // SAFETY: both descriptors are open (checked above) and owned by nothing else in this
        // process: the parent handed them over for this use only.
        let (commands, replies) =
            unsafe { (File::from_raw_fd(command_fd), File::from_raw_fd(reply_fd)) };
        Ok(ParentPipes {
            commands: BufReader::new(commands).lines(),
            replies,
        })
    }

    /// Writes one reply line.
    pub(crate) fn send<T: Serialize>(&mut self, reply: &T) -> Result<()> {
        self.replies
            .write_all(&json_line(reply))
            .context("the parent closed the reply pipe")
    }

    /// The next command; `None` when the parent closed the pipe.
    pub(crate) fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>> {
        match self.commands.next() {
            None => Ok(None),
            Some(line) => {
                let line = line.context("cannot read a command")?;
                Ok(Some(serde_json::from_str(&line).with_context(|| {
                    format!("unreadable worker command {line:?}")
                })?))
            }
        }
    }
}
