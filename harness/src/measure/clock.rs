//! The clocks of every timed recording: the thread's CPU time, and batches timed by it with
//! wall time beside.

use std::time::Instant;

use serprof_api::__private::Workload;
use serprof_api::CodecError;

/// CPU time of the calling thread, in nanoseconds.
pub(crate) fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; the clock always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Runs one batch of `n` operations; returns (CPU ns, wall ns) per operation.
pub(crate) fn timed_batch(w: &mut dyn Workload, n: u64) -> Result<(f64, f64), CodecError> {
    let (cpu0, wall0) = (thread_cpu_ns(), Instant::now());
    w.run(n)?;
    let wall = wall0.elapsed().as_nanos() as f64;
    Ok(((thread_cpu_ns() - cpu0) / n as f64, wall / n as f64))
}
