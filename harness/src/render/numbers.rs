//! Numbers as the tables write them: times and ratios with their intervals.

use crate::model::stats::RatioStats;
use crate::model::ConfigResult;

/// `845 ns`, `25.1 µs`, `3.21 ms`, `1.20 s`.
pub(crate) fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "-".into()
    } else if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// The ratio `r / reference` with its interval, from their timing processes of the same rounds;
/// `None` without paired processes (files of one process).
pub(crate) fn paired_ratio(r: &ConfigResult, reference: &ConfigResult) -> Option<RatioStats> {
    RatioStats::by_round(r.time_ns.as_ref()?, reference.time_ns.as_ref()?)
}

/// `1.68x [1.62, 1.71]`, with `within noise` when the interval holds 1.
pub(crate) fn format_ratio(r: &RatioStats) -> String {
    let noise = if r.within_noise() {
        " within noise"
    } else {
        ""
    };
    format!(
        "{:.2}x [{:.2}, {:.2}]{noise}",
        r.ratio, r.ci95[0], r.ci95[1]
    )
}
