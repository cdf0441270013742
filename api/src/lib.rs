//! What a crate measured by serprof writes, and what serprof reads of it.
//!
//! - [`Codec`]: the one trait an engine implements, on values of a type `T`.
//! - [`Study`] and [`StudyOf`]: a study built as a value, its dataset, its engines
//!   ([`Engine`]), its operations ([`Operation`]), checks and budget.
//! - [`workload`]: the measured loops every recording runs, and the type-erased
//!   [`Workload`](workload::Workload) the harness drives.
//! - [`verify`]: what verification finds when a value does not come back.
//!
//! A user's crate reads this crate through `serprof`, which re-exports it:
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
//!     .into();
//! assert_eq!(study.configs()[0].info.name(), "readings/decimal");
//! ```

pub mod codec;
pub mod fields;
pub mod study;
pub mod verify;
pub mod workload;

pub use codec::{Codec, CodecError};
pub use study::{Budget, Engine, Format, Study, StudyOf};
pub use workload::{Operation, Value};
