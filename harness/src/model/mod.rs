//! What serprof measures and writes, as types: settings, the run manifest, per-configuration
//! results, statistics, the corrupt study's outcomes and the `ab` record. The bottom layer of
//! the harness: it imports nothing of serprof's but itself (and the engines crate).

pub(crate) mod ab;
pub(crate) mod allocator;
pub(crate) mod binary;
pub(crate) mod config_id;
pub(crate) mod corrupt;
pub(crate) mod cpu_check;
pub(crate) mod described;
pub(crate) mod diagnosis;
pub(crate) mod ending;
pub(crate) mod failure;
pub(crate) mod hash;
pub(crate) mod lockstep;
pub(crate) mod manifest;
pub(crate) mod program;
pub(crate) mod recording;
pub(crate) mod result;
pub(crate) mod settings;
pub(crate) mod stats;

pub(crate) use binary::{Binary, BuildInfo};
pub(crate) use config_id::ConfigId;
pub(crate) use ending::Ending;
pub(crate) use failure::{Failed, Failure, InstructionsFailure};
pub(crate) use manifest::{EngineVersion, Machine, RunManifest, BUFFER_POLICY, RUSTC};
pub(crate) use program::{Planned, Program, StudyStamp};
pub(crate) use recording::Recording;
pub(crate) use result::{
    AllocStats, CompressedBytes, ConfigResult, CpuStats, InstructionStats, ProfileSummary, Share,
};
pub(crate) use settings::Settings;
pub(crate) use stats::TimeStats;
