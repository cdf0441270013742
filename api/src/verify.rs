//! What verification finds before anything is timed, as types: a [`VerifyError`] fails a
//! configuration, a [`Finding`] is kept beside its figures (numbers an engine changes, what it
//! does with duplicate keys). Their messages are made once, in `Display`; nothing downstream reads
//! the text back.
//!
//! A result file may hold findings as sentences (strings) instead of typed values;
//! [`findings_or_sentences`] reads those sentences into the same types (see [`legacy`]), so such
//! a run folder renders with the same tables.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::codec::CodecError;

/// A number an engine holds differently from the reference (or from its value before a trip).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberChange {
    /// JSONPath-like place of the first change (`$.features[0].geometry.coordinates[0][1]`).
    pub path: String,
    /// The number's text in the reference.
    pub text: String,
    /// What the text means: itself for an integer, the correctly rounded f64 for a float.
    pub expected: String,
    /// What the engine holds.
    pub got: String,
    /// Whether `text` is the reference's text (else it is the engine's value before a trip).
    pub from_text: bool,
}

/// Where in a document's verification a number changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The engine's parse of the document, against the reference.
    Parse,
    /// Parsing the payload again, against the first parse.
    ParseAgain,
    /// What the engine writes, read by the reference.
    Writing,
    /// The engine's parse of what it wrote, against what it held.
    RoundTrip,
}

impl Stage {
    /// The words a finding starts with.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::ParseAgain => "parsing the payload again",
            Stage::Writing => "writing",
            Stage::RoundTrip => "the round trip",
        }
    }
}

/// What an engine does with a key given twice (`{"k":1,"k":2}`), read from what it writes back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum DuplicateKeys {
    /// It writes back the first value.
    KeepsFirst,
    /// It writes back the last value.
    KeepsLast,
    /// It writes back both.
    KeepsBoth,
    /// It refuses the document.
    Rejects {
        /// The first line of its message.
        message: String,
    },
    /// It writes something else back.
    Gives {
        /// What it writes.
        text: String,
    },
}

impl fmt::Display for DuplicateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DuplicateKeys::KeepsFirst => f.write_str("keeps the first"),
            DuplicateKeys::KeepsLast => f.write_str("keeps the last"),
            DuplicateKeys::KeepsBoth => f.write_str("keeps both"),
            DuplicateKeys::Rejects { message } => write!(f, "rejects them ({message})"),
            DuplicateKeys::Gives { text } => write!(f, "gives {text}"),
        }
    }
}

/// What verification found that does not fail a configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// An engine holds `count` numbers differently; the first is `first`.
    NumbersChanged {
        /// Where in the verification.
        stage: Stage,
        /// How many numbers.
        count: usize,
        /// The first of them.
        first: NumberChange,
    },
    /// What an engine does with duplicate keys (`probe` is the document it was given).
    DuplicateKeys {
        /// The document with a key twice.
        probe: String,
        /// What the engine does with it.
        behaviour: DuplicateKeys,
    },
    /// A round trip of the dataset changed floating-point numbers and nothing else: `values`
    /// values differ; the first is value `index`, whose first differing line of `{:#?}` is shown.
    FloatsChanged {
        /// How many values of the dataset.
        values: usize,
        /// The first value's index.
        index: usize,
        /// Its first differing line of `{:#?}`, as it was.
        original: String,
        /// The same line after the round trip.
        decoded: String,
    },
    /// A byte array written one element at a time (a `Vec<u8>` through serde without
    /// `serde_bytes`, or bytes as JSON numbers), from the payload's split by field
    /// ([`crate::fields`]).
    ElementByElement {
        /// Its path (`Reading.raw`).
        path: String,
        /// Its Rust type, without module paths.
        rust_type: String,
        /// Its share of the payload, 0 to 1.
        share: f64,
        /// Its bytes, mean per value.
        bytes: f64,
        /// What writes it in one piece, as the bytes study measures it.
        remedy: String,
        /// The share of the CPU profile's measured loop in its type's code, once profiled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profile_share: Option<f64>,
    },
    /// One field takes more of the payload than every other part of the value together
    /// ([`crate::fields::tally::LARGE_FIELD_THRESHOLD`]).
    LargeField {
        /// Its path.
        path: String,
        /// Its share of the payload, 0 to 1.
        share: f64,
    },
    /// One type's own serialization code (other than the value's own type's) holds at least
    /// half of a CPU profile's samples.
    LargeType {
        /// The type, without module paths.
        rust_type: String,
        /// Its share of the samples, 0 to 1.
        share: f64,
    },
    /// A finding stored as a sentence that no type above reads.
    Note {
        /// The sentence.
        text: String,
    },
}

impl Finding {
    /// Whether the engine changes numbers (the tables mark such a configuration's time).
    pub fn changes_numbers(&self) -> bool {
        matches!(
            self,
            Finding::NumbersChanged { .. } | Finding::FloatsChanged { .. }
        )
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::NumbersChanged {
                stage,
                count,
                first: c,
            } if c.from_text => write!(
                f,
                "{} changes {count} number(s); first at {}: text {} is {} correctly rounded, the engine holds {}",
                stage.as_str(),
                c.path,
                c.text,
                c.expected,
                c.got
            ),
            Finding::NumbersChanged {
                stage,
                count,
                first: c,
            } => write!(
                f,
                "{} changes {count} number(s); first at {}: {} became {}",
                stage.as_str(),
                c.path,
                c.expected,
                c.got
            ),
            Finding::DuplicateKeys { probe, behaviour } => {
                write!(f, "duplicate keys: {probe} {behaviour}")
            }
            Finding::FloatsChanged {
                values,
                index,
                original,
                decoded,
            } => write!(
                f,
                "the round trip changes floats in {values} value(s); first value {index}: {} became {}",
                original.trim(),
                decoded.trim()
            ),
            Finding::ElementByElement {
                path,
                rust_type,
                share,
                bytes,
                remedy,
                profile_share,
            } => {
                write!(
                    f,
                    "{path} ({rust_type}) is written element by element: {:.1}% of the payload ({bytes:.0} bytes)",
                    share * 100.0
                )?;
                if let Some(p) = profile_share {
                    write!(f, ", {:.1}% of the profile in its type's code", p * 100.0)?;
                }
                write!(f, "; remedy: {remedy}")
            }
            Finding::LargeField { path, share } => write!(
                f,
                "{path} takes {:.1}% of the payload, more than the rest of the value together",
                share * 100.0
            ),
            Finding::LargeType { rust_type, share } => write!(
                f,
                "{rust_type}'s own code holds {:.1}% of the CPU samples, more than the rest of the value's code together",
                share * 100.0
            ),
            Finding::Note { text } => f.write_str(text),
        }
    }
}

/// Reads a list of findings stored typed, or stored as sentences (the text of [`Finding`]'s
/// `Display`; without the `regex` feature each sentence reads as a [`Finding::Note`]);
/// for `#[serde(deserialize_with = ...)]` on a `Vec<Finding>` field.
pub fn findings_or_sentences<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Finding>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Typed(Finding),
        Sentence(String),
    }
    Ok(Vec::<Stored>::deserialize(d)?
        .into_iter()
        .map(|f| match f {
            Stored::Typed(f) => f,
            Stored::Sentence(text) => legacy::finding(&text),
        })
        .collect())
}

/// A difference that is not a number's (a string, a key, a shape), at a path of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// JSONPath-like place (`$.statuses[3].user`).
    pub path: String,
    /// What differs there.
    pub what: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.what)
    }
}

/// A step of a document's verification that can fail with an engine error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStep {
    /// Parsing the payload again.
    ParsePayload,
    /// Serialising the held value.
    Serialize,
    /// Parsing what the engine wrote.
    ParseWritten,
}

/// Why a configuration failed verification: it is never timed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum VerifyError {
    /// Value `index` of the dataset does not encode.
    #[error("value {index}: {error}")]
    Encode {
        /// The value's index in the dataset.
        index: usize,
        /// The engine's error.
        error: CodecError,
    },
    /// Value `index` encodes, but its payload does not decode.
    #[error("value {index} does not decode: {error}")]
    Decode {
        /// The value's index in the dataset.
        index: usize,
        /// The engine's error.
        error: CodecError,
    },
    /// Value `index` comes back different; `difference` says where (the first differing line
    /// of its `{:#?}`, or the model's own account of it).
    #[error("value {index} does not round-trip: {difference}")]
    Differs {
        /// The value's index in the dataset.
        index: usize,
        /// Where it differs.
        difference: String,
    },
    /// A study's own check after a round trip of value `index` (`verify_with`) failed.
    #[error("value {index} fails the study's check: {message}")]
    Check {
        /// The value's index in the dataset.
        index: usize,
        /// What the check found.
        message: String,
    },
    /// The reference parser rejects a document (it is no valid JSON).
    #[error("the reference parser rejects the document: {message}")]
    Reference {
        /// The parser's message.
        message: String,
    },
    /// An engine's value does not convert to serde_json's for the comparison.
    #[error("the engine's value does not convert: {message}")]
    Conversion {
        /// serde_json's message.
        message: String,
    },
    /// A number-insensitive comparison of a document's value found a difference.
    #[error("{} {at}", stage_words(*stage))]
    DocumentDiffers {
        /// Which comparison.
        stage: Stage,
        /// Where and what.
        at: Mismatch,
    },
    /// What the engine writes is no valid JSON.
    #[error("the engine writes invalid JSON: {message}")]
    InvalidJson {
        /// The reference parser's message.
        message: String,
    },
    /// The engine failed at a step of a document's verification.
    #[error("{}: {error}", step_words(*step))]
    DocumentStep {
        /// The step.
        step: DocumentStep,
        /// The engine's error.
        error: CodecError,
    },
}

fn stage_words(stage: Stage) -> &'static str {
    match stage {
        Stage::Parse => "the parse differs from the reference",
        Stage::ParseAgain => "parsing the payload gives another value",
        Stage::Writing => "the written document differs",
        Stage::RoundTrip => "the round trip does not give the value back",
    }
}

fn step_words(step: DocumentStep) -> &'static str {
    match step {
        DocumentStep::ParsePayload => "the payload does not parse",
        DocumentStep::Serialize => "serialize failed",
        DocumentStep::ParseWritten => "the written document does not parse back",
    }
}

/// Reading findings stored as sentences: the text of [`Finding`]'s `Display`. Without the
/// `regex` feature (a measured program, which writes findings and never reads stored ones)
/// every sentence reads as a [`Finding::Note`].
#[cfg(not(feature = "regex"))]
mod legacy {
    use super::Finding;

    /// The sentence as a [`Finding::Note`].
    pub(super) fn finding(text: &str) -> Finding {
        Finding::Note {
            text: text.to_string(),
        }
    }
}

/// Reading findings stored as sentences: the text of [`Finding`]'s `Display`.
#[cfg(feature = "regex")]
mod legacy {
    use std::sync::OnceLock;

    use regex::Regex;

    use super::{DuplicateKeys, Finding, NumberChange, Stage};

    fn numbers() -> &'static Regex {
        static RE: OnceLock<Regex> = OnceLock::new();
        RE.get_or_init(|| {
            Regex::new(
                r"^(parse|parsing the payload again|writing|the round trip) changes (\d+) number\(s\); first at (\S+): (?:text (\S+) is (\S+) correctly rounded, the engine holds (\S+)|(\S+) became (\S+))$",
            )
            .expect("a valid pattern")
        })
    }

    fn duplicates() -> &'static Regex {
        static RE: OnceLock<Regex> = OnceLock::new();
        RE.get_or_init(|| {
            Regex::new(r"^duplicate keys: (\{.*?\}) (keeps the first|keeps the last|keeps both|rejects them \((.*)\)|gives (.*))$")
                .expect("a valid pattern")
        })
    }

    /// The finding a stored sentence states; a sentence of another shape is a
    /// [`Finding::Note`].
    pub(super) fn finding(text: &str) -> Finding {
        if let Some(c) = numbers().captures(text) {
            let stage = match &c[1] {
                "parse" => Stage::Parse,
                "parsing the payload again" => Stage::ParseAgain,
                "writing" => Stage::Writing,
                _ => Stage::RoundTrip,
            };
            let count = c[2].parse().unwrap_or(0);
            let path = c[3].to_string();
            let first = match (c.get(4), c.get(5), c.get(6)) {
                (Some(t), Some(e), Some(g)) => NumberChange {
                    path,
                    text: t.as_str().into(),
                    expected: e.as_str().into(),
                    got: g.as_str().into(),
                    from_text: true,
                },
                _ => NumberChange {
                    path,
                    text: c[7].to_string(),
                    expected: c[7].to_string(),
                    got: c[8].to_string(),
                    from_text: false,
                },
            };
            return Finding::NumbersChanged {
                stage,
                count,
                first,
            };
        }
        if let Some(c) = duplicates().captures(text) {
            let behaviour = match (&c[2], c.get(3), c.get(4)) {
                ("keeps the first", ..) => DuplicateKeys::KeepsFirst,
                ("keeps the last", ..) => DuplicateKeys::KeepsLast,
                ("keeps both", ..) => DuplicateKeys::KeepsBoth,
                (_, Some(m), _) => DuplicateKeys::Rejects {
                    message: m.as_str().into(),
                },
                (_, _, Some(t)) => DuplicateKeys::Gives {
                    text: t.as_str().into(),
                },
                _ => {
                    return Finding::Note {
                        text: text.to_string(),
                    }
                }
            };
            return Finding::DuplicateKeys {
                probe: c[1].to_string(),
                behaviour,
            };
        }
        Finding::Note {
            text: text.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "regex")]
    fn change(from_text: bool) -> Finding {
        Finding::NumbersChanged {
            stage: Stage::Parse,
            count: 2,
            first: NumberChange {
                path: "$.a".into(),
                text: "43.474709000000132".into(),
                expected: "43.47470900000013".into(),
                got: "43.474709000000125".into(),
                from_text,
            },
        }
    }

    // Reading sentences back needs the `regex` feature (on in the workspace's tests, where
    // the harness's driver turns it on).
    #[test]
    #[cfg(feature = "regex")]
    fn findings_read_back_from_their_json_and_from_the_old_sentences() {
        let cases = [
            change(true),
            Finding::NumbersChanged {
                stage: Stage::RoundTrip,
                count: 1,
                first: NumberChange {
                    path: "$[0]".into(),
                    text: "1.5".into(),
                    expected: "1.5".into(),
                    got: "1.25".into(),
                    from_text: false,
                },
            },
            Finding::DuplicateKeys {
                probe: r#"{"k":1,"k":2}"#.into(),
                behaviour: DuplicateKeys::Rejects {
                    message: "duplicate field `k` at line 1 column 12".into(),
                },
            },
            Finding::DuplicateKeys {
                probe: r#"{"k":1,"k":2}"#.into(),
                behaviour: DuplicateKeys::KeepsLast,
            },
        ];
        let read = |json: String| {
            let mut d = serde_json::Deserializer::from_str(&json);
            findings_or_sentences(&mut d).unwrap()
        };
        for f in cases {
            let typed = read(serde_json::to_string(&[&f]).unwrap());
            assert_eq!(typed, std::slice::from_ref(&f));
            let sentence = serde_json::to_string(&[f.to_string()]).unwrap();
            assert_eq!(read(sentence.clone()), [f], "{sentence}");
        }
        assert!(change(true).changes_numbers());
        let other = read(r#"["something else"]"#.into()).remove(0);
        assert_eq!(
            other,
            Finding::Note {
                text: "something else".into()
            }
        );
        assert!(!other.changes_numbers());
    }

    #[test]
    fn verification_errors_say_which_value_and_why() {
        let e = VerifyError::Decode {
            index: 3,
            error: CodecError::decode_at(9, "eof"),
        };
        assert_eq!(e.to_string(), "value 3 does not decode: eof at byte 9");
        let d = VerifyError::DocumentDiffers {
            stage: Stage::Writing,
            at: Mismatch {
                path: "$.s".into(),
                what: "\"a\" became \"b\"".into(),
            },
        };
        assert_eq!(
            d.to_string(),
            "the written document differs at $.s: \"a\" became \"b\""
        );
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<VerifyError>(&json).unwrap(), d);
    }
}
