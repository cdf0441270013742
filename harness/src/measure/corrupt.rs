//! The corrupt child (a [`CorruptRequest`]): builds the engine, decodes the damaged inputs from
//! `start` on, and appends one [`CorruptEvent`] line per input to the progress file, flushed
//! before the next input starts: `Ready` once set-up is done (the parent's per-input clock
//! starts there), `Decoded` per input, `Failed` when the child itself fails (a harness failure,
//! not an outcome).

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use anyhow::{bail, Context, Result};
use serprof_api::__private::Config;
use serprof_api::__private::{Damaged, Workload};

use crate::layout::{write_atomic, CORRUPT_PAYLOADS, CORRUPT_PROGRESS};
use crate::model::corrupt::{input_count, CorruptOutcome, InputRecord};
use crate::model::{Failure, Program, Recording};
use crate::protocol::{CorruptEvent, CorruptRequest};

/// Longest detail kept per input: error messages of some engines quote the input.
const DETAIL_CHARS: usize = 240;

/// Runs the child; a failure is also written to the progress file for the parent.
pub(crate) fn run(program: &Program, req: &CorruptRequest) -> Result<()> {
    let path = req.dir.join(CORRUPT_PROGRESS);
    let mut progress = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    if let Err(failure) = decode_inputs(program, req, &mut progress) {
        let line = CorruptEvent::Failed {
            failure: failure.clone(),
        }
        .line();
        let _ = progress.write_all(&line);
        bail!("{failure}");
    }
    Ok(())
}

/// A failure of the child's own work (its files).
fn harness(e: impl std::fmt::Display) -> Failure {
    Failure::Recording {
        recording: Recording::Corrupt,
        message: e.to_string(),
    }
}

fn decode_inputs(
    program: &Program,
    req: &CorruptRequest,
    progress: &mut File,
) -> Result<(), Failure> {
    let (dir, settings, start) = (req.dir.as_path(), &req.settings, req.start);
    let config = program
        .planned(
            &settings.studies,
            &req.config,
            crate::measure::chosen::chosen(),
        )
        .map_err(harness)?
        .config;
    let damage = program
        .find_info(&config.info.study)
        .and_then(|s| s.damage)
        .ok_or_else(|| harness(format_args!("{}: the study has no damage", req.config)))?;
    let mut work = make_workload(&config)?;
    let payloads = if start == 0 {
        // Damage is only meaningful against payloads the engine reads correctly: every value's
        // payload decodes back equal first.
        let p = catch_unwind(AssertUnwindSafe(|| work.payloads()))
            .map_err(|p| Failure::Panicked {
                message: panic_text(p.as_ref()),
            })?
            .map_err(|error| Failure::Verification { error })?;
        write_payloads(&dir.join(CORRUPT_PAYLOADS), &p).map_err(harness)?;
        p
    } else {
        read_payloads(&dir.join(CORRUPT_PAYLOADS)).map_err(harness)?
    };
    install_quiet_panic_hook();
    let mut emit = |event: CorruptEvent| {
        // One write per line, and no buffering: the parent reads it while this child lives.
        progress
            .write_all(&event.line())
            .and_then(|()| progress.flush())
            .map_err(harness)
    };
    emit(CorruptEvent::Ready { start })?;
    for index in start..input_count(&damage, settings) {
        let input = (damage.input)(index, config.info.format, &payloads);
        let mut bytes = input.bytes;
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            work.decode_damaged(&mut bytes, input.order)
        }));
        let (outcome, detail) = match decoded {
            Ok(Damaged::Refused(e)) => (CorruptOutcome::CleanError, e.to_string()),
            Ok(Damaged::Unchanged) => (CorruptOutcome::Unchanged, String::new()),
            Ok(Damaged::Altered(diff)) => (CorruptOutcome::Altered, diff),
            Err(payload) => {
                // The engine may have been left half-way through a mutation: start afresh.
                work = make_workload(&config)?;
                (CorruptOutcome::Panic, panic_text(payload.as_ref()))
            }
        };
        emit(CorruptEvent::Decoded(InputRecord {
            index,
            outcome,
            detail: shorten(&detail),
        }))?;
    }
    Ok(())
}

fn make_workload(config: &Config) -> Result<Box<dyn Workload>, Failure> {
    config.workload().map_err(|error| Failure::Engine {
        recording: Recording::Corrupt,
        error,
    })
}

/// Payloads as `u32` little-endian length + bytes, one after another.
pub(crate) fn write_payloads(path: &Path, payloads: &[Vec<u8>]) -> Result<()> {
    let mut out = Vec::new();
    for p in payloads {
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
    write_atomic(path, &out)
}

/// Reads what [`write_payloads`] wrote.
pub(crate) fn read_payloads(path: &Path) -> Result<Vec<Vec<u8>>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rest = &bytes[..];
    let mut payloads = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest
            .split_first_chunk::<4>()
            .context("truncated payload length")?;
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            bail!("{} is truncated", path.display());
        }
        payloads.push(tail[..len].to_vec());
        rest = &tail[len..];
    }
    if payloads.is_empty() {
        bail!("{} holds no payload", path.display());
    }
    Ok(payloads)
}

thread_local! {
    /// Where the last panic happened, for its record (the hook runs before unwinding).
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the default panic hook, which would print a message (and, with RUST_BACKTRACE, a
/// backtrace) for every panicking input, with one that only remembers where it happened.
fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let message = crate::process::panic_text(payload);
    match PANIC_AT.with(|p| p.borrow_mut().take()) {
        Some(at) => format!("panicked at {at}: {message}"),
        None => format!("panicked: {message}"),
    }
}

fn shorten(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    match one_line.char_indices().nth(DETAIL_CHARS) {
        Some((cut, _)) => format!("{}...", &one_line[..cut]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_survive_the_file_and_truncation_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.bin");
        let payloads = vec![b"abc".to_vec(), Vec::new(), vec![0xFF; 300]];
        write_payloads(&path, &payloads).unwrap();
        assert_eq!(read_payloads(&path).unwrap(), payloads);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(read_payloads(&path).is_err());
    }

    #[test]
    fn details_are_one_short_line() {
        assert_eq!(shorten("a\nb"), "a b");
        let long = "é".repeat(500);
        assert_eq!(shorten(&long).chars().count(), DETAIL_CHARS + 3);
    }
}
