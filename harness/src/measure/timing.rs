//! The timing recording of one process: warm up, then batches cycling through the dataset, each
//! timed by the thread's CPU time (the clock of every figure) and by wall time (kept beside it).
//! One process is one sample of the configuration's time: the parent runs several and takes the
//! figure across them ([`crate::model::stats`]).
//!
//! Why thread CPU time: on a 2-core machine shared with other work, a batch's wall time mostly
//! varies with how long the thread waited for a core, which has nothing to do with the engine.
//! CPU time still counts cache and frequency effects of sharing the machine.

use std::time::{Duration, Instant};

use serprof_engines::codec::CodecError;

use crate::model::stats::ProcessTiming;
use crate::model::Settings;
use serprof_engines::workload::{ops_per_batch, warm_up, Workload};

/// CPU time of the calling thread, in nanoseconds.
pub fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; the clock always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Runs one batch of `n` operations; returns (CPU ns, wall ns) per operation.
pub fn timed_batch(w: &mut dyn Workload, n: u64) -> Result<(f64, f64), CodecError> {
    let (cpu0, wall0) = (thread_cpu_ns(), Instant::now());
    w.run(n)?;
    let wall = wall0.elapsed().as_nanos() as f64;
    Ok(((thread_cpu_ns() - cpu0) / n as f64, wall / n as f64))
}

/// Times `w` as `settings` say: one process's figures.
pub fn record(w: &mut dyn Workload, settings: &Settings) -> Result<ProcessTiming, CodecError> {
    let (ops, took) = warm_up(w, Duration::from_millis(settings.warmup_ms))?;
    let per_batch = ops_per_batch(
        took.as_nanos() as f64 / ops as f64,
        Duration::from_millis(settings.batch_ms),
    );
    let n = settings.batches.max(1);
    let (mut cpu, mut wall) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let (c, w_ns) = timed_batch(w, per_batch)?;
        cpu.push(c);
        wall.push(w_ns);
    }
    let mut p = ProcessTiming::from_batches(cpu, &wall, per_batch)
        .ok_or_else(|| CodecError::setup("no finite batch time"))?;
    p.cpu = settings.pin_cpu;
    Ok(p)
}
