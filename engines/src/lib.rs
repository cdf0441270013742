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
//! builds on them, and on the API's hidden module (`serprof_api::__private`) for what it hands
//! serprof's driver beside a user's studies (the corpus study's documents, findings).

#![deny(missing_docs)]

pub mod casestudy;
pub mod dataset;
pub mod external;
pub mod model;
pub mod studies;
pub mod versions;

pub use serprof_api::{Codec, CodecError, Engine, Study, StudyOf};
