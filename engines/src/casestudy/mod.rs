//! Hand-written engines of the case studies.
//!
//! - [`bytes_json`]: a JSON engine for the Order model written the way Apache Fory JSON is
//!   (seeds/004), whose byte-array codec is an option.
//! - [`reflect_json`]: a run-time-reflection serializer (seeds/000).

pub mod bytes_json;
pub mod reflect_json;
