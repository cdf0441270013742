//! Before/after arithmetic for `serprof compare` and `serprof ab`: the time ratio with its
//! interval, payload and allocation deltas, and the functions whose share of CPU samples moved.
//! No IO here: `commands::compare` finds the folders, reads them and writes the outputs.
//!
//! "Moved" needs two things at once, so that comparing a profile with itself (or with a rerun
//! of the same code) shows nothing: the share changed by at least [`MIN_DELTA_PP`] percentage
//! points, and by more than sampling noise allows (a two-proportion z-test on the sample
//! counts, |z| > [`MIN_Z`]). The z-test alone treats samples as independent, and two processes
//! of one binary differ by more than that (heap and code layout, the machine's state), so the
//! points threshold is the one measured on A/A pairs. `compare`, `ab` and `before-after` all
//! list CPU-share moves by this one rule.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serprof_api::Operation;

use super::hotspots::{compute, Hotspots};
use crate::model::stats::{ratio_of_medians, RatioMethod, RatioStats, TimeStats};
use crate::model::ConfigResult;
use crate::profile::folded::Folded;

/// A share must move by at least this many percentage points to be listed. From
/// `scripts/aa-shares.py --runs 5`: of 80 A/A comparisons (8 configurations of `bytes` and
/// `formats`, every pair of 5 CPU recordings of one binary in separate pinned processes, 1,000
/// samples each), 26.2% list a move of at least 2 points, 7.5% one of 5 points, 3.8% one of 6,
/// none one of 7; the largest is 6.3 points (`decode_base64_table`). At 7 points: 0 of 80 (a
/// false-alarm rate of at most about 4% at 95% confidence).
pub(crate) const MIN_DELTA_PP: f64 = 7.0;
/// ... and by more than this many standard errors (two-proportion z-test).
pub(crate) const MIN_Z: f64 = 3.0;

/// The rule behind the moved lists, in words, for outputs.
pub(crate) fn moved_rule() -> String {
    format!(
        "|change of share| >= {MIN_DELTA_PP} percentage points and |z| > {MIN_Z} (two-proportion z-test on the CPU sample counts of cpu.folded)"
    )
}

/// The ratio after/before from both sides' timing processes, paired by round: lock-step
/// ratios when both were measured in one schedule (a run's rows, a before-after's sides, an ab
/// folder's A and B), else pairs of independent processes.
///
/// When both sides' processes ran layouts of their own (a before-after's sides, each set of
/// children in another pair of layouts), the ratio is the layout-averaged one with a t interval
/// over the sets ([`RatioStats::layout_mean`]), and the row carries both sides' layout spreads.
pub(crate) fn process_ratio(before: &TimeStats, after: &TimeStats) -> Option<TimeComparison> {
    let lock_step = RatioStats::lock_step(before, after);
    let over_layouts = lock_step && before.layout_spread.is_some() && after.layout_spread.is_some();
    let (r, method) = match (over_layouts, lock_step) {
        (true, _) => (
            RatioStats::by_round_over_layouts(after, before)?,
            RatioMethod::LayoutMeans,
        ),
        (false, true) => (RatioStats::by_round(after, before)?, RatioMethod::LockStep),
        (false, false) => (
            RatioStats::by_round(after, before)?,
            RatioMethod::ProcessPairs,
        ),
    };
    Some(TimeComparison {
        before_ns: before.median,
        after_ns: after.median,
        ratio: r.ratio,
        ci95: r.ci95,
        method,
        samples: r.pairs,
        before_layout_spread: before.layout_spread,
        after_layout_spread: after.layout_spread,
    })
}

/// Which share of a function moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ShareKind {
    /// Samples where the function is the leaf (its own code).
    #[serde(rename = "self")]
    SelfTime,
    /// Samples where the function is anywhere on the stack.
    Inclusive,
}

/// A function whose share of samples moved beyond noise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MovedFunction {
    pub function: String,
    pub kind: ShareKind,
    pub before_percent: f64,
    pub after_percent: f64,
    /// `after_percent - before_percent`, in percentage points.
    pub delta_pp: f64,
    /// The two-proportion z statistic of the change.
    pub z: f64,
}

/// The z statistic of the change from `x1` of `n1` to `x2` of `n2` (pooled standard error).
/// Zero when the proportions are equal or either side has no samples.
pub(crate) fn two_proportion_z(x1: u64, n1: u64, x2: u64, n2: u64) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 0.0;
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let (p1, p2) = (x1 as f64 / n1f, x2 as f64 / n2f);
    let pooled = (x1 + x2) as f64 / (n1f + n2f);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1f + 1.0 / n2f)).sqrt();
    if se == 0.0 {
        0.0
    } else {
        (p2 - p1) / se
    }
}

/// Sample counts per function of one kind, from a hotspot table.
fn counts(h: &Hotspots, kind: ShareKind) -> BTreeMap<&str, u64> {
    h.rows
        .iter()
        .map(|r| {
            let n = match kind {
                ShareKind::SelfTime => r.self_samples,
                ShareKind::Inclusive => r.total_samples,
            };
            (r.function.as_str(), n)
        })
        .collect()
}

/// The functions whose self or inclusive share moved between two profiles (see the module
/// doc for the rule), largest change first. Identical profiles give an empty list.
pub(crate) fn moved_functions(before: &Folded, after: &Folded) -> Vec<MovedFunction> {
    let (hb, ha) = (compute(before, None, None), compute(after, None, None));
    let mut moved = Vec::new();
    for kind in [ShareKind::SelfTime, ShareKind::Inclusive] {
        let (cb, ca) = (counts(&hb, kind), counts(&ha, kind));
        let names: BTreeSet<&str> = cb.keys().chain(ca.keys()).copied().collect();
        for f in names {
            let (xb, xa) = (
                cb.get(f).copied().unwrap_or(0),
                ca.get(f).copied().unwrap_or(0),
            );
            let pct = |x: u64, n: u64| {
                if n == 0 {
                    0.0
                } else {
                    100.0 * x as f64 / n as f64
                }
            };
            let (before_percent, after_percent) = (pct(xb, hb.total), pct(xa, ha.total));
            let delta_pp = after_percent - before_percent;
            let z = two_proportion_z(xb, hb.total, xa, ha.total);
            if delta_pp.abs() >= MIN_DELTA_PP && z.abs() > MIN_Z {
                moved.push(MovedFunction {
                    function: f.to_string(),
                    kind,
                    before_percent,
                    after_percent,
                    delta_pp,
                    z,
                });
            }
        }
    }
    moved.sort_by(|a, b| {
        b.delta_pp
            .abs()
            .total_cmp(&a.delta_pp.abs())
            .then(a.function.cmp(&b.function))
    });
    moved
}

/// `folded` with every stack's root frame (the configuration's name) replaced by `root`, so
/// that the differential flame graph of two differently named configurations lines up.
pub(crate) fn with_root(folded: &Folded, root: &str) -> Folded {
    let mut out = Folded::default();
    for (frames, count) in folded.iter() {
        let rest = frames.get(1..).unwrap_or(&[]);
        out.add(root, rest, count);
    }
    out
}

/// Splits `s` at `sep` where it is outside `<...>`, `(...)` and `[...]` (a `->` is not a
/// closing bracket).
fn split_top<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0usize);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b']' => depth -= 1,
            _ if depth == 0 && s[i..].starts_with(sep) => {
                parts.push(&s[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&s[start..]);
    parts
}

/// A path segment without its generic arguments (`IndexMap<K,V,S>` -> `IndexMap`).
fn without_generics(segment: &str) -> &str {
    segment.find('<').map_or(segment, |i| &segment[..i])
}

/// A type's last path segment without generic arguments, keeping `&`, `&mut ` and `dyn `.
fn short_type(t: &str) -> String {
    let t = t.trim();
    for prefix in ["&mut ", "&", "dyn ", "*const ", "*mut "] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return format!("{prefix}{}", short_type(rest));
        }
    }
    let last = split_top(t, "::").last().copied().unwrap_or(t);
    without_generics(last).to_string()
}

/// A compact but unambiguous name for tables: `<&mut Serializer as SerializeStruct>::
/// serialize_field` instead of hotspots' `serialize_field`, because a moved list often holds
/// several functions of one name (every `serialize`) that differ only by their type and trait.
/// Full names stay in `compare.json`.
pub(crate) fn compact_name(function: &str) -> String {
    let segments = split_top(function, "::");
    let first = segments
        .iter()
        .rposition(|s| s.starts_with('<'))
        .unwrap_or(segments.len().saturating_sub(2));
    segments[first..]
        .iter()
        .map(
            |seg| match seg.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                Some(inner) => {
                    let (kw, rest) = match inner.strip_prefix("impl ") {
                        Some(rest) => (" for ", rest),
                        None => (" as ", inner),
                    };
                    let parts = split_top(rest, kw);
                    let names: Vec<String> = parts.iter().map(|p| short_type(p)).collect();
                    let lead = if kw == " for " { "impl " } else { "" };
                    format!("<{lead}{}>", names.join(kw))
                }
                None => without_generics(seg).to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("::")
}

/// A time ratio after/before with its 95% interval and how it was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TimeComparison {
    pub before_ns: f64,
    pub after_ns: f64,
    /// after / before: below 1 is faster.
    pub ratio: f64,
    pub ci95: [f64; 2],
    #[serde(default)]
    pub method: RatioMethod,
    /// Batches (bootstrap) or pairs (interleaved) behind the interval.
    pub samples: usize,
    /// How much layout alone moves each side's time ([`TimeStats::layout_spread`]); null when
    /// the side ran one binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_layout_spread: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_layout_spread: Option<f64>,
}

impl TimeComparison {
    /// The larger of the two sides' layout spreads, if both were timed over layouts.
    pub(crate) fn layout_spread(&self) -> Option<f64> {
        Some(self.before_layout_spread?.max(self.after_layout_spread?))
    }
}

impl TimeComparison {
    /// Whether the interval holds 1.0 (no difference shown).
    #[cfg(test)]
    pub(crate) fn contains_one(&self) -> bool {
        self.ci95[0] <= 1.0 && 1.0 <= self.ci95[1]
    }
}

/// The bootstrap ratio of medians after/before over both sides' batches: for files of one
/// timing process, whose batches are all there is. Its interval is too narrow
/// for anything but the one process pair it describes.
pub(crate) fn bootstrap_ratio(before: &TimeStats, after: &TimeStats) -> Option<TimeComparison> {
    let (ratio, ci95) = ratio_of_medians(&after.batches, &before.batches)?;
    Some(TimeComparison {
        before_ns: before.median,
        after_ns: after.median,
        ratio,
        ci95,
        method: RatioMethod::Bootstrap,
        before_layout_spread: None,
        after_layout_spread: None,
        samples: before.batches.len().min(after.batches.len()),
    })
}

/// The median of pair ratios and its order-statistics 95% interval (non-finite ratios are
/// dropped). `None` without any ratio.
pub(crate) fn median_of_pairs(pair_ratios: &[f64]) -> Option<(f64, [f64; 2])> {
    RatioStats::of_pairs(pair_ratios).map(|r| (r.ratio, r.ci95))
}

/// The interleaved ratio after/before from `serprof ab`'s pair ratios (already oriented
/// after/before by the caller).
pub(crate) fn interleaved_ratio(
    before: &TimeStats,
    after: &TimeStats,
    pair_ratios: &[f64],
) -> Option<TimeComparison> {
    let (ratio, ci95) = median_of_pairs(pair_ratios)?;
    Some(TimeComparison {
        before_ns: before.median,
        after_ns: after.median,
        ratio,
        ci95,
        method: RatioMethod::Interleaved,
        samples: pair_ratios.len(),
        before_layout_spread: None,
        after_layout_spread: None,
    })
}

/// A figure before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Delta {
    pub before: f64,
    pub after: f64,
    /// `after - before`.
    pub delta: f64,
    /// The change in percent of `before` (null when `before` is 0).
    pub percent: Option<f64>,
}

/// The delta of a figure both sides have.
pub(crate) fn delta(before: Option<f64>, after: Option<f64>) -> Option<Delta> {
    let (b, a) = (before?, after?);
    Some(Delta {
        before: b,
        after: a,
        delta: a - b,
        percent: (b != 0.0).then(|| 100.0 * (a - b) / b),
    })
}

/// Why two results cannot be compared (different dataset or operation), or `None`.
pub(crate) fn incompatibility(before: &ConfigResult, after: &ConfigResult) -> Option<String> {
    if before.dataset != after.dataset {
        return Some(format!(
            "dataset {} differs from the before side's {}",
            after.dataset, before.dataset
        ));
    }
    if before.operation != after.operation {
        return Some(format!(
            "operation {} differs from the before side's {}",
            after.operation, before.operation
        ));
    }
    None
}

/// Instructions per operation before and after, exactly, and where they moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InstructionComparison {
    pub before_per_op: f64,
    pub after_per_op: f64,
    /// after - before, per operation (exact: both sides are counts).
    pub delta_per_op: f64,
    /// after / before.
    pub ratio: f64,
    /// Functions by the change of their inclusive instructions per operation, largest first
    /// (from both sides' `instructions.folded`); empty without both profiles.
    pub moved: Vec<InstructionMove>,
}

/// One function's inclusive instructions per operation before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InstructionMove {
    pub function: String,
    pub before_per_op: f64,
    pub after_per_op: f64,
    pub delta_per_op: f64,
    /// The same of its self instructions (where its own code ran).
    pub self_delta_per_op: f64,
    /// A layout effect rather than changed work ([`is_layout_effect`]): shown apart.
    #[serde(default)]
    pub layout: bool,
}

/// Whether an instruction move looks like a layout effect: a libc memory or string routine
/// (`memcmp`, `__memmove_avx_unaligned_erms`, `strlen`, ...: their counts follow the
/// alignment of the buffers they are given, which moves when code or heap layout does), or a
/// change under 1% of the function's own count (a branch taken a little more or less often
/// after the code around it moved), when the function ran on both sides.
pub(crate) fn is_layout_effect(function: &str, before_per_op: f64, after_per_op: f64) -> bool {
    let bare = function.trim_start_matches('_');
    let libc_routine = ["mem", "str", "wmem", "wcs"]
        .iter()
        .any(|p| bare.starts_with(p))
        && !function.contains("::");
    let both = before_per_op > 0.0 && after_per_op > 0.0;
    let small = (after_per_op - before_per_op).abs() < 0.01 * before_per_op.max(after_per_op);
    libc_routine || (both && small)
}

/// The moves that are changed work, then the layout effects, each in the order given.
pub(crate) fn work_and_layout(
    moved: &[InstructionMove],
) -> (Vec<&InstructionMove>, Vec<&InstructionMove>) {
    moved.iter().partition(|m| !m.layout)
}

/// Functions whose instructions per operation moved, by |inclusive change| (then name).
/// Counts are exact, so every change is real: functions with no change are left out, and the
/// list is cut at `limit`. Left out too: the measured loop itself (its change is the total),
/// and callers that only pass a callee's change on (a callee moved by at least 95% of the
/// caller's inclusive change, in the same direction), so the list starts at the function
/// where the work changed, not at the chain of frames above it.
pub(crate) fn instruction_moves(
    before: &Folded,
    before_ops: u64,
    after: &Folded,
    after_ops: u64,
    limit: usize,
) -> Vec<InstructionMove> {
    let (b, a) = (compute(before, None, None), compute(after, None, None));
    let per = |h: &Hotspots, ops: u64| -> BTreeMap<String, (f64, f64)> {
        h.rows
            .iter()
            .map(|r| {
                (
                    r.function.clone(),
                    (
                        r.total_samples as f64 / ops.max(1) as f64,
                        r.self_samples as f64 / ops.max(1) as f64,
                    ),
                )
            })
            .collect()
    };
    let (pb, pa) = (per(&b, before_ops), per(&a, after_ops));
    let names: BTreeSet<&String> = pb.keys().chain(pa.keys()).collect();
    // Caller -> callees, and the loop frames (the first frame below the root), of both sides.
    let mut callees: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut loops: BTreeSet<String> = BTreeSet::new();
    for f in [before, after] {
        for (frames, _) in f.iter() {
            let funcs = frames.get(1..).unwrap_or(&[]);
            if let Some(first) = funcs.first() {
                loops.insert(first.to_string());
            }
            for w in funcs.windows(2) {
                if w[0] != w[1] {
                    callees
                        .entry(w[0].to_string())
                        .or_default()
                        .insert(w[1].to_string());
                }
            }
        }
    }
    let delta_of = |f: &str| pa.get(f).map_or(0.0, |x| x.0) - pb.get(f).map_or(0.0, |x| x.0);
    let passes_on = |f: &str| {
        let d = delta_of(f);
        callees.get(f).is_some_and(|cs| {
            cs.iter().any(|c| {
                let dc = delta_of(c);
                dc.signum() == d.signum() && dc.abs() >= 0.95 * d.abs()
            })
        })
    };
    let mut moves: Vec<InstructionMove> = names
        .into_iter()
        .map(|f| {
            let (bt, bs) = pb.get(f).copied().unwrap_or((0.0, 0.0));
            let (at, as_) = pa.get(f).copied().unwrap_or((0.0, 0.0));
            InstructionMove {
                function: f.clone(),
                before_per_op: bt,
                after_per_op: at,
                delta_per_op: at - bt,
                self_delta_per_op: as_ - bs,
                layout: is_layout_effect(f, bt, at),
            }
        })
        .filter(|m| m.delta_per_op != 0.0 || m.self_delta_per_op != 0.0)
        .filter(|m| !loops.contains(&m.function) && !passes_on(&m.function))
        .collect();
    moves.sort_by(|x, y| {
        y.delta_per_op
            .abs()
            .total_cmp(&x.delta_per_op.abs())
            .then_with(|| x.function.cmp(&y.function))
    });
    moves.truncate(limit);
    moves
}

/// Everything `compare` says about one configuration (written as `compare.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ConfigComparison {
    /// `STUDY/CONFIG` of each side.
    pub before: String,
    pub after: String,
    pub before_dir: String,
    pub after_dir: String,
    pub dataset: String,
    pub operation: Operation,
    /// Null when a side has no timing (it failed).
    pub time: Option<TimeComparison>,
    pub payload_bytes: Option<Delta>,
    pub allocs_per_op: Option<Delta>,
    pub bytes_per_op: Option<Delta>,
    pub peak_live_bytes: Option<Delta>,
    /// CPU samples of each side, when both have a profile.
    pub cpu_samples: Option<[u64; 2]>,
    /// Functions whose share moved (see `moved_rule`); null without both profiles.
    pub moved: Option<Vec<MovedFunction>>,
    pub moved_rule: String,
    /// The output folder, and the flame graphs in it (null when not drawn).
    pub out_dir: String,
    pub diff_svg: Option<String>,
    pub diff_reverse_svg: Option<String>,
    /// Instructions per operation (when both sides have an instructions recording).
    #[serde(default)]
    pub instructions: Option<InstructionComparison>,
    /// The differential flame graph of instructions, when drawn.
    #[serde(default)]
    pub instructions_diff_svg: Option<String>,
    /// What is missing or odd (a failed side, no profile, ...).
    pub notes: Vec<String>,
}

/// Compares two results; `profiles` are both sides' CPU profiles when both have one, and
/// `pair_ratios` the interleaved after/before ratios when both sides come from one `ab` run.
/// Paths and flame graphs are the caller's to fill in.
pub(crate) fn compare_results(
    before: &ConfigResult,
    after: &ConfigResult,
    profiles: Option<(&Folded, &Folded)>,
    pair_ratios: Option<&[f64]>,
    instruction_profiles: Option<(&Folded, &Folded)>,
) -> ConfigComparison {
    let mut notes = Vec::new();
    for (side, r) in [("before", before), ("after", after)] {
        if let Some(e) = &r.error {
            notes.push(format!("{side} side failed: {e}"));
        }
    }
    let time = match (&before.time_ns, &after.time_ns, pair_ratios) {
        (Some(b), Some(a), _) if RatioStats::lock_step(b, a) => process_ratio(b, a),
        (Some(b), Some(a), Some(pairs)) => interleaved_ratio(b, a, pairs),
        (Some(b), Some(a), None) => process_ratio(b, a).or_else(|| bootstrap_ratio(b, a)),
        _ => None,
    };
    let alloc = |f: fn(&crate::model::AllocStats) -> f64| {
        delta(before.alloc.as_ref().map(f), after.alloc.as_ref().map(f))
    };
    ConfigComparison {
        before: before.name(),
        after: after.name(),
        before_dir: String::new(),
        after_dir: String::new(),
        dataset: after.dataset.clone(),
        operation: after.operation,
        time,
        payload_bytes: delta(before.payload_bytes, after.payload_bytes),
        allocs_per_op: alloc(|a| a.allocs_per_op),
        bytes_per_op: alloc(|a| a.bytes_per_op),
        peak_live_bytes: alloc(|a| a.peak_live_bytes as f64),
        cpu_samples: profiles.map(|(b, a)| [b.total(), a.total()]),
        moved: profiles.map(|(b, a)| moved_functions(b, a)),
        moved_rule: moved_rule(),
        out_dir: String::new(),
        diff_svg: None,
        diff_reverse_svg: None,
        instructions: match (&before.instructions, &after.instructions) {
            (Some(b), Some(a)) => Some(InstructionComparison {
                before_per_op: b.per_op,
                after_per_op: a.per_op,
                delta_per_op: a.per_op - b.per_op,
                ratio: a.per_op / b.per_op,
                moved: instruction_profiles
                    .map(|(fb, fa)| instruction_moves(fb, b.ops, fa, a.ops, 20))
                    .unwrap_or_default(),
            }),
            _ => None,
        },
        instructions_diff_svg: None,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Folded {
        Folded::parse(text).unwrap()
    }

    #[test]
    fn z_statistic_matches_a_hand_computation() {
        // 30/100 -> 50/100: pooled 0.4, se = sqrt(0.4 * 0.6 * 0.02) = 0.069282, z = 2.88675.
        let z = two_proportion_z(30, 100, 50, 100);
        assert!((z - 2.886_751).abs() < 1e-5, "{z}");
        assert_eq!(two_proportion_z(3, 10, 3, 10), 0.0);
        assert_eq!(two_proportion_z(0, 10, 0, 20), 0.0);
        assert_eq!(two_proportion_z(1, 0, 1, 10), 0.0);
        assert!(two_proportion_z(50, 100, 30, 100) < 0.0);
    }

    #[test]
    fn a_profile_compared_with_itself_moves_nothing() {
        let p = folded("cfg;main;parse 600\ncfg;main;parse;memcpy 300\ncfg;main;write 100\n");
        assert!(moved_functions(&p, &p).is_empty());
        // Same shares at another sample count: still nothing.
        let twice = folded("x;main;parse 1200\nx;main;parse;memcpy 600\nx;main;write 200\n");
        assert!(moved_functions(&p, &twice).is_empty());
    }

    #[test]
    fn small_or_noisy_changes_are_not_moves() {
        // 1.5 points on 40,000 samples: significant (z ~ 4.2) but below 2 points.
        let b = folded("cfg;a 20000\ncfg;b 20000\n");
        let a = folded("cfg;a 20600\ncfg;b 19400\n");
        assert!(two_proportion_z(20000, 40000, 20600, 40000) > MIN_Z);
        assert!(moved_functions(&b, &a).is_empty());
        // 10 points on 100 samples: big but within noise (z ~ 1.4).
        let b = folded("cfg;a 50\ncfg;b 50\n");
        let a = folded("cfg;a 60\ncfg;b 40\n");
        assert!(two_proportion_z(50, 100, 60, 100).abs() < MIN_Z);
        assert!(moved_functions(&b, &a).is_empty());
    }

    #[test]
    fn a_vanishing_frame_moves_in_self_and_inclusive_shares() {
        // Before: decode spends 400 of 1,000 samples in seq_u8 under decode.
        let b = folded("cfg;main;decode;seq_u8 400\ncfg;main;decode 300\ncfg;main;encode 300\n");
        // After: seq_u8 is gone; decode keeps 150 of its own, encode is the rest.
        let a = folded("other;main;decode 150\nother;main;encode 350\n");
        let moved = moved_functions(&b, &a);
        let find = |f: &str, k: ShareKind| {
            moved
                .iter()
                .find(|m| m.function == f && m.kind == k)
                .cloned()
        };
        let seq = find("seq_u8", ShareKind::SelfTime).unwrap();
        assert_eq!((seq.before_percent, seq.after_percent), (40.0, 0.0));
        assert_eq!(seq.delta_pp, -40.0);
        assert!(seq.z < -MIN_Z);
        let enc = find("encode", ShareKind::SelfTime).unwrap();
        assert_eq!(enc.delta_pp, 40.0);
        // decode inclusive: 70% -> 30%; decode self: 30% -> 30% does not move.
        assert_eq!(
            find("decode", ShareKind::Inclusive).unwrap().delta_pp,
            -40.0
        );
        assert!(find("decode", ShareKind::SelfTime).is_none());
        // main is 100% of both: never moves. Largest change first.
        assert!(moved.iter().all(|m| m.function != "main"));
        assert!(moved
            .windows(2)
            .all(|w| w[0].delta_pp.abs() >= w[1].delta_pp.abs()));
    }

    #[test]
    fn compact_names_keep_type_and_trait() {
        let cases = [
            (
                "<core::marker::PhantomData<T> as serde_core::de::DeserializeSeed>::deserialize",
                "<PhantomData as DeserializeSeed>::deserialize",
            ),
            (
                "<&mut postcard::ser::serializer::Serializer<F> as serde_core::ser::SerializeStruct>::serialize_field",
                "<&mut Serializer as SerializeStruct>::serialize_field",
            ),
            (
                "serprof_engines::model::order::_::<impl serde_core::ser::Serialize for serprof_engines::model::order::Tags>::serialize",
                "<impl Serialize for Tags>::serialize",
            ),
            ("indexmap::map::IndexMap<K,V,S>::hash", "IndexMap::hash"),
            ("alloc::alloc::dealloc", "alloc::dealloc"),
            ("memcpy", "memcpy"),
            (
                "core::ops::function::FnOnce<(), Output = i32>::call_once",
                "FnOnce::call_once",
            ),
        ];
        for (full, short) in cases {
            assert_eq!(compact_name(full), short, "{full}");
        }
    }

    #[test]
    fn roots_are_renamed_and_stacks_merged() {
        let f = folded("cfg-a;main;x 2\ncfg-a;main;y 1\n");
        assert_eq!(
            with_root(&f, "both").to_text(),
            "both;main;x 2\nboth;main;y 1\n"
        );
    }

    #[test]
    fn ratios_deltas_and_intervals() {
        let before = TimeStats::from_batches(vec![100.0; 20], 10).unwrap();
        let after = TimeStats::from_batches(vec![80.0; 20], 10).unwrap();
        let t = bootstrap_ratio(&before, &after).unwrap();
        assert_eq!((t.ratio, t.ci95), (0.8, [0.8, 0.8]));
        assert!(!t.contains_one());
        let pairs: Vec<f64> = (0..101).map(|i| 0.95 + f64::from(i) * 0.001).collect();
        let t = interleaved_ratio(&before, &after, &pairs).unwrap();
        assert!((t.ratio - 1.0).abs() < 1e-12 && t.contains_one());
        assert_eq!(t.samples, 101);
        assert!(median_of_pairs(&[f64::NAN]).is_none());
        let d = delta(Some(200.0), Some(150.0)).unwrap();
        assert_eq!((d.delta, d.percent), (-50.0, Some(-25.0)));
        assert_eq!(delta(Some(0.0), Some(1.0)).unwrap().percent, None);
        assert!(delta(None, Some(1.0)).is_none());
    }
}
