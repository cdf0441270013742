//! The CPU recording: pprof-rs's sampler (its SIGPROF handler, DWARF unwinding through
//! backtrace-rs in the default build, pprof's frame-pointer walk with the `fp-unwind` feature),
//! driven by a high-resolution timer of our own ([`ProfilingTimer`]), around the same loop as
//! timing, until a target number of samples.
//!
//! The recording counts samples per CPU-second of its sampled batches (the effective rate) and
//! writes the pprof protobuf's period from it, so tools that turn samples into CPU time (`go
//! tool pprof`, speedscope, Pyroscope) read correct times.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use super::clock::timed_batch;
use crate::model::stats::{median, RatioStats};
use crate::model::Settings;
use crate::profile::folded::Folded;
use crate::profile::pprof::{cpu_pprof, Timing};
use crate::profile::sources::Sources;
use serprof_api::__private::{ops_per_batch, warm_up, Workload};

/// Libraries whose samples pprof-rs drops.
///
/// With the DWARF unwinder (the default build) only the vDSO is blocked: it has no unwind
/// tables worth trusting, and a sample there is a clock read. Everything else, libc's malloc,
/// free and memcpy included, is unwound through its `.eh_frame` and kept.
///
/// With the `fp-unwind` feature (pprof's frame-pointer walk) libc, libgcc and pthread are blocked,
/// because they are built without frame pointers. pprof then drops the WHOLE sample whenever the
/// interrupted instruction is in one of them (formats/postcard+bytes keeps about 56% of its
/// samples, the DWARF build all of them), and its walk starts at the interrupted
/// frame's return address, so the function that was running is missing from every stack and its
/// self time lands on its caller. Against `perf record --call-graph dwarf`
/// (scripts/perf-crosscheck.py), the `serde_json::de` share of formats/serde_json differs by 6.7
/// points with `fp-unwind` and 3.6 points without.
#[cfg(not(feature = "fp-unwind"))]
pub const BLOCKLIST: &[&str] = &["vdso"];
/// See the default build's documentation.
#[cfg(feature = "fp-unwind")]
pub const BLOCKLIST: &[&str] = &["libc", "libgcc", "pthread", "vdso"];

/// The unwinder this build samples with, recorded in every run's manifest.
pub(crate) const UNWINDER: &str = if cfg!(feature = "fp-unwind") {
    "pprof-rs frame pointers, blocklist libc/libgcc/pthread/vdso"
} else {
    "pprof-rs DWARF (backtrace-rs), blocklist vdso"
};

/// What a CPU recording produced.
#[derive(Debug)]
pub(crate) struct CpuRecording {
    pub folded: Folded,
    /// Each folded frame's source file and library.
    pub sources: Sources,
    /// pprof protobuf (uncompressed) of the folded stacks' frames, period from the effective
    /// rate.
    pub pprof: Vec<u8>,
    pub samples: u64,
    pub requested_hz: f64,
    pub effective_hz: f64,
    /// Thread CPU seconds of the sampled batches.
    pub cpu_seconds: f64,
    pub median_ns_per_op: f64,
    /// Median time per operation of the unsampled batches, interleaved with the sampled ones.
    pub median_ns_unsampled: f64,
    /// Sampled / unsampled thread CPU time per operation, from the interleaved pairs.
    pub overhead: Option<RatioStats>,
}

/// Folds a pprof report: the root frame (pprof's thread name) becomes `root`, frames run root
/// first, names are sanitised (see `Folded::add`). Also used by the criterion benches' profiler.
///
/// Each physical frame is named by the function it is in, not by the functions inlined into it.
/// pprof-rs 0.15 keys its sample table by each frame's enclosing-function address
/// (`symbol_address`), so every later sample through the same physical functions is counted
/// under the instruction addresses of the FIRST such sample; the inline chain resolved from
/// those addresses is therefore decided by whichever sample came first in the process: named
/// that way, five runs of one binary on `formats/postcard+bytes` give
/// `IndexSetVisitor::visit_seq` a self share of 0.0, 3.9, 3.8, 0.0 and 0.0%. The physical
/// function is the same for every sample of a key, so it is attributed exactly.
pub fn fold_report(report: &pprof::Report, root: &str) -> Folded {
    fold_report_with_sources(report, root).0
}

/// [`fold_report`], and where each frame's function is: the source file of its physical
/// function (the last symbol's file: the innermost symbols' files are those of code inlined
/// into it) and the library its address lies in.
pub(crate) fn fold_report_with_sources(report: &pprof::Report, root: &str) -> (Folded, Sources) {
    let mut folded = Folded::default();
    let mut sources = Sources::default();
    for (frames, &count) in &report.data {
        // pprof keeps frames leaf first, and the symbols of one frame innermost first: the
        // last symbol is the physical function.
        let mut names: Vec<String> = Vec::with_capacity(frames.frames.len());
        for symbol in frames.frames.iter().rev().filter_map(|s| s.last()) {
            let name = symbol.name();
            let file = symbol.filename.as_ref().map(|f| f.to_string_lossy());
            let library = symbol.addr.and_then(library_of);
            sources.note(&name, file.as_deref(), library.as_deref());
            names.push(name);
        }
        folded.add(root, &names, count.max(0) as u64);
    }
    (folded, sources)
}

/// A function's name as pprof names it, and its source file.
#[cfg(not(feature = "fp-unwind"))]
pub(crate) type NameAndFile = (String, Option<String>);

/// The physical function at `ip` as pprof names it, and its source file: `ip` is a return
/// address (looked up one byte early, at the call), or with `exact` the instruction itself.
#[cfg(not(feature = "fp-unwind"))]
pub(crate) fn physical_function(ip: usize, exact: bool) -> Option<NameAndFile> {
    let mut last = None;
    // backtrace-rs steps back one byte before the lookup: one byte on lands on `ip` itself.
    let at = if exact { ip.wrapping_add(1) } else { ip };
    backtrace::resolve(at as *mut std::ffi::c_void, |s| {
        let symbol = pprof::Symbol {
            name: s.name().map(|n| n.as_bytes().to_vec()),
            addr: None,
            lineno: None,
            filename: s.filename().map(std::path::Path::to_path_buf),
        };
        let file = symbol
            .filename
            .as_ref()
            .map(|f| f.to_string_lossy().into_owned());
        last = Some((symbol.name(), file));
    });
    last
}

/// [`fold_report_with_sources`] from the sampler's own table, each frame resolved here: the
/// DWARF build's correction of pprof-rs's naming of the interrupted frame.
///
/// backtrace-rs looks every address up one byte early, which is right for a return address (it
/// names the call, not the instruction after it) and wrong for the interrupted instruction,
/// the leaf of a sample: a sample taken on a function's first instruction is named after the
/// function laid out before it. pprof-rs resolves that way, and with its table keyed by
/// function (see [`fold_report`]) a key whose first sample was such an entry sample gives the
/// wrong name to every later sample of the key: against `perf record` on the same child
/// (scripts/perf-crosscheck.py), pprof-rs's naming gives `formats/rmp-serde`'s `any_num` 8.3%
/// where perf gives 23.1%, with most of perf's `any_num` samples on its first two bytes. So
/// the leaf (the frame after pprof's signal handler and the signal trampoline, as pprof-rs
/// skips them) is looked up at its exact address, and every other frame one byte early, as a
/// return address.
#[cfg(not(feature = "fp-unwind"))]
pub(crate) fn fold_unresolved(report: &pprof::UnresolvedReport, root: &str) -> (Folded, Sources) {
    let mut folded = Folded::default();
    let mut sources = Sources::default();
    // Names per (address, exact) pair: many keys share frames.
    let mut cache: std::collections::HashMap<(usize, bool), Option<NameAndFile>> =
        std::collections::HashMap::new();
    let mut resolve = |frame: &backtrace::Frame, exact: bool| {
        cache
            .entry((frame.ip() as usize, exact))
            .or_insert_with(|| physical_function(frame.ip() as usize, exact))
            .clone()
    };
    for (frames, &count) in &report.data {
        let all: &[backtrace::Frame] = &frames.frames;
        // pprof-rs drops its signal handler's frame and the one after it (the trampoline); the
        // frame after those is the interrupted one.
        let handler = all.iter().position(|f| {
            resolve(f, false).is_some_and(|(n, _)| {
                matches!(n.as_str(), "perf_signal_handler" | "_perf_signal_handler")
            })
        });
        let (start, leaf) = match handler {
            Some(h) => (h + 2, h + 2),
            None => (0, 0),
        };
        let mut names: Vec<String> = Vec::with_capacity(all.len());
        for (i, frame) in all.iter().enumerate().skip(start).rev() {
            let Some((name, file)) = resolve(frame, i == leaf) else {
                continue;
            };
            let library = library_of(frame.ip());
            sources.note(&name, file.as_deref(), library.as_deref());
            names.push(name);
        }
        folded.add(root, &names, count.max(0) as u64);
    }
    (folded, sources)
}

/// The shared object an address lies in (`dladdr`), for frames of code that is not Rust.
pub(crate) fn library_of(addr: *mut std::ffi::c_void) -> Option<String> {
    // SAFETY: dladdr only reads the loader's tables; `info` is ours, and its `dli_fname`
    // points into the loader's memory, valid while the object stays loaded (it is copied).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(addr as *const libc::c_void, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        Some(
            std::ffi::CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// The timer that drives pprof-rs's sampler: a POSIX timer on `CLOCK_MONOTONIC` that sends
/// `SIGPROF` (the signal pprof-rs's handler takes) to the measuring thread alone
/// (`SIGEV_THREAD_ID`), switched off and on between batches without losing its phase: disarming
/// keeps the time left to the next expiry, and arming resumes from it, so the sampled batches
/// together see the requested rate as one continuous stretch would.
///
/// pprof-rs's own timer (`setitimer(ITIMER_PROF)`, process CPU time) is switched off for the
/// whole recording: CPU-time timers are checked at kernel ticks, which cap their rate at the
/// tick's (250 Hz here, and a sampled batch loses about a tick at each edge), while this timer
/// is a high-resolution one and keeps the requested rate. Its clock is wall time, but the
/// thread it samples runs alone on its pinned CPU and is busy for the whole batch; a thread
/// kept off its CPU gets one signal when it runs again, not one per period missed (the expiries
/// in between are counted as the timer's overrun), so the samples follow the thread's CPU
/// time. The recording still counts samples per CPU-second (the effective rate).
pub(super) struct ProfilingTimer {
    id: libc::timer_t,
    interval: libc::timespec,
    /// Time left to the next expiry when it was last disarmed.
    left: libc::timespec,
}

/// A `timespec` of zero.
const ZERO: libc::timespec = libc::timespec {
    tv_sec: 0,
    tv_nsec: 0,
};

impl ProfilingTimer {
    /// A disarmed timer at `hz` for the calling thread.
    fn new(hz: u32) -> Result<ProfilingTimer> {
        let nsec = 1_000_000_000 / i64::from(hz.max(1));
        let interval = libc::timespec {
            tv_sec: (nsec / 1_000_000_000) as libc::time_t,
            tv_nsec: (nsec % 1_000_000_000) as _,
        };
        // SAFETY: an all-zero sigevent is valid; the fields set below are the ones
        // SIGEV_THREAD_ID reads.
        let mut event: libc::sigevent = unsafe { std::mem::zeroed() };
        event.sigev_notify = libc::SIGEV_THREAD_ID;
        event.sigev_signo = libc::SIGPROF;
        // SAFETY: gettid has no preconditions.
        event.sigev_notify_thread_id = unsafe { libc::gettid() };
        let mut id: libc::timer_t = std::ptr::null_mut();
        // SAFETY: timer_create reads `event` and writes `id`, both ours.
        if unsafe { libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut id) } != 0 {
            return Err(std::io::Error::last_os_error())
                .context("cannot create the sampling timer (timer_create)");
        }
        Ok(ProfilingTimer {
            id,
            interval,
            left: interval,
        })
    }

    fn set(&self, value: libc::itimerspec) -> libc::itimerspec {
        let mut old = libc::itimerspec {
            it_interval: ZERO,
            it_value: ZERO,
        };
        // SAFETY: `id` is a live timer of this process; the structs are ours.
        unsafe { libc::timer_settime(self.id, 0, &value, &mut old) };
        old
    }

    pub(super) fn arm(&mut self) {
        let left = if self.left.tv_sec == 0 && self.left.tv_nsec == 0 {
            self.interval
        } else {
            self.left
        };
        self.set(libc::itimerspec {
            it_interval: self.interval,
            it_value: left,
        });
    }

    pub(super) fn disarm(&mut self) {
        let old = self.set(libc::itimerspec {
            it_interval: ZERO,
            it_value: ZERO,
        });
        self.left = old.it_value;
    }
}

impl Drop for ProfilingTimer {
    fn drop(&mut self) {
        // SAFETY: `id` is a live timer of this process, deleted once.
        unsafe { libc::timer_delete(self.id) };
    }
}

/// Switches pprof-rs's own `ITIMER_PROF` off (see [`ProfilingTimer`]).
fn disarm_process_timer() {
    let zero = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    let value = libc::itimerval {
        it_interval: zero,
        it_value: zero,
    };
    // SAFETY: setitimer reads a struct we own; the old value is not asked for.
    unsafe { libc::setitimer(libc::ITIMER_PROF, &value, std::ptr::null_mut()) };
}

/// Duration of one CPU-recording batch after the overhead pairs, in milliseconds: short enough
/// that the recording stops close to its sample target (the target is checked between
/// batches), long enough that arming and reading clocks are a negligible part of it.
pub(crate) const CPU_BATCH_MS: u64 = 50;

/// Longest batch of an overhead pair, in milliseconds (both batches of a pair have the same
/// size, so the pair's ratio compares like with like).
pub(crate) const PAIR_BATCH_MAX_MS: f64 = 50.0;

/// Shortest batch of an overhead pair, in milliseconds: tens of samples at the default rate,
/// and about one of the machine's speed levels (they flip every few tens of ms).
pub(crate) const PAIR_BATCH_MIN_MS: f64 = 20.0;

/// The length of each batch of an overhead pair: the sampled halves of `pairs` pairs together
/// last as long as the sample target takes at `hz` (so the unsampled halves, time that yields
/// no sample, cost no more than the sampling itself), within [`PAIR_BATCH_MIN_MS`] and
/// [`PAIR_BATCH_MAX_MS`].
pub(crate) fn pair_batch_ms(target: u64, hz: u32, pairs: usize) -> f64 {
    let sampled_ms = target as f64 * 1000.0 / f64::from(hz.max(1));
    (sampled_ms / pairs.max(1) as f64).clamp(PAIR_BATCH_MIN_MS, PAIR_BATCH_MAX_MS)
}

/// Samples `w` as `settings` say; `root` names the configuration (the flame graph's root frame).
///
/// The recording starts with up to `settings.overhead_pairs` pairs of sampled and unsampled
/// batches of [`pair_batch_ms`] each (fewer once the overhead's interval is settled: `Batches::pairing`;
/// S U, U S, S U, ...: the order flips every pair, so drift and "second in line" effects
/// cancel), disarming the sampler's timer for the unsampled ones, then samples every
/// batch until the target. Each pair gives one ratio sampled/unsampled of
/// thread CPU time per operation, and the profiler's overhead is the median of those ratios
/// with its order-statistics interval: the same process, the same minutes, no drift between
/// two phases.
pub(crate) fn record(
    w: &mut dyn Workload,
    settings: &Settings,
    root: &str,
) -> Result<CpuRecording> {
    let (ops, took) = warm_up(w, Duration::from_millis(settings.warmup_ms.min(300)))?;
    let plan = Plan::new(settings, took.as_nanos() as f64 / ops as f64);
    let (guard, mut timer) = start_sampler(plan.hz)?;
    let batches = sample_batches(w, &plan, &guard, &mut timer)?;
    let cpu_seconds = batches.sampled_ns / 1e9;
    let (folded, sources, started) = fold_samples(guard, root)?;
    let (folded, own) = without_the_recorders_own(folded, w.loop_function());
    if folded.total() == 0 && own > 0 {
        return Err(anyhow!(
            "the sampler's {own} samples all passed outside the measured loop `{}`: no \
             frame of this binary has its name (a build can merge functions of the same code \
             under one name)",
            w.loop_function()
        ));
    }
    if own > 0 {
        tracing::debug!(
            own,
            "samples of the recorder itself, outside the measured loop, left out"
        );
    }
    let samples = folded.total();
    let effective_hz = if cpu_seconds > 0.0 {
        samples as f64 / cpu_seconds
    } else {
        0.0
    };
    let pprof = cpu_pprof(
        &folded,
        &sources,
        pprof_timing(effective_hz, plan.hz, started, cpu_seconds),
    );
    Ok(CpuRecording {
        folded,
        sources,
        pprof,
        samples,
        requested_hz: f64::from(plan.hz),
        effective_hz,
        cpu_seconds,
        median_ns_per_op: median(&batches.sampled),
        median_ns_unsampled: median(&batches.unsampled),
        overhead: RatioStats::of_pairs(&batches.pairs),
    })
}

/// What a CPU recording runs: its batch size, its overhead pairs, its rate, its sample target
/// and its wall-time cap.
struct Plan {
    /// Operations per batch.
    per_batch: u64,
    /// Operations per batch of an overhead pair.
    pair_batch: u64,
    overhead_pairs: usize,
    /// The sampling rate asked for.
    hz: u32,
    /// Samples to collect.
    target: u64,
    /// Wall time after which the recording ends whatever it has.
    cap: Duration,
    /// The warm-up's time per operation.
    ns_per_op: f64,
}

impl Plan {
    /// The plan `settings` ask for, batches sized from the warm-up's time per operation.
    fn new(settings: &Settings, ns_per_op: f64) -> Plan {
        let hz = settings.frequency_hz.max(1);
        let target = settings.cpu_samples.max(1);
        let pair_ms = pair_batch_ms(target, hz, settings.overhead_pairs);
        Plan {
            per_batch: ops_per_batch(ns_per_op, Duration::from_millis(CPU_BATCH_MS)),
            pair_batch: ops_per_batch(ns_per_op, Duration::from_secs_f64(pair_ms / 1000.0)),
            overhead_pairs: settings.overhead_pairs,
            hz,
            target,
            ns_per_op,
            cap: Duration::from_secs(settings.cpu_time_cap_s.max(1)),
        }
    }
}

impl Plan {
    /// Operations of a batch of `seconds` of CPU time, at least [`MIN_BATCH_MS`].
    fn ops_for(&self, seconds: f64) -> u64 {
        let seconds = seconds.max(MIN_BATCH_MS / 1000.0);
        ops_per_batch(self.ns_per_op, Duration::from_secs_f64(seconds))
    }
}

/// Shortest batch the recording runs, in milliseconds.
const MIN_BATCH_MS: f64 = 5.0;

/// Starts pprof-rs's sampler (its signal handler) and drives it with a [`ProfilingTimer`] at
/// `hz`, disarmed, a whole interval to its first expiry; pprof-rs's own timer is switched off.
pub(super) fn start_sampler(hz: u32) -> Result<(pprof::ProfilerGuard<'static>, ProfilingTimer)> {
    let _start = tracing::info_span!("sampler_start").entered();
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(hz as i32)
        .blocklist(BLOCKLIST)
        .build()
        .context("cannot start the pprof sampler")?;
    disarm_process_timer();
    let timer = ProfilingTimer::new(hz)?;
    Ok((guard, timer))
}

/// The figures of a recording's batches: thread CPU ns per operation of each sampled and each
/// unsampled batch, the overhead pairs' ratios sampled/unsampled, and the sampled batches'
/// CPU ns in total.
#[derive(Default)]
struct Batches {
    sampled: Vec<f64>,
    unsampled: Vec<f64>,
    pairs: Vec<f64>,
    sampled_ns: f64,
    /// Operations of the next sampled batch after the pairs, when fewer than a whole batch
    /// should reach the target.
    next_batch: Option<u64>,
}

impl Batches {
    /// Runs the next round of batches: while pairs are still owed, one sampled and one
    /// unsampled batch (sampled first in even pairs) and the pair's ratio; after them, one
    /// sampled batch. The timer is armed for exactly the sampled batches.
    #[inline]
    fn round(
        &mut self,
        w: &mut dyn Workload,
        plan: &Plan,
        timer: &mut ProfilingTimer,
    ) -> Result<()> {
        // The first `overhead_pairs` pairs alternate sampled and unsampled batches; after them
        // every batch is sampled, until the target.
        let pairing = self.pairing(plan);
        let per_batch = match pairing {
            true => plan.pair_batch,
            false => self.next_batch.unwrap_or(plan.per_batch),
        };
        let sampled_first = self.pairs.len().is_multiple_of(2) || !pairing;
        let mut pair = [0.0; 2];
        let order: &[bool] = if !pairing {
            &[true]
        } else if sampled_first {
            &[true, false]
        } else {
            &[false, true]
        };
        for &on in order {
            if on {
                timer.arm();
            }
            let batch = timed_batch(w, per_batch);
            if on {
                timer.disarm();
            }
            let (cpu, _) = batch?;
            if on {
                self.sampled.push(cpu);
                self.sampled_ns += cpu * per_batch as f64;
                pair[0] = cpu;
            } else {
                self.unsampled.push(cpu);
                pair[1] = cpu;
            }
        }
        if pairing {
            self.pairs.push(pair[0] / pair[1]);
        }
        Ok(())
    }
}

/// Overhead pairs made before the overhead's interval may end the pairing.
pub(crate) const MIN_OVERHEAD_PAIRS: usize = 6;

/// The pairing ends early once the overhead's interval is at most this wide (its high end over
/// its low end): the sampler's cost is then known to within about ±2%.
pub(crate) const OVERHEAD_SETTLED: f64 = 1.04;

impl Batches {
    /// Whether the next round makes an overhead pair: until `plan.overhead_pairs` are made, or,
    /// from [`MIN_OVERHEAD_PAIRS`] on (96.9% coverage for the range of six), until their median's
    /// order-statistics interval is settled ([`OVERHEAD_SETTLED`]). The interval is looked at
    /// after every pair, so its coverage is a little below the one stated for its count.
    fn pairing(&self, plan: &Plan) -> bool {
        let n = self.pairs.len();
        if n >= plan.overhead_pairs {
            return false;
        }
        if n < MIN_OVERHEAD_PAIRS {
            return true; // below the cap (checked above)
        }
        !RatioStats::of_pairs(&self.pairs)
            .is_some_and(|o| o.ci95[1] <= OVERHEAD_SETTLED * o.ci95[0])
    }
}

/// Runs rounds of batches until the wall-time cap, or until every overhead pair is made and the
/// sampler holds the target number of samples.
fn sample_batches(
    w: &mut dyn Workload,
    plan: &Plan,
    guard: &pprof::ProfilerGuard<'_>,
    timer: &mut ProfilingTimer,
) -> Result<Batches> {
    let _batches = tracing::info_span!("batches").entered();
    let wall = Instant::now();
    let mut batches = Batches::default();
    let mut next_check = plan.target as f64 / f64::from(plan.hz);
    loop {
        batches.round(w, plan, timer)?;
        if wall.elapsed() >= plan.cap {
            break;
        }
        // The overhead pairs are all made before the sample target can end the recording, so
        // the overhead interval has the coverage its pair count promises.
        let cpu = batches.sampled_ns / 1e9;
        if !batches.pairing(plan) && cpu >= next_check {
            match next_sample_check(guard, plan.target, cpu)? {
                Some(at) => {
                    next_check = at;
                    // Only as long as the missing samples should take, so the recording
                    // stops close to its target.
                    batches.next_batch = Some(plan.ops_for(at - cpu).min(plan.per_batch));
                }
                None => break,
            }
        }
    }
    Ok(batches)
}

/// Counts the sampler's samples after `cpu` seconds of sampled batches: `None` when they reach
/// `target`, else the sampled CPU seconds at which to count again.
#[inline]
fn next_sample_check(
    guard: &pprof::ProfilerGuard<'_>,
    target: u64,
    cpu: f64,
) -> Result<Option<f64>> {
    let count: isize = guard
        .report()
        .build_unresolved()
        .context("cannot read the sampler's counts")?
        .data
        .values()
        .sum();
    if count as u64 >= target {
        return Ok(None);
    }
    // Not there yet (the effective rate is below the requested one): check again once the
    // missing samples should have arrived at the rate seen so far.
    let rate = (count.max(1) as f64 / cpu).max(1.0);
    Ok(Some(cpu + (target as f64 - count as f64) / rate))
}

/// Stops the sampler and folds its samples under `root`: the folded stacks, their sources, and
/// when sampling started.
///
/// Building the report takes the profiler's lock; samples that land meanwhile are dropped by
/// pprof's signal handler, so symbolisation does not appear in the profile.
#[cfg(not(feature = "fp-unwind"))]
pub(super) fn fold_samples(
    guard: pprof::ProfilerGuard<'_>,
    root: &str,
) -> Result<(Folded, Sources, std::time::SystemTime)> {
    let report = tracing::info_span!("report").entered();
    let unresolved = guard
        .report()
        .build_unresolved()
        .context("cannot build the pprof report")?;
    drop(guard);
    drop(report);
    let start = unresolved.timing.start_time;
    let _symbolise = tracing::info_span!("symbolise").entered();
    let (folded, sources) = fold_unresolved(&unresolved, root);
    Ok((folded, sources, start))
}

/// See the default build's documentation.
#[cfg(feature = "fp-unwind")]
pub(super) fn fold_samples(
    guard: pprof::ProfilerGuard<'_>,
    root: &str,
) -> Result<(Folded, Sources, std::time::SystemTime)> {
    let report = guard
        .report()
        .build()
        .context("cannot build the pprof report")?;
    drop(guard);
    let (folded, sources) = fold_report_with_sources(&report, root);
    Ok((folded, sources, report.timing.start_time))
}

/// `folded` without the samples the recorder took of itself, and how many they were: stacks
/// through the harness's measuring code (`serprof::measure::`) that do not pass through the
/// measured loop (`loop_function`, as the workload names it). The sampling timer's signal can arrive as the call that arms or disarms it
/// returns (the stack then ends in `timer_settime`), about once in a few hundred samples; such
/// a sample is the recorder's, not the engine's. A stack without harness frames at all (an
/// unwind cut short) is kept: nothing says whose it is.
pub(super) fn without_the_recorders_own(folded: Folded, loop_function: &str) -> (Folded, u64) {
    let mut own = 0;
    let mut kept = Folded::default();
    for (stack, count) in folded.stacks {
        let mut frames = stack.split(';');
        let in_harness = frames.clone().any(|f| f.starts_with("serprof::measure::"));
        if in_harness && !frames.any(|f| f.starts_with(loop_function)) {
            own += count;
        } else {
            kept.stacks.insert(stack, count);
        }
    }
    (kept, own)
}

/// The pprof profile's timing: the period one sample stands for from the effective rate (from
/// the requested `hz` when no rate was seen), the start, and the sampled CPU time.
fn pprof_timing(
    effective_hz: f64,
    hz: u32,
    started: std::time::SystemTime,
    cpu_seconds: f64,
) -> Timing {
    // Written from the folded stacks, not by pprof-rs (whose export names frames by the
    // inline chain of each key's first sample): `go tool pprof` sees cpu.folded's frames.
    let period_ns = if effective_hz > 0.0 {
        (1e9 / effective_hz).round() as i64
    } else {
        1_000_000_000 / i64::from(hz)
    };
    let time_nanos = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64);
    Timing {
        period_ns,
        time_nanos,
        duration_nanos: (cpu_seconds * 1e9) as i64,
    }
}

#[cfg(test)]
mod own_sample_tests {
    use super::without_the_recorders_own;
    use crate::profile::folded::Folded;

    #[test]
    fn the_recorders_own_samples_are_left_out_and_counted() {
        let text = "c;main;serprof::measure::cpu::record;serprof_api::workload::values::deserialize_loop;serde_json::from_slice 7\n\
                    c;main;serprof::measure::cpu::record;___timer_settime_new 1\n\
                    c;serde_json::from_slice 2\n";
        let (kept, own) = without_the_recorders_own(
            Folded::parse(text).unwrap(),
            "serprof_api::workload::values::deserialize_loop",
        );
        assert_eq!(own, 1);
        assert_eq!(kept.total(), 9);
        assert!(kept.stacks.keys().all(|s| !s.contains("timer_settime")));
    }
}

#[cfg(test)]
mod plan_tests {
    use super::{pair_batch_ms, PAIR_BATCH_MAX_MS, PAIR_BATCH_MIN_MS};

    #[test]
    fn overhead_pairs_last_as_long_as_the_sampling_within_bounds() {
        // 110 samples at 997 Hz over 4 pairs: 27.6 ms a batch.
        let ms = pair_batch_ms(110, 997, 4);
        assert!((ms - 110_000.0 / 997.0 / 4.0).abs() < 1e-9, "{ms}");
        // 1,000 samples at 199 Hz over 24 pairs would be 209 ms: capped.
        assert_eq!(pair_batch_ms(1000, 199, 24), PAIR_BATCH_MAX_MS);
        // 10 samples over 8 pairs would be 1.3 ms: the floor.
        assert_eq!(pair_batch_ms(10, 997, 8), PAIR_BATCH_MIN_MS);
        // No pairs and no rate do not divide by zero.
        assert!(pair_batch_ms(300, 0, 0).is_finite());
    }
}

#[cfg(all(test, not(feature = "fp-unwind")))]
mod tests {
    use super::physical_function;

    #[inline(never)]
    fn first_of_two(x: u64) -> u64 {
        std::hint::black_box(x.wrapping_mul(3))
    }

    #[inline(never)]
    fn second_of_two(x: u64) -> u64 {
        std::hint::black_box(x.wrapping_add(7))
    }

    #[test]
    fn an_interrupted_instruction_is_named_by_its_own_function() {
        assert_eq!(first_of_two(1) + second_of_two(1), 11);
        // A sample on a function's very first instruction: the exact lookup names it, whatever
        // is laid out before it.
        for (f, name) in [
            (first_of_two as fn(u64) -> u64, "first_of_two"),
            (second_of_two as fn(u64) -> u64, "second_of_two"),
        ] {
            let entry = f as usize;
            let (found, _) = physical_function(entry, true).expect("symbolised");
            assert!(found.ends_with(name), "{found} at the entry of {name}");
            // One byte in, as a return address would be looked up, it is the function too.
            let (inside, _) = physical_function(entry + 1, false).expect("symbolised");
            assert!(inside.ends_with(name), "{inside}");
            // The return-address lookup of the entry itself steps back out of the function.
            let before = physical_function(entry, false).map(|(n, _)| n);
            assert!(
                before.as_deref().is_none_or(|n| !n.ends_with(name)),
                "{before:?}"
            );
        }
    }
}
