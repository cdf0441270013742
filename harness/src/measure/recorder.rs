//! A recorder ([`crate::protocol::WorkerRequest::Recorder`]): one process that loads the program's
//! debug information once, then forks one child per recording request. Each child starts from
//! the recorder's state (which never runs a workload), makes its recording exactly as a
//! child of its own would ([`super::run`]), and exits; the recorder waits for it and tells the
//! parent how it ended and what it said on stderr, which the parent judges as the process guard
//! judges a child of its own.
//!
//! Why fork rather than record in the recorder itself: malloc's cost depends on the heap a
//! process has been through, so a recording made after other configurations' recordings in
//! one process profiles a different allocator state (`formats/serde_json`'s `_int_malloc`
//! share moved between 5% and 21% that way, against 6-10% in fresh processes). Why not a fresh
//! process: loading the debug information of a serprof binary takes about 0.17 s, more than a
//! quick recording itself.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, OwnedFd};

use anyhow::{Context, Result};

use super::parent::ParentPipes;
use crate::model::Program;
use crate::process::Stderr;
use crate::protocol::{RecordRequest, RecorderReply};

/// The recorder's life: with `fork`, load the symbols, then fork a child per request; without,
/// make each recording here; until the parent closes the command pipe. An error that is not a
/// recording's own (those go into its report) ends the recorder, as it would end a child of its
/// own: the parent judges it so.
pub(crate) fn serve(program: &Program, fds: [i32; 2], fork: bool) -> Result<()> {
    let mut pipes = ParentPipes::open(fds)?;
    if fork {
        load_symbols();
    }
    let pid = std::process::id();
    while let Some(req) = pipes.next::<RecordRequest>()? {
        tracing::info!(pid, config = %req.config, recording = req.recording.as_str(), "recorder request");
        let (status, stderr) = match fork {
            true => record_in_child(program, &req, fds)?,
            // Exited with code 0, as a child of its own would have.
            false => super::run(program, &req).map(|()| (0, Stderr::default()))?,
        };
        pipes.send(&RecorderReply::Ended { status, stderr })?;
    }
    Ok(())
}

/// Loads the binary's debug information the way the recordings use it: pprof-rs's sampler
/// starts with a resolved backtrace, and symbolisation resolves through the same cache, which
/// every forked child then finds loaded.
fn load_symbols() {
    let _span = tracing::info_span!("load_symbols").entered();
    let _ = backtrace::Backtrace::new();
}

/// Forks a child that makes `req`'s recording with its stderr on a pipe; reads that pipe to its
/// end and waits for the child: its wait status and what it said.
fn record_in_child(program: &Program, req: &RecordRequest, fds: [i32; 2]) -> Result<(i32, Stderr)> {
    let (read_end, write_end) = crate::process::pipes::pipe()?;
    let recorder = std::process::id() as libc::pid_t;
    // SAFETY: the recorder is single-threaded (it starts no thread, and the worker's tracing
    // writes synchronously), so the child's copy of every lock and allocator is consistent.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot fork a recording child");
    }
    if pid == 0 {
        let code = in_child(program, req, fds, recorder, &read_end, &write_end);
        std::process::exit(code);
    }
    drop(write_end);
    let mut seen = Stderr::default();
    for line in BufReader::new(File::from(read_end))
        .lines()
        .map_while(Result::ok)
    {
        seen.add(line);
    }
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is ours.
    if unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot wait for a recording child");
    }
    Ok((status, seen))
}

/// The forked child: dies with the recorder, writes stderr into the pipe, closes the parent's
/// pipes (so that only the recorder holds them), records, and returns its exit code (1 when the
/// recording could not be made at all, as a worker's `main` would).
fn in_child(
    program: &Program,
    req: &RecordRequest,
    fds: [i32; 2],
    recorder: libc::pid_t,
    read_end: &OwnedFd,
    write_end: &OwnedFd,
) -> i32 {
    // SAFETY: prctl, getppid, dup2 and close act on this process's own state; the descriptors
    // are ours (the pipes' ends were inherited through the fork).
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != recorder {
            return 1;
        }
        libc::dup2(write_end.as_raw_fd(), libc::STDERR_FILENO);
        libc::close(read_end.as_raw_fd());
        for fd in fds {
            libc::close(fd);
        }
    }
    match super::run(program, req) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("serprof: error: {}", crate::error::one_line(&e));
            1
        }
    }
}
