//! Where a before-after's time moved, function by function, over layouts.
//!
//! Set `k` of timing children runs layout `k` of each side, and after its rounds each child
//! records a short CPU profile of every configuration it holds ([`SetProfile`]). A function's
//! time per operation in set `k` on a side is its self share of that set's profile times that
//! set's time per operation of the side (the child's state-adjusted median): `f_k(side)`. Over
//! the sets both sides profiled and timed:
//!
//! - the paired difference `d_k = f_k(after) - f_k(before)`, its mean and its Student t 95%
//!   interval (n - 1 degrees of freedom), and the two-sided p-value of "no change";
//! - the function's time ratio `mean f(after) / mean f(before)` with Fieller's 95% interval
//!   for a ratio of two paired means (the interval of the ratios `r` for which
//!   `mean a - r mean b` is within its own t interval of 0: it takes the covariance of the
//!   sides' values into account, and is unbounded, `None`, when the before side's mean is not
//!   clearly above 0);
//! - its contribution, `mean d / mean t(before)`: the share of the row's before time it moved,
//!   signed. Every function's contribution, the unexamined ones' included, adds up to
//!   `mean t(after) / mean t(before) - 1`, the row's change as arithmetic means over layouts.
//!
//! A function is *called* when Holm's step-down procedure at a family-wise 5% over every
//! function examined in the row ([`MIN_SHARE`], [`MAX_EXAMINED`]) rejects "no change": with no
//! change anywhere, a row calls any function at all in at most one row in twenty.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::stats::{std_dev, student_t_cdf, student_t_quantile};
use crate::profile::folded::Folded;

/// One set's CPU profile of one configuration on one side.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SetProfile {
    /// The set of timing children (the layout) it was recorded in.
    pub set: usize,
    pub folded: Folded,
}

/// The family-wise error rate of a row's calls (Holm–Bonferroni).
pub(crate) const FAMILY_ALPHA: f64 = 0.05;
/// A function is examined when its mean self share reaches this on either side.
pub(crate) const MIN_SHARE: f64 = 0.005;
/// At most this many functions are examined per row, the largest by mean self share.
pub(crate) const MAX_EXAMINED: usize = 40;
/// Fewest paired sets for a function table.
pub(crate) const MIN_SETS: usize = 3;

/// The rule in words, for the record.
pub(crate) fn rule() -> String {
    format!(
        "a function's time per operation in each layout is its self share of that layout's profile times the layout's time per operation; called when Holm's procedure at a family-wise {:.0}% over the functions examined (mean self share of at least {:.1}% on a side, at most {MAX_EXAMINED}) finds the paired t test over layouts significant",
        100.0 * FAMILY_ALPHA,
        100.0 * MIN_SHARE
    )
}

/// A percentage with its interval: `+1.9% [0.9, 2.8]`.
pub(crate) fn percent_ci(x: f64, ci: [f64; 2]) -> String {
    format!(
        "{:+.1}% [{:.1}, {:.1}]",
        100.0 * x,
        100.0 * ci[0],
        100.0 * ci[1]
    )
}

/// One function's move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionMove {
    /// The function's demangled path.
    pub name: String,
    /// Its mean self time per operation over the layouts, ns, before and after.
    pub before_ns: f64,
    pub after_ns: f64,
    /// `after_ns / before_ns` (null when the before side has no time in it).
    pub time_ratio: Option<f64>,
    /// Fieller's 95% interval of the ratio (null when unbounded).
    pub time_ci95: Option<[f64; 2]>,
    /// The mean paired difference after - before, ns per operation, and its t 95% interval.
    pub delta_ns: f64,
    pub delta_ci95: [f64; 2],
    /// `delta_ns` over the row's before time: the signed share of the row's change.
    pub contribution: f64,
    pub contribution_ci95: [f64; 2],
    /// The two-sided p-value of the paired t test.
    pub p_value: f64,
    /// Holm's procedure rejected "no change".
    pub called: bool,
    /// Exact self instructions per operation, after - before (callgrind; absent without
    /// instruction counts of both sides, or when callgrind did not name the function).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_delta: Option<f64>,
    /// The same of simulated mispredicted branches, L1 data and last-level data misses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_mispredicts_delta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d1_misses_delta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ll_misses_delta: Option<f64>,
}

/// What a row's function table rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionsSummary {
    /// Sets (layouts) profiled and timed on both sides.
    pub sets: usize,
    /// Functions examined (the size of Holm's family).
    pub examined: usize,
    /// CPU samples over every set, before and after.
    pub samples: [u64; 2],
    /// The contribution of the functions not examined: with the listed ones, the row's change.
    pub unlisted_contribution: f64,
    /// The row's change as `mean t(after) / mean t(before) - 1` over the paired sets.
    pub change: f64,
}

/// A configuration's functions and what they rest on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Functions {
    /// Called ones first, each part by |contribution|.
    pub list: Vec<FunctionMove>,
    pub summary: FunctionsSummary,
}

/// Exact per-operation self counts of one event on each side (callgrind's folded stacks).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ExactSelf {
    pub before: BTreeMap<String, f64>,
    pub after: BTreeMap<String, f64>,
}

impl ExactSelf {
    /// Self counts per operation of both sides' folded stacks of one event.
    pub(crate) fn of(
        (before, before_ops): (&Folded, u64),
        (after, after_ops): (&Folded, u64),
    ) -> ExactSelf {
        let per_op = |f: &Folded, ops: u64| -> BTreeMap<String, f64> {
            f.self_counts()
                .into_iter()
                .map(|(k, v)| (k, v as f64 / ops.max(1) as f64))
                .collect()
        };
        ExactSelf {
            before: per_op(before, before_ops),
            after: per_op(after, after_ops),
        }
    }

    /// The change of `function`'s count, when either side names it.
    fn delta(&self, function: &str) -> Option<f64> {
        let (b, a) = (self.before.get(function), self.after.get(function));
        (b.is_some() || a.is_some()).then(|| a.unwrap_or(&0.0) - b.unwrap_or(&0.0))
    }
}

/// The exact counts a function table shows beside each function, where they were counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Exact {
    pub instructions: Option<ExactSelf>,
    pub branch_mispredicts: Option<ExactSelf>,
    pub d1_misses: Option<ExactSelf>,
    pub ll_misses: Option<ExactSelf>,
}

/// One set of one side: each function's self share, the time per operation, the samples.
type SetFigures = (BTreeMap<String, f64>, f64, u64);

/// One side's self shares and time per operation, by set.
struct SideSets {
    sets: BTreeMap<usize, SetFigures>,
}

impl SideSets {
    fn of(profiles: &[SetProfile], times: &BTreeMap<usize, f64>) -> SideSets {
        let mut sets = BTreeMap::new();
        for p in profiles {
            let total = p.folded.total();
            let Some(&t) = times.get(&p.set) else {
                continue;
            };
            if total == 0 || !t.is_finite() || t <= 0.0 {
                continue;
            }
            let shares = p
                .folded
                .self_counts()
                .into_iter()
                .map(|(k, v)| (k, v as f64 / total as f64))
                .collect();
            sets.insert(p.set, (shares, t, total));
        }
        SideSets { sets }
    }
}

/// The function table of one configuration: each side's per-set profiles and per-set times
/// per operation (`set -> ns`), and the exact counts where there are some. `None` with fewer
/// than [`MIN_SETS`] sets profiled and timed on both sides.
pub(crate) fn functions(
    (before, before_times): (&[SetProfile], &BTreeMap<usize, f64>),
    (after, after_times): (&[SetProfile], &BTreeMap<usize, f64>),
    exact: &Exact,
) -> Option<Functions> {
    let (b, a) = (
        SideSets::of(before, before_times),
        SideSets::of(after, after_times),
    );
    let paired: Vec<usize> = b
        .sets
        .keys()
        .filter(|k| a.sets.contains_key(k))
        .copied()
        .collect();
    let n = paired.len();
    if n < MIN_SETS {
        return None;
    }
    let pairs: Vec<(&SetFigures, &SetFigures)> =
        paired.iter().map(|k| (&b.sets[k], &a.sets[k])).collect();
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let tb: Vec<f64> = pairs.iter().map(|(x, _)| x.1).collect();
    let ta: Vec<f64> = pairs.iter().map(|(_, y)| y.1).collect();
    let (mean_tb, mean_ta) = (mean(&tb), mean(&ta));
    // Examined: the largest functions by mean self share on either side.
    let names: BTreeSet<&String> = pairs
        .iter()
        .flat_map(|(x, y)| x.0.keys().chain(y.0.keys()))
        .collect();
    let share = |side: &dyn Fn(usize) -> f64| (0..n).map(side).sum::<f64>() / n as f64;
    let mut sized: Vec<(&String, f64)> = names
        .into_iter()
        .map(|f| {
            let sb = share(&|i| pairs[i].0 .0.get(f).copied().unwrap_or(0.0));
            let sa = share(&|i| pairs[i].1 .0.get(f).copied().unwrap_or(0.0));
            (f, sb.max(sa))
        })
        .filter(|(_, s)| *s >= MIN_SHARE)
        .collect();
    sized.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(y.0)));
    sized.truncate(MAX_EXAMINED);
    let df = (n - 1) as f64;
    let tq = student_t_quantile(0.975, df);
    let mut list: Vec<FunctionMove> = sized
        .iter()
        .map(|(f, _)| {
            let fb: Vec<f64> = pairs
                .iter()
                .map(|(x, _)| x.0.get(*f).copied().unwrap_or(0.0) * x.1)
                .collect();
            let fa: Vec<f64> = pairs
                .iter()
                .map(|(_, y)| y.0.get(*f).copied().unwrap_or(0.0) * y.1)
                .collect();
            one_function(f, (&fb, &fa), tq, mean_tb, exact)
        })
        .collect();
    holm(&mut list, FAMILY_ALPHA);
    let change = mean_ta / mean_tb - 1.0;
    let listed: f64 = list.iter().map(|m| m.contribution).sum();
    list.sort_by(|x, y| {
        y.called
            .cmp(&x.called)
            .then_with(|| y.contribution.abs().total_cmp(&x.contribution.abs()))
            .then_with(|| x.name.cmp(&y.name))
    });
    let samples = [
        pairs.iter().map(|(x, _)| x.2).sum(),
        pairs.iter().map(|(_, y)| y.2).sum(),
    ];
    Some(Functions {
        summary: FunctionsSummary {
            sets: n,
            examined: list.len(),
            samples,
            unlisted_contribution: change - listed,
            change,
        },
        list,
    })
}

/// One function's figures from its per-set times before and after (paired by set).
fn one_function(
    name: &str,
    (fb, fa): (&[f64], &[f64]),
    tq: f64,
    mean_tb: f64,
    exact: &Exact,
) -> FunctionMove {
    let n = fb.len() as f64;
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / n;
    let d: Vec<f64> = fa.iter().zip(fb).map(|(a, b)| a - b).collect();
    let (mb, ma, md) = (mean(fb), mean(fa), mean(&d));
    let se = std_dev(&d) / n.sqrt();
    let delta_ci95 = [md - tq * se, md + tq * se];
    let p_value = match se > 0.0 {
        true => (2.0 * student_t_cdf(-(md / se).abs(), n - 1.0)).min(1.0),
        false if md == 0.0 => 1.0,
        false => 0.0,
    };
    let exact_delta = |e: &Option<ExactSelf>| e.as_ref().and_then(|e| e.delta(name));
    FunctionMove {
        name: name.to_string(),
        before_ns: mb,
        after_ns: ma,
        time_ratio: (mb > 0.0).then(|| ma / mb),
        time_ci95: fieller((fb, fa), tq),
        delta_ns: md,
        delta_ci95,
        contribution: md / mean_tb,
        contribution_ci95: delta_ci95.map(|x| x / mean_tb),
        p_value,
        called: false,
        instructions_delta: exact_delta(&exact.instructions),
        branch_mispredicts_delta: exact_delta(&exact.branch_mispredicts),
        d1_misses_delta: exact_delta(&exact.d1_misses),
        ll_misses_delta: exact_delta(&exact.ll_misses),
    }
}

/// Fieller's interval for `mean a / mean b` of paired values at the t quantile `tq`: the
/// ratios `r` with `(mean a - r mean b)^2 <= tq^2 var(mean a - r mean b)`. `None` when that set
/// is not a bounded interval (the before mean is not clearly above 0).
pub(crate) fn fieller((b, a): (&[f64], &[f64]), tq: f64) -> Option<[f64; 2]> {
    let n = b.len() as f64;
    if b.len() < 2 || a.len() != b.len() {
        return None;
    }
    let (mb, ma) = (b.iter().sum::<f64>() / n, a.iter().sum::<f64>() / n);
    let cov = |x: &[f64], mx: f64, y: &[f64], my: f64| {
        x.iter()
            .zip(y)
            .map(|(x, y)| (x - mx) * (y - my))
            .sum::<f64>()
            / (n - 1.0)
    };
    let (sbb, saa, sab) = (cov(b, mb, b, mb), cov(a, ma, a, ma), cov(a, ma, b, mb));
    let t2 = tq * tq / n;
    let qa = mb * mb - t2 * sbb;
    let qb = ma * mb - t2 * sab;
    let qc = ma * ma - t2 * saa;
    let disc = qb * qb - qa * qc;
    if qa <= 0.0 || disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    Some([(qb - root) / qa, (qb + root) / qa])
}

/// Holm's step-down procedure at family-wise `alpha`: marks `called` on the moves whose
/// p-values it rejects.
pub(crate) fn holm(moves: &mut [FunctionMove], alpha: f64) {
    let m = moves.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| moves[x].p_value.total_cmp(&moves[y].p_value));
    for (rank, i) in order.into_iter().enumerate() {
        if moves[i].p_value > alpha / (m - rank) as f64 {
            break;
        }
        moves[i].called = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stats::SplitMix64;

    /// A uniform draw in [0, 1).
    fn unit(rng: &mut SplitMix64) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Folded stacks of `samples` samples split among `weights` (function, weight), drawn at
    /// random (a multinomial sample, as a sampler's would be).
    fn profile(rng: &mut SplitMix64, weights: &[(&str, f64)], samples: u64) -> Folded {
        let total: f64 = weights.iter().map(|w| w.1).sum();
        let mut f = Folded::default();
        for _ in 0..samples {
            let mut x = unit(rng) * total;
            let mut pick = weights[weights.len() - 1].0;
            for (name, w) in weights {
                if x < *w {
                    pick = name;
                    break;
                }
                x -= w;
            }
            f.add("cfg", &["loop", pick], 1);
        }
        f
    }

    /// `sets` sets of both sides: per set a layout factor shared by every function of a side,
    /// functions' times per operation from `before` and `after` (ns), 150 samples a profile.
    fn sides(
        seed: u64,
        sets: usize,
        before: &[(&str, f64)],
        after: &[(&str, f64)],
    ) -> [(Vec<SetProfile>, BTreeMap<usize, f64>); 2] {
        let mut rng = SplitMix64(seed);
        [before, after].map(|fns| {
            let mut profiles = Vec::new();
            let mut times = BTreeMap::new();
            for k in 0..sets {
                let layout = 1.0 + 0.04 * (unit(&mut rng) - 0.5);
                let t: f64 = fns.iter().map(|f| f.1).sum::<f64>() * layout;
                times.insert(k, t);
                profiles.push(SetProfile {
                    set: k,
                    folded: profile(&mut rng, fns, 150),
                });
            }
            (profiles, times)
        })
    }

    fn run(seed: u64, before: &[(&str, f64)], after: &[(&str, f64)]) -> Functions {
        let [(pb, tb), (pa, ta)] = sides(seed, 40, before, after);
        functions((&pb, &tb), (&pa, &ta), &Exact::default()).unwrap()
    }

    const BASE: [(&str, f64); 4] = [
        ("parse", 40.0),
        ("write", 30.0),
        ("slow_u16", 20.0),
        ("memcpy", 10.0),
    ];

    #[test]
    fn a_shifted_function_is_called_first_and_the_contributions_add_up() {
        // slow_u16 takes 10 ns more per operation after: +10% of the row.
        let mut after = BASE;
        after[2].1 = 30.0;
        let f = run(7, &BASE, &after);
        let top = &f.list[0];
        assert_eq!(top.name, "slow_u16", "{:?}", f.list);
        assert!(top.called, "{top:?}");
        assert!(
            top.contribution_ci95[0] < 0.1 && 0.1 < top.contribution_ci95[1],
            "the interval holds the true +10%: {top:?}"
        );
        let ci = top.time_ci95.unwrap();
        assert!(ci[0] < 1.5 && 1.5 < ci[1] && ci[0] > 1.0, "{top:?}");
        // Everything else is unchanged; at most the one in twenty the family allows.
        let others = f.list.iter().filter(|m| m.called && m.name != "slow_u16");
        assert!(others.count() <= 1, "{:?}", f.list);
        let sum: f64 =
            f.list.iter().map(|m| m.contribution).sum::<f64>() + f.summary.unlisted_contribution;
        assert!(
            (sum - f.summary.change).abs() < 1e-9,
            "{sum} {:?}",
            f.summary
        );
        assert!((f.summary.change - 0.1).abs() < 0.03, "{:?}", f.summary);
        assert_eq!((f.summary.sets, f.summary.examined), (40, 4));
    }

    #[test]
    fn unchanged_rows_call_a_function_in_at_most_one_in_twenty() {
        let rows = 60;
        let calling = (0..rows)
            .filter(|&seed| run(1000 + seed, &BASE, &BASE).list.iter().any(|m| m.called))
            .count();
        // Holm at 5% family-wise: about 3 of 60 expected; 8 would be far in the tail.
        assert!(
            calling <= 8,
            "{calling} of {rows} null rows called a function"
        );
        // A null row's contributions still add up to its change.
        let f = run(3, &BASE, &BASE);
        let sum: f64 =
            f.list.iter().map(|m| m.contribution).sum::<f64>() + f.summary.unlisted_contribution;
        assert!((sum - f.summary.change).abs() < 1e-9);
    }

    #[test]
    fn holm_steps_down_and_stops_at_the_first_it_keeps() {
        let mv = |p: f64| FunctionMove {
            name: format!("{p}"),
            before_ns: 1.0,
            after_ns: 1.0,
            time_ratio: Some(1.0),
            time_ci95: None,
            delta_ns: 0.0,
            delta_ci95: [0.0, 0.0],
            contribution: 0.0,
            contribution_ci95: [0.0, 0.0],
            p_value: p,
            called: false,
            instructions_delta: None,
            branch_mispredicts_delta: None,
            d1_misses_delta: None,
            ll_misses_delta: None,
        };
        // m = 4: thresholds 0.0125, 0.0167, 0.025, 0.05.
        let mut moves: Vec<FunctionMove> = [0.03, 0.001, 0.016, 0.024].map(mv).into();
        holm(&mut moves, 0.05);
        let called: Vec<bool> = moves.iter().map(|m| m.called).collect();
        assert_eq!(called, [true, true, true, true]);
        let mut moves: Vec<FunctionMove> = [0.03, 0.001, 0.02, 0.04].map(mv).into();
        holm(&mut moves, 0.05);
        let called: Vec<bool> = moves.iter().map(|m| m.called).collect();
        // 0.001 <= 0.0125; 0.02 > 0.0167 stops it: 0.03 and 0.04 are kept though below 0.05.
        assert_eq!(called, [false, true, false, false]);
    }

    #[test]
    fn fiellers_interval_holds_the_ratio_and_is_unbounded_near_zero() {
        let b = [10.0, 11.0, 9.0, 10.5, 9.5];
        let a = [20.0, 22.5, 17.5, 21.0, 19.5];
        let ci = fieller((&b, &a), student_t_quantile(0.975, 4.0)).unwrap();
        assert!(ci[0] < 2.0 && 2.0 < ci[1] && ci[1] - ci[0] < 0.2, "{ci:?}");
        let zero = [0.1, -0.1, 0.2, -0.2, 0.0];
        assert!(fieller((&zero, &a), student_t_quantile(0.975, 4.0)).is_none());
    }

    #[test]
    fn exact_counts_are_per_operation_self_deltas() {
        let b = Folded::parse("cfg;loop;f 400\ncfg;loop 100\n").unwrap();
        let a = Folded::parse("cfg;loop;f 900\ncfg;loop;g 50\ncfg;loop 100\n").unwrap();
        let e = ExactSelf::of((&b, 2), (&a, 2));
        assert_eq!(e.delta("f"), Some(250.0));
        assert_eq!(e.delta("g"), Some(25.0));
        assert_eq!(e.delta("loop"), Some(0.0));
        assert_eq!(e.delta("h"), None);
    }

    #[test]
    fn too_few_sets_give_no_table() {
        let [(pb, tb), (pa, ta)] = sides(5, 2, &BASE, &BASE);
        assert!(functions((&pb, &tb), (&pa, &ta), &Exact::default()).is_none());
    }
}
