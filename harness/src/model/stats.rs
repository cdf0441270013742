//! Summary statistics of timing: a configuration's time is measured by several independent
//! timing processes; each gives the median of its batches, and the configuration's figure is
//! the median of those process medians with a distribution-free 95% interval across processes
//! (order statistics, exact binomial coverage). Ratios come from per-round pairs of processes.
//! The within-process spread (MAD of batches) is kept apart: it says how steady one process
//! was, not how far another process would read.

use serde::{Deserialize, Serialize};

/// Time per operation, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// The median of the process medians (of one process: the median of its batches).
    pub median: f64,
    /// A 95% confidence interval for that median, across processes (of one process: across its
    /// batches), from order statistics (no normality assumed).
    pub ci95: [f64; 2],
    /// The interval's exact coverage (0.961 for [3rd, 10th] of 12 processes, 0.969 for [min, max] of 6).
    #[serde(default)]
    pub coverage: f64,
    /// Within-process spread: the median of the processes' batch MADs.
    pub mad: f64,
    /// Operations per batch (of the first process).
    pub ops_per_batch: u64,
    /// Time per operation of every batch of every process, in the order they ran.
    pub batches: Vec<f64>,
    /// The timing processes, in the order they ran (empty in files of serprof before 0.2).
    #[serde(default)]
    pub processes: Vec<ProcessTiming>,
    /// How `median` and `ci95` were computed.
    #[serde(default)]
    pub method: TimingMethod,
    /// The lock-step schedule the processes belong to (a random id per timing phase): two
    /// figures of one schedule were measured moments apart, child by child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<u64>,
    /// How much layout alone moves this time (a fraction: 0.02 is about 2%), each process
    /// having run a layout of its own: the standard deviation of the log of the processes'
    /// medians with what their set of children shared taken out (the machine's speed over
    /// that second; [`layout_spreads`]). It holds the processes' own noise too, which is far
    /// smaller. Null when the processes ran one binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_spread: Option<f64>,
}

/// What one timing process measured of one configuration: thread CPU time per operation (the
/// clock of every figure) and wall time beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessTiming {
    /// The lock-step child it is from (the round of the schedule, in files of serprof before
    /// lock-step timing); a ratio pairs processes of one round.
    pub round: usize,
    /// The CPU it was pinned to.
    pub cpu: Option<usize>,
    /// Thread CPU time per operation: the state-adjusted median of its samples
    /// ([`crate::model::lockstep`]); the median of the batches of an older file.
    pub median: f64,
    /// MAD of its samples (state-adjusted).
    pub mad: f64,
    /// Median wall time per operation over its samples.
    pub wall_median: f64,
    /// Operations per sample.
    pub ops_per_batch: u64,
    /// Thread CPU time per operation of each sample, as measured.
    pub batches: Vec<f64>,
    /// The plain median of `batches`, before the state was taken out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unadjusted_median: Option<f64>,
    /// Where each sample ran in its child's schedule (0 is the child's first sample).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<u32>,
}

impl ProcessTiming {
    /// One process's figures from its batches (CPU and wall time per operation each).
    pub fn from_batches(cpu: Vec<f64>, wall: &[f64], ops_per_batch: u64) -> Option<ProcessTiming> {
        let finite: Vec<f64> = cpu.iter().copied().filter(|x| x.is_finite()).collect();
        if finite.is_empty() {
            return None;
        }
        let m = median(&finite);
        let deviations: Vec<f64> = finite.iter().map(|x| (x - m).abs()).collect();
        Some(ProcessTiming {
            round: 0,
            cpu: None,
            median: m,
            mad: median(&deviations),
            wall_median: median(wall),
            ops_per_batch,
            batches: cpu,
            unadjusted_median: None,
            slots: Vec::new(),
        })
    }
}

/// An enum of methods stored by name, each with the sentence outputs print; it reads the name,
/// or the sentence an older serprof stored in its place. Text of any other shape reads as the
/// default.
macro_rules! described {
    ($(#[$meta:meta])* $vis:vis $name:ident { $($(#[$vmeta:meta])* $variant:ident = ($id:literal, $text:literal),)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// What the method is, in a sentence.
            $vis fn describe(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Its name in files.
            $vis fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $id,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.describe())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Ok([$($name::$variant,)+]
                    .into_iter()
                    .find(|m| text == m.as_str() || text == m.describe())
                    .unwrap_or_default())
            }
        }
    };
}

described! {
    /// How a [`TimeStats`]'s median and interval were computed.
    #[derive(Default)]
    pub TimingMethod {
        /// Across lock-step children: the median of their state-adjusted medians.
        LockStep = ("lock_step", "median over lock-step children of each child's state-adjusted median (thread CPU time per operation; every child runs all configurations a sample of a few ms at a time in shuffled rounds, and each sample is divided by the machine's state estimated from its neighbours); 95% distribution-free interval from order statistics of the children's values, exact binomial coverage"),
        /// Across timing processes: the median of their medians, with an order-statistics
        /// interval.
        AcrossProcesses = ("across_processes", "median of the timing processes' medians (thread CPU time per operation); 95% distribution-free interval from order statistics of the process medians, exact binomial coverage"),
        /// Within one process (files of one timing process): the median of the batches, with
        /// an order-statistics interval of the batches.
        #[default]
        Batches = ("batches", "median of batches; 95% interval from order statistics of the batches (normal approximation to the binomial)"),
    }
}

described! {
    /// How a time ratio and its interval were computed.
    #[derive(Default)]
    pub(crate) RatioMethod {
        /// Per-set ratios of one lock-step schedule whose sets each ran layouts of their own.
        LayoutMeans = ("layout_means", "lock-step over layouts: every set of timing children ran a layout of its own on each side, both sides taking turns sample by sample; the ratio of the two sides' geometric means over layouts (the mean over sets of each set's log ratio of state-adjusted medians); 95% Student t interval on those per-set log ratios (n - 1 degrees of freedom): the sets are independent draws of a pair of layouts, so the interval holds for the layout-averaged effect"),
        /// Per-child ratios of one lock-step schedule.
        LockStep = ("lock_step", "lock-step: median over sets of timing children of each set's ratio of state-adjusted medians (the two configurations sampled a few ms at a time, moments apart: in every child, or under two allocators of `run --allocators` in the set's child of each, taking turns); 95% distribution-free interval from order statistics of the per-set ratios"),
        /// Per-round pairs of timing processes.
        #[default]
        ProcessPairs = ("process_pairs", "median of per-round ratios after/before of timing processes (thread CPU time; within one run the processes of a round ran back to back, so drift cancels; across two runs each pair is two independent processes); 95% distribution-free interval from order statistics of the pair ratios"),
        /// A bootstrap over the batches of one process per side.
        Bootstrap = ("bootstrap", "ratio of medians after/before over the timing batches; 95% percentile-bootstrap interval (2,000 resamples of each side's batches, fixed seed)"),
        /// `serprof ab`'s interleaved batches, read back by `compare`.
        Interleaved = ("interleaved", "serprof ab: median of the per-process ratios of interleaved batches (per-round ratios for a folder of one process), thread CPU time; 95% distribution-free interval from order statistics of those ratios"),
        /// `serprof ab`'s own ratio over its child processes.
        AbProcesses = ("ab_processes", "median over child processes of each process's median B/A pair ratio (interleaved batches, thread CPU time); 95% distribution-free interval from order statistics of the process ratios"),
    }
}

impl TimeStats {
    /// The figures of a configuration from its timing processes. `None` without any.
    pub fn from_processes(processes: Vec<ProcessTiming>) -> Option<TimeStats> {
        let mut medians: Vec<f64> = processes
            .iter()
            .map(|p| p.median)
            .filter(|m| m.is_finite())
            .collect();
        if medians.is_empty() {
            return None;
        }
        medians.sort_by(f64::total_cmp);
        let (ci95, coverage) = median_interval(&medians);
        let mads: Vec<f64> = processes.iter().map(|p| p.mad).collect();
        Some(TimeStats {
            median: median_sorted(&medians),
            ci95,
            coverage,
            mad: median(&mads),
            ops_per_batch: processes[0].ops_per_batch,
            batches: processes.iter().flat_map(|p| p.batches.clone()).collect(),
            processes,
            method: TimingMethod::AcrossProcesses,
            schedule: None,
            layout_spread: None,
        })
    }

    /// The log of each process's median by round (the set of children it ran in).
    pub(crate) fn log_by_round(&self) -> std::collections::BTreeMap<usize, f64> {
        self.processes
            .iter()
            .filter(|p| p.median.is_finite() && p.median > 0.0)
            .map(|p| (p.round, p.median.ln()))
            .collect()
    }

    /// The process medians, by round.
    pub fn by_round(&self) -> std::collections::BTreeMap<usize, f64> {
        self.processes.iter().map(|p| (p.round, p.median)).collect()
    }
}

/// P(X <= k) for X ~ Binomial(n, 1/2).
fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    // Terms C(n, i) / 2^n, built up in floating point (n stays in the thousands at most).
    let mut term = 0.5f64.powi(n as i32);
    let mut sum = 0.0;
    for i in 0..=k.min(n) {
        sum += term;
        term = term * (n - i) as f64 / (i + 1) as f64;
    }
    sum.min(1.0)
}

/// A distribution-free interval for the median of a sorted sample, [x(k), x(n+1-k)] (1-based)
/// with the largest k whose coverage 1 - 2 P(X <= k-1), X ~ Bin(n, 1/2), is still at least 95%;
/// with too few values for 95% it is [min, max], and the returned coverage says how much less
/// (93.75% for 5 values, 75% for 3). Returns the interval and its exact coverage.
pub(crate) fn median_interval(sorted: &[f64]) -> ([f64; 2], f64) {
    let n = sorted.len();
    if n == 0 {
        return ([f64::NAN, f64::NAN], 0.0);
    }
    let coverage = |k: usize| 1.0 - 2.0 * binomial_half_cdf(n, k - 1);
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= 0.95 {
        k += 1;
    }
    let cov = if n == 1 { 0.0 } else { coverage(k) };
    ([sorted[k - 1], sorted[n - k]], cov)
}

/// A ratio with its interval: the median of per-round pair ratios.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioStats {
    pub ratio: f64,
    pub ci95: [f64; 2],
    pub coverage: f64,
    /// Pair ratios behind it.
    pub pairs: usize,
}

impl RatioStats {
    /// The median of `pair_ratios` (non-finite ones dropped) and its order-statistics interval.
    pub fn of_pairs(pair_ratios: &[f64]) -> Option<RatioStats> {
        let mut sorted: Vec<f64> = pair_ratios
            .iter()
            .copied()
            .filter(|r| r.is_finite())
            .collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let (ci95, coverage) = median_interval(&sorted);
        Some(RatioStats {
            ratio: median_sorted(&sorted),
            ci95,
            coverage,
            pairs: sorted.len(),
        })
    }

    /// The geometric mean of `pair_ratios` (non-finite or non-positive ones dropped) with a
    /// 95% Student t interval on their logs: for ratios that are independent draws (one pair of
    /// layouts each), whose mean over layouts is the effect. With one ratio, the interval is
    /// that ratio and its coverage 0.
    pub fn layout_mean(pair_ratios: &[f64]) -> Option<RatioStats> {
        let logs: Vec<f64> = pair_ratios
            .iter()
            .filter(|r| r.is_finite() && **r > 0.0)
            .map(|r| r.ln())
            .collect();
        let n = logs.len();
        if n == 0 {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let (half, coverage) = match n {
            1 => (0.0, 0.0),
            _ => (
                student_t_quantile(0.975, (n - 1) as f64) * std_dev(&logs) / (n as f64).sqrt(),
                0.95,
            ),
        };
        Some(RatioStats {
            ratio: mean.exp(),
            ci95: [(mean - half).exp(), (mean + half).exp()],
            coverage,
            pairs: n,
        })
    }

    /// `a / b` from the processes of one run that share a round: one pair ratio per round both
    /// have. `None` when they share none (or either has no processes).
    pub fn by_round(a: &TimeStats, b: &TimeStats) -> Option<RatioStats> {
        RatioStats::of_pairs(&round_ratios(a, b))
    }

    /// `a / b` over layouts: [`RatioStats::layout_mean`] of the per-round ratios.
    pub fn by_round_over_layouts(a: &TimeStats, b: &TimeStats) -> Option<RatioStats> {
        RatioStats::layout_mean(&round_ratios(a, b))
    }

    /// Whether `a` and `b` were measured in one lock-step schedule.
    pub fn lock_step(a: &TimeStats, b: &TimeStats) -> bool {
        a.schedule.is_some() && a.schedule == b.schedule
    }

    /// Whether the interval holds 1 (no difference shown).
    pub fn within_noise(&self) -> bool {
        self.ci95[0] <= 1.0 && 1.0 <= self.ci95[1]
    }
}

impl TimeStats {
    /// Summarises the `batches` of one process (ns per operation each): the shape of files
    /// from serprof before 0.2, which tests build to exercise the fallbacks for them. `None`
    /// when there are no batches.
    #[cfg(test)]
    pub fn from_batches(batches: Vec<f64>, ops_per_batch: u64) -> Option<TimeStats> {
        let mut sorted = batches.clone();
        sorted.retain(|x| x.is_finite());
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let median = median_sorted(&sorted);
        let ci95 = median_ci95(&sorted);
        let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mad = median_sorted(&deviations);
        Some(TimeStats {
            median,
            ci95,
            coverage: 0.95,
            mad,
            ops_per_batch,
            batches,
            processes: Vec::new(),
            method: TimingMethod::Batches,
            schedule: None,
            layout_spread: None,
        })
    }
}

/// `a / b` of every round both have (their process medians).
fn round_ratios(a: &TimeStats, b: &TimeStats) -> Vec<f64> {
    let (ra, rb) = (a.by_round(), b.by_round());
    ra.iter()
        .filter_map(|(round, x)| rb.get(round).map(|y| x / y))
        .collect()
}

/// A log time per round (set of children), each round a layout of its own.
pub(crate) type ByRound = std::collections::BTreeMap<usize, f64>;

/// How much layout alone moves each of a before-after's two sides of one configuration, from
/// the log of each side's child medians by round, with what a set of children shared taken
/// out (the machine's speed changes over seconds, so one set's children can both read a few
/// percent slower than another's): their log times are `L_b + D` and `L_a + D` with
/// independent layout effects `L` and the set's drift `D`, so `var(b) - cov(a, b)` is
/// `var(L_b)` (method of moments, 0 when negative). `None` with fewer than three shared
/// rounds.
pub(crate) fn layout_spreads_paired(b: &ByRound, a: &ByRound) -> [Option<f64>; 2] {
    let shared: Vec<(f64, f64)> = b
        .iter()
        .filter_map(|(round, x)| a.get(round).map(|y| (*x, *y)))
        .collect();
    if shared.len() < 3 {
        return [None, None];
    }
    let (xs, ys): (Vec<f64>, Vec<f64>) = shared.into_iter().unzip();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mx, my) = (mean(&xs), mean(&ys));
    let n = xs.len() as f64 - 1.0;
    let cov = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| (x - mx) * (y - my))
        .sum::<f64>()
        / n;
    let var = |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n;
    [
        Some((var(&xs, mx) - cov).max(0.0).sqrt()),
        Some((var(&ys, my) - cov).max(0.0).sqrt()),
    ]
}

/// How much layout alone moves each of a run's configurations, from the log of each one's
/// child medians by round. With three configurations or more, a set's drift (what all its
/// children shared: the machine's speed over those seconds) is the median over configurations
/// of their deviations from their own means in that set, and is taken out before the standard
/// deviation; with fewer it cannot be told from layout, and stays in. `None` for a
/// configuration with fewer than three rounds.
pub(crate) fn layout_spreads_shared(units: &[ByRound]) -> Vec<Option<f64>> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let centred: Vec<ByRound> = units
        .iter()
        .map(|u| {
            let m = mean(&u.values().copied().collect::<Vec<_>>());
            u.iter().map(|(r, x)| (*r, x - m)).collect()
        })
        .collect();
    let drift = |round: &usize| -> f64 {
        if units.len() < 3 {
            return 0.0;
        }
        let d: Vec<f64> = centred
            .iter()
            .filter_map(|u| u.get(round).copied())
            .collect();
        median(&d)
    };
    centred
        .iter()
        .map(|u| {
            let rest: Vec<f64> = u.iter().map(|(r, x)| x - drift(r)).collect();
            (rest.len() >= 3).then(|| std_dev(&rest))
        })
        .collect()
}

/// The sample standard deviation (n - 1) of `values`; 0 for fewer than two.
pub(crate) fn std_dev(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    (values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |acc, (i, c)| acc + c / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), on the side where it converges quickly.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp() / a;
    let tiny = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = 1.0 / if d.abs() < tiny { tiny } else { d };
    let mut f = d;
    for m in 1..300 {
        let m = m as f64;
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            d = 1.0 / if d.abs() < tiny { tiny } else { d };
            c = 1.0 + numerator / c;
            c = if c.abs() < tiny { tiny } else { c };
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    front * f
}

/// P(T <= t) for Student's t with `df` degrees of freedom.
pub(crate) fn student_t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The `p` quantile of Student's t with `df` degrees of freedom (0 < p < 1), by bisection of
/// the distribution function.
pub(crate) fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -student_t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while student_t_cdf(hi, df) < p && hi < 1e6 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Median of a sorted, non-empty slice.
pub(crate) fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Median of any slice (sorts a copy). NaN for an empty slice.
pub(crate) fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

/// (Used by [`TimeStats::from_batches`].) A 95% confidence interval for the median of a sorted
/// sample: the order statistics at ranks
/// n/2 -+ 1.96 sqrt(n)/2 (normal approximation to the binomial). With fewer than 6 values the
/// interval is the whole range.
#[cfg(test)]
pub(crate) fn median_ci95(sorted: &[f64]) -> [f64; 2] {
    let n = sorted.len();
    if n < 6 {
        return [sorted[0], sorted[n - 1]];
    }
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let lo = ((n as f64 / 2.0) - half).floor().max(0.0) as usize;
    let hi = ((n as f64 / 2.0) + half).ceil().min((n - 1) as f64) as usize;
    [sorted[lo], sorted[hi]]
}

/// A small deterministic generator (SplitMix64) for bootstrap resampling: results are
/// reproducible run to run.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(pub u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Ratio of medians `a / b` with a 95% percentile-bootstrap interval: both batch sets are
/// resampled with replacement, 2,000 times, with a fixed seed.
pub(crate) fn ratio_of_medians(a: &[f64], b: &[f64]) -> Option<(f64, [f64; 2])> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let point = median(a) / median(b);
    let mut rng = SplitMix64(0x5EED_CAFE);
    let mut ratios = Vec::with_capacity(2000);
    let (mut ra, mut rb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    for _ in 0..2000 {
        for x in ra.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in rb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        ratios.push(median(&ra) / median(&rb));
    }
    ratios.sort_by(f64::total_cmp);
    let lo = ratios[(0.025 * ratios.len() as f64) as usize];
    let hi = ratios[((0.975 * ratios.len() as f64) as usize).min(ratios.len() - 1)];
    Some((point, [lo, hi]))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn exact_intervals_across_few_processes() {
        let six: Vec<f64> = (1..=6).map(f64::from).collect();
        let (ci, cov) = median_interval(&six);
        assert_eq!(ci, [1.0, 6.0]);
        assert!((cov - (1.0 - 2.0 / 64.0)).abs() < 1e-12, "{cov}");
        let (_, cov5) = median_interval(&six[..5]);
        assert!((cov5 - 0.9375).abs() < 1e-12);
        let (_, cov3) = median_interval(&six[..3]);
        assert!((cov3 - 0.75).abs() < 1e-12);
        // 10 values: [x(2), x(9)] covers 97.9%; [x(3), x(8)] only 89%.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let (ci, cov) = median_interval(&ten);
        assert_eq!(ci, [2.0, 9.0]);
        assert!((cov - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(median_interval(&[7.0]).0, [7.0, 7.0]);
    }

    fn process(round: usize, median: f64) -> ProcessTiming {
        let mut p = ProcessTiming::from_batches(vec![median; 3], &[median; 3], 10).unwrap();
        p.round = round;
        p
    }

    #[test]
    fn figures_are_across_processes_and_ratios_pair_rounds() {
        let a = TimeStats::from_processes((0..6).map(|r| process(r, 100.0 + r as f64)).collect())
            .unwrap();
        assert_eq!(a.median, 102.5);
        assert_eq!(a.ci95, [100.0, 105.0]);
        assert_eq!(a.mad, 0.0, "within-process spread is kept apart");
        assert_eq!(a.batches.len(), 18);
        // b is a exactly 2x in every round, whatever the round's level: the pairs see it.
        let b = TimeStats::from_processes(
            (0..6)
                .map(|r| process(r, 2.0 * (100.0 + r as f64)))
                .collect(),
        )
        .unwrap();
        let r = RatioStats::by_round(&b, &a).unwrap();
        assert_eq!((r.ratio, r.ci95, r.pairs), (2.0, [2.0, 2.0], 6));
        assert!(!r.within_noise());
        // Rounds that only one side has are not paired.
        let c = TimeStats::from_processes(vec![process(3, 50.0), process(9, 1.0)]).unwrap();
        let r = RatioStats::by_round(&c, &a).unwrap();
        assert_eq!((r.ratio, r.pairs), (50.0 / 103.0, 1));
    }

    #[test]
    fn student_t_quantiles_match_the_tables() {
        for (df, q) in [
            (1.0, 12.706),
            (4.0, 2.776),
            (7.0, 2.365),
            (11.0, 2.201),
            (23.0, 2.069),
            (63.0, 1.998),
            (1000.0, 1.962),
        ] {
            let got = student_t_quantile(0.975, df);
            assert!((got - q).abs() < 1e-3, "df {df}: {got} against {q}");
        }
        assert!((student_t_cdf(0.0, 5.0) - 0.5).abs() < 1e-12);
        assert!((student_t_quantile(0.025, 23.0) + 2.069).abs() < 1e-3);
    }

    /// A standard normal draw (Box-Muller) from the generator.
    fn normal(rng: &mut SplitMix64) -> f64 {
        let u = |rng: &mut SplitMix64| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let (a, b) = (u(rng), u(rng));
        (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }

    /// One synthetic before-after over `n` layouts per side: each set's before and after
    /// times are a layout of their own (log-normal, relative spread `spread`) times a child's
    /// own noise (0.5%), the after side `effect` slower on average. The per-set ratios.
    fn synthetic_sets(rng: &mut SplitMix64, n: usize, spread: f64, effect: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let before = 100.0 * (spread * normal(rng) + 0.005 * normal(rng)).exp();
                let after = 100.0 * effect * (spread * normal(rng) + 0.005 * normal(rng)).exp();
                after / before
            })
            .collect()
    }

    #[test]
    fn the_layout_interval_covers_95_percent_of_nulls() {
        let mut rng = SplitMix64(0x1A70_u64);
        for spread in [0.02, 0.05] {
            let covered = (0..1000)
                .filter(|_| {
                    let n = crate::run::before_after::DEFAULT_LAYOUTS;
                    let r =
                        RatioStats::layout_mean(&synthetic_sets(&mut rng, n, spread, 1.0)).unwrap();
                    r.within_noise()
                })
                .count();
            assert!(
                (930..=970).contains(&covered),
                "spread {spread}: {covered} of 1000 nulls covered"
            );
        }
    }

    #[test]
    fn the_layout_interval_sees_a_change_as_often_as_the_arithmetic_says() {
        // Spread 5%, the default number of layouts per side: the standard error of the log
        // ratio is s sqrt(2/n) (the child's own noise adds a little), and the chance that the
        // interval lies wholly above 1 is about Phi(ln(effect)/se - t(0.975, n - 1)).
        let (n, s) = (crate::run::before_after::DEFAULT_LAYOUTS, 0.05);
        let se = ((2.0 * (s * s + 0.005f64 * 0.005)) / n as f64).sqrt();
        for (effect, seed) in [(1.05f64, 0xB0B), (1.03, 0xB0C)] {
            let z = effect.ln() / se - student_t_quantile(0.975, (n - 1) as f64);
            // Phi, as the t distribution with very many degrees of freedom.
            let predicted = student_t_cdf(z, 1e6);
            let mut rng = SplitMix64(seed);
            let slower = (0..1000)
                .filter(|_| {
                    let r =
                        RatioStats::layout_mean(&synthetic_sets(&mut rng, n, s, effect)).unwrap();
                    r.ci95[0] > 1.0
                })
                .count() as f64
                / 1000.0;
            assert!(
                (slower - predicted).abs() <= 0.05,
                "{effect}: called slower in {slower} of runs; the arithmetic says {predicted:.3}"
            );
        }
    }

    #[test]
    fn the_layout_mean_is_the_ratio_of_geometric_means() {
        let r = RatioStats::layout_mean(&[1.1, 1.0 / 1.1, 1.0]).unwrap();
        assert!((r.ratio - 1.0).abs() < 1e-12, "{r:?}");
        assert!(r.ci95[0] < 1.0 && r.ci95[1] > 1.0);
        let one = RatioStats::layout_mean(&[1.2]).unwrap();
        assert_eq!((one.ratio, one.ci95, one.coverage), (1.2, [1.2, 1.2], 0.0));
        assert!(RatioStats::layout_mean(&[f64::NAN, 0.0]).is_none());
    }

    #[test]
    fn layout_spreads_leave_out_what_a_set_shared() {
        // 400 sets: each side's layout effect has a spread of 3% (before) and 6% (after), and
        // each set's drift (the machine's speed over that second) one of 8%.
        let mut rng = SplitMix64(0x5EED);
        let (mut b, mut a) = (BTreeMap::new(), BTreeMap::new());
        for k in 0..400 {
            let drift = 0.08 * normal(&mut rng);
            b.insert(k, 4.6 + drift + 0.03 * normal(&mut rng));
            a.insert(k, 4.7 + drift + 0.06 * normal(&mut rng));
        }
        let s = layout_spreads_paired(&b, &a);
        let (sb, sa) = (s[0].unwrap(), s[1].unwrap());
        assert!(
            (sb - 0.03).abs() < 0.01 && (sa - 0.06).abs() < 0.01,
            "{sb} {sa}"
        );
        // Five configurations of one run share each set's drift; one of them spreads 5%.
        let units: Vec<BTreeMap<usize, f64>> = (0..5)
            .map(|u| {
                let mut rng = SplitMix64(0x5EED);
                (0..400)
                    .map(|k| {
                        let drift = 0.08 * normal(&mut rng);
                        let own = if u == 2 { 0.05 } else { 0.01 };
                        let mut mine = SplitMix64(1000 * u + k as u64);
                        (k, u as f64 + drift + own * normal(&mut mine))
                    })
                    .collect()
            })
            .collect();
        let s = layout_spreads_shared(&units);
        assert!((s[2].unwrap() - 0.05).abs() < 0.01, "{s:?}");
        assert!(s[0].unwrap() < 0.02, "{s:?}");
        assert_eq!(layout_spreads_shared(&[BTreeMap::from([(0, 1.0)])]), [None]);
        assert_eq!(layout_spreads_paired(&b, &BTreeMap::new()), [None, None]);
    }

    #[test]
    fn median_mad_and_interval() {
        let s = TimeStats::from_batches(vec![5.0, 1.0, 3.0, 2.0, 4.0], 10).unwrap();
        assert_eq!(s.median, 3.0);
        assert_eq!(s.mad, 1.0);
        assert_eq!(s.ci95, [1.0, 5.0]);
        let even = TimeStats::from_batches(vec![1.0, 2.0, 3.0, 4.0], 1).unwrap();
        assert_eq!(even.median, 2.5);
        assert!(TimeStats::from_batches(vec![], 1).is_none());
    }

    #[test]
    fn interval_narrows_with_more_batches_and_contains_the_median() {
        let v: Vec<f64> = (0..100).map(f64::from).collect();
        let ci = median_ci95(&v);
        assert!(ci[0] < 49.5 && 49.5 < ci[1]);
        assert_eq!(ci, [40.0, 60.0]);
    }

    #[test]
    fn ratio_of_identical_samples_is_one_and_interval_contains_it() {
        let a: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 7)).collect();
        let (r, ci) = ratio_of_medians(&a, &a).unwrap();
        assert_eq!(r, 1.0);
        assert!(ci[0] <= 1.0 && 1.0 <= ci[1]);
        let b: Vec<f64> = a.iter().map(|x| x * 2.0).collect();
        let (r, ci) = ratio_of_medians(&b, &a).unwrap();
        assert_eq!(r, 2.0);
        assert!(ci[0] > 1.8 && ci[1] < 2.2);
    }
}
