//! The `bytes` study (seeds/004): the byte-array hotspot of Fory JSON, before and after the fix.
//!
//! Four configurations of our own `bytes_json` engine differ only in [`ByteArrayCodec`]: the
//! article's three states (signed decimal arrays, the two-pass base64 decoder, the table-driven
//! one) and the `base64` crate as a reference. Beside them, serde_json as it comes (`Vec<u8>` as
//! an array of unsigned decimals: the same trap) and serde_json with base64.

use super::{AnyCodec, Config, ConfigInfo, DatasetKind, Format, Operation, StudyInfo};
use crate::casestudy::bytes_json::{ByteArrayCodec, BytesJson, Options};
use crate::codec::CodecError;
use crate::external;
use crate::model::SerdeBytes;

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "bytes",
        title: "The byte-array hotspot, before and after the fix",
        source: "seeds/004 (Apache Fory JSON byte-array decoding, 4.5x faster)",
        // Every frame that handles byte arrays: ours (`read_byte_array`, `write_base64`,
        // `decode_base64_table`, ...), serde's `ByteArray` impls in `model::bytes`, and the
        // `base64` crate's.
        hotspot_match: Some("(?i)byte_?array|base64"),
        baseline: None,
        hidden: false,
    }
}

fn info(
    config: &'static str,
    engine: &'static str,
    version: &'static str,
    engine_frames: &'static str,
    notes: &'static str,
) -> ConfigInfo {
    ConfigInfo {
        study: "bytes",
        config,
        engine,
        engine_version: version,
        format: Format::Json,
        dataset: DatasetKind::Orders,
        operation: Operation::RoundTrip,
        engine_frames,
        notes,
    }
}

/// Frames of our engine.
const BYTES_JSON_FRAMES: &str = "bytes_json";
/// Frames of our engine and of the `base64` crate it calls in `json-base64-crate`.
const BYTES_JSON_CRATE_FRAMES: &str = "bytes_json|base64::";
/// Frames of serde_json, serde and the base64 crate. Since serde 1.0.220 the traits live in
/// `serde_core` (`<ByteArray as serde_core::ser::Serialize>::serialize`), so both crate names
/// count.
const SERDE_FRAMES: &str = "serde_json|serde(_core)?::|base64";

fn bytes_json_codec(byte_arrays: ByteArrayCodec) -> Result<AnyCodec, CodecError> {
    Ok(AnyCodec::Orders(Box::new(BytesJson {
        options: Options {
            byte_arrays,
            ..Options::default()
        },
    })))
}

fn serde_json_codec(bytes: SerdeBytes) -> Result<AnyCodec, CodecError> {
    Ok(AnyCodec::Orders(Box::new(
        external::serde_json::SerdeJson { bytes },
    )))
}

pub fn configs() -> Vec<Config> {
    vec![
        Config {
            info: info(
                "json-decimal",
                "bytes_json",
                "serprof",
                BYTES_JSON_FRAMES,
                "Fory JSON 1.7.0's state: byte arrays as signed decimal arrays, up to 5 characters a byte",
            ),
            make: || bytes_json_codec(ByteArrayCodec::DecimalSigned),
        },
        Config {
            info: info(
                "json-base64-twopass",
                "bytes_json",
                "serprof",
                BYTES_JSON_FRAMES,
                "fix 1: base64, decoded by a branchy validation pass and a second branchy pass re-reading every character",
            ),
            make: || bytes_json_codec(ByteArrayCodec::Base64TwoPass),
        },
        Config {
            info: info(
                "json-base64-table",
                "bytes_json",
                "serprof",
                BYTES_JSON_FRAMES,
                "fix 2: base64, one table-driven validation scan, then 4 characters to 3 bytes per step, no branches",
            ),
            make: || bytes_json_codec(ByteArrayCodec::Base64Table),
        },
        Config {
            info: info(
                "json-base64-crate",
                "bytes_json",
                "serprof",
                BYTES_JSON_CRATE_FRAMES,
                "reference: the same engine, base64 decoded by the base64 crate's STANDARD engine",
            ),
            make: || bytes_json_codec(ByteArrayCodec::Base64Crate),
        },
        Config {
            info: info(
                "serde_json-default",
                "serde_json",
                external::serde_json::VERSION,
                SERDE_FRAMES,
                "serde's default Vec<u8>: an array of unsigned decimals (the same trap); decimals through f64; nulls written",
            ),
            make: || serde_json_codec(SerdeBytes::Seq),
        },
        Config {
            info: info(
                "serde_json-base64",
                "serde_json",
                external::serde_json::VERSION,
                SERDE_FRAMES,
                "byte arrays as base64 through the base64 crate; decimals through f64 (2.00 is written 2.0); nulls written",
            ),
            make: || serde_json_codec(SerdeBytes::Base64),
        },
    ]
}
