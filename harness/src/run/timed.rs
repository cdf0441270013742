//! `run`'s timing: its lanes handed to the session. One lane of this build (its children in
//! each layout's binary when `--layouts` linked some), or under `--allocators` one lane per
//! allocator, each child allocating with its lane's.

use std::path::{Path, PathBuf};

use crate::model::Planned;

use super::executor::{Executor, Outcome, TimingChild};
use super::lane::LaneKind;
use super::session::Session;
use super::timing::{TimedLane, Unit};
use crate::model::allocator::Allocator;
use crate::model::{ConfigId, ConfigResult, Recording, Settings};

/// The timing phase of one build: every configuration verified, then the verified ones timed
/// in one lock-step schedule, set `k` of children in `layouts[k]` when there are layouts.
/// Returns one result per configuration (with `time_ns`, or the reason it has none).
pub(crate) fn time_configs(
    session: &mut Session,
    (exec, layouts): (&dyn Executor, &[&dyn Executor]),
    configs: &[&Planned],
    run_dir: &Path,
) -> Vec<ConfigResult> {
    let lane = TimedLane {
        kind: LaneKind::This,
        layouts: layouts.to_vec(),
        units: configs
            .iter()
            .map(|&config| Unit::in_run(exec, config, run_dir))
            .collect(),
    };
    let mut timings = session.time(&[lane], None);
    timings.take(LaneKind::This)
}

/// The timing phase of a run whose configurations are measured under allocators
/// (`run --allocators`; every name ends in `@ALLOCATOR`): one lane per allocator, so that each
/// configuration's allocators are sampled moments apart by children of the same set, each child
/// allocating with its lane's allocator ([`AllocLane`]). When the configurations do not form
/// that rectangle (a resumed run that finished some of them) or the executor cannot be shared,
/// each allocator's configurations are timed in a schedule of their own instead. Returns one
/// result per configuration, in their order.
pub(crate) fn time_allocators(
    session: &mut Session,
    exec: &dyn Executor,
    configs: &[&Planned],
    run_dir: &Path,
) -> Vec<ConfigResult> {
    let mut lanes: Vec<Option<Allocator>> = Vec::new();
    for c in configs {
        if !lanes.contains(&c.allocator) {
            lanes.push(c.allocator);
        }
    }
    // Each allocator's configurations, in the order given.
    let of_lane = |lane: Option<Allocator>| -> Vec<&Planned> {
        configs
            .iter()
            .copied()
            .filter(|c| c.allocator == lane)
            .collect()
    };
    // Lanes only for two allocators or more, every configuration named after one, each lane
    // holding the same configurations in the same order.
    let first: Vec<&str> = lanes
        .first()
        .map(|&l| {
            of_lane(l)
                .iter()
                .map(|c| c.info().config.as_str())
                .collect()
        })
        .unwrap_or_default();
    let rectangular = lanes.iter().all(|&l| {
        of_lane(l)
            .iter()
            .map(|c| c.info().config.as_str())
            .eq(first.iter().copied())
    });
    let allocators: Option<Vec<Allocator>> = lanes.iter().copied().collect();
    if let (true, Some(shared), Some(allocators)) =
        (rectangular && lanes.len() > 1, exec.shared(), allocators)
    {
        let lane_execs: Vec<AllocLane> = allocators
            .iter()
            .map(|&allocator| AllocLane {
                inner: shared,
                allocator,
            })
            .collect();
        let timed_lanes: Vec<TimedLane> = allocators
            .iter()
            .zip(&lane_execs)
            .map(|(&allocator, exec)| TimedLane {
                kind: LaneKind::Allocator(allocator),
                layouts: Vec::new(),
                units: of_lane(Some(allocator))
                    .into_iter()
                    .map(|config| Unit::in_run(exec, config, run_dir))
                    .collect(),
            })
            .collect();
        let timings = session.time(&timed_lanes, None);
        return in_order(timings.lanes.into_iter().flat_map(|l| l.results), configs);
    }
    let mut timed = Vec::new();
    for lane in lanes {
        timed.extend(time_configs(session, (exec, &[]), &of_lane(lane), run_dir));
    }
    in_order(timed, configs)
}

/// A lane of [`time_allocators`]: its timing children hold the configurations under its own
/// allocator (the names the schedule gives, lane 0's, renamed), so their environment names it.
struct AllocLane<'a> {
    inner: &'a (dyn Executor + Sync),
    allocator: Allocator,
}

impl Executor for AllocLane<'_> {
    fn record(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> anyhow::Result<Outcome> {
        self.inner.record(config, recording, dir, settings)
    }

    fn exe(&self) -> anyhow::Result<PathBuf> {
        self.inner.exe()
    }

    fn timing_child(
        &self,
        configs: &[ConfigId],
        ops: Option<Vec<u64>>,
        settings: &Settings,
        cpu: Option<usize>,
    ) -> anyhow::Result<Box<dyn TimingChild>> {
        let own: Vec<ConfigId> = configs
            .iter()
            .map(|c| c.under(Some(self.allocator)))
            .collect();
        self.inner.timing_child(&own, ops, settings, cpu)
    }

    fn shared(&self) -> Option<&(dyn Executor + Sync)> {
        Some(self)
    }
}

/// `results` as `configs` lists their configurations (by name; one without a result gets an
/// empty one).
fn in_order(
    results: impl IntoIterator<Item = ConfigResult>,
    configs: &[&Planned],
) -> Vec<ConfigResult> {
    let mut all: std::collections::HashMap<ConfigId, ConfigResult> =
        results.into_iter().map(|r| (r.id(), r)).collect();
    configs
        .iter()
        .map(|c| all.remove(&c.id()).unwrap_or_else(|| ConfigResult::of(c)))
        .collect()
}
