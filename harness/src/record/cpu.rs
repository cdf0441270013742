//! The CPU recording: pprof-rs's `ProfilerGuard` (setitimer + SIGPROF, frame-pointer unwinding)
//! around the same loop as timing, until a target number of samples.
//!
//! Facts measured on these machines (DESIGN.md): the kernel tick caps `setitimer` near 250 Hz,
//! so the rate asked for is not the rate obtained. The recording counts samples per CPU-second
//! of the child (the effective rate) and writes the pprof protobuf's period from it, so tools
//! that turn samples into CPU time (`go tool pprof`, speedscope, Pyroscope) read correct times.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use pprof::protos::Message;

use super::{ops_per_batch, warm_up, Measured};
use crate::analyze::folded::Folded;
use crate::settings::Settings;
use crate::stats::median;

/// Libraries whose samples pprof-rs drops.
///
/// With the DWARF unwinder (the default build) only the vDSO is blocked: it has no unwind
/// tables worth trusting, and a sample there is a clock read. Everything else, libc's malloc,
/// free and memcpy included, is unwound through its `.eh_frame` and kept.
///
/// With the `fp-unwind` feature (pprof's frame-pointer walk) libc, libgcc and pthread are blocked
/// as DESIGN.md prescribes, because they are built without frame pointers. pprof then drops the
/// WHOLE sample whenever the interrupted instruction is in one of them (measured here:
/// formats/postcard+bytes kept 112 samples per CPU-second of 199 requested; the DWARF build
/// keeps 210), and its walk starts at the interrupted frame's return address, so the function
/// that was running is missing from every stack and its self time lands on its caller. Against
/// `perf record --call-graph dwarf` (scripts/perf-crosscheck.py), the `serde_json::de` share of
/// formats/serde_json differed by 6.7 points with `fp-unwind` and 3.6 points without.
#[cfg(not(feature = "fp-unwind"))]
pub const BLOCKLIST: &[&str] = &["vdso"];
/// See the default build's documentation.
#[cfg(feature = "fp-unwind")]
pub const BLOCKLIST: &[&str] = &["libc", "libgcc", "pthread", "vdso"];

/// The unwinder this build samples with, recorded in every run's manifest.
pub const UNWINDER: &str = if cfg!(feature = "fp-unwind") {
    "pprof-rs frame pointers, blocklist libc/libgcc/pthread/vdso"
} else {
    "pprof-rs DWARF (backtrace-rs), blocklist vdso"
};

/// What a CPU recording produced.
#[derive(Debug)]
pub struct CpuRecording {
    pub folded: Folded,
    /// pprof protobuf (uncompressed), period from the effective rate.
    pub pprof: Vec<u8>,
    pub samples: u64,
    pub requested_hz: f64,
    pub effective_hz: f64,
    pub cpu_seconds: f64,
    pub median_ns_per_op: f64,
    /// Median time per operation of the unsampled batches run just before sampling.
    pub median_ns_unsampled: f64,
}

/// CPU time of this process, in seconds.
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_PROCESS_CPUTIME_ID is always available on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Folds a pprof report: the root frame (pprof's thread name) becomes `root`, frames run root
/// first, names are sanitised (see [`Folded::add`]). Also used by the criterion benches' profiler.
///
/// Each physical frame is named by the function it is in, not by the functions inlined into it.
/// pprof-rs 0.15 keys its sample table by each frame's enclosing-function address
/// (`symbol_address`), so every later sample through the same physical functions is counted
/// under the instruction addresses of the FIRST such sample; the inline chain resolved from
/// those addresses is therefore decided by whichever sample came first in the process.
/// Measured here: `formats/postcard+bytes`, five runs of one binary, gave
/// `IndexSetVisitor::visit_seq` a self share of 0.0, 3.9, 3.8, 0.0 and 0.0%. The physical
/// function is the same for every sample of a key, so it is attributed exactly.
pub fn fold_report(report: &pprof::Report, root: &str) -> Folded {
    let mut folded = Folded::default();
    for (frames, &count) in &report.data {
        // pprof keeps frames leaf first, and the symbols of one frame innermost first: the
        // last symbol is the physical function.
        let names: Vec<String> = frames
            .frames
            .iter()
            .rev()
            .filter_map(|symbols| symbols.last().map(|s| s.name()))
            .collect();
        folded.add(root, &names, count.max(0) as u64);
    }
    folded
}

/// Samples `w` as `settings` say; `root` names the configuration (the flame graph's root frame).
pub fn record(w: &mut dyn Measured, settings: &Settings, root: &str) -> Result<CpuRecording> {
    let (ops, took) = warm_up(w, Duration::from_millis(settings.warmup_ms.min(300)))
        .map_err(|e| anyhow!("{e}"))?;
    let per_batch = ops_per_batch(
        took.as_nanos() as f64 / ops as f64,
        Duration::from_millis(settings.batch_ms),
    );
    let hz = settings.frequency_hz.max(1);
    let target = settings.cpu_samples.max(1);
    let cap = Duration::from_secs(settings.cpu_time_cap_s.max(1));

    // The reference for the profiler's overhead: the same loop, same process, unsampled.
    let mut unsampled = Vec::new();
    for _ in 0..settings.batches.clamp(1, 20) {
        let start = Instant::now();
        w.run(per_batch).map_err(|e| anyhow!("{e}"))?;
        unsampled.push(start.elapsed().as_nanos() as f64 / per_batch as f64);
    }

    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(hz as i32)
        .blocklist(BLOCKLIST)
        .build()
        .context("cannot start the pprof sampler")?;
    let wall = Instant::now();
    let cpu0 = process_cpu_seconds();
    let mut batches = Vec::new();
    let mut next_check = target as f64 / f64::from(hz);
    loop {
        let start = Instant::now();
        w.run(per_batch).map_err(|e| anyhow!("{e}"))?;
        batches.push(start.elapsed().as_nanos() as f64 / per_batch as f64);
        let cpu = process_cpu_seconds() - cpu0;
        if wall.elapsed() >= cap {
            break;
        }
        if cpu >= next_check {
            let count: isize = guard
                .report()
                .build_unresolved()
                .context("cannot read the sampler's counts")?
                .data
                .values()
                .sum();
            if count as u64 >= target {
                break;
            }
            // Not there yet (the effective rate is below the requested one): check again once
            // the missing samples should have arrived at the rate seen so far.
            let rate = (count.max(1) as f64 / cpu).max(1.0);
            next_check = cpu + (target as f64 - count as f64) / rate;
        }
    }
    let cpu_seconds = process_cpu_seconds() - cpu0;
    // Building the report takes the profiler's lock; samples that land meanwhile are dropped by
    // pprof's signal handler, so symbolisation does not appear in the profile.
    let report = guard
        .report()
        .build()
        .context("cannot build the pprof report")?;
    drop(guard);

    let folded = fold_report(&report, root);
    let samples = folded.total();
    let effective_hz = if cpu_seconds > 0.0 {
        samples as f64 / cpu_seconds
    } else {
        0.0
    };
    let mut profile = report.pprof().context("cannot build the pprof protobuf")?;
    if effective_hz > 0.0 {
        let period = (1e9 / effective_hz).round() as i64;
        profile.period = period;
        for s in profile.sample.iter_mut() {
            if let Some(v0) = s.value.first().copied() {
                if s.value.len() > 1 {
                    s.value[1] = v0 * period;
                }
            }
        }
    }
    let pprof = profile.encode_to_vec();
    Ok(CpuRecording {
        folded,
        pprof,
        samples,
        requested_hz: f64::from(hz),
        effective_hz,
        cpu_seconds,
        median_ns_per_op: median(&batches),
        median_ns_unsampled: median(&unsampled),
    })
}
