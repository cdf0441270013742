//! The seam the harness drives: operations, what verification found, the type-erased
//! [`Workload`], the values a study measures and the checks of their round trip.

use std::fmt::{self, Debug};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::codec::CodecError;
use crate::fields::tally::FieldsReport;
use crate::verify::{Finding, VerifyError};

/// What one measured operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// Encode one value, then decode the payload back.
    RoundTrip,
    /// Encode one value (verification still decodes it back, untimed).
    Serialize,
    /// Decode one value's payload, encoded before anything is timed.
    Deserialize,
    /// The same decode without validation (rkyv's `access_unchecked` then `deserialize`;
    /// [`crate::Codec::decode_unchecked`]), of payloads the engine encoded before anything is
    /// timed.
    #[serde(rename = "unvalidated-deserialize")]
    UnvalidatedDeserialize,
    /// Decode stored payloads (the damaged inputs of a [`crate::study::StudyKind::Corrupt`] study).
    Decode,
    /// Parse a stored payload (a document's JSON text, or its transcoding) into a value.
    Parse,
    /// Read every field of a stored payload where it lies, unvalidated (zero-copy engines).
    Access,
    /// Validate a stored payload, then read every field where it lies (zero-copy engines).
    #[serde(rename = "validated-access")]
    ValidatedAccess,
    /// Decode a stored payload into a value whose strings borrow from the payload, then drop
    /// it (rust_serialization_benchmark's `borrow`; [`crate::Codec::borrow`]).
    Borrow,
    /// Encode one value's message, built from the value before anything is timed
    /// (rust_serialization_benchmark's `encode` of a Protobuf crate, beside its `populate +
    /// encode`; [`crate::Codec::encode_message`]).
    #[serde(rename = "encode-message")]
    EncodeMessage,
    /// Decode a stored payload into the engine's message and drop it, not converted to a
    /// value (rust_serialization_benchmark's `decode`, beside its `decode + convert`;
    /// [`crate::Codec::decode_message`]).
    #[serde(rename = "decode-message")]
    DecodeMessage,
    /// Change fields of a stored payload where they lie, unvalidated, the same payloads again
    /// each pass (a zero-copy engine's mutable access: rust_serialization_benchmark's `update`
    /// of rkyv; [`crate::Codec::update_unchecked`]).
    Update,
}

impl Operation {
    /// Its name in files and configuration names: `roundtrip`, `serialize`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::RoundTrip => "roundtrip",
            Operation::Serialize => "serialize",
            Operation::Deserialize => "deserialize",
            Operation::UnvalidatedDeserialize => "unvalidated-deserialize",
            Operation::Decode => "decode",
            Operation::Parse => "parse",
            Operation::Access => "access",
            Operation::ValidatedAccess => "validated-access",
            Operation::Borrow => "borrow",
            Operation::EncodeMessage => "encode-message",
            Operation::DecodeMessage => "decode-message",
            Operation::Update => "update",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What verification found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// Mean payload bytes per value over the whole dataset.
    pub payload_bytes: f64,
    /// Whether shared references survived every round trip (`None`: the study does not ask).
    pub shares_references: Option<bool>,
    /// What verification found that does not fail it (numbers an engine changes, what it does
    /// with duplicate keys).
    pub findings: Vec<Finding>,
}

/// What decoding a damaged payload gave (the corrupt study).
#[derive(Debug, Clone, PartialEq)]
pub enum Damaged {
    /// The engine refused it with an error.
    Refused(CodecError),
    /// It decoded to the original value.
    Unchanged,
    /// It decoded to another value; how it differs.
    Altered(String),
}

/// What every recording of a configuration drives.
pub trait Workload: Send {
    /// Checks the engine before anything is timed: every value round-trips (or, for a study of
    /// documents, parses as the reference parser reads it).
    fn verify(&mut self) -> Result<Verified, VerifyError>;
    /// Runs `n` operations, cycling through the dataset.
    fn run(&mut self, n: u64) -> Result<(), CodecError>;
    /// Operations in one pass over the dataset.
    fn dataset_len(&self) -> usize;
    /// The measured loop's function as valgrind names it (legacy demangling: no generic
    /// arguments, so every instantiation is one function).
    fn loop_function(&self) -> &'static str;
    /// Whether the timed loop copies its input before each parse (only for engines that parse
    /// in place, so that each parse sees an intact payload): the figure includes that copy.
    fn copies_input(&self) -> bool {
        false
    }
    /// Value `index` as the engine encodes it (`serprof encode`).
    fn encode_value(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// A payload decoded, as its value's `{:#?}` (`serprof decode`).
    fn decode_to_text(&mut self, bytes: &mut [u8]) -> Result<String, CodecError>;
    /// A payload decoded, as JSON (`serprof decode --json`), or `None` when the study's values
    /// have no JSON view ([`Checks::json`]).
    fn decode_to_json(&mut self, bytes: &mut [u8]) -> Result<Option<String>, CodecError> {
        let _ = bytes;
        Ok(None)
    }
    /// The payloads split by field, with the findings of the split ([`crate::fields`]); run by
    /// the verification recording only, after [`Workload::verify`] (never under valgrind, and
    /// never in a timing child). The default: no split, and why.
    fn split_fields(&mut self) -> FieldsReport {
        FieldsReport::none(crate::fields::tally::NOT_SERDE)
    }
    /// Every value's payload, each checked to decode back equal (the corrupt study's valid
    /// inputs).
    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError>;
    /// Decodes a damaged copy of value `index`'s payload and compares it with the value.
    fn decode_damaged(&mut self, bytes: &mut [u8], index: usize) -> Damaged;
    /// The heap a decoded value keeps, in bytes per value: every value's payload decoded (after
    /// one decode of each to warm the engine's own buffers) between two readings of `live`
    /// (the heap bytes the thread holds), the value still alive at the second; the mean over
    /// the dataset. A reading in place (the access rows) keeps what the access returns, nothing
    /// on the heap. `None` when the operation decodes nothing (serialize) or the workload does
    /// not say (the default).
    fn retained_bytes(&mut self, live: &mut dyn FnMut() -> i64) -> Option<Result<f64, CodecError>> {
        let _ = live;
        None
    }
}

/// A value a study measures: what verification and the commands need of it.
pub trait Value: Debug + PartialEq + Send + Sync + 'static {}
impl<T: Debug + PartialEq + Send + Sync + 'static> Value for T {}

/// A check of a decoded value against its original: what is wrong or different, if anything.
pub type PairCheck<T> = Arc<dyn Fn(&T, &T) -> Option<String> + Send + Sync>;

/// A property of a decoded value.
pub type Property<T> = Arc<dyn Fn(&T) -> bool + Send + Sync>;

/// How a study checks a round trip beyond equality; all optional.
pub struct Checks<T> {
    /// Describes how two unequal values differ (default: the first differing line of their
    /// `{:#?}`).
    pub describe: Option<PairCheck<T>>,
    /// A further check of a decoded value against its original: what is wrong, if anything.
    pub verify_with: Option<PairCheck<T>>,
    /// Whether a decoded value kept its shared references (recorded, never a failure).
    pub shares_references: Option<Property<T>>,
    /// The digest of a value that an engine's in-place access must return for its payload
    /// (the access operations' check).
    pub digest: Option<Digester<T>>,
    /// A value as JSON text (`serprof decode --json`): set for a type that derives serde's
    /// traits by the serde engines ([`crate::study::Engine::json_view`]).
    pub json: Option<JsonView<T>>,
}

/// A value as JSON text, or why it cannot be written as JSON.
pub type JsonView<T> = Arc<dyn Fn(&T) -> Result<String, CodecError> + Send + Sync>;

/// A value's digest (for instance the engines crate's `model::Digest`).
pub type Digester<T> = Arc<dyn Fn(&T) -> u64 + Send + Sync>;

impl<T> Default for Checks<T> {
    fn default() -> Self {
        Checks {
            describe: None,
            verify_with: None,
            shares_references: None,
            digest: None,
            json: None,
        }
    }
}

impl<T> Clone for Checks<T> {
    fn clone(&self) -> Self {
        Checks {
            describe: self.describe.clone(),
            verify_with: self.verify_with.clone(),
            shares_references: self.shares_references.clone(),
            digest: self.digest.clone(),
            json: self.json.clone(),
        }
    }
}
