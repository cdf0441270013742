//! Studies as data: every study, its configurations, its before/after steps and its question.
//!
//! A configuration is named `STUDY/CONFIG` (`bytes/json-base64-table`, `formats/serde_json`).
//! The harness looks configurations up here by name, in the parent (to list and select them)
//! and in each worker child (to build the codec it measures). Names and constructors are owned
//! values, not `&'static str` and `fn()`, so a study can build its configurations at run time
//! (from file paths, say). Behaviour that differs between studies is decided by the typed
//! fields of [`StudyInfo`] ([`StudyKind`], [`Question`], `steps`), never by comparing names;
//! this module is the only place that knows which study is which.

pub mod bytes;
pub mod corpus;
pub mod corrupt;
pub mod formats;
pub mod reflection;
#[cfg(feature = "testkit")]
pub mod testkit;

use std::fmt;
use std::sync::Arc;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::codec::{Codec, CodecError};
use crate::model::{Order, Sample};

/// JSON or binary, as the article's tables split them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// Encode one value, then decode the payload back.
    RoundTrip,
    /// Encode one value (verification still decodes it back, untimed).
    Serialize,
    /// Decode stored payloads (the damaged inputs of a [`StudyKind::Corrupt`] study).
    Decode,
    /// Parse a stored payload (a document's JSON text, or its transcoding) into a value.
    Parse,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::RoundTrip => "roundtrip",
            Operation::Serialize => "serialize",
            Operation::Decode => "decode",
            Operation::Parse => "parse",
        }
    }
}

/// Which dataset a configuration runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DatasetKind {
    /// The 200 Orders, one per operation, cycling.
    Orders,
    /// The 10,000-Sample list, whole, per operation.
    Samples,
    /// One JSON document read from a file (the corpus study), whole, per operation.
    Document,
}

impl DatasetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetKind::Orders => "orders",
            DatasetKind::Samples => "samples",
            DatasetKind::Document => "document",
        }
    }
}

macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(Format, Operation, DatasetKind);

/// How a study is measured, and so which table shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StudyKind {
    /// Verified, then timed, sampled and counted: the time table.
    Measured,
    /// Damaged inputs decoded in guarded children: the outcome table.
    Corrupt,
}

/// A regular expression over frame names, compiled once, that keeps its source text.
#[derive(Clone)]
pub struct FramePattern {
    regex: Regex,
}

impl FramePattern {
    /// Compiles `source`.
    pub fn new(source: &str) -> Result<FramePattern, regex::Error> {
        Ok(FramePattern {
            regex: Regex::new(source)?,
        })
    }

    /// Compiles a pattern written in this crate. A typo is a bug that the registry's test finds
    /// (every study is built there), so it panics with the pattern named.
    pub fn builtin(source: &str) -> FramePattern {
        match FramePattern::new(source) {
            Ok(p) => p,
            Err(e) => panic!("built-in frame pattern {source:?} does not compile: {e}"),
        }
    }

    pub fn regex(&self) -> &Regex {
        &self.regex
    }

    pub fn as_str(&self) -> &str {
        self.regex.as_str()
    }
}

impl fmt::Debug for FramePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}/", self.as_str())
    }
}

impl fmt::Display for FramePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for FramePattern {
    fn eq(&self, other: &FramePattern) -> bool {
        self.as_str() == other.as_str()
    }
}

/// A study's question about its profiles: the frames that answer it, and what their share is
/// called in tables ("byte-array share").
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub frames: FramePattern,
    pub label: &'static str,
    /// The chart caption of the share.
    pub caption: &'static str,
}

/// A study: a question, a dataset, an operation and its configurations.
#[derive(Debug, Clone)]
pub struct StudyInfo {
    pub name: String,
    pub title: String,
    /// The article it reproduces (title, author, date), or what it is when it reproduces none.
    pub source: String,
    pub kind: StudyKind,
    /// The share of samples the study asks about (`--match`), e.g. byte-array code.
    pub question: Option<Question>,
    /// The configuration (name inside the study) that ratios are taken against, like the
    /// article's "ratio to Jackson"; `None` means ratio to the fastest.
    pub baseline: Option<String>,
    /// The before/after steps, in order (configuration names inside the study): each is
    /// compared with the one before it, the way the articles showed their fixes. Empty for
    /// studies that compare alternatives rather than steps.
    pub steps: Vec<String>,
    /// Hidden from `serprof list` and from `run` without `--study` (test doubles).
    pub hidden: bool,
    /// Caps on what each configuration of the study gets, for a study of many configurations
    /// whose run must fit a time budget; `None`: the run's settings as they are.
    pub budget: Option<Budget>,
}

/// Per-configuration caps of a study: the run's settings apply, but no more than these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Timing processes (rounds) per configuration, in a full run and in a `--quick` one.
    pub processes: usize,
    pub quick_processes: usize,
    /// CPU samples per configuration, in a full run and in a `--quick` one.
    pub cpu_samples: u64,
    pub quick_cpu_samples: u64,
    /// Sampled/unsampled pairs of the CPU recording's overhead figure, full and `--quick`.
    pub overhead_pairs: usize,
    pub quick_overhead_pairs: usize,
}

/// A study and its configurations.
#[derive(Debug, Clone)]
pub struct Study {
    pub info: StudyInfo,
    pub configs: Vec<Config>,
}

/// What the harness needs to know of a configuration, besides its codec.
#[derive(Debug, Clone)]
pub struct ConfigInfo {
    pub study: String,
    /// The name inside the study: a crate name (`serde_json`), maybe with a variant suffix
    /// (`postcard+bytes`), or an engine variant (`json-base64-table`).
    pub config: String,
    /// The library that does the work (`serde_json`, `bytes_json`, ...).
    pub engine: String,
    /// That library's exact version (pinned in engines/Cargo.toml) or `serprof` for our own.
    pub engine_version: String,
    pub format: Format,
    pub dataset: DatasetKind,
    pub operation: Operation,
    /// Frames that belong to the engine (not the harness loop, not std): the hotspot table
    /// marks these, and one-line findings are computed from them.
    pub engine_frames: FramePattern,
    /// What this configuration does differently from the reference mapping, or cannot do.
    pub notes: String,
    /// The document a [`DatasetKind::Document`] configuration runs on; `None` for the others.
    pub document: Option<corpus::DocumentRecord>,
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
    /// An engine that holds one document's value (see [`corpus::DocumentCodec`]).
    Document(Box<dyn corpus::DocumentCodec>),
}

/// How a configuration builds its codec.
pub type MakeCodec = Arc<dyn Fn() -> Result<AnyCodec, CodecError> + Send + Sync>;

/// A configuration: its description and how to build its codec.
#[derive(Clone)]
pub struct Config {
    pub info: ConfigInfo,
    pub make: MakeCodec,
}

impl Config {
    pub fn new(
        info: ConfigInfo,
        make: impl Fn() -> Result<AnyCodec, CodecError> + Send + Sync + 'static,
    ) -> Config {
        Config {
            info,
            make: Arc::new(make),
        }
    }

    /// Builds the codec.
    pub fn codec(&self) -> Result<AnyCodec, CodecError> {
        (self.make)()
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// Every study with its configurations, in the order `serprof list` prints them. The hidden
/// `testkit` study (test doubles) exists only in builds with the `testkit` feature, which the
/// tests turn on.
pub fn all() -> Vec<Study> {
    #[allow(unused_mut)]
    let mut all = vec![
        formats::study(),
        bytes::study(),
        reflection::study(),
        corrupt::study(),
    ];
    // The corpus study exists when documents were given (`corpus::register`).
    all.extend(corpus::registered_study());
    #[cfg(feature = "testkit")]
    all.push(testkit::study());
    all
}

/// Every study's description.
pub fn studies() -> Vec<StudyInfo> {
    all().into_iter().map(|s| s.info).collect()
}

/// Every configuration of every study.
pub fn configs() -> Vec<Config> {
    all().into_iter().flat_map(|s| s.configs).collect()
}

/// The configuration named `STUDY/CONFIG`.
pub fn find(name: &str) -> Option<Config> {
    let (study, config) = name.split_once('/')?;
    find_study(study)?
        .configs
        .into_iter()
        .find(|c| c.info.config == config)
}

/// Whether the study named `study` decodes damaged inputs ([`StudyKind::Corrupt`]) rather than
/// being timed.
pub fn is_corrupt(study: &str) -> bool {
    find_info(study).map(|s| s.kind) == Some(StudyKind::Corrupt)
}

/// The study named `name`.
pub fn find_study(name: &str) -> Option<Study> {
    all().into_iter().find(|s| s.info.name == name)
}

/// The description of the study named `name`.
pub fn find_info(name: &str) -> Option<StudyInfo> {
    find_study(name).map(|s| s.info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_study_builds_its_patterns_and_names_its_own_configurations() {
        // Building every study compiles every frame pattern (a typo panics here).
        for study in all() {
            let info = &study.info;
            assert!(
                !study.configs.is_empty(),
                "{} has no configuration",
                info.name
            );
            for c in &study.configs {
                assert_eq!(c.info.study, info.name);
                assert!(
                    !c.info.engine_frames.as_str().is_empty(),
                    "{}",
                    c.info.name()
                );
            }
            for step in &info.steps {
                assert!(
                    study.configs.iter().any(|c| &c.info.config == step),
                    "{}: step {step} is no configuration",
                    info.name
                );
            }
            if let Some(b) = &info.baseline {
                assert!(study.configs.iter().any(|c| &c.info.config == b));
            }
            let mut names: Vec<_> = study.configs.iter().map(|c| c.info.name()).collect();
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(
                names.len(),
                n,
                "{}: duplicate configuration names",
                info.name
            );
        }
    }

    #[test]
    fn find_takes_study_and_config() {
        let c = find("formats/serde_json").expect("formats/serde_json");
        assert_eq!(c.info.name(), "formats/serde_json");
        assert!(find("formats").is_none());
        assert!(find("nope/serde_json").is_none());
    }

    #[test]
    fn enums_serialize_as_their_names() {
        assert_eq!(
            serde_json::to_string(&Operation::RoundTrip).unwrap(),
            "\"roundtrip\""
        );
        assert_eq!(
            serde_json::to_string(&Format::Binary).unwrap(),
            "\"binary\""
        );
        assert_eq!(
            serde_json::to_string(&DatasetKind::Samples).unwrap(),
            "\"samples\""
        );
        for op in [
            Operation::RoundTrip,
            Operation::Serialize,
            Operation::Decode,
        ] {
            assert_eq!(
                serde_json::to_string(&op).unwrap(),
                format!("\"{}\"", op.as_str())
            );
        }
    }
}
