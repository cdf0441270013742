//! What a crate measured by serprof writes.
//!
//! - [`Codec`] and [`CodecError`]: the one trait an engine implements, on values of a type `T`
//!   (a [`Value`]), and its error.
//! - [`Study`] and [`StudyOf`]: a study built as a value, its dataset, its engines
//!   ([`Engine`], [`Format`]), its operations ([`Operation`]), checks and [`Budget`]; a study of
//!   damaged inputs ([`Study::corrupt`]) is given a [`Damage`] that makes [`DamagedInput`]s.
//! - [`fields`]: how an engine's payloads split by field ([`fields::FieldSplit`]).
//!
//! A user's crate reads this crate through `serprof`, which re-exports these items:
//!
//! ```
//! use serprof_api::{Codec, CodecError, Study};
//!
//! #[derive(Debug, Clone, PartialEq)]
//! struct Reading {
//!     at: u64,
//! }
//!
//! #[derive(Default)]
//! struct Decimal;
//! impl Codec<Reading> for Decimal {
//!     fn encode(&mut self, v: &Reading, out: &mut Vec<u8>) -> Result<(), CodecError> {
//!         out.extend_from_slice(v.at.to_string().as_bytes());
//!         Ok(())
//!     }
//!     fn decode(&mut self, bytes: &mut [u8]) -> Result<Reading, CodecError> {
//!         let text = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
//!         Ok(Reading { at: text.parse().map_err(CodecError::decode)? })
//!     }
//! }
//!
//! let study: Study = Study::new("readings", "Which engine for our readings?")
//!     .dataset(|| (0..10).map(|at| Reading { at }).collect())
//!     .codec("decimal", || Ok(Decimal))
//!     .baseline("decimal")
//!     .into();
//! ```
//!
//! What serprof's driver and its worker processes read of a study (its description, its
//! configurations, the type-erased workload and its measured loops, what verification finds,
//! the split by field as stored) is the hidden module `__private`: the contract between the
//! measured program and the driver, which serprof's own crates use and which changes with them.

#![deny(missing_docs)]

mod codec;
pub mod fields;
mod study;
mod verify;
mod workload;

pub use codec::{Codec, CodecError};
pub use study::{Budget, Damage, DamagedInput, Engine, Format, Study, StudyOf};
pub use workload::{Operation, Value};

/// The contract between a measured program and serprof's driver: what the harness, its worker
/// processes and serprof's engines crate read of a study, its configurations and their
/// workloads. Not for a user's crate: it follows serprof's internals and changes with them.
#[doc(hidden)]
pub mod __private {
    pub use crate::fields::tally::{
        short_type, FieldBytes, FieldsReport, Tally, ELEMENTS_THRESHOLD, LARGE_FIELD_THRESHOLD,
        NOT_SERDE,
    };
    pub use crate::study::{
        Config, ConfigInfo, DocumentRecord, FramePattern, FramePatternError, MakeWorkload,
        Question, StudyInfo, StudyKind,
    };
    pub use crate::verify::{
        findings_or_sentences, DocumentStep, DuplicateKeys, Finding, Mismatch, NumberChange, Stage,
        VerifyError,
    };
    pub use crate::workload::{
        debug_difference, documents_loop, ops_per_batch, values_loop, warm_up, Checks, Damaged,
        Data, DebugDiff, Digester, DocumentCodec, Documents, JsonView, PairCheck, Property, Values,
        Verified, Workload, LOOP_FRAMES,
    };
}
