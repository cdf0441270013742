//! One small adapter per third-party library, all through [`crate::Codec`].
//!
//! Every adapter has the same shape: a struct holding its options, `encode` into the caller's
//! buffer, `decode` from the payload. A trailing comment in each file names what the library
//! cannot do for the Order model. Module names match the crates' names; they live here, one
//! level down, so that they do not shadow the crates elsewhere.

pub mod bincode;
pub mod bitcode;
pub mod ciborium;
pub mod fory;
pub mod postcard;
pub mod prost;
pub mod rmp_serde;
pub mod serde_json;
pub mod simd_json;
pub mod sonic_rs;
