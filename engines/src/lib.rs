//! serprof's engines: the model, the datasets, the codec seam, and every engine it measures.
//!
//! - [`model`]: the Order and Sample types.
//! - [`dataset`]: the generated datasets, exact to the value.
//! - [`codec`]: the one trait every engine implements.
//! - [`external`]: one small adapter per third-party library.
//! - [`casestudy`]: hand-written engines of the case studies (`bytes_json`, `reflect_json`).
//! - [`studies`]: studies and configurations as data.

pub mod casestudy;
#[warn(missing_docs)]
pub mod codec;
pub mod dataset;
pub mod external;
pub mod model;
pub mod studies;
#[warn(missing_docs)]
pub mod study;
#[warn(missing_docs)]
pub mod verify;
#[warn(missing_docs)]
pub mod workload;

pub use codec::{Codec, CodecError};
pub use study::{Engine, Study, StudyOf};
