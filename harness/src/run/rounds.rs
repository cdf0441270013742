//! The timing phase of a run: each configuration verified once in a child of its own, then
//! rounds of timing processes, one per configuration and round, in a shuffled order per round.

use std::path::{Path, PathBuf};

use serprof_engines::studies::Config;

use super::executor::{Executor, Outcome};
use super::plan::{budgeted, config_id};
use super::progress;
use crate::layout::config_dir;
use crate::model::stats::{ProcessTiming, SplitMix64};
use crate::model::{ConfigResult, Failure, Recording, Settings, TimeStats};
use crate::process::interrupt;
use crate::protocol::WorkerReport;

/// The timing phase: `settings.processes` rounds; round r runs the r-th timing process of every
/// configuration still standing, in the order [`schedule`] gives (shuffled per round from
/// `settings.seed`), so that drift of the machine over minutes hits every configuration alike
/// and each round's processes make pairs for ratios. A configuration whose process fails
/// (verification, a crash, a hang) is not timed again; its result carries the reason.
/// Returns one result per configuration, with `time_ns` across its processes.
pub fn time_in_rounds(
    exec: &dyn Executor,
    configs: &[&Config],
    run_dir: &Path,
    settings: &Settings,
    progress: &progress::Progress,
) -> Vec<ConfigResult> {
    let units: Vec<Unit> = configs
        .iter()
        .map(|&config| Unit {
            exec,
            config,
            dir: config_dir(run_dir, &config.info.study, &config.info.config),
            label: config.info.name(),
        })
        .collect();
    let rounds = schedule(configs.len(), settings.processes.max(1), settings.seed);
    time_units(&units, &rounds, settings, progress)
}

/// One thing to time: a configuration as one executor's children run it, into one folder.
pub struct Unit<'a> {
    pub exec: &'a dyn Executor,
    pub config: &'a Config,
    pub dir: PathBuf,
    /// How progress names it.
    pub label: String,
}

/// Times `units` in the given rounds: `rounds[r]` is the order of round r (indexes into
/// `units`), and every process it runs is recorded with round r, which is what pairs processes
/// for ratios. A unit whose process fails is not timed again.
pub fn time_units(
    units: &[Unit],
    rounds: &[Vec<usize>],
    settings: &Settings,
    progress: &progress::Progress,
) -> Vec<ConfigResult> {
    let mut results: Vec<ConfigResult> = units
        .iter()
        .map(|u| ConfigResult::new(&u.config.info))
        .collect();
    let mut processes: Vec<Vec<ProcessTiming>> = vec![Vec::new(); units.len()];
    // A study's budget may give its configurations fewer rounds.
    let own_rounds: Vec<usize> = units
        .iter()
        .map(|u| {
            budgeted(settings, u.config)
                .processes
                .max(1)
                .min(rounds.len())
        })
        .collect();
    // Each configuration is verified once, in a child of its own, before any of its timing
    // processes: one that fails verification is not timed.
    for (unit, result) in units.iter().zip(results.iter_mut()) {
        if interrupt::interrupted() {
            return results;
        }
        verify_unit(unit, settings, progress, result);
    }
    for (round, order) in rounds.iter().enumerate() {
        for &i in order {
            if interrupt::interrupted() {
                return results;
            }
            let result = &mut results[i];
            if result.error.is_some() || round >= own_rounds[i] {
                continue;
            }
            let unit = &units[i];
            progress.recording(
                &unit.label,
                &format!("timing process {}/{}", round + 1, own_rounds[i]),
            );
            match record_unit(unit, Recording::Timing, settings) {
                Ok(r) => {
                    result.error = r.error;
                    match r.timing {
                        Some(mut p) => {
                            p.round = round;
                            processes[i].push(p);
                        }
                        None if result.error.is_none() => {
                            result.error = Some(Failure::Silent {
                                recording: Recording::Timing,
                            })
                        }
                        None => {}
                    }
                }
                Err(why) => result.error = Some(why),
            }
        }
    }
    for (result, p) in results.iter_mut().zip(processes) {
        if result.error.is_none() {
            result.time_ns = TimeStats::from_processes(p);
        }
    }
    results
}

/// The verification child of `unit`: its verdict, payload size and findings go into `result`.
fn verify_unit(
    unit: &Unit,
    settings: &Settings,
    progress: &progress::Progress,
    result: &mut ConfigResult,
) {
    progress.recording(&unit.label, "verify");
    match record_unit(unit, Recording::Verify, settings) {
        Ok(r) => {
            result.verified = r.verified;
            result.payload_bytes = r.payload_bytes;
            result.shares_references = r.shares_references;
            result.findings = r.findings;
            result.error = r.error;
            if result.error.is_none() && !result.verified {
                result.error = Some(Failure::Silent {
                    recording: Recording::Verify,
                });
            }
        }
        Err(why) => result.error = Some(why),
    }
}

/// One recording of `unit` in its folder: the worker's report, or why there is none (the
/// folder cannot be made, the child crashed, it could not be started).
fn record_unit(
    unit: &Unit,
    recording: Recording,
    settings: &Settings,
) -> std::result::Result<WorkerReport, Failure> {
    std::fs::create_dir_all(&unit.dir)
        .map_err(|e| Failure::harness(format_args!("cannot create {}: {e}", unit.dir.display())))?;
    match unit
        .exec
        .record(&config_id(unit.config), recording, &unit.dir, settings)
    {
        Ok(Outcome::Reported(report)) => Ok(*report),
        Ok(Outcome::Crashed(why)) => Err(why),
        Err(e) => Err(Failure::of(e)),
    }
}

/// The order of each round: round r is a permutation of `0..n`, shuffled (Fisher-Yates) by a
/// generator seeded from `seed` and r, so a run's schedule is reproducible from its manifest.
pub fn schedule(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    (0..rounds)
        .map(|r| {
            let mut rng = SplitMix64(seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i + 1));
            }
            order
        })
        .collect()
}

/// The rounds of a before/after comparison of `n` configurations: units `2i` (before) and
/// `2i + 1` (after) are configuration i's two sides. Each round visits the configurations in
/// [`schedule`]'s shuffled order, and runs a configuration's two sides back to back, before
/// first in even rounds and after first in odd ones (A B, B A, A B, ...), so that neither side
/// always runs second (warmer caches, a drift of the clock within the round).
pub fn alternating_pairs(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    schedule(n, rounds, seed)
        .into_iter()
        .enumerate()
        .map(|(r, order)| {
            order
                .into_iter()
                .flat_map(|i| {
                    if r % 2 == 0 {
                        [2 * i, 2 * i + 1]
                    } else {
                        [2 * i + 1, 2 * i]
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use serprof_engines::studies;

    use super::*;
    use crate::model::ConfigId;
    use anyhow::Result;

    #[test]
    fn every_round_runs_each_configuration_once_in_a_seeded_order() {
        let plan = schedule(7, 6, 42);
        assert_eq!(plan.len(), 6);
        for order in &plan {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(
                sorted,
                (0..7).collect::<Vec<_>>(),
                "a permutation: {order:?}"
            );
        }
        assert_eq!(plan, schedule(7, 6, 42), "the seed decides the order");
        assert_ne!(plan, schedule(7, 6, 43));
        assert!(
            plan.windows(2).any(|w| w[0] != w[1]),
            "rounds differ: {plan:?}"
        );
        assert!(schedule(0, 3, 1).iter().all(Vec::is_empty));
    }

    #[test]
    fn ratios_pair_processes_of_the_same_round() {
        // Three configurations timed in rounds by a stand-in whose speed drifts per call: the
        // pairs of one round see the same drift, so the ratio of identical engines is 1.
        struct Drifting(RefCell<u32>);
        impl Executor for Drifting {
            fn record(
                &self,
                _: &ConfigId,
                recording: Recording,
                _: &Path,
                _: &Settings,
            ) -> Result<Outcome> {
                if recording == Recording::Verify {
                    return Ok(Outcome::Reported(Box::new(WorkerReport {
                        verified: true,
                        ..WorkerReport::default()
                    })));
                }
                *self.0.borrow_mut() += 1;
                let round = (*self.0.borrow() - 1) / 3;
                let ns = 100.0 * (1.0 + round as f64);
                Ok(Outcome::Reported(Box::new(WorkerReport {
                    verified: true,
                    timing: ProcessTiming::from_batches(vec![ns], &[ns], 1),
                    ..WorkerReport::default()
                })))
            }
            fn exe(&self) -> Result<PathBuf> {
                anyhow::bail!("no processes")
            }
        }
        let names = ["formats/postcard", "formats/bincode", "formats/bitcode"];
        let configs: Vec<Config> = names.iter().map(|n| studies::find(n).unwrap()).collect();
        let refs: Vec<&Config> = configs.iter().collect();
        let mut settings = Settings::quick();
        settings.processes = 4;
        let dir = tempfile::tempdir().unwrap();
        let progress = progress::Progress::new(3, false, true);
        let results = time_in_rounds(
            &Drifting(RefCell::new(0)),
            &refs,
            dir.path(),
            &settings,
            &progress,
        );
        let (a, b) = (
            results[0].time_ns.as_ref().unwrap(),
            results[1].time_ns.as_ref().unwrap(),
        );
        // Across processes the drift is 4x wide; paired by round it vanishes.
        assert_eq!(a.ci95, [100.0, 400.0]);
        let r = crate::model::stats::RatioStats::by_round(a, b).unwrap();
        assert_eq!((r.ratio, r.ci95, r.pairs), (1.0, [1.0, 1.0], 4));
    }
}
