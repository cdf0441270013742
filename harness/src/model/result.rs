//! `result.json`: every figure of one configuration (docs/ARCHITECTURE.md, "What a run writes").
//! Times are nanoseconds per operation.
//!
//! Readers are forgiving: every field that a file may lack has `#[serde(default)]`, so a
//! `result.json` without it still reads.

use serde::{Deserialize, Serialize};
use serprof_api::__private::ConfigInfo;
use serprof_api::__private::DocumentRecord;
use serprof_api::__private::FieldBytes;
use serprof_api::__private::Finding;
use serprof_api::{Format, Operation};

use super::config_id::ConfigId;
use super::corrupt::CorruptStats;
use super::failure::Failure;
use super::stats::{RatioStats, TimeStats};

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
    /// Median thread CPU time per operation of the sampled batches.
    pub median_ns_under_sampling: f64,
    /// Median thread CPU time per operation of the unsampled batches, which alternate with the
    /// sampled ones in the same child (S U, U S, ...).
    #[serde(default)]
    pub median_ns_unsampled: f64,
    /// The profiler's cost: the median of the per-pair ratios sampled/unsampled (the same as
    /// `overhead.ratio`); measured in one process, on interleaved batches.
    pub overhead_ratio: Option<f64>,
    /// That ratio with its 95% interval over the pairs.
    #[serde(default)]
    pub overhead: Option<RatioStats>,
}

/// Instruction counts of the measured loop, from `valgrind --tool=callgrind` (the
/// `instructions` recording). Exact and repeatable on one machine; counted on valgrind's
/// emulated CPU, whose CPUID can steer a library to another code path than a native run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InstructionStats {
    /// Instructions per operation: `total / ops`.
    pub per_op: f64,
    /// Operations counted: whole passes over the dataset after one uncounted pass.
    pub ops: u64,
    /// Instructions executed inside the measured loop (callgrind's `Ir` of the counted call).
    pub total: u64,
    /// The function whose call was counted (`serprof_api::workload::roundtrip_loop`).
    pub loop_fn: String,
    /// `valgrind --version`.
    pub tool_version: String,
    /// Wall seconds the instrumented child took.
    pub seconds: f64,
    /// Callgrind's simulation of the counted call (`--cache-sim=yes --branch-sim=yes`, caches
    /// of fixed sizes: [`SIMULATED_CACHES`]), per operation: data reads and writes, branches
    /// (conditional and indirect) and those valgrind's predictor model mispredicts, L1 data
    /// misses and last-level data misses. Exact and repeatable for one build; a model of a
    /// CPU, not this machine's counters. Absent in results recorded without the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_reads_per_op: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_writes_per_op: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches_per_op: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_mispredicts_per_op: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d1_misses_per_op: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ll_misses_per_op: Option<f64>,
}

/// The caches callgrind simulates, the same on every machine so that counts of one build
/// compare across days and CPUs (valgrind's `--I1`, `--D1` and `--LL`: size, ways, line):
/// 32 KiB 8-way L1s and an 8 MiB 16-way last level, 64-byte lines.
pub(crate) const SIMULATED_CACHES: [&str; 3] =
    ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

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
    /// The types whose serialization code holds the most samples, inclusive (the types a
    /// sample's stack passes through: `analyze::types`), largest first; `function` is the
    /// type. Empty when no frame names a type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<Share>,
}

/// Mean payload bytes per value after compression, each value's payload compressed on its own
/// (a message at a time, as it would travel), at the levels stated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompressedBytes {
    /// zlib (flate2's Rust backend) at `zlib_level`.
    pub zlib: f64,
    pub zlib_level: u32,
    /// zstd (libzstd) at `zstd_level`.
    pub zstd: f64,
    pub zstd_level: i32,
}

/// `result.json`: every figure of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    /// The study.
    pub study: String,
    /// The configuration's name inside the study.
    pub config: String,
    /// The library that does the work.
    pub engine: String,
    /// The allocator its children allocated with, when the run named allocators
    /// (`run --allocators`; [`ConfigResult::config`] then ends in `@` and it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocator: Option<super::allocator::Allocator>,
    /// That library's version.
    pub engine_version: String,
    /// The calls the engine makes to write and read, as the library names them (empty: the
    /// engine does not say).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub call: String,
    /// JSON or binary.
    pub format: Format,
    /// What one measured operation is.
    pub operation: Operation,
    /// The dataset's name (`orders`, `samples`, `document`, or a study's own).
    pub dataset: String,
    /// What the configuration does differently, or cannot do.
    #[serde(default)]
    pub notes: String,
    /// The frames that belong to the engine (a regular expression).
    #[serde(default)]
    pub engine_frames: String,
    /// Every value of the dataset came back equal before anything was timed.
    pub verified: bool,
    /// Mean payload bytes per operation over the whole dataset (exact, not rounded).
    pub payload_bytes: Option<f64>,
    /// The heap a decoded value keeps once decoding returns, bytes per value (exact: the
    /// counting allocator's live bytes with the value alive, minus before; Vec capacity slack
    /// included). 0 for a reading in place (the access rows); absent for serialize rows, for
    /// documents and without the counting allocator. Recorded by the verification child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retained_bytes: Option<f64>,
    /// The payloads' mean size compressed with zlib and zstd (absent for documents and damaged
    /// inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<CompressedBytes>,
    /// Whether shared references (`Arc`s) inside an Order survive the round trip.
    pub shares_references: Option<bool>,
    /// The timed loop copies the payload before each parse, because the engine parses in
    /// place (simd-json): its time, CPU profile and instructions include that copy.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub copies_input: bool,
    /// Time per operation, ns, when timed.
    #[serde(default)]
    pub time_ns: Option<TimeStats>,
    /// Allocations per operation, when counted.
    #[serde(default)]
    pub alloc: Option<AllocStats>,
    /// The CPU recording's figures, when sampled.
    #[serde(default)]
    pub cpu: Option<CpuStats>,
    /// The profile's summary (engine share, top frames), when sampled.
    #[serde(default)]
    pub profile: Option<ProfileSummary>,
    /// Instructions per operation under callgrind (`run --instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<InstructionStats>,
    /// What the recordings warned about.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What went wrong, or null.
    #[serde(default, deserialize_with = "super::failure::failure_or_sentence")]
    pub error: Option<Failure>,
    /// The `corrupt` study's outcomes of damaged inputs (absent for every other study).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrupt: Option<CorruptStats>,
    /// The document of a corpus configuration (absent for every other study).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentRecord>,
    /// What verification found without failing: numbers the engine changes (first path and
    /// both values), what it does with duplicate keys. A configuration whose findings change
    /// a number is timed, and marked in the tables.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "serprof_api::__private::findings_or_sentences"
    )]
    pub findings: Vec<Finding>,
    /// The payload split by field (`serprof_api::fields`): `{path, bytes, share}` per path,
    /// adding up to `payload_bytes`; empty with `fields_note` saying why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldBytes>,
    /// Why the payload has no split by field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields_note: Option<String>,
    /// The findings that name a fix (`analyze::findings`), once the recordings are made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnoses: Vec<super::diagnosis::Diagnosis>,
    /// The sampled findings too near their threshold for one run to say whether they fire.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near_threshold: Vec<super::diagnosis::NearThreshold>,
}

impl ConfigResult {
    /// An empty result for the row `planned`, to be filled by the recordings.
    pub fn of(planned: &super::Planned) -> ConfigResult {
        ConfigResult {
            config: planned.id().in_study().into_owned(),
            allocator: planned.allocator,
            ..ConfigResult::new(planned.info())
        }
    }

    /// An empty result for `info` under the program's own allocator.
    pub fn new(info: &ConfigInfo) -> ConfigResult {
        ConfigResult {
            study: info.study.clone(),
            config: info.config.clone(),
            engine: info.engine.clone(),
            allocator: None,
            engine_version: info.engine_version.clone(),
            call: info.call.clone(),
            format: info.format,
            operation: info.operation,
            dataset: info.dataset.clone(),
            notes: info.notes.clone(),
            engine_frames: info.engine_frames.as_str().to_string(),
            verified: false,
            payload_bytes: None,
            retained_bytes: None,
            compressed: None,
            shares_references: None,
            copies_input: false,
            time_ns: None,
            alloc: None,
            cpu: None,
            profile: None,
            instructions: None,
            warnings: Vec::new(),
            error: None,
            corrupt: None,
            document: info.document.clone(),
            findings: Vec::new(),
            fields: Vec::new(),
            fields_note: None,
            diagnoses: Vec::new(),
            near_threshold: Vec::new(),
        }
    }

    /// Whether verification found that the engine changes numbers (the tables mark its time).
    pub fn changes_numbers(&self) -> bool {
        self.findings.iter().any(Finding::changes_numbers)
    }

    /// The document's JSON bytes per second of the median time, in MB/s (10^6 bytes), as
    /// nativejson-benchmark counts it for both directions.
    pub fn megabytes_per_second(&self) -> Option<f64> {
        let bytes = self.document.as_ref()?.bytes as f64;
        let ns = self.time_ns.as_ref()?.median;
        (ns > 0.0).then(|| bytes / ns * 1e3)
    }

    /// `STUDY/CONFIG`.
    pub fn name(&self) -> String {
        self.id().to_string()
    }

    /// The row's id: the study's configuration and its allocator. `config` holds the row's name
    /// as its folder is named (`CONFIG@ALLOCATOR` under an allocator), which this reads back.
    pub fn id(&self) -> ConfigId {
        let suffix = self.allocator.map(|a| format!("@{a}"));
        let config = match &suffix {
            Some(s) => self.config.strip_suffix(s.as_str()).unwrap_or(&self.config),
            None => &self.config,
        };
        ConfigId::new(&self.study, config).under(self.allocator)
    }
}
