//! The arithmetic of lock-step timing: from one child's samples, in the order they ran, each
//! unit's time with the machine's changing state taken out.
//!
//! The machines serprof runs on change speed every few tens of milliseconds, between two levels
//! about 1.6x apart (memory and cache contention from neighbours, not clock frequency: it did
//! not follow a pure ALU loop). A sample lasts a few milliseconds, so neighbouring samples of a
//! child's schedule mostly see the same state, whichever units they belong to. The model is
//! two-way: `log t = level(unit) + state(time) + noise`. Each sample's state is estimated as the
//! median residual `log t - level` of its [`WINDOW`] neighbours on either side (never itself),
//! each unit's level as the median of its samples with their states taken out, and the two are
//! iterated. The constant the two share is set so that the levels agree, over all units, with
//! the plain medians of their samples. Plain medians need no model but are unstable on such a
//! machine: when a unit's samples fall about half in each state, its median jumps between the
//! two levels, and two units' medians jump apart.
//!
//! Two builds run side by side on two CPUs ([`split_levels`]) are paired instead: their samples
//! of a step ran at the same moment, so a pair's ratio holds no state, and the CPUs swap each
//! round, so the geometric mean over both arrangements holds no CPU difference.

use serde::{Deserialize, Serialize};

use super::stats::median;
use super::ConfigId;

/// Where the children of a lock-step schedule ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Placement {
    /// Every child on one CPU (or unpinned), one sample at a time: the children take turns.
    SameCpu { cpu: Option<usize> },
    /// Two builds' children on two CPUs running their samples at the same moment, swapping
    /// CPUs every round.
    Split { cpus: [usize; 2] },
}

impl Placement {
    /// In words, for tables.
    pub fn describe(&self) -> String {
        match self {
            Placement::SameCpu { cpu: Some(c) } => format!("taking turns on CPU {c}"),
            Placement::SameCpu { cpu: None } => "taking turns, not pinned".into(),
            Placement::Split { cpus: [a, b] } => {
                format!("side by side on CPUs {a} and {b}, swapping every round")
            }
        }
    }
}

/// A lock-step schedule as it ran, for `run.json` (and `before-after.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Its id, also in the [`super::TimeStats::schedule`] of every figure it measured.
    pub id: u64,
    /// The seed of the rounds' shuffled orders.
    pub seed: u64,
    /// Children (per build) one after another; each held every configuration.
    pub children: usize,
    /// Rounds per child: one sample of every configuration each.
    pub rounds: usize,
    pub sample_ms: u64,
    /// Neighbours on each side a sample's state is estimated from.
    pub window: usize,
    pub placement: Placement,
    /// The builds taking part (`this` for a run; the sides' labels for a before-after).
    pub builds: Vec<String>,
    /// The configurations, in unit order.
    pub configs: Vec<ConfigId>,
    /// Operations per sample, per build and configuration, of the last child (each set of
    /// children calibrates anew; 0: not timed).
    pub ops: Vec<Vec<u64>>,
    /// Children that were started again, and why.
    pub restarts: Vec<String>,
    /// Samples kept.
    pub samples: usize,
    /// Wall-clock seconds of the schedule.
    pub seconds: f64,
}

/// Neighbours on each side a sample's state is estimated from.
pub(crate) const WINDOW: usize = 2;

/// Iterations of the two estimates.
const ITERATIONS: usize = 6;

/// One sample of a child's schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sample {
    /// Which unit it measured.
    pub unit: usize,
    /// Thread CPU time per operation, ns.
    pub ns: f64,
}

/// The state-adjusted figures of one child.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Levels {
    /// Per unit, its time per operation with the state taken out, ns (NaN without samples).
    pub level: Vec<f64>,
    /// Per sample, the factor by which the state slowed it (NaN for a sample left out).
    pub state: Vec<f64>,
}

impl Levels {
    /// Sample `k`'s time with its state taken out.
    pub(crate) fn adjusted(&self, samples: &[Sample], k: usize) -> f64 {
        samples[k].ns / self.state[k]
    }
}

/// The two-way estimate (see the module doc) of `units` units from `samples` in the order they
/// ran. Samples whose time is not finite and positive are left out.
pub(crate) fn levels(samples: &[Sample], units: usize) -> Levels {
    let kept: Vec<(usize, f64)> = samples
        .iter()
        .enumerate()
        .filter(|(_, s)| s.ns.is_finite() && s.ns > 0.0 && s.unit < units)
        .map(|(k, s)| (k, s.ns.ln()))
        .collect();
    let unit_of = |i: usize| samples[kept[i].0].unit;
    let mut state = vec![0.0; kept.len()];
    let mut level = vec![f64::NAN; units];
    for _ in 0..ITERATIONS {
        for (u, l) in level.iter_mut().enumerate() {
            let own: Vec<f64> = (0..kept.len())
                .filter(|&i| unit_of(i) == u)
                .map(|i| kept[i].1 - state[i])
                .collect();
            *l = median(&own);
        }
        let residual: Vec<f64> = (0..kept.len())
            .map(|i| kept[i].1 - level[unit_of(i)])
            .collect();
        state = (0..kept.len())
            .map(|i| {
                let lo = i.saturating_sub(WINDOW);
                let hi = (i + WINDOW).min(kept.len() - 1);
                let around: Vec<f64> = (lo..=hi).filter(|&j| j != i).map(|j| residual[j]).collect();
                if around.is_empty() {
                    0.0
                } else {
                    median(&around)
                }
            })
            .collect();
    }
    // The states are known up to a constant. It is chosen so that the levels agree, over the
    // units, with the plain medians of their samples: absolute figures read as the plain ones
    // do on the whole, and ratios are the model's.
    let plain: Vec<f64> = (0..units)
        .map(|u| {
            let own: Vec<f64> = (0..kept.len())
                .filter(|&i| unit_of(i) == u)
                .map(|i| kept[i].1)
                .collect();
            median(&own) - level[u]
        })
        .filter(|d| d.is_finite())
        .collect();
    let centre = if plain.is_empty() {
        0.0
    } else {
        median(&plain)
    };
    for s in &mut state {
        *s -= centre;
    }
    for l in &mut level {
        *l = (*l + centre).exp();
    }
    let mut factor = vec![f64::NAN; samples.len()];
    for (i, &(k, _)) in kept.iter().enumerate() {
        factor[k] = state[i].exp();
    }
    Levels {
        level,
        state: factor,
    }
}

/// One step of two builds running at the same moment on two CPUs: unit `unit` of each, and
/// which CPU the first build was on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pair {
    pub unit: usize,
    /// The CPU arrangement: 0 or 1 (the builds swap CPUs each round).
    pub arrangement: usize,
    /// Thread CPU time per operation of each build, ns.
    pub ns: [f64; 2],
}

/// The levels of both builds from simultaneous pairs: per unit, build 0's level is the
/// geometric mean over arrangements of its median, and build 1's is that times the geometric
/// mean over arrangements of the median pair ratio (so that their ratio is the pairs').
pub(crate) fn split_levels(pairs: &[Pair], units: usize) -> [Vec<f64>; 2] {
    let mut out = [vec![f64::NAN; units], vec![f64::NAN; units]];
    #[allow(clippy::needless_range_loop)] // `u` selects the pairs as well as the slot
    for u in 0..units {
        let mut base = Vec::new();
        let mut ratio = Vec::new();
        for arrangement in 0..2 {
            let mine: Vec<&Pair> = pairs
                .iter()
                .filter(|p| p.unit == u && p.arrangement == arrangement)
                .filter(|p| p.ns.iter().all(|x| x.is_finite() && *x > 0.0))
                .collect();
            if mine.is_empty() {
                continue;
            }
            let firsts: Vec<f64> = mine.iter().map(|p| p.ns[0].ln()).collect();
            let ratios: Vec<f64> = mine.iter().map(|p| (p.ns[1] / p.ns[0]).ln()).collect();
            base.push(median(&firsts));
            ratio.push(median(&ratios));
        }
        if base.is_empty() {
            continue;
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (b, r) = (mean(&base), mean(&ratio));
        out[0][u] = b.exp();
        out[1][u] = (b + r).exp();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator of noise in [-1, 1).
    fn noise(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// Samples of `true_ns` units in shuffled rounds on a machine that flips between a fast and
    /// a 1.6x slower state every `flip` samples, with ±1% noise.
    fn flipping(true_ns: &[f64], rounds: usize, flip: usize) -> Vec<Sample> {
        let mut seed = 7;
        let mut samples = Vec::new();
        for _ in 0..rounds {
            let mut order: Vec<usize> = (0..true_ns.len()).collect();
            for i in (1..order.len()).rev() {
                let j = ((noise(&mut seed) + 1.0) / 2.0 * (i + 1) as f64) as usize;
                order.swap(i, j.min(i));
            }
            for u in order {
                let k = samples.len();
                let state = if (k / flip).is_multiple_of(2) {
                    1.0
                } else {
                    1.6
                };
                let ns = true_ns[u] * state * (1.0 + 0.01 * noise(&mut seed));
                samples.push(Sample { unit: u, ns });
            }
        }
        samples
    }

    #[test]
    fn identical_units_read_alike_through_the_states() {
        let truth = [100.0, 100.0, 250.0, 40.0, 100.0];
        let s = flipping(&truth, 40, 9);
        let l = levels(&s, truth.len());
        for u in [1, 4] {
            let r = l.level[u] / l.level[0];
            assert!((r - 1.0).abs() < 0.01, "unit {u}: {r}");
        }
        let r = l.level[2] / l.level[0];
        assert!((r - 2.5).abs() < 0.025, "{r}");
        // The scale is the plain medians', somewhere between the two states.
        let f = l.level[0] / 100.0;
        assert!((0.99..1.62).contains(&f), "{f}");
        // Samples away from a change of state lose it (those next to one cannot all).
        let close = (0..s.len())
            .filter(|&k| (0.95..1.05).contains(&(l.adjusted(&s, k) / (truth[s[k].unit] * f))))
            .count();
        assert!(close * 10 >= s.len() * 7, "{close} of {}", s.len());
    }

    #[test]
    fn a_three_percent_difference_shows_in_the_levels() {
        let s = flipping(&[100.0, 103.0], 200, 7);
        let l = levels(&s, 2);
        let r = l.level[1] / l.level[0];
        assert!((r - 1.03).abs() < 0.005, "{r}");
    }

    #[test]
    fn bad_samples_and_missing_units_are_left_out() {
        let s = vec![
            Sample { unit: 0, ns: 10.0 },
            Sample {
                unit: 0,
                ns: f64::NAN,
            },
            Sample { unit: 0, ns: 10.0 },
            Sample { unit: 9, ns: 5.0 },
        ];
        let l = levels(&s, 2);
        assert!((l.level[0] - 10.0).abs() < 1e-9, "{}", l.level[0]);
        assert!(l.level[1].is_nan());
        assert!(l.state[1].is_nan() && l.state[3].is_nan());
        assert!(levels(&[], 1).level[0].is_nan());
    }

    #[test]
    fn simultaneous_pairs_cancel_the_state_and_the_cpus() {
        // Build 1 is 2% slower; CPU 1 is 30% slower than CPU 0; the state flips.
        let mut pairs = Vec::new();
        for k in 0..100 {
            let arrangement = k % 2;
            let state = if (k / 5) % 2 == 0 { 1.0 } else { 1.6 };
            let cpu = |build: usize| if build == arrangement { 1.0 } else { 1.3 };
            pairs.push(Pair {
                unit: 0,
                arrangement,
                ns: [100.0 * state * cpu(0), 102.0 * state * cpu(1)],
            });
        }
        let [a, b] = split_levels(&pairs, 2);
        assert!((b[0] / a[0] - 1.02).abs() < 1e-9, "{}", b[0] / a[0]);
        assert!(a[1].is_nan() && b[1].is_nan());
    }
}
