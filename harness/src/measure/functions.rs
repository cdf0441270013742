//! A timing child's short CPU profile of one configuration it holds
//! ([`crate::protocol::TimingCommand::Profile`]): before-after's functions over layouts. It is
//! the CPU recording's sampler ([`super::cpu`]: pprof-rs's handler, driven by the same
//! high-resolution timer, at the rate the command names: `settings.functions_hz`), armed for exactly the batches of the
//! configuration's timed loop, until they have run for the CPU time asked for. No overhead
//! pairs and no sample target: the parent wants each layout's self shares, and the same time
//! in every layout.

use std::time::{Duration, Instant};

use anyhow::Result;
use serprof_api::__private::{ops_per_batch, Workload};

use super::clock::timed_batch;
use super::cpu::start_sampler;
use crate::profile::folded::Folded;

/// A profile's samples as the sampler left them: unresolved in the default build (folded
/// later, [`fold`]), resolved by pprof-rs in the `fp-unwind` build.
#[cfg(not(feature = "fp-unwind"))]
pub(crate) type Samples = pprof::UnresolvedReport;
/// See the default build's documentation.
#[cfg(feature = "fp-unwind")]
pub(crate) type Samples = pprof::Report;

/// The folded stacks of `samples` under `root`, without the recorder's own samples (those
/// outside `loop_function`: see [`super::cpu::without_the_recorders_own`]).
pub(crate) fn fold(samples: &Samples, root: &str, loop_function: &str) -> Folded {
    #[cfg(not(feature = "fp-unwind"))]
    let folded = super::cpu::fold_unresolved(samples, root).0;
    #[cfg(feature = "fp-unwind")]
    let folded = super::cpu::fold_report(samples, root);
    super::cpu::without_the_recorders_own(folded, loop_function).0
}

/// The sampler's samples, the sampler stopped.
#[cfg(not(feature = "fp-unwind"))]
fn take(guard: pprof::ProfilerGuard<'_>) -> Result<Samples> {
    Ok(guard.report().build_unresolved()?)
}

/// See the default build's documentation.
#[cfg(feature = "fp-unwind")]
fn take(guard: pprof::ProfilerGuard<'_>) -> Result<Samples> {
    Ok(guard.report().build()?)
}

/// Longest batch of a profile, in milliseconds: the CPU time is checked between batches.
const BATCH_MS: u64 = 20;

/// Runs `w` (whose operation takes about `ns_per_op`) under the sampler at `hz` for `ms`
/// milliseconds of thread CPU time; its samples, not yet folded. A loop that does not reach
/// that time within ten times as much wall time (a machine busy elsewhere) ends there.
pub(crate) fn profile(w: &mut dyn Workload, ns_per_op: f64, ms: u64, hz: u32) -> Result<Samples> {
    let batch = Duration::from_millis(BATCH_MS.min(ms.max(1)));
    let per_batch = ops_per_batch(ns_per_op, batch);
    let target_ns = ms as f64 * 1e6;
    let cap = Duration::from_millis(ms.max(1) * 10);
    let (guard, mut timer) = start_sampler(hz.max(1))?;
    let wall = Instant::now();
    let mut cpu_ns = 0.0;
    while cpu_ns < target_ns && wall.elapsed() < cap {
        timer.arm();
        let ran = timed_batch(w, per_batch);
        timer.disarm();
        let (per_op, _) = ran?;
        cpu_ns += per_op * per_batch as f64;
    }
    drop(timer);
    take(guard)
}
