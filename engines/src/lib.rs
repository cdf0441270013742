//! serprof's engines: the model, the datasets, the codec seam, and every engine it measures.
//!
//! - [`model`]: the Order and Sample types.
//! - [`dataset`]: the generated datasets, exact to the value.
//! - [`external`]: one small adapter per third-party library.
//! - [`casestudy`]: hand-written engines of the case studies (`bytes_json`, `reflect_json`).
//! - [`studies`]: studies and configurations as data.
//! - [`versions`]: the library versions this build compiled.

//!
//! The codec seam, the study builder and the measured loops are `serprof_api`'s; this crate
//! builds on them.

pub mod casestudy;
pub mod dataset;
pub mod external;
pub mod model;
pub mod studies;
pub mod versions;

// The API crate's modules under their own names, so that every engine writes `crate::codec`.
pub(crate) use serprof_api::{codec, fields, study, verify, workload};
pub use serprof_api::{Codec, CodecError, Engine, Study, StudyOf};
