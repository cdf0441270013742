//! Studies as data: every study, every configuration, and how to build its codec.
//!
//! A configuration is named `STUDY/CONFIG` (`bytes/json-base64-table`, `formats/serde_json`).
//! The harness looks configurations up here by name, in the parent (to list and select them)
//! and in each worker child (to build the codec it measures).

pub mod bytes;
pub mod corrupt;
pub mod formats;
pub mod reflection;
pub mod testkit;

use crate::codec::Codec;
use crate::model::{Order, Sample};

/// JSON or binary, as the article's tables split them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Binary,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Binary => "binary",
        }
    }
}

/// What one measured operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Encode one value, then decode the payload back.
    RoundTrip,
    /// Encode one value (verification still decodes it back, untimed).
    Serialize,
    /// Decode stored payloads (the `corrupt` study).
    Decode,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::RoundTrip => "roundtrip",
            Operation::Serialize => "serialize",
            Operation::Decode => "decode",
        }
    }
}

/// Which dataset a configuration runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetKind {
    /// The 200 Orders, one per operation, cycling.
    Orders,
    /// The 10,000-Sample list, whole, per operation.
    Samples,
}

impl DatasetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetKind::Orders => "orders",
            DatasetKind::Samples => "samples",
        }
    }
}

/// A study: a question, a dataset, an operation and its configurations.
#[derive(Debug, Clone)]
pub struct StudyInfo {
    pub name: &'static str,
    pub title: &'static str,
    /// The seed article it reproduces, if any.
    pub source: &'static str,
    /// Regex over frame names for the study's question (`--match`), e.g. byte-array code.
    pub hotspot_match: Option<&'static str>,
    /// The configuration (name inside the study) that ratios are taken against, like the
    /// article's "ratio to Jackson"; `None` means ratio to the fastest.
    pub baseline: Option<&'static str>,
    /// Hidden from `serprof list` and from `run` without `--study` (test doubles).
    pub hidden: bool,
}

/// What the harness needs to know of a configuration, besides its codec.
#[derive(Debug, Clone)]
pub struct ConfigInfo {
    pub study: &'static str,
    /// The name inside the study: a crate name (`serde_json`), maybe with a variant suffix
    /// (`postcard+bytes`), or an engine variant (`json-base64-table`).
    pub config: &'static str,
    /// The library that does the work (`serde_json`, `bytes_json`, ...).
    pub engine: &'static str,
    /// That library's exact version (pinned in engines/Cargo.toml) or `serprof` for our own.
    pub engine_version: &'static str,
    pub format: Format,
    pub dataset: DatasetKind,
    pub operation: Operation,
    /// Regex over frame names that belong to the engine (not the harness loop, not std): the
    /// hotspot table marks these, and one-line findings are computed from them.
    pub engine_frames: &'static str,
    /// What this configuration does differently from the reference mapping, or cannot do.
    pub notes: &'static str,
}

impl ConfigInfo {
    /// `STUDY/CONFIG`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.study, self.config)
    }
}

/// A codec for one of the datasets.
pub enum AnyCodec {
    Orders(Box<dyn Codec<Order>>),
    Samples(Box<dyn Codec<Vec<Sample>>>),
}

/// A configuration: its description and how to build its codec.
#[derive(Clone)]
pub struct Config {
    pub info: ConfigInfo,
    pub make: fn() -> Result<AnyCodec, crate::codec::CodecError>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// Environment variable that makes the hidden `testkit` study (test doubles: engines that
/// panic, abort, hang, drop a field, allocate a known pattern) available. Tests set it.
pub const TESTKIT_ENV: &str = "SERPROF_TESTKIT";

fn testkit_enabled() -> bool {
    std::env::var_os(TESTKIT_ENV).is_some_and(|v| v == "1")
}

/// Every study, in the order `serprof list` prints them.
pub fn studies() -> Vec<StudyInfo> {
    let mut all = vec![
        formats::study(),
        bytes::study(),
        reflection::study(),
        corrupt::study(),
    ];
    if testkit_enabled() {
        all.push(testkit::study());
    }
    all
}

/// Every configuration of every study.
pub fn configs() -> Vec<Config> {
    let mut all = formats::configs();
    all.extend(bytes::configs());
    all.extend(reflection::configs());
    all.extend(corrupt::configs());
    if testkit_enabled() {
        all.extend(testkit::configs());
    }
    all
}

/// The before/after steps of a study, in order (configuration names inside the study): each step
/// is compared with the one before it, the way the articles showed their fixes. Empty for studies
/// that compare alternatives rather than steps.
pub fn steps(study: &str) -> &'static [&'static str] {
    match study {
        "bytes" => &["json-decimal", "json-base64-twopass", "json-base64-table"],
        "reflection" => &[
            "reflect-noncached",
            "reflect-cached",
            "reflect-tuned-bytes",
            "reflect-tuned-typed",
            "reflect-tuned-resolved",
        ],
        _ => &[],
    }
}

/// The configuration named `STUDY/CONFIG`.
pub fn find(name: &str) -> Option<Config> {
    configs().into_iter().find(|c| c.info.name() == name)
}

/// The study named `name`.
pub fn find_study(name: &str) -> Option<StudyInfo> {
    studies().into_iter().find(|s| s.name == name)
}
