//! The `corrupt` study's parent side: damaged payloads decoded in guarded children, one outcome
//! per input.
//!
//! The inputs are the study's [`Damage`]: seeded mutations of the
//! engine's own valid payloads, 1,000 per engine (100 with `--quick`). For each configuration the
//! parent ([`measure_config`]) starts one guarded child (`serprof __corrupt-worker`,
//! [`crate::measure::corrupt`])
//! that encodes and verifies the 200 Orders, then decodes the inputs in sequence and appends one
//! line per finished input to a progress file in the configuration's folder, flushed, so the
//! parent always knows which input a child was on when it died. A panic is caught in the child
//! (`catch_unwind`); an abort, a hang or the memory cap ends the child, and the parent records
//! that input's outcome and starts a new child from the next one (`--start`).
//!
//! Guards ([`crate::process`]), and how they differ from the other recordings':
//! - time: [`PER_INPUT_CAP`](crate::model::corrupt::PER_INPUT_CAP) (2 s, or `--child-timeout` when smaller) between two finished
//!   inputs, not one cap for the whole child: a hang is a property of one input, and the decodes
//!   here take micro- to milliseconds. Setup (encode and verify) gets the whole child cap.
//! - memory: at most [`MEMORY_CAP_MIB`](crate::model::corrupt::MEMORY_CAP_MIB) (1 GiB) of address space, whatever `--memory-cap` says
//!   (a smaller `--memory-cap` wins). A length prefix inflated to 2^32 or 2^64 is exactly what the
//!   study probes, and an engine that believes it should fail fast, not swap the machine; so even
//!   `--memory-cap 0` (no cap for the other recordings) keeps this one.
//! - restarts: after [`MAX_HANGS`](crate::model::corrupt::MAX_HANGS) hangs, or [`MAX_CHILD_DEATHS`](crate::model::corrupt::MAX_CHILD_DEATHS) aborts and memory kills, of
//!   one configuration the remaining inputs are skipped (counted, with a warning), so an engine
//!   that hangs on every input costs half a minute, not half an hour. A restart after an abort
//!   costs tens of milliseconds, so that budget is large: sonic-rs dies on about 7% of the JSON
//!   inputs (deep nesting) and must still get through all 1,000.
//!
//! An engine's misbehaviour is the study's finding, not a failure: `ConfigResult.error` stays
//! `None` unless the harness itself failed (or the engine cannot round-trip its valid payloads),
//! and the outcomes go to `result.json`'s `corrupt` field, `outcomes.jsonl` (one line per
//! input) and `repro/<outcome>-<index>.bin` (the input itself, for every panic, abort, hang and
//! out-of-memory case up to [`REPRO_PER_OUTCOME`](crate::model::corrupt::REPRO_PER_OUTCOME) of each, and the first few altered values).
//! [`crate::render::corrupt_table`] prints the study's table.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::model::Planned;
use anyhow::{Context, Result};
use serde::Serialize;
use serprof_api::Damage;

use super::executor::Executor;
use super::progress::Progress;
use crate::layout::{
    repro_file, write_atomic, CORRUPT_PAYLOADS, CORRUPT_PROGRESS, OUTCOMES_JSONL, REPRO_DIR,
};
use crate::measure::corrupt::read_payloads;
use crate::model::corrupt::{
    input_count, memory_cap_mib, per_input_cap, CorruptCase, CorruptOutcome, CorruptStats,
    InputRecord, OutcomeCounts, MAX_CHILD_DEATHS, MAX_HANGS, REPRO_ALTERED, REPRO_PER_OUTCOME,
};
use crate::model::{ConfigResult, Failure, Recording, Settings};
use crate::process::{interrupt, Ending, Guarded, Limits, POLL};
use crate::protocol::{CorruptEvent, CorruptRequest, WorkerRequest};

/// Measures one configuration of the `corrupt` study (operation `decode`). Called by the runner
/// instead of the timing, CPU and allocation recordings. Engine misbehaviour is recorded in
/// `corrupt`; `error` is set only when the harness failed or the engine cannot round-trip its
/// own valid payloads.
pub(crate) fn measure_config(
    exec: &dyn Executor,
    damage: &Damage,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    progress: &Progress,
) -> ConfigResult {
    let mut result = ConfigResult::of(config);
    let decoded = exec
        .exe()
        .and_then(|exe| decode_all(&exe, damage, config, dir, settings, progress));
    match decoded {
        Ok(Some(decoded)) => summarize(damage, config, dir, settings, decoded, &mut result),
        Ok(None) => {
            result.error = Some(Failure::Child {
                recording: Recording::Corrupt,
                verdict: Ending::Interrupted,
                stderr: Vec::new(),
                memory_cap_mib: memory_cap_mib(settings),
            })
        }
        Err(e) => result.error = Some(Failure::of(e)),
    }
    for name in [CORRUPT_PROGRESS, CORRUPT_PAYLOADS] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    result
}

/// What the children found: one record per input (`None` for skipped ones), and how many
/// children it took.
struct Decoded {
    records: Vec<Option<InputRecord>>,
    children: usize,
}

/// Runs children until every input has an outcome; `None` when the run was interrupted.
fn decode_all(
    exe: &Path,
    damage: &Damage,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    progress: &Progress,
) -> Result<Option<Decoded>> {
    let name = config.name();
    let n = input_count(damage, settings);
    // A resumed or repeated run starts afresh: nothing of an unfinished attempt is trusted.
    for stale in [CORRUPT_PROGRESS, CORRUPT_PAYLOADS, OUTCOMES_JSONL] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let _ = std::fs::remove_dir_all(dir.join(REPRO_DIR));
    let mut records: Vec<Option<InputRecord>> = vec![None; n];
    let mut next = 0;
    let mut children = 0;
    let (mut hangs, mut deaths) = (0, 0);
    while next < n && hangs < MAX_HANGS && deaths < MAX_CHILD_DEATHS {
        progress.recording(&name, &format!("corrupt inputs {next}/{n}"));
        children += 1;
        let run = run_child(exe, config, dir, settings, next)?;
        let mut ready = false;
        for event in run.events {
            match event {
                CorruptEvent::Ready { .. } => ready = true,
                CorruptEvent::Decoded(record) if record.index < n => {
                    next = record.index + 1;
                    let index = record.index;
                    records[index] = Some(record);
                }
                CorruptEvent::Decoded(record) => {
                    anyhow::bail!("a corrupt child reported input {} of {n}", record.index)
                }
                CorruptEvent::Failed { failure } => return Err(anyhow::Error::new(failure)),
            }
        }
        let (outcome, detail) = match run.end {
            End::Exited if next == n => break,
            End::Exited => (
                CorruptOutcome::Abort,
                "exited with status 0 before the end".into(),
            ),
            End::Interrupted => return Ok(None),
            End::TimedOut { setup: true, after } => anyhow::bail!(
                "the corrupt child hung while encoding and verifying: killed after {} s",
                after.as_secs()
            ),
            End::TimedOut {
                setup: false,
                after,
            } => (
                CorruptOutcome::Hang,
                format!("no outcome within {} ms: killed", after.as_millis()),
            ),
            End::Died { how, .. } if !ready => {
                anyhow::bail!("the corrupt child {how} while encoding and verifying")
            }
            End::Died { outcome, how } => (outcome, how),
        };
        // The child died or hung on the first input it did not finish.
        records[next] = Some(InputRecord {
            index: next,
            outcome,
            detail,
        });
        next += 1;
        if outcome == CorruptOutcome::Hang {
            hangs += 1;
        } else {
            deaths += 1;
        }
        if interrupt::interrupted() {
            return Ok(None);
        }
    }
    Ok(Some(Decoded { records, children }))
}

/// One line of `outcomes.jsonl`.
#[derive(Serialize)]
struct OutcomeLine<'a> {
    index: usize,
    order: usize,
    mutation: &'static str,
    what: &'a str,
    outcome: Option<CorruptOutcome>,
    detail: &'a str,
}

/// Counts the outcomes, writes `outcomes.jsonl` and the reproducers, fills `result`.
fn summarize(
    damage: &Damage,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    decoded: Decoded,
    result: &mut ConfigResult,
) {
    let payloads = match read_payloads(&dir.join(CORRUPT_PAYLOADS)) {
        Ok(p) => p,
        Err(e) => {
            result.error = Some(Failure::of(e));
            return;
        }
    };
    result.verified = true;
    result.payload_bytes =
        Some(payloads.iter().map(|p| p.len() as f64).sum::<f64>() / payloads.len() as f64);
    let mut stats = CorruptStats {
        seed: format!("{:#x}", damage.seed),
        inputs: decoded.records.len(),
        skipped: 0,
        per_input_cap_ms: per_input_cap(settings).as_millis() as u64,
        memory_cap_mib: memory_cap_mib(settings),
        children: decoded.children,
        counts: OutcomeCounts::default(),
        by_mutation: BTreeMap::new(),
        cases: Vec::new(),
    };
    let mut lines = Vec::new();
    let mut shown: BTreeMap<CorruptOutcome, usize> = BTreeMap::new();
    for (index, record) in decoded.records.iter().enumerate() {
        let input = (damage.input)(index, config.info().format, &payloads);
        let line = OutcomeLine {
            index,
            order: input.order,
            mutation: input.mutation,
            what: &input.what,
            outcome: record.as_ref().map(|r| r.outcome),
            detail: record.as_ref().map_or("skipped", |r| &r.detail),
        };
        lines.extend(serde_json::to_vec(&line).unwrap_or_default());
        lines.push(b'\n');
        let Some(record) = record else {
            stats.skipped += 1;
            continue;
        };
        stats.counts.add(record.outcome);
        stats
            .by_mutation
            .entry(input.mutation.to_string())
            .or_default()
            .add(record.outcome);
        let limit = match record.outcome {
            o if o.is_misbehaviour() => REPRO_PER_OUTCOME,
            CorruptOutcome::Altered => REPRO_ALTERED,
            _ => 0,
        };
        let seen = shown.entry(record.outcome).or_default();
        if *seen >= limit {
            continue;
        }
        *seen += 1;
        let file = repro_file(record.outcome.as_str(), index);
        let repro = match write_atomic(&dir.join(&file), &input.bytes) {
            Ok(()) => Some(file),
            Err(e) => {
                result.warnings.push(crate::error::one_line(&e));
                None
            }
        };
        stats.cases.push(CorruptCase {
            index,
            order: input.order,
            mutation: input.mutation.to_string(),
            what: input.what,
            outcome: record.outcome,
            detail: record.detail.clone(),
            repro,
        });
    }
    if let Err(e) = write_atomic(&dir.join(OUTCOMES_JSONL), &lines) {
        result.warnings.push(crate::error::one_line(&e));
    }
    if stats.skipped > 0 {
        result.warnings.push(format!(
            "{} of {} inputs skipped: the engine hung {MAX_HANGS} times or its children died \
             {MAX_CHILD_DEATHS} times",
            stats.skipped, stats.inputs
        ));
    }
    result.corrupt = Some(stats);
}

/// How a child ended.
#[derive(Debug, PartialEq)]
enum End {
    /// It exited by itself with status 0.
    Exited,
    /// It died (or exited with an error) on its own; `outcome` is what that means for the input
    /// it was decoding (`Abort` or `Oom`), `how` says what happened.
    Died {
        outcome: CorruptOutcome,
        how: String,
    },
    /// We killed it: `setup` says whether it was still setting up, else an input passed the cap.
    TimedOut { setup: bool, after: Duration },
    /// The run was interrupted; we killed it.
    Interrupted,
}

/// One child's run: its events and its end.
#[derive(Debug)]
struct ChildRun {
    events: Vec<CorruptEvent>,
    end: End,
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
    fn poll(&mut self) -> Result<Vec<CorruptEvent>> {
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

fn parse_line(line: &[u8]) -> Result<CorruptEvent> {
    serde_json::from_slice(line).with_context(|| {
        format!(
            "unreadable progress line {:?}",
            String::from_utf8_lossy(line)
        )
    })
}

/// Runs one child on `config` from input `start` and follows it until it ends.
fn run_child(
    exe: &Path,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    start: usize,
) -> Result<ChildRun> {
    let mut reader = ProgressReader::new(dir.join(CORRUPT_PROGRESS));
    let cmd = WorkerRequest::Corrupt(CorruptRequest {
        config: config.id(),
        dir: dir.to_path_buf(),
        settings: settings.clone(),
        start,
    })
    .command(exe);
    // The same guards as every worker child, with the corrupt study's own memory cap.
    let limits = Limits {
        address_space: memory_cap_mib(settings).saturating_mul(1024 * 1024),
        cpu: settings.pin_cpu,
    };
    let mut child = Guarded::spawn(cmd, limits)?;
    let setup_cap = Duration::from_secs(settings.child_time_cap_s.max(1));
    let input_cap = per_input_cap(settings);
    let mut events = Vec::new();
    let mut ready = false;
    let mut last = Instant::now();
    let ended = loop {
        let new = reader.poll()?;
        if !new.is_empty() {
            last = Instant::now();
            ready |= new.iter().any(|e| matches!(e, CorruptEvent::Ready { .. }));
            events.extend(new);
        }
        if child.try_wait()?.is_some() {
            break child.wait()?;
        }
        if interrupt::interrupted() {
            break child.kill(Ending::Interrupted);
        }
        let cap = if ready { input_cap } else { setup_cap };
        if last.elapsed() >= cap {
            break child.kill(Ending::Hung { after: cap });
        }
        std::thread::sleep(POLL);
    };
    events.extend(reader.poll()?);
    let end = match ended.verdict {
        Ending::Exited { code: 0 } => End::Exited,
        Ending::Interrupted => End::Interrupted,
        Ending::Hung { after } => End::TimedOut {
            setup: !ready,
            after,
        },
        Ending::OutOfMemory { detail } => End::Died {
            outcome: CorruptOutcome::Oom,
            how: format!("out of memory under the memory cap ({detail})"),
        },
        Ending::StackOverflow => End::Died {
            outcome: CorruptOutcome::Abort,
            how: "stack overflow, killed by SIGABRT".into(),
        },
        v => End::Died {
            outcome: CorruptOutcome::Abort,
            how: format!(
                "{}{}",
                v.describe(),
                ended
                    .stderr
                    .tail
                    .last()
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ),
        },
    };
    Ok(ChildRun { events, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_returns_complete_lines_only_and_skips_earlier_children() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        let ready = |start| CorruptEvent::Ready { start }.line();
        std::fs::write(&path, ready(0)).unwrap();
        let mut r = ProgressReader::new(path.clone());
        assert!(r.poll().unwrap().is_empty());
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let record = |index, outcome| {
            CorruptEvent::Decoded(InputRecord {
                index,
                outcome,
                detail: "x".into(),
            })
            .line()
        };
        let six = record(6, CorruptOutcome::CleanError);
        f.write_all(&ready(5)).unwrap();
        f.write_all(&record(5, CorruptOutcome::Panic)).unwrap();
        f.write_all(&six[..10]).unwrap();
        let events = r.poll().unwrap();
        assert!(matches!(events[0], CorruptEvent::Ready { start: 5 }));
        assert!(matches!(&events[1], CorruptEvent::Decoded(rec) if rec.index == 5));
        assert_eq!(events.len(), 2);
        f.write_all(&six[10..]).unwrap();
        let failed = CorruptEvent::Failed {
            failure: Failure::harness("boom"),
        };
        f.write_all(&failed.line()).unwrap();
        let events = r.poll().unwrap();
        assert!(matches!(&events[0], CorruptEvent::Decoded(rec) if rec.index == 6));
        assert_eq!(events[1], failed);
    }
}
