//! The measured workload of one configuration: its codec on its dataset, its verification, and
//! the measured loops every recording (timing, CPU samples, allocations, instructions) runs.
//!
//! Every recording runs the same measured loop ([`Workload::run`]) over the same dataset; a loop
//! holds nothing but the engine's work (clear the one reused output buffer, encode, decode,
//! drop), so a profiler or a counting allocator sees the codec and not the harness. The loops
//! are functions of their own, never inlined, so that callgrind can count exactly one call of
//! one of them ([`Workload::loop_function`] names it).
//!
//! [`Workload`] is the type-erased face the harness drives; [`Values`] is the workload of a
//! [`Codec<T>`] on a dataset of `T`s, which the study builder makes. A workload of another shape
//! (the corpus study's documents) implements the trait itself.

mod diff;
mod documents;
mod values;

use std::fmt::{self, Debug};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::codec::CodecError;
use crate::verify::{Finding, VerifyError};

pub use diff::{debug_difference, DebugDiff};
pub use documents::{DocumentCodec, Documents};
pub use values::{Data, Values};

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
    /// Decode stored payloads (the damaged inputs of a [`StudyKind::Corrupt`] study).
    Decode,
    /// Parse a stored payload (a document's JSON text, or its transcoding) into a value.
    Parse,
    /// Read every field of a stored payload where it lies, unvalidated (zero-copy engines).
    Access,
    /// Validate a stored payload, then read every field where it lies (zero-copy engines).
    #[serde(rename = "validated-access")]
    ValidatedAccess,
}

impl Operation {
    /// Its name in files and configuration names: `roundtrip`, `serialize`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::RoundTrip => "roundtrip",
            Operation::Serialize => "serialize",
            Operation::Deserialize => "deserialize",
            Operation::Decode => "decode",
            Operation::Parse => "parse",
            Operation::Access => "access",
            Operation::ValidatedAccess => "validated-access",
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
    /// Every value's payload, each checked to decode back equal (the corrupt study's valid
    /// inputs).
    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError>;
    /// Decodes a damaged copy of value `index`'s payload and compares it with the value.
    fn decode_damaged(&mut self, bytes: &mut [u8], index: usize) -> Damaged;
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
}

/// A value's digest (see [`crate::model::Digest`]).
pub type Digester<T> = Arc<dyn Fn(&T) -> u64 + Send + Sync>;

impl<T> Default for Checks<T> {
    fn default() -> Self {
        Checks {
            describe: None,
            verify_with: None,
            shares_references: None,
            digest: None,
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
        }
    }
}

/// Runs operations until `min` has passed, doubling the count each time; returns the
/// operations run and the time they took (a warm-up that also calibrates batch sizes).
pub fn warm_up(w: &mut dyn Workload, min: Duration) -> Result<(u64, Duration), CodecError> {
    let start = Instant::now();
    let mut ops = 0u64;
    let mut n = 1u64;
    while start.elapsed() < min {
        w.run(n)?;
        ops += n;
        n = (n * 2).min(1 << 20);
    }
    Ok((ops.max(1), start.elapsed()))
}

/// Operations per batch so that a batch lasts about `batch` given `ns_per_op`.
pub fn ops_per_batch(ns_per_op: f64, batch: Duration) -> u64 {
    ((batch.as_nanos() as f64 / ns_per_op.max(1.0)).round() as u64).max(1)
}

/// The measured loop of a [`Values`] workload of `operation`, as valgrind names it.
pub fn values_loop(operation: Operation) -> &'static str {
    match operation {
        Operation::RoundTrip => "serprof_api::workload::values::roundtrip_loop",
        Operation::Deserialize => "serprof_api::workload::values::deserialize_loop",
        Operation::Access | Operation::ValidatedAccess => {
            "serprof_api::workload::values::access_loop"
        }
        _ => "serprof_api::workload::values::serialize_loop",
    }
}

/// The measured loop of a [`Documents`] workload of `operation`, as valgrind names it.
pub fn documents_loop(operation: Operation) -> &'static str {
    match operation {
        // A document is text with no in-place form: the access operations, which no document
        // configuration has, would parse it.
        Operation::Parse
        | Operation::Decode
        | Operation::Deserialize
        | Operation::Access
        | Operation::ValidatedAccess => "serprof_api::workload::documents::parse_loop",
        Operation::Serialize => "serprof_api::workload::documents::document_serialize_loop",
        Operation::RoundTrip => "serprof_api::workload::documents::document_roundtrip_loop",
    }
}

/// The regular expression over frame names that matches every measured loop (`serprof flame
/// --from-loop`).
pub const LOOP_FRAMES: &str = r"serprof_api::workload::\w+::\w+_loop";

#[cfg(test)]
mod tests {
    use super::*;

    /// A document engine that overwrites the first byte of what it parses.
    struct Rewriter {
        payload: Vec<u8>,
        says_in_place: bool,
    }

    impl DocumentCodec for Rewriter {
        fn payload(&self) -> &[u8] {
            &self.payload
        }
        fn parses_in_place(&self) -> bool {
            self.says_in_place
        }
        fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError> {
            input[0] = b'!';
            Ok(())
        }
        fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError> {
            out.extend_from_slice(&self.payload);
            Ok(())
        }
        fn verify(&mut self) -> Result<Vec<Finding>, VerifyError> {
            Ok(Vec::new())
        }
    }

    fn rewriter(says_in_place: bool) -> Box<Rewriter> {
        Box::new(Rewriter {
            payload: b"[1]".to_vec(),
            says_in_place,
        })
    }

    #[test]
    fn only_in_place_parsers_get_a_copy_and_an_engine_that_hides_one_fails_verification() {
        let mut hidden = Documents::new(rewriter(false), Operation::Parse);
        let err = hidden.verify().unwrap_err().to_string();
        assert!(err.contains("parses_in_place"), "{err}");
        assert!(!hidden.copies_input());
        // Without a copy, the timed parse reads (and here rewrites) the payload itself.
        hidden.run(1).unwrap();
        assert_eq!(hidden.payload, b"!1]");

        let mut honest = Documents::new(rewriter(true), Operation::Parse);
        honest.verify().unwrap();
        assert!(honest.copies_input());
        honest.run(3).unwrap();
        // Every timed parse read an intact copy.
        assert_eq!(honest.payload, b"[1]");

        // A serialize never copies, whatever the engine says.
        assert!(!Documents::new(rewriter(true), Operation::Serialize).copies_input());
    }
}
