//! The parent side of one corrupt configuration: children from input 0 until every input has an
//! outcome, then the figures, `outcomes.jsonl` and the reproducers.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use serprof_engines::studies::corrupt::{corrupt_input, SEED};
use serprof_engines::studies::Config;

use super::decode::read_payloads;
use super::guard::{run_child, End, Event};
use super::outcome::{CorruptCase, CorruptStats, InputRecord, Outcome, OutcomeCounts};
use super::{input_count, memory_cap_mib, per_input_cap, MAX_CHILD_DEATHS, MAX_HANGS};
use super::{OUTCOMES_FILE, PAYLOADS_FILE, PROGRESS_FILE, REPRO_ALTERED, REPRO_PER_OUTCOME};
use crate::interrupt;
use crate::progress::Progress;
use crate::result::ConfigResult;
use crate::settings::Settings;
use crate::snapshot::write_atomic;

/// Measures one configuration of the `corrupt` study (operation `decode`). Called by the runner
/// instead of the timing, CPU and allocation recordings. Engine misbehaviour is recorded in
/// `corrupt`; `error` is set only when the harness failed or the engine cannot round-trip its
/// own valid payloads.
pub fn measure_config(
    config: &Config,
    dir: &Path,
    settings: &Settings,
    progress: &Progress,
) -> ConfigResult {
    let mut result = ConfigResult::new(&config.info);
    match decode_all(config, dir, settings, progress) {
        Ok(Some(decoded)) => summarize(config, dir, settings, decoded, &mut result),
        Ok(None) => result.error = Some("interrupted".into()),
        Err(e) => result.error = Some(crate::error::one_line(&e)),
    }
    for name in [PROGRESS_FILE, PAYLOADS_FILE] {
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
    config: &Config,
    dir: &Path,
    settings: &Settings,
    progress: &Progress,
) -> Result<Option<Decoded>> {
    let name = config.info.name();
    let n = input_count(settings);
    // A resumed or repeated run starts afresh: nothing of an unfinished attempt is trusted.
    for stale in [PROGRESS_FILE, PAYLOADS_FILE, OUTCOMES_FILE] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let _ = std::fs::remove_dir_all(dir.join("repro"));
    let mut records: Vec<Option<InputRecord>> = vec![None; n];
    let mut next = 0;
    let mut children = 0;
    let (mut hangs, mut deaths) = (0, 0);
    while next < n && hangs < MAX_HANGS && deaths < MAX_CHILD_DEATHS {
        progress.recording(&name, &format!("corrupt inputs {next}/{n}"));
        children += 1;
        let run = run_child(&name, dir, settings, next)?;
        let mut ready = false;
        for event in run.events {
            match event {
                Event::Ready => ready = true,
                Event::Finished(record) if record.index < n => {
                    next = record.index + 1;
                    let index = record.index;
                    records[index] = Some(record);
                }
                Event::Finished(record) => {
                    anyhow::bail!("a corrupt child reported input {} of {n}", record.index)
                }
                Event::Failed(message) => anyhow::bail!("{message}"),
            }
        }
        let (outcome, detail) = match run.end {
            End::Exited if next == n => break,
            End::Exited => (Outcome::Abort, "exited with status 0 before the end".into()),
            End::Interrupted => return Ok(None),
            End::TimedOut { setup: true, after } => anyhow::bail!(
                "the corrupt child hung while encoding and verifying: killed after {} s",
                after.as_secs()
            ),
            End::TimedOut {
                setup: false,
                after,
            } => (
                Outcome::Hang,
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
        if outcome == Outcome::Hang {
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
    outcome: Option<Outcome>,
    detail: &'a str,
}

/// Counts the outcomes, writes `outcomes.jsonl` and the reproducers, fills `result`.
fn summarize(
    config: &Config,
    dir: &Path,
    settings: &Settings,
    decoded: Decoded,
    result: &mut ConfigResult,
) {
    let payloads = match read_payloads(&dir.join(PAYLOADS_FILE)) {
        Ok(p) => p,
        Err(e) => {
            result.error = Some(crate::error::one_line(&e));
            return;
        }
    };
    result.verified = true;
    result.payload_bytes =
        Some(payloads.iter().map(|p| p.len() as f64).sum::<f64>() / payloads.len() as f64);
    let mut stats = CorruptStats {
        seed: format!("{SEED:#x}"),
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
    let mut shown: BTreeMap<Outcome, usize> = BTreeMap::new();
    for (index, record) in decoded.records.iter().enumerate() {
        let input = corrupt_input(index, config.info.format, &payloads);
        let line = OutcomeLine {
            index,
            order: input.order,
            mutation: input.mutation.as_str(),
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
            .entry(input.mutation.as_str().to_string())
            .or_default()
            .add(record.outcome);
        let limit = match record.outcome {
            o if o.is_misbehaviour() => REPRO_PER_OUTCOME,
            Outcome::Altered => REPRO_ALTERED,
            _ => 0,
        };
        let seen = shown.entry(record.outcome).or_default();
        if *seen >= limit {
            continue;
        }
        *seen += 1;
        let file = format!("repro/{}-{index}.bin", record.outcome.as_str());
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
            mutation: input.mutation.as_str().to_string(),
            what: input.what,
            outcome: record.outcome,
            detail: record.detail.clone(),
            repro,
        });
    }
    if let Err(e) = write_atomic(&dir.join(OUTCOMES_FILE), &lines) {
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
