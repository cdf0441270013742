//! `ab.json`: what an A/B run (`serprof ab`) measured.

use serde::{Deserialize, Serialize};

use super::manifest::Machine;

/// `ab.json`: what an A/B run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AbRecord {
    /// Configuration A and B, `STUDY/CONFIG` (may be the same one twice).
    pub a: String,
    pub b: String,
    /// Rounds over all processes (each one sample of A and one of B).
    pub rounds: usize,
    /// Target length of one sample (a batch, in files of interleaved batches), ms.
    pub batch_ms: u64,
    /// The calibration warm-up of each side, ms.
    pub warmup_ms: u64,
    /// Operations per sample of A and of B.
    pub ops_per_batch: [u64; 2],
    /// Which side ran first in a round.
    pub order: String,
    /// What `pair_ratios` measure: the thread's CPU time.
    pub clock: String,
    /// B/A CPU time per operation of every round, in the order they ran.
    pub pair_ratios: Vec<f64>,
    /// The median of the processes' ratios and its 95% interval across processes.
    pub ratio: f64,
    pub ci95: [f64; 2],
    #[serde(default)]
    pub method: super::stats::RatioMethod,
    /// The same from wall-clock time, for reference (noisier under load).
    pub wall_pair_ratios: Vec<f64>,
    pub wall_ratio: f64,
    pub wall_ci95: [f64; 2],
    /// Wall-clock seconds from the first warm-up to the last batch.
    pub seconds: f64,
    pub start: String,
    pub git_rev: String,
    pub machine: Machine,
    /// Child processes the rounds were spread over (1 for a file without the field: a file of
    /// one timing process).
    #[serde(default = "one")]
    pub processes: usize,
    /// Each process's median pair ratio: `ratio` and `ci95` are across these.
    #[serde(default)]
    pub process_ratios: Vec<f64>,
    /// The exact coverage of `ci95`.
    #[serde(default)]
    pub coverage: f64,
    /// The interval of the pooled pairs, for reference (too narrow across processes).
    #[serde(default)]
    pub pooled_ci95: [f64; 2],
    /// The CPU the processes were pinned to.
    #[serde(default)]
    pub pinned_cpu: Option<usize>,
    /// The lock-step schedule (absent in files of ab's earlier interleaved batches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<super::lockstep::Schedule>,
    /// The machine's measuring lock as this run held it (absent in files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_lock: Option<super::manifest::MachineLock>,
}

fn one() -> usize {
    1
}
