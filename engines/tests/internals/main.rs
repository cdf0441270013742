//! The engines' tests of their own modules, one file per module (named after its path).
//!
//! Integration tests, not unit tests, so that the library compiles once: a unit test would
//! compile the whole crate a second time, as its test harness, which costs as long as the
//! library itself.

mod casestudy_bytes_json_base64;
mod casestudy_bytes_json_base64_encode;
mod casestudy_bytes_json_base64_table;
mod casestudy_bytes_json_base64_two_pass;
mod casestudy_bytes_json_cursor;
mod casestudy_bytes_json_decimal_bytes;
mod casestudy_bytes_json_numbers;
mod casestudy_bytes_json_strings;
mod casestudy_export;
mod casestudy_json_text;
mod casestudy_reflect_json;
mod casestudy_reflect_json_cache;
mod casestudy_reflect_json_introspect;
mod casestudy_reflect_json_write;
mod dataset_java_random;
mod dataset_orders;
mod dataset_rsb_log;
mod dataset_samples;
#[cfg(feature = "bilrost")]
mod external_bilrost;
#[cfg(feature = "capnp")]
mod external_capnp_rsb;
#[cfg(feature = "capnp")]
mod external_capnp_rsb_minecraft;
#[cfg(feature = "capnp")]
mod external_capnp_rsb_mk48;
#[cfg(feature = "flatbuffers")]
mod external_flatbuffers_rsb;
#[cfg(feature = "flatbuffers")]
mod external_flatbuffers_rsb_log;
#[cfg(feature = "flatbuffers")]
mod external_flatbuffers_rsb_minecraft;
#[cfg(feature = "flatbuffers")]
mod external_flatbuffers_rsb_mk48;
#[cfg(feature = "prost")]
mod external_prost_rsb;
#[cfg(feature = "protobuf")]
mod external_protobuf_rsb;
#[cfg(any(feature = "prost", feature = "protobuf"))]
mod external_rsb_pb;
#[cfg(any(feature = "prost", feature = "protobuf"))]
mod external_rsb_pb_minecraft;
#[cfg(any(feature = "prost", feature = "protobuf"))]
mod external_rsb_pb_mk48;
mod model_bytes;
mod model_decimal;
mod model_digest;
mod studies;
mod studies_corpus;
#[cfg(feature = "corpus")]
mod studies_corpus_configs;
#[cfg(feature = "corpus")]
mod studies_corpus_engines;
mod studies_corpus_reference;
mod studies_corrupt;
