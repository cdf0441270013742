//! The measure layer: what a worker child does. One process per configuration and recording
//! (timing, cpu, alloc), like the JProfiler Gradle plugin's one JVM and one snapshot per
//! configuration and recording, except that the CPU recording's child goes on to make the
//! allocation recording when both are asked for: the workload is built, warmed up and its
//! symbols loaded once.
//!
//! The parent re-executes its own binary as a worker child with a [`RecordRequest`] (see
//! [`crate::protocol`]). The child builds the codec, makes its one recording, writes its files
//! into the configuration's folder, and writes its [`WorkerReport`] there (through a temporary
//! file and a rename). A child that crashes writes nothing, and the parent reports the crash.
//!
//! Verification (every value of the dataset round-trips; a corpus document parses to what the
//! reference parser reads) is a recording of its own, made once per configuration before its
//! timing processes: the code is deterministic, so the timing, CPU and allocation children do
//! not check again. The instructions child verifies before its passes: its counts depend on the
//! heap the verification leaves.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use anyhow::{anyhow, Result};
use serprof_api::__private::Config;
use serprof_api::CodecError;

pub(crate) mod alloc;
pub(crate) mod chosen;
pub(crate) mod clock;
pub(crate) mod corrupt;
pub(crate) mod cpu;
pub(crate) mod functions;
pub(crate) mod parent;
pub(crate) mod recorder;
pub(crate) mod reference;
pub(crate) mod sizes;
pub(crate) mod timing;

use serprof_api::__private::Workload;

use crate::layout::{self, write_atomic, write_json};
use crate::model::{AllocStats, CpuStats, Failure, Program, Recording, Settings};
use crate::protocol::{report_path, RecordRequest, WorkerReport};

/// Makes the recording `req` asks for and writes its report into the request's folder.
pub(crate) fn run(program: &Program, req: &RecordRequest) -> Result<()> {
    // The program's studies were built before and stay allocated: the heap below the workload
    // is the same whichever configuration is chosen (malloc's work in the counted loop, and
    // with it the instruction counts, depend on it).
    let config = program
        .planned(
            &req.settings.studies,
            &req.config,
            crate::measure::chosen::chosen(),
        )
        .map_err(|e| anyhow!(e))?
        .config;
    let mut report = WorkerReport::default();
    let outcome = catch_unwind(AssertUnwindSafe(|| record(&config, req, &mut report)));
    report.error = match outcome {
        Ok(Ok(())) => report.error.take(),
        Ok(Err(e)) => Some(failure_of(req.recording, e)),
        Err(p) => Some(Failure::Panicked {
            message: crate::process::panic_text(p.as_ref()),
        }),
    };
    write_json(&report_path(req.recording, &req.dir), &report)
}

/// A failed recording's error as a [`Failure`]: the engine's own error keeps its kind.
fn failure_of(recording: Recording, e: anyhow::Error) -> Failure {
    match e.downcast::<CodecError>() {
        Ok(error) => Failure::Engine { recording, error },
        Err(e) => Failure::Recording {
            recording,
            message: crate::error::one_line(&e),
        },
    }
}

/// The recording itself; verification failures go into `report`, other failures are errors.
fn record(config: &Config, req: &RecordRequest, report: &mut WorkerReport) -> Result<()> {
    let (name, recording, dir, settings) = (
        req.config.to_string(),
        req.recording,
        req.dir.as_path(),
        &req.settings,
    );
    let prepare = tracing::info_span!("prepare", config = %name).entered();
    let mut w = config.workload()?;
    drop(prepare);
    if matches!(recording, Recording::Verify | Recording::Instructions) {
        let _span = tracing::info_span!("verify", config = %name).entered();
        match w.verify() {
            Ok(verified) => {
                report.verified = true;
                report.payload_bytes = Some(verified.payload_bytes);
                report.shares_references = verified.shares_references;
                report.copies_input = w.copies_input();
                report.findings = verified.findings;
                if recording == Recording::Verify {
                    // The split by field: outside every timed loop, and not under valgrind.
                    let _span = tracing::info_span!("fields", config = %name).entered();
                    let split = w.split_fields();
                    report.findings.extend(split.findings);
                    report.fields = split.fields;
                    report.fields_note = split.note;
                }
                if recording == Recording::Verify {
                    retained(w.as_mut(), report);
                }
                // The payloads go to the driver, which compresses them (zlib and zstd are
                // the driver's, not a measured program's).
                if recording == Recording::Verify && sizes::compresses(config) {
                    let written = w.payloads().map_err(anyhow::Error::from).and_then(|p| {
                        corrupt::write_payloads(&dir.join(layout::VERIFY_PAYLOADS), &p)
                    });
                    if let Err(e) = written {
                        report.warnings.push(format!("no compressed sizes: {e}"));
                    }
                }
            }
            Err(error) => {
                report.error = Some(Failure::Verification { error });
                return Ok(());
            }
        }
    }
    match recording {
        Recording::Verify | Recording::Corrupt => {}
        Recording::Timing => {
            return Err(anyhow!(
                "timing is measured by lock-step timing children, not by a recording request"
            ))
        }
        Recording::Cpu => {
            let span = tracing::info_span!("cpu", config = %name).entered();
            let cpu = record_cpu(w.as_mut(), settings, &name, dir)?;
            drop(span);
            // The workload is warm: its CPU time per operation sizes the counted loop.
            let ns_per_op = match cpu.median_ns_unsampled {
                ns if ns.is_finite() && ns > 0.0 => ns,
                _ => cpu.median_ns_under_sampling,
            };
            report.cpu = Some(cpu);
            if settings.alloc {
                let started = std::time::Instant::now();
                let counted = alloc_recording(w.as_mut(), settings, &name, dir, Some(ns_per_op));
                report.alloc_seconds = Some(started.elapsed().as_secs_f64());
                match counted {
                    Ok(Some(stats)) => report.alloc = Some(stats),
                    Ok(None) => report.warnings.push(NOT_COUNTING.into()),
                    Err(e) => report.error = Some(failure_of(Recording::Alloc, e)),
                }
            }
        }
        Recording::Alloc => match alloc_recording(w.as_mut(), settings, &name, dir, None)? {
            Some(stats) => report.alloc = Some(stats),
            None => report.warnings.push(NOT_COUNTING.into()),
        },
        Recording::Instructions => {
            // Exactly two calls of the measured loop, each dumped by callgrind when it
            // returns (`--dump-after`): one pass uncounted, then the counted passes.
            let pass = w.dataset_len() as u64;
            w.run(pass)?;
            let n = pass * settings.instruction_passes.max(1);
            w.run(n)?;
            report.counted_ops = Some(n);
        }
    }
    Ok(())
}

/// The heap a decoded value keeps, counted by the counting allocator (nothing without it).
fn retained(w: &mut dyn Workload, report: &mut WorkerReport) {
    if !alloc::installed() {
        return;
    }
    alloc::start(0);
    let retained = w.retained_bytes(&mut alloc::live_bytes);
    alloc::stop();
    match retained {
        Some(Ok(bytes)) => report.retained_bytes = Some(bytes),
        Some(Err(e)) => report
            .warnings
            .push(format!("no retained bytes: decoding failed: {e}")),
        None => {}
    }
}

fn record_cpu(
    w: &mut dyn Workload,
    settings: &Settings,
    name: &str,
    dir: &Path,
) -> Result<CpuStats> {
    let rec = cpu::record(w, settings, name)?;
    if rec.samples == 0 {
        return Err(anyhow!("the sampler collected no samples"));
    }
    let _write = tracing::info_span!("write").entered();
    let text = rec.folded.to_text();
    write_atomic(&dir.join(layout::CPU_FOLDED), text.as_bytes())?;
    write_atomic(&dir.join(layout::CPU_PB), &rec.pprof)?;
    write_atomic(
        &dir.join(layout::CPU_SOURCES),
        rec.sources.to_text().as_bytes(),
    )?;
    Ok(CpuStats {
        samples: rec.samples,
        requested_hz: rec.requested_hz,
        effective_hz: rec.effective_hz,
        seconds: rec.cpu_seconds,
        median_ns_under_sampling: rec.median_ns_per_op,
        median_ns_unsampled: rec.median_ns_unsampled,
        overhead_ratio: rec.overhead.as_ref().map(|o| o.ratio),
        overhead: rec.overhead,
    })
}

/// The warning of an allocation recording that cannot count.
const NOT_COUNTING: &str = "no allocation figures: this binary's global allocator is not \
     serprof's counting allocator (serprof::main! with `allocator = none`)";

/// The allocation recording, or `None` when this binary's allocator is not the counting one
/// ([`NOT_COUNTING`]).
fn alloc_recording(
    w: &mut dyn Workload,
    settings: &Settings,
    name: &str,
    dir: &Path,
    warm_ns_per_op: Option<f64>,
) -> Result<Option<AllocStats>> {
    if !alloc::installed() {
        return Ok(None);
    }
    let _span = tracing::info_span!("alloc", config = %name).entered();
    record_alloc(w, settings, name, dir, warm_ns_per_op).map(Some)
}

/// Counts whole passes over the dataset, at least `settings.alloc_min_ms` long, so the figures
/// are exact and repeatable; first a warm-up uncounted (caches, buffer capacity) unless the
/// workload is warm already (`warm_ns_per_op`: its time per operation, from the CPU recording
/// the same child made).
fn record_alloc(
    w: &mut dyn Workload,
    settings: &Settings,
    name: &str,
    dir: &Path,
    warm_ns_per_op: Option<f64>,
) -> Result<AllocStats> {
    use std::time::{Duration, Instant};
    let ns_per_op = match warm_ns_per_op {
        Some(ns) if ns.is_finite() && ns > 0.0 => ns,
        _ => {
            let (ops, took) = serprof_api::__private::warm_up(
                w,
                Duration::from_millis(settings.warmup_ms.min(200)),
            )?;
            took.as_nanos() as f64 / ops as f64
        }
    };
    let pass = w.dataset_len() as u64;
    let wanted = (settings.alloc_min_ms as f64 * 1e6 / ns_per_op.max(1.0)).ceil() as u64;
    let passes = wanted.div_ceil(pass).max(1);
    let n = passes * pass;
    let _ = alloc::take_stacks(name); // discard anything sampled before
    let counted = tracing::info_span!("counted_loop").entered();
    let start = Instant::now();
    // Stacks are walked by frame pointers: without them no stack is sampled (the counts are
    // exact all the same).
    let sample_bytes = match crate::model::BuildInfo::this().frame_pointers {
        true => settings.alloc_sample_bytes,
        false => 0,
    };
    alloc::start(sample_bytes);
    let outcome = w.run(n);
    let counts = alloc::stop();
    drop(counted);
    tracing::debug!(
        ops = n,
        took_ms = start.elapsed().as_millis() as u64,
        "alloc loop"
    );
    outcome?;
    let symbolise = tracing::info_span!("symbolise").entered();
    let (folded, samples, sources) = alloc::take_stacks_with_sources(name);
    drop(symbolise);
    let _write = tracing::info_span!("write").entered();
    let text = folded.to_text();
    write_atomic(&dir.join(layout::ALLOC_FOLDED), text.as_bytes())?;
    write_atomic(
        &dir.join(layout::ALLOC_SOURCES),
        sources.to_text().as_bytes(),
    )?;
    Ok(AllocStats {
        allocs_per_op: counts.allocs as f64 / n as f64,
        reallocs_per_op: counts.reallocs as f64 / n as f64,
        bytes_per_op: counts.bytes as f64 / n as f64,
        peak_live_bytes: counts.peak_live_bytes,
        ops: n,
        stack_samples: samples,
        sample_bytes: settings.alloc_sample_bytes,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serprof_api::__private::{Checks, Data, Values};
    use serprof_api::Operation;
    use serprof_api::{Codec, CodecError};

    use super::*;

    /// Bytes as themselves; a decoded value holds twice the capacity it needs, a known slack.
    struct Slack;

    impl Codec<Vec<u8>> for Slack {
        fn encode(&mut self, value: &Vec<u8>, out: &mut Vec<u8>) -> Result<(), CodecError> {
            out.extend_from_slice(value);
            Ok(())
        }

        fn decode(&mut self, bytes: &mut [u8]) -> Result<Vec<u8>, CodecError> {
            let mut v = Vec::with_capacity(2 * bytes.len());
            v.extend_from_slice(bytes);
            Ok(v)
        }
    }

    fn workload(operation: Operation) -> Values<Vec<u8>> {
        let data: Arc<[Vec<u8>]> = vec![vec![1u8; 10], vec![2u8; 30]].into();
        Values::new(
            Box::new(Slack),
            Data::Shared(data),
            operation,
            Checks::default(),
            false,
        )
    }

    #[test]
    fn retained_bytes_are_what_a_decoded_value_holds_capacity_included() {
        assert!(alloc::installed(), "the test binary counts allocations");
        let mut report = WorkerReport::default();
        retained(&mut workload(Operation::Deserialize), &mut report);
        // 2 x 10 and 2 x 30 bytes of capacity: 40 per value.
        assert_eq!(report.retained_bytes, Some(40.0), "{:?}", report.warnings);
        let mut report = WorkerReport::default();
        retained(&mut workload(Operation::RoundTrip), &mut report);
        assert_eq!(report.retained_bytes, Some(40.0));
    }

    #[test]
    fn a_serialize_row_keeps_no_value_and_reports_none() {
        let mut report = WorkerReport::default();
        retained(&mut workload(Operation::Serialize), &mut report);
        assert_eq!(report.retained_bytes, None);
        assert!(report.warnings.is_empty());
    }
}
