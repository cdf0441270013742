//! The figures a run writes: `result.json` per configuration and `run.json` per run
//! (DESIGN.md "What a run writes"). Times are nanoseconds per operation.

use serde::{Deserialize, Serialize};
use serprof_engines::studies::ConfigInfo;

use crate::stats::TimeStats;

/// Allocation figures per operation, from the counting allocator (`alloc` child).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocStats {
    pub allocs_per_op: f64,
    pub reallocs_per_op: f64,
    pub bytes_per_op: f64,
    /// Highest live bytes above the level when counting started.
    pub peak_live_bytes: u64,
    /// Operations counted (a whole number of passes over the dataset, so figures are exact).
    pub ops: u64,
    /// Stacks sampled for `alloc.folded` (one every `sample_bytes` allocated bytes).
    pub stack_samples: u64,
    pub sample_bytes: u64,
}

/// CPU sampling figures (`cpu` child).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuStats {
    pub samples: u64,
    pub requested_hz: f64,
    /// Samples per CPU-second of the child while it was sampled.
    pub effective_hz: f64,
    /// CPU seconds of the child while it was sampled.
    pub seconds: f64,
    /// Median time per operation under sampling.
    pub median_ns_under_sampling: f64,
    /// Median time per operation of unsampled batches run in the same child just before
    /// sampling started, interleaved with nothing else: the reference for `overhead_ratio`.
    #[serde(default)]
    pub median_ns_unsampled: f64,
    /// `median_ns_under_sampling / median_ns_unsampled`: the profiler's cost, measured in one
    /// process (two processes of one binary differ by a few percent on their own: heap and code
    /// layout, so the timing child's median is not used here).
    pub overhead_ratio: Option<f64>,
}

/// A function's share of samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub function: String,
    pub percent: f64,
}

/// What the profile says, in short: the study's question and where the engine's time goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileSummary {
    /// Top self-time function of the whole profile.
    pub top_self: Option<Share>,
    /// Functions of the engine holding most samples (each sample counted for its innermost
    /// engine frame, so a call into memcpy counts for the engine function that made it).
    pub top_engine: Vec<Share>,
    /// The study's `--match` regex and the inclusive share of samples that match it.
    pub match_regex: Option<String>,
    pub match_percent: Option<f64>,
    /// One line: "serde_json: 41% in ..., 12% in ...".
    pub finding: String,
}

/// `result.json`: every figure of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    pub study: String,
    pub config: String,
    pub engine: String,
    pub engine_version: String,
    pub format: String,
    pub operation: String,
    pub dataset: String,
    pub notes: String,
    pub engine_frames: String,
    /// Every value of the dataset came back equal before anything was timed.
    pub verified: bool,
    /// Mean payload bytes per operation over the whole dataset (exact, not rounded).
    pub payload_bytes: Option<f64>,
    /// Whether shared references (`Arc`s) inside an Order survive the round trip.
    pub shares_references: Option<bool>,
    pub time_ns: Option<TimeStats>,
    pub alloc: Option<AllocStats>,
    pub cpu: Option<CpuStats>,
    pub profile: Option<ProfileSummary>,
    pub warnings: Vec<String>,
    /// What went wrong, or null.
    pub error: Option<String>,
    /// The `corrupt` study's outcomes of damaged inputs (absent for every other study).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrupt: Option<crate::corrupt::CorruptStats>,
}

impl ConfigResult {
    /// An empty result for `info`, to be filled by the recordings.
    pub fn new(info: &ConfigInfo) -> ConfigResult {
        ConfigResult {
            study: info.study.to_string(),
            config: info.config.to_string(),
            engine: info.engine.to_string(),
            engine_version: info.engine_version.to_string(),
            format: info.format.as_str().to_string(),
            operation: info.operation.as_str().to_string(),
            dataset: info.dataset.as_str().to_string(),
            notes: info.notes.to_string(),
            engine_frames: info.engine_frames.to_string(),
            verified: false,
            payload_bytes: None,
            shares_references: None,
            time_ns: None,
            alloc: None,
            cpu: None,
            profile: None,
            warnings: Vec::new(),
            error: None,
            corrupt: None,
        }
    }

    /// `STUDY/CONFIG`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.study, self.config)
    }
}

/// An engine library and its exact version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineVersion {
    pub engine: String,
    pub version: String,
}

/// The machine a run ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub kernel: String,
    pub cpus: usize,
    pub cpu_model: String,
    pub hostname: String,
}

/// `run.json`: the manifest of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    pub serprof_version: String,
    pub git_rev: String,
    pub rustc: String,
    pub engines: Vec<EngineVersion>,
    pub machine: Machine,
    pub settings: crate::settings::Settings,
    /// The buffer policy every engine runs under.
    pub buffer_policy: String,
    /// The stack unwinder of the CPU recordings (`record::cpu::UNWINDER`).
    #[serde(default)]
    pub unwinder: String,
    pub command: Vec<String>,
    /// Configurations selected, as `STUDY/CONFIG`.
    pub configs: Vec<String>,
    pub start: String,
    pub end: Option<String>,
    /// True only when every selected configuration finished (measured or failed with a reason).
    pub complete: bool,
    /// Configurations that failed, with their reasons.
    pub failed: Vec<String>,
    pub warnings: Vec<String>,
}

/// The one output-buffer policy, written into every manifest.
pub const BUFFER_POLICY: &str = "one Vec<u8> per configuration, cleared before each encode and reused; its capacity is kept across operations, so allocation figures measure the codec, not Vec growth";
