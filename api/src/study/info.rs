//! What the harness knows of a study and its configurations: descriptions with the type of the
//! values erased, and how to build a configuration's workload.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

#[cfg(feature = "regex")]
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::codec::CodecError;
use crate::workload::{Operation, Workload};

/// JSON or binary, as the article's tables split them. A codec of one's own is binary unless it
/// says otherwise ([`crate::Engine::json`]); the corrupt study damages JSON and binary payloads in
/// different ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A text format: JSON.
    Json,
    /// Any binary format.
    Binary,
}

impl Format {
    /// `json` or `binary`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Binary => "binary",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a study is measured, and so which table shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StudyKind {
    /// Verified, then timed, sampled and counted: the time table.
    Measured,
    /// Damaged inputs decoded in guarded children: the outcome table.
    Corrupt,
}

/// A regular expression over frame names that keeps its source text. With the `regex` feature
/// (serprof's driver, which matches frames) it is compiled once, when made or read; a measured
/// program, which only writes its studies' patterns out, holds the text, and the driver reports
/// a pattern that does not compile when it reads the program's studies.
#[derive(Clone)]
pub struct FramePattern {
    source: String,
    #[cfg(feature = "regex")]
    regex: Regex,
}

/// A frame pattern that is not a regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the frame pattern {pattern:?} does not compile: {problem}")]
pub struct FramePatternError {
    /// The pattern's text.
    pub pattern: String,
    /// What the regular expression's parser said.
    pub problem: String,
}

impl FramePattern {
    /// The pattern `source`, compiled when the `regex` feature is on.
    pub fn new(source: &str) -> Result<FramePattern, FramePatternError> {
        Ok(FramePattern {
            source: source.to_string(),
            #[cfg(feature = "regex")]
            regex: Regex::new(source).map_err(|e| FramePatternError {
                pattern: source.to_string(),
                problem: e.to_string(),
            })?,
        })
    }

    /// A pattern written in serprof's own studies. A typo is a bug that the registry's test
    /// finds (every study is built there, with the `regex` feature), so it panics with the
    /// pattern named.
    pub fn builtin(source: &str) -> FramePattern {
        match FramePattern::new(source) {
            Ok(p) => p,
            Err(e) => panic!("built-in {e}"),
        }
    }

    /// The compiled expression.
    #[cfg(feature = "regex")]
    pub fn regex(&self) -> &Regex {
        &self.regex
    }

    /// Its source text.
    pub fn as_str(&self) -> &str {
        &self.source
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

/// A pattern is written as its source text.
impl Serialize for FramePattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A pattern is read from its source text, compiled; one that does not compile is an error.
impl<'de> Deserialize<'de> for FramePattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FramePattern, D::Error> {
        let source = String::deserialize(d)?;
        FramePattern::new(&source).map_err(serde::de::Error::custom)
    }
}

impl PartialEq for FramePattern {
    fn eq(&self, other: &FramePattern) -> bool {
        self.as_str() == other.as_str()
    }
}

/// A study's question about its profiles: the frames that answer it, and what their share is
/// called in tables ("byte-array share").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The frames whose inclusive share of samples answers the question.
    pub frames: FramePattern,
    /// What the share is called in tables.
    pub label: String,
    /// The chart caption of the share.
    pub caption: String,
}

/// Per-configuration caps of a study: the run's settings apply, but no more than these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Timing processes (rounds) per configuration, in a full run.
    pub processes: usize,
    /// Timing processes per configuration in a `--quick` run.
    pub quick_processes: usize,
    /// CPU samples per configuration, in a full run.
    pub cpu_samples: u64,
    /// CPU samples per configuration in a `--quick` run.
    pub quick_cpu_samples: u64,
    /// Sampled/unsampled pairs of the CPU recording's overhead figure, full run.
    pub overhead_pairs: usize,
    /// The same in a `--quick` run.
    pub quick_overhead_pairs: usize,
}

/// A study's description.
#[derive(Debug, Clone)]
pub struct StudyInfo {
    /// Its name: the first part of `STUDY/CONFIG`.
    pub name: String,
    /// The question it answers, in a line.
    pub title: String,
    /// The article it reproduces (title, author, date), or what it is.
    pub source: String,
    /// Which runner and which table.
    pub kind: StudyKind,
    /// The share of samples the study asks about (`--match`), e.g. byte-array code.
    pub question: Option<Question>,
    /// The configuration (name inside the study) that ratios are taken against; `None`: the
    /// fastest.
    pub baseline: Option<String>,
    /// The before/after steps, in order (configuration names inside the study): each is
    /// compared with the one before it.
    pub steps: Vec<String>,
    /// Hidden from `serprof list` and from `run` without `--study` (test doubles).
    pub hidden: bool,
    /// Listed, but left out of a `run` without `--study`: measured only when named (a study
    /// too long for the default run).
    pub opt_in: bool,
    /// Why the study cannot be measured in this process ([`super::Study::unavailable`]);
    /// it then has no configurations.
    pub unavailable: Option<String>,
    /// Caps on what each configuration gets; `None`: the run's settings as they are.
    pub budget: Option<Budget>,
    /// How a corrupt study ([`StudyKind::Corrupt`]) damages its payloads.
    pub damage: Option<Damage>,
}

/// How a corrupt study makes its damaged inputs: seeded mutations of each engine's own valid
/// payloads, input `index` depending only on the index, the format and the payloads (so the
/// inputs of a `--quick` run are the first of a full run's, and a restarted child makes
/// exactly the input it resumes from).
#[derive(Debug, Clone, Copy)]
pub struct Damage {
    /// The seed of every run's inputs (recorded with the outcomes).
    pub seed: u64,
    /// Inputs per engine in a full run.
    pub inputs: usize,
    /// Inputs per engine in a `--quick` run.
    pub quick_inputs: usize,
    /// The damaged input number `index` for an engine of `format` whose valid payloads of the
    /// dataset are `payloads` (one per value, in dataset order).
    pub input: fn(index: usize, format: Format, payloads: &[Vec<u8>]) -> DamagedInput,
}

/// One damaged input of a corrupt study.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedInput {
    /// Its number.
    pub index: usize,
    /// The value whose payload was damaged (its index in the dataset).
    pub order: usize,
    /// The kind of mutation (`truncate`, `bit-flip`, ...).
    pub mutation: &'static str,
    /// What was done, in words ("truncated to 4 of 812 bytes").
    pub what: String,
    /// The damaged payload.
    pub bytes: Vec<u8>,
}

/// A document a configuration runs on (the corpus study): where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// The first part of its configurations' names: the file's stem, with its folder's name
    /// in front when two documents share a stem (`a_data`, `b_data`).
    pub name: String,
    /// The file, as an absolute path.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
}

/// What the harness needs to know of a configuration, besides how to build its workload. It
/// reads and writes as JSON: a measured program describes its configurations to serprof's
/// driver so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigInfo {
    /// The study it belongs to.
    pub study: String,
    /// The name inside the study: an engine's name (`serde_json`), maybe with a variant
    /// suffix (`postcard+bytes`, `serde_json.serialize`), or an engine variant
    /// (`json-base64-table`).
    pub config: String,
    /// The library that does the work (`serde_json`, `bytes_json`, ...).
    pub engine: String,
    /// That library's exact version, or `serprof` for serprof's own engines.
    pub engine_version: String,
    /// The calls its engine makes to write and read (`postcard::to_slice`, ...), as
    /// [`crate::Engine::call`] gives them; empty when the engine does not say.
    pub call: String,
    /// JSON or binary.
    pub format: Format,
    /// The dataset's name (`orders`, `samples`, `document`, or a study's own).
    pub dataset: String,
    /// What one operation is.
    pub operation: Operation,
    /// Frames that belong to the engine (not the harness loop, not std).
    pub engine_frames: FramePattern,
    /// What this configuration does differently from the reference mapping, or cannot do.
    pub notes: String,
    /// The document it runs on, for a configuration of a document.
    pub document: Option<DocumentRecord>,
    /// The cargo feature of serprof's that builds its engine (`None`: always built).
    pub feature: Option<String>,
    /// Its measured loop's function, as valgrind names it (what the instructions recording
    /// counts one call of): [`Workload::loop_function`] of its workload.
    pub loop_function: std::borrow::Cow<'static, str>,
    /// Its study's caps ([`StudyInfo::budget`]), which the study copies into each of its
    /// configurations.
    pub budget: Option<Budget>,
}

impl ConfigInfo {
    /// `STUDY/CONFIG`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.study, self.config)
    }
}

/// How a configuration builds its workload.
pub type MakeWorkload = Arc<dyn Fn() -> Result<Box<dyn Workload>, CodecError> + Send + Sync>;

/// A configuration: its description and how to build its workload.
#[derive(Clone)]
pub struct Config {
    /// What it is.
    pub info: ConfigInfo,
    /// Builds its workload.
    pub make: MakeWorkload,
}

impl Config {
    /// A configuration of any workload.
    pub fn new(
        info: ConfigInfo,
        make: impl Fn() -> Result<Box<dyn Workload>, CodecError> + Send + Sync + 'static,
    ) -> Config {
        Config {
            info,
            make: Arc::new(make),
        }
    }

    /// Builds the workload (in the worker process that measures it).
    pub fn workload(&self) -> Result<Box<dyn Workload>, CodecError> {
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

#[cfg(test)]
mod tests {
    use super::FramePattern;

    // What the driver reads from a program's description: a pattern that does not compile is
    // an error that names it (with the `regex` feature); a program without it keeps the text.
    #[test]
    fn a_pattern_is_compiled_where_it_is_read_with_the_regex_feature() {
        let read = serde_json::from_str::<FramePattern>("\"serde_json::(\"");
        #[cfg(feature = "regex")]
        {
            let e = read.unwrap_err().to_string();
            assert!(
                e.contains("the frame pattern \"serde_json::(\" does not compile"),
                "{e}"
            );
            assert!(FramePattern::new("a|b").unwrap().regex().is_match("b"));
        }
        #[cfg(not(feature = "regex"))]
        assert_eq!(read.unwrap().as_str(), "serde_json::(");
        let p: FramePattern = serde_json::from_str("\"serde_json::\"").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"serde_json::\"");
    }
}
