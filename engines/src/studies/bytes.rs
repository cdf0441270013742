//! The `bytes` study: the byte-array hotspot of Fory JSON, before and after the fix, after Ingo
//! Kegel, "How we made Apache Fory JSON 4.5 times faster" (ej-technologies blog, 2026-09-07).
//!
//! Four configurations of our own `bytes_json` engine differ only in [`ByteArrayCodec`]: the
//! article's three states (signed decimal arrays, the two-pass base64 decoder, the table-driven
//! one) and the `base64` crate as a reference. Beside them, serde_json as it comes (`Vec<u8>` as
//! an array of unsigned decimals: the same trap) and serde_json with base64.

use std::sync::Arc;

use super::{
    AnyCodec, Config, ConfigInfo, DatasetKind, Format, FramePattern, Operation, Question, Study,
    StudyInfo, StudyKind,
};
use crate::casestudy::bytes_json::{ByteArrayCodec, BytesJson, Options};
use crate::codec::CodecError;
use crate::external;
use crate::model::SerdeBytes;

/// The before/after steps, as the article took them.
pub const STEPS: [&str; 3] = ["json-decimal", "json-base64-twopass", "json-base64-table"];

pub fn study() -> Study {
    Study {
        info: StudyInfo {
            name: "bytes".into(),
            title: "The byte-array hotspot, before and after the fix".into(),
            source: "Ingo Kegel, \"How we made Apache Fory JSON 4.5 times faster\", ej-technologies blog, 2026-09-07".into(),
            kind: StudyKind::Measured,
            // Every frame that handles byte arrays: ours (`read_byte_array`, `write_base64`,
            // `decode_base64_table`, ...), serde's `ByteArray` impls in `model::bytes`, and the
            // `base64` crate's.
            question: Some(Question {
                frames: FramePattern::builtin("(?i)byte_?array|base64"),
                label: "byte-array share",
                caption: "Share of CPU samples in byte-array code",
            }),
            baseline: None,
            steps: STEPS.iter().map(|s| s.to_string()).collect(),
            hidden: false,
            budget: None,
        },
        configs: configs(),
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
        study: "bytes".into(),
        config: config.into(),
        engine: engine.into(),
        engine_version: version.into(),
        format: Format::Json,
        dataset: DatasetKind::Orders,
        operation: Operation::RoundTrip,
        engine_frames: FramePattern::builtin(engine_frames),
        notes: notes.into(),
        document: None,
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
            make: Arc::new(|| bytes_json_codec(ByteArrayCodec::DecimalSigned)),
        },
        Config {
            info: info(
                "json-base64-twopass",
                "bytes_json",
                "serprof",
                BYTES_JSON_FRAMES,
                "fix 1: base64, decoded by a branchy validation pass and a second branchy pass re-reading every character",
            ),
            make: Arc::new(|| bytes_json_codec(ByteArrayCodec::Base64TwoPass)),
        },
        Config {
            info: info(
                "json-base64-table",
                "bytes_json",
                "serprof",
                BYTES_JSON_FRAMES,
                "fix 2: base64, one table-driven validation scan, then 4 characters to 3 bytes per step, no branches",
            ),
            make: Arc::new(|| bytes_json_codec(ByteArrayCodec::Base64Table)),
        },
        Config {
            info: info(
                "json-base64-crate",
                "bytes_json",
                "serprof",
                BYTES_JSON_CRATE_FRAMES,
                "reference: the same engine, base64 decoded by the base64 crate's STANDARD engine",
            ),
            make: Arc::new(|| bytes_json_codec(ByteArrayCodec::Base64Crate)),
        },
        Config {
            info: info(
                "serde_json-default",
                "serde_json",
                external::serde_json::VERSION,
                SERDE_FRAMES,
                "serde's default Vec<u8>: an array of unsigned decimals (the same trap); decimals through f64; nulls written",
            ),
            make: Arc::new(|| serde_json_codec(SerdeBytes::Seq)),
        },
        Config {
            info: info(
                "serde_json-base64",
                "serde_json",
                external::serde_json::VERSION,
                SERDE_FRAMES,
                "byte arrays as base64 through the base64 crate; decimals through f64 (2.00 is written 2.0); nulls written",
            ),
            make: Arc::new(|| serde_json_codec(SerdeBytes::Base64)),
        },
    ]
}
