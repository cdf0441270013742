//! The regression gate (`serprof check`): per configuration, the exact figures of two runs
//! (instructions, allocations and bytes allocated per operation, payload bytes), each change in
//! percent, and which ones pass the threshold; what one run has and the other has not is named,
//! not skipped. Times are not gated: they are not exact.

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

/// What happened to one figure (its word in `check`'s text and JSON alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Change {
    Same,
    /// Changed by no more than the threshold.
    Within,
    Regression,
    Improvement,
}

impl Change {
    /// The word `check` prints (the JSON spelling too).
    pub(crate) fn word(self) -> &'static str {
        match self {
            Change::Same => "same",
            Change::Within => "within",
            Change::Regression => "regression",
            Change::Improvement => "improvement",
        }
    }
}

/// One figure of one configuration in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MetricChange {
    pub config: String,
    pub metric: Metric,
    pub baseline: f64,
    pub current: f64,
    /// (current - baseline) / baseline, in percent.
    pub percent: f64,
    pub verdict: Change,
}

/// Which of the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CheckedRun {
    Baseline,
    Current,
}

impl CheckedRun {
    pub(crate) fn word(self) -> &'static str {
        match self {
            CheckedRun::Baseline => "baseline",
            CheckedRun::Current => "current",
        }
    }
}

/// What one run has and the other has not, so that nothing is compared: a figure of a
/// configuration both have (`metric`), or a whole configuration (`metric` none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Absent {
    pub config: String,
    pub metric: Option<Metric>,
    /// The run that lacks it.
    pub from: CheckedRun,
}

/// What `check` found: every figure both runs have, what only one has, and the metrics neither
/// run has for any configuration they share (not gated).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Checked {
    pub compared: Vec<MetricChange>,
    pub absent: Vec<Absent>,
    pub unmeasured: Vec<Metric>,
}

/// Every figure both runs have, of every configuration both have (in `current`'s order), and
/// what one run has without the other. A larger figure is worse for every metric (a larger
/// payload too).
pub(crate) fn check(
    baseline: &[ConfigResult],
    current: &[ConfigResult],
    max_regression_percent: f64,
) -> Checked {
    let mut out = Checked::default();
    let mut seen = [false; Metric::ALL.len()];
    for c in current {
        let Some(b) = baseline.iter().find(|b| b.name() == c.name()) else {
            out.absent.push(Absent {
                config: c.name(),
                metric: None,
                from: CheckedRun::Baseline,
            });
            continue;
        };
        for (i, metric) in Metric::ALL.into_iter().enumerate() {
            let (base, cur) = match (metric.of(b), metric.of(c)) {
                (Some(base), Some(cur)) => (base, cur),
                (None, None) => continue,
                (base, _) => {
                    seen[i] = true;
                    out.absent.push(Absent {
                        config: c.name(),
                        metric: Some(metric),
                        from: match base {
                            None => CheckedRun::Baseline,
                            Some(_) => CheckedRun::Current,
                        },
                    });
                    continue;
                }
            };
            seen[i] = true;
            let percent = if base == cur {
                0.0
            } else if base == 0.0 {
                f64::INFINITY
            } else {
                100.0 * (cur - base) / base
            };
            let verdict = if base == cur {
                Change::Same
            } else if percent > max_regression_percent {
                Change::Regression
            } else if percent < -max_regression_percent {
                Change::Improvement
            } else {
                Change::Within
            };
            out.compared.push(MetricChange {
                config: c.name(),
                metric,
                baseline: base,
                current: cur,
                percent,
                verdict,
            });
        }
    }
    for b in baseline {
        if !current.iter().any(|c| c.name() == b.name()) {
            out.absent.push(Absent {
                config: b.name(),
                metric: None,
                from: CheckedRun::Current,
            });
        }
    }
    let shared = baseline
        .iter()
        .any(|b| current.iter().any(|c| c.name() == b.name()));
    if shared {
        out.unmeasured = Metric::ALL
            .into_iter()
            .zip(seen)
            .filter(|(_, seen)| !seen)
            .map(|(m, _)| m)
            .collect();
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
            .unwrap();
        let mut r = ConfigResult::of(&info);
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
        assert_eq!(same.compared.len(), 4);
        assert!(same.compared.iter().all(|c| c.verdict == Change::Same));
        assert!(same.absent.is_empty());
        // Neither run counted allocations: said once, not per configuration.
        assert_eq!(
            same.unmeasured,
            [Metric::Allocations, Metric::BytesAllocated]
        );
        let cur = vec![
            result("postcard", 1020.0, 70.0),
            result("bincode", 2010.0, 79.0),
        ];
        let changes = check(&base, &cur, 1.0).compared;
        let verdict = |config: &str, m: Metric| {
            changes
                .iter()
                .find(|c| c.config == format!("formats/{config}") && c.metric == m)
                .unwrap()
                .verdict
        };
        assert_eq!(
            verdict("postcard", Metric::Instructions),
            Change::Regression
        );
        assert_eq!(verdict("bincode", Metric::Instructions), Change::Within);
        assert_eq!(
            verdict("bincode", Metric::PayloadBytes),
            Change::Improvement
        );
        assert_eq!(verdict("postcard", Metric::PayloadBytes), Change::Same);
        // Only configurations both runs have are compared; the others are named.
        let one = check(&base[..1], &cur, 1.0);
        assert!(one.compared.iter().all(|c| c.config == "formats/postcard"));
        assert_eq!(
            one.absent,
            [Absent {
                config: "formats/bincode".into(),
                metric: None,
                from: CheckedRun::Baseline
            }]
        );
    }

    #[test]
    fn a_figure_one_run_lacks_is_named_with_the_run() {
        let base = vec![result("postcard", 1000.0, 70.0)];
        let mut cur = base.clone();
        cur[0].alloc = Some(crate::model::AllocStats {
            allocs_per_op: 1.0,
            reallocs_per_op: 0.0,
            bytes_per_op: 8.0,
            peak_live_bytes: 8,
            ops: 400,
            stack_samples: 0,
            sample_bytes: 0,
        });
        cur[0].instructions = None;
        let checked = check(&base, &cur, 1.0);
        let absent: Vec<_> = checked.absent.iter().map(|a| (a.metric, a.from)).collect();
        assert_eq!(
            absent,
            [
                (Some(Metric::Instructions), CheckedRun::Current),
                (Some(Metric::Allocations), CheckedRun::Baseline),
                (Some(Metric::BytesAllocated), CheckedRun::Baseline),
            ]
        );
        assert_eq!(checked.compared.len(), 1);
        assert!(checked.unmeasured.is_empty());
    }

    #[test]
    fn bmf_names_each_configuration_and_metric() {
        let doc = bmf(&[result("postcard", 1000.0, 70.0)]);
        assert_eq!(doc["formats/postcard"]["instructions"]["value"], 1000.0);
        assert_eq!(doc["formats/postcard"]["payload-bytes"]["value"], 70.0);
    }
}
