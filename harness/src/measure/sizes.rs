//! Payload sizes after compression, as rust_serialization_benchmark reports them beside the raw
//! size: which configurations' payloads are compressed, and the levels (zlib's and zstd's usual
//! defaults). The driver compresses each value's payload on its own and takes the mean over the
//! dataset (`run::compression`).

use serprof_api::__private::Config;
use serprof_api::Operation;

/// zlib's level: 6, zlib's own default (`flate2::Compression::default()`).
pub(crate) const ZLIB_LEVEL: u32 = 6;
/// zstd's level: 3, libzstd's default (what level 0 selects).
pub(crate) const ZSTD_LEVEL: i32 = 3;

/// Whether `config`'s payloads are messages an engine wrote (not stored documents or damaged
/// inputs, whose sizes say nothing about the engine). A configuration of a document (the
/// corpus study) holds one parsed value and makes no list of payloads, so it has none either.
pub(crate) fn compresses(config: &Config) -> bool {
    !matches!(config.info.operation, Operation::Parse | Operation::Decode)
        && config.info.document.is_none()
}
