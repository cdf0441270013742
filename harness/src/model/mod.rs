//! What serprof measures and writes, as types: settings, the run manifest, per-configuration
//! results, statistics, the corrupt study's outcomes and the `ab` record. The bottom layer of
//! the harness: it imports nothing of serprof's but itself (and the engines crate).

pub mod ab;
pub mod binary;
pub mod config_id;
pub mod corrupt;
pub mod cpu_check;
pub mod failure;
pub mod lockstep;
pub mod manifest;
pub mod recording;
pub mod result;
pub mod settings;
pub mod stats;
pub mod verdict;

pub use binary::{git_rev, Binary, BuildInfo};
pub use config_id::ConfigId;
pub use failure::{Failed, Failure, InstructionsFailure};
pub use manifest::{EngineVersion, Machine, RunManifest, BUFFER_POLICY, RUSTC};
pub use recording::Recording;
pub use result::{
    AllocStats, CompressedBytes, ConfigResult, CpuStats, InstructionStats, ProfileSummary, Share,
};
pub use settings::Settings;
pub use stats::{TimeStats, TimingMethod};
pub use verdict::Verdict;
