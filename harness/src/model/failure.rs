//! Why a configuration has no figures, as types: what `result.json`'s `error` and `run.json`'s
//! `failed` hold. Each kind keeps its fields (the verification's value index, the child's
//! verdict and stderr, the engine's error) through to the files; the message is made once, in
//! `Display`.
//!
//! A file may hold these as sentences (strings) instead: [`failure_or_sentence`] and
//! [`failed_or_sentences`] read a sentence as [`Failure::Legacy`], which displays as it was
//! written.

use std::fmt;

use serde::{Deserialize, Serialize};
use serprof_api::__private::VerifyError;
use serprof_api::CodecError;

use super::config_id::ConfigId;
use super::ending::Ending;
use super::recording::Recording;

/// Why a recording of a configuration gave no figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Failure {
    /// Verification failed: the configuration is never timed.
    Verification { error: VerifyError },
    /// The engine failed while a recording ran it (or while its codec was built).
    Engine {
        recording: Recording,
        error: CodecError,
    },
    /// Something else in the child failed (the sampler, a file it writes).
    Recording {
        recording: Recording,
        message: String,
    },
    /// The engine panicked.
    Panicked { message: String },
    /// The child died or hung before it wrote its report.
    Child {
        recording: Recording,
        verdict: Ending,
        /// The last lines of its stderr.
        stderr: Vec<String>,
        /// Its address-space cap, in MiB (0: none).
        memory_cap_mib: u64,
    },
    /// The child ended normally without the figures it owed.
    Silent { recording: Recording },
    /// The instructions recording's dump could not be read or does not hold the counted call.
    Instructions { reason: InstructionsFailure },
    /// The parent could not start the child (or make its folder).
    Harness { message: String },
    /// A failure stored as a sentence: its text.
    Legacy { text: String },
}

/// Why an instruction count could not be read from callgrind's dumps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum InstructionsFailure {
    #[error("callgrind wrote no dump of the counted call ({path} is missing): the measured loop was not called twice")]
    NoDump { path: String },
    #[error("{path}: not a callgrind file: {message}")]
    Unreadable { path: String, message: String },
    #[error("{path} counts no instructions (Ir)")]
    NoInstructions { path: String },
    #[error("callgrind counted nothing inside {loop_fn}: the toggle pattern matched no function")]
    NothingCounted { loop_fn: String },
    #[error("callgrind counted {total} instructions, {inside} of them inside {loop_fn}: the dump holds more than the counted call")]
    MoreThanTheCall {
        total: u64,
        inside: u64,
        loop_fn: String,
    },
}

impl Failure {
    /// A failure of the parent's own: its message, as one line.
    pub fn harness(message: impl fmt::Display) -> Failure {
        Failure::Harness {
            message: message.to_string(),
        }
    }

    /// The failure an error carries (one made with `anyhow::Error::new(failure)`, under any
    /// context), else the error as a failure of the parent's own.
    pub fn of(e: anyhow::Error) -> Failure {
        match e.downcast::<Failure>() {
            Ok(f) => f,
            Err(e) => Failure::harness(crate::error::one_line(&e)),
        }
    }
}

impl std::error::Error for Failure {}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Verification { error } => write!(f, "verification failed: {error}"),
            Failure::Engine { recording, error } => {
                write!(f, "{recording} recording failed: {error}")
            }
            Failure::Recording { recording, message } => {
                write!(f, "{recording} recording failed: {message}")
            }
            Failure::Panicked { message } => write!(f, "engine panicked: {message}"),
            Failure::Child {
                recording,
                verdict,
                stderr,
                memory_cap_mib,
            } => {
                match verdict {
                    Ending::OutOfMemory { detail } => write!(
                        f,
                        "{recording} child ran out of memory past the {memory_cap_mib} MiB cap ({detail})"
                    )?,
                    v => write!(f, "{recording} child {}", v.describe())?,
                }
                if !stderr.is_empty() {
                    write!(f, "; last stderr: {}", stderr.join(" | "))?;
                }
                Ok(())
            }
            Failure::Silent { recording } => match recording {
                Recording::Verify => f.write_str("the verification child reported no verdict"),
                Recording::Instructions => f.write_str("the instructions child counted nothing"),
                r => write!(f, "the {r} child reported no {r}"),
            },
            Failure::Instructions { reason } => reason.fmt(f),
            Failure::Harness { message } => f.write_str(message),
            Failure::Legacy { text } => f.write_str(text),
        }
    }
}

/// A value stored typed, or (by an older serprof) as a sentence.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored<T> {
    Typed(T),
    Sentence(String),
}

/// Reads a failure stored typed, or stored as a sentence; for
/// `#[serde(deserialize_with = ...)]` on an `Option<Failure>` field.
pub(crate) fn failure_or_sentence<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Failure>, D::Error> {
    Ok(Option::<Stored<Failure>>::deserialize(d)?.map(|f| match f {
        Stored::Typed(f) => f,
        Stored::Sentence(text) => Failure::Legacy { text },
    }))
}

/// A configuration that failed, as `run.json` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    pub config: ConfigId,
    pub failure: Failure,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.config, self.failure)
    }
}

/// Reads `run.json`'s list of failed configurations, stored typed or as `STUDY/CONFIG: message`
/// sentences; for `#[serde(deserialize_with = ...)]`.
pub(crate) fn failed_or_sentences<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Failed>, D::Error> {
    Vec::<Stored<Failed>>::deserialize(d)?
        .into_iter()
        .map(|f| match f {
            Stored::Typed(f) => Ok(f),
            Stored::Sentence(s) => {
                let (name, text) = s.split_once(": ").unwrap_or((s.as_str(), ""));
                let config = name.parse().map_err(serde::de::Error::custom)?;
                Ok(Failed {
                    config,
                    failure: Failure::Legacy { text: text.into() },
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn failures_keep_their_fields_and_read_older_sentences() {
        let cases = [
            Failure::Verification {
                error: VerifyError::Differs {
                    index: 1,
                    difference: "notes: expected Some(\"a\"), got None".into(),
                },
            },
            Failure::Child {
                recording: Recording::Timing,
                verdict: Ending::Signal { signal: 11 },
                stderr: vec!["boom".into()],
                memory_cap_mib: 4096,
            },
            Failure::Child {
                recording: Recording::Cpu,
                verdict: Ending::Hung {
                    after: Duration::from_secs(3),
                },
                stderr: Vec::new(),
                memory_cap_mib: 0,
            },
            Failure::Engine {
                recording: Recording::Timing,
                error: CodecError::decode("eof"),
            },
        ];
        let read = |json: &str| {
            let mut d = serde_json::Deserializer::from_str(json);
            failure_or_sentence(&mut d).unwrap()
        };
        for f in &cases {
            let json = serde_json::to_string(f).unwrap();
            assert_eq!(read(&json).as_ref(), Some(f), "{json}");
        }
        assert_eq!(
            cases[1].to_string(),
            "timing child killed by SIGSEGV (11); last stderr: boom"
        );
        assert_eq!(cases[2].to_string(), "cpu child hung: killed after 3 s");
        let old = read("\"engine panicked: on purpose\"").unwrap();
        assert_eq!(old.to_string(), "engine panicked: on purpose");
        let mut d = serde_json::Deserializer::from_str("[\"testkit/panic: engine panicked: x\"]");
        let failed = failed_or_sentences(&mut d).unwrap().remove(0);
        assert_eq!(failed.config.to_string(), "testkit/panic");
        assert_eq!(failed.to_string(), "testkit/panic: engine panicked: x");
    }
}
