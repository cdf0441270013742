//! The regression gate (`serprof check`): per configuration, the exact figures of two runs
//! (instructions, allocations and bytes allocated per operation, payload bytes), each change in
//! percent, and which ones pass the threshold. Times are not gated: they are not exact.

use serde::{Deserialize, Serialize};

use crate::model::ConfigResult;

/// One gated figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Metric {
    Instructions,
    Allocations,
    BytesAllocated,
    PayloadBytes,
}

impl Metric {
    pub(crate) const ALL: [Metric; 4] = [
        Metric::Instructions,
        Metric::Allocations,
        Metric::BytesAllocated,
        Metric::PayloadBytes,
    ];

    /// The name in tables and in Bencher's metric format.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Metric::Instructions => "instructions",
            Metric::Allocations => "allocations",
            Metric::BytesAllocated => "bytes-allocated",
            Metric::PayloadBytes => "payload-bytes",
        }
    }

    /// The figure of `r`, per operation (payload: mean bytes per value).
    pub(crate) fn of(self, r: &ConfigResult) -> Option<f64> {
        match self {
            Metric::Instructions => r.instructions.as_ref().map(|i| i.per_op),
            Metric::Allocations => r.alloc.as_ref().map(|a| a.allocs_per_op),
            Metric::BytesAllocated => r.alloc.as_ref().map(|a| a.bytes_per_op),
            Metric::PayloadBytes => r.payload_bytes,
        }
    }
}

/// What happened to one figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    Same,
    /// Changed by no more than the threshold.
    Within,
    Regression,
    Improvement,
}

/// One figure of one configuration in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub config: String,
    pub metric: Metric,
    pub baseline: f64,
    pub current: f64,
    /// (current - baseline) / baseline, in percent.
    pub percent: f64,
    pub verdict: Verdict,
}

/// Every figure both runs have, of every configuration both have (in `current`'s order). A
/// larger figure is worse for every metric (a larger payload too).
pub(crate) fn check(
    baseline: &[ConfigResult],
    current: &[ConfigResult],
    max_regression_percent: f64,
) -> Vec<Change> {
    let mut out = Vec::new();
    for c in current {
        let Some(b) = baseline.iter().find(|b| b.name() == c.name()) else {
            continue;
        };
        for metric in Metric::ALL {
            let (Some(base), Some(cur)) = (metric.of(b), metric.of(c)) else {
                continue;
            };
            let percent = if base == cur {
                0.0
            } else if base == 0.0 {
                f64::INFINITY
            } else {
                100.0 * (cur - base) / base
            };
            let verdict = if base == cur {
                Verdict::Same
            } else if percent > max_regression_percent {
                Verdict::Regression
            } else if percent < -max_regression_percent {
                Verdict::Improvement
            } else {
                Verdict::Within
            };
            out.push(Change {
                config: c.name(),
                metric,
                baseline: base,
                current: cur,
                percent,
                verdict,
            });
        }
    }
    out
}

/// Bencher's metric format (BMF JSON): `{ "<configuration>": { "<metric>": { "value": x } } }`
/// of `results`, for a continuous-benchmarking server to track over commits.
pub(crate) fn bmf(results: &[ConfigResult]) -> serde_json::Value {
    let mut doc = serde_json::Map::new();
    for r in results {
        let mut metrics = serde_json::Map::new();
        for m in Metric::ALL {
            if let Some(v) = m.of(r) {
                metrics.insert(m.name().into(), serde_json::json!({ "value": v }));
            }
        }
        if let Some(t) = &r.time_ns {
            metrics.insert(
                "latency".into(),
                serde_json::json!({ "value": t.median, "lower_value": t.ci95[0], "upper_value": t.ci95[1] }),
            );
        }
        if !metrics.is_empty() {
            doc.insert(r.name(), serde_json::Value::Object(metrics));
        }
    }
    serde_json::Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::InstructionStats;

    fn result(config: &str, instr: f64, payload: f64) -> ConfigResult {
        let info = crate::model::program::builtin()
            .find(&format!("formats/{config}"))
            .unwrap()
            .info;
        let mut r = ConfigResult::new(&info);
        r.payload_bytes = Some(payload);
        r.instructions = Some(InstructionStats {
            per_op: instr,
            ops: 400,
            total: (instr * 400.0) as u64,
            loop_fn: "l".into(),
            tool_version: "valgrind-3.19.0".into(),
            seconds: 1.0,
            ..InstructionStats::default()
        });
        r
    }

    #[test]
    fn identical_runs_change_nothing_and_growth_past_the_threshold_regresses() {
        let base = vec![
            result("postcard", 1000.0, 70.0),
            result("bincode", 2000.0, 80.0),
        ];
        let same = check(&base, &base, 1.0);
        assert_eq!(same.len(), 4);
        assert!(same.iter().all(|c| c.verdict == Verdict::Same));
        let cur = vec![
            result("postcard", 1020.0, 70.0),
            result("bincode", 2010.0, 79.0),
        ];
        let changes = check(&base, &cur, 1.0);
        let verdict = |config: &str, m: Metric| {
            changes
                .iter()
                .find(|c| c.config == format!("formats/{config}") && c.metric == m)
                .unwrap()
                .verdict
        };
        assert_eq!(
            verdict("postcard", Metric::Instructions),
            Verdict::Regression
        );
        assert_eq!(verdict("bincode", Metric::Instructions), Verdict::Within);
        assert_eq!(
            verdict("bincode", Metric::PayloadBytes),
            Verdict::Improvement
        );
        assert_eq!(verdict("postcard", Metric::PayloadBytes), Verdict::Same);
        // Only configurations both runs have are compared.
        assert!(check(&base[..1], &cur, 1.0)
            .iter()
            .all(|c| c.config == "formats/postcard"));
    }

    #[test]
    fn bmf_names_each_configuration_and_metric() {
        let doc = bmf(&[result("postcard", 1000.0, 70.0)]);
        assert_eq!(doc["formats/postcard"]["instructions"]["value"], 1000.0);
        assert_eq!(doc["formats/postcard"]["payload-bytes"]["value"], 70.0);
    }
}
