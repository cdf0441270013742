//! The lock-step timing child: it builds the workloads of every configuration it was given,
//! warms each up, and then runs one timed sample of whichever configuration the parent names,
//! command by command ([`crate::protocol::TimingCommand`] lines on one inherited pipe,
//! [`crate::protocol::TimingReply`] lines on another). The
//! parent decides the order, so configurations of one child, and the two builds of a
//! before-after, are measured moments apart (see [`crate::run::lockstep`]).
//!
//! A sample is `ops` operations, sized so that it lasts about `settings.sample_ms` (at least
//! one operation). When a sample holds several operations, one untimed operation runs first:
//! the first operation after a switch from another configuration finds caches and branch
//! predictors full of that one's state.
//!
//! The clock is the thread's CPU time: on a 2-core machine shared with other work, a sample's
//! wall time mostly varies with how long the thread waited for a core, which has nothing to do
//! with the engine. CPU time still counts cache and frequency effects of sharing the machine;
//! wall time is reported beside it. While the child waits for its next command it is blocked in
//! `read`, so it neither runs nor spends its partner's CPU time.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use anyhow::Result;
use serprof_api::__private::{ops_per_batch, warm_up, Workload};
use serprof_api::CodecError;

use super::clock::timed_batch;
use super::parent::ParentPipes;
use crate::model::{ConfigId, Failure, Program, Recording, Settings};
use crate::protocol::{TimingCommand, TimingReply, TimingRequest};

/// One configuration held by the child.
struct HeldConfig {
    work: Box<dyn Workload>,
    /// `STUDY/CONFIG`: the root frame of its profiles.
    name: String,
    /// Operations per sample.
    ops: u64,
    /// Time per operation while warming up, ns.
    ns_per_op: f64,
}

impl HeldConfig {
    /// Builds `id`'s workload and warms it up for `settings.calibrate_ms`, which sizes the
    /// sample when `ops` is not known yet. A child given `ops` (the other build's in a
    /// before-after) warms up just as long, so that no side starts timing with a process that
    /// has run fewer operations (allocator state, caches, page faults taken).
    fn prepare(
        program: &Program,
        id: &ConfigId,
        ops: Option<u64>,
        settings: &Settings,
    ) -> Result<HeldConfig, Failure> {
        let config = program
            .planned(&settings.studies, id, crate::measure::chosen::chosen())
            .map_err(Failure::harness)?
            .config;
        guarded(|| {
            let mut work = config.workload().map_err(engine)?;
            let (n, took) = warm_up(work.as_mut(), Duration::from_millis(settings.calibrate_ms))
                .map_err(engine)?;
            let ns_per_op = took.as_nanos() as f64 / n as f64;
            let ops = match ops {
                Some(ops) => ops,
                None => ops_per_batch(ns_per_op, Duration::from_millis(settings.sample_ms)),
            };
            Ok(HeldConfig {
                work,
                name: id.to_string(),
                ops,
                ns_per_op,
            })
        })
    }

    /// One sample: the untimed operation after the switch, then `ops` timed ones.
    fn sample(&mut self) -> Result<(f64, f64), Failure> {
        let (work, ops) = (&mut self.work, self.ops);
        guarded(|| {
            if ops > 1 {
                work.run(1).map_err(engine)?;
            }
            timed_batch(work.as_mut(), ops).map_err(engine)
        })
    }

    /// Its loop for `ms` of CPU time under the sampler at `hz`: the samples, or why there
    /// are none.
    fn profile(&mut self, ms: u64, hz: u32) -> Result<crate::measure::functions::Samples, Failure> {
        let (work, ns_per_op) = (&mut self.work, self.ns_per_op);
        guarded(|| {
            crate::measure::functions::profile(work.as_mut(), ns_per_op, ms, hz)
                .map_err(|e| Failure::harness(format_args!("no profile: {e:#}")))
        })
    }
}

/// Runs `f`, turning a panic into a [`Failure`] too.
fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Failure::Panicked {
            message: crate::process::panic_text(p.as_ref()),
        })
    })
}

/// An engine error while timing.
fn engine(error: CodecError) -> Failure {
    Failure::Engine {
        recording: Recording::Timing,
        error,
    }
}

/// The child's life: prepare every unit, report `Ready`, then serve commands until `Quit` or
/// the end of the command pipe.
pub(crate) fn serve(program: &Program, req: &TimingRequest) -> Result<()> {
    // Panics of an engine become `Failed` replies naming the unit (see `guarded`); the default
    // hook would only print them.
    std::panic::set_hook(Box::new(|_| {}));
    let mut pipes = ParentPipes::open(req.fds)?;
    if let Some(ops) = &req.ops {
        anyhow::ensure!(
            ops.len() == req.configs.len(),
            "{} sample sizes for {} configurations",
            ops.len(),
            req.configs.len()
        );
    }
    let mut units: Vec<Option<HeldConfig>> = Vec::with_capacity(req.configs.len());
    for (i, id) in req.configs.iter().enumerate() {
        pipes.send(&TimingReply::Preparing { unit: i })?;
        let ops = req.ops.as_ref().map(|o| o[i]);
        match HeldConfig::prepare(program, id, ops, &req.settings) {
            Ok(u) => units.push(Some(u)),
            Err(failure) => {
                units.push(None);
                pipes.send(&TimingReply::Failed { unit: i, failure })?;
            }
        }
    }
    pipes.send(&TimingReply::Ready {
        ops: units
            .iter()
            .map(|u| u.as_ref().map_or(0, |u| u.ops))
            .collect(),
        ns_per_op: units
            .iter()
            .map(|u| u.as_ref().map_or(f64::NAN, |u| u.ns_per_op))
            .collect(),
    })?;
    // Profiles kept unresolved until `Fold`: (unit, root name, measured loop, samples).
    let mut profiles = Vec::new();
    while let Some(command) = pipes.next::<TimingCommand>()? {
        let reply = match command {
            TimingCommand::Quit => break,
            TimingCommand::Pin { cpu } => {
                crate::measure::reference::pin_thread(&[cpu]);
                TimingReply::Pinned
            }
            TimingCommand::Profile { unit, ms, hz } => {
                let made = match units.get_mut(unit) {
                    Some(Some(u)) => u.profile(ms, hz).map(|samples| {
                        profiles.push((unit, u.name.clone(), u.work.loop_function(), samples))
                    }),
                    _ => Err(Failure::harness(format_args!(
                        "no unit {unit} in this timing child"
                    ))),
                };
                TimingReply::Profiled {
                    failure: made.err(),
                }
            }
            TimingCommand::Fold => TimingReply::Profiles {
                folded: profiles
                    .drain(..)
                    .map(|(unit, name, loop_function, samples)| {
                        (
                            unit,
                            crate::measure::functions::fold(&samples, &name, loop_function)
                                .to_text(),
                        )
                    })
                    .collect(),
            },
            TimingCommand::Sample { unit } => match units.get_mut(unit) {
                Some(Some(u)) => match u.sample() {
                    Ok((cpu_ns, wall_ns)) => TimingReply::Sample { cpu_ns, wall_ns },
                    Err(failure) => {
                        units[unit] = None;
                        TimingReply::Failed { unit, failure }
                    }
                },
                _ => TimingReply::Failed {
                    unit,
                    failure: Failure::harness(format_args!("no unit {unit} in this timing child")),
                },
            },
        };
        pipes.send(&reply)?;
    }
    Ok(())
}
