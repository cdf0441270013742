//! The `formats` study: every major Rust engine on the Order dataset, round trip, after Ingo
//! Kegel, "Java vs. Kotlin: who (de)serializes faster?" (ej-technologies blog, 2026-08-31), which
//! profiled JSON and binary engines on the same realistic object graph.
//!
//! One configuration per engine, named after its crate; every serde binary engine comes twice,
//! as it comes (`Vec<u8>` as a sequence of integers: serde's default) and with `+bytes` (byte
//! arrays through `serialize_bytes`, what `serde_bytes` does), because serde's default costs a
//! binary format as much as JSON costs (postcard 13 vs 6 µs, rmp-serde 71 vs 10, ciborium 200 vs
//! 18 per round trip, measured here). The JSON engines write byte arrays as base64, like Jackson.

use std::sync::Arc;

use super::{
    AnyCodec, Config, ConfigInfo, DatasetKind, Format, FramePattern, Operation, Study, StudyInfo,
    StudyKind,
};
use crate::codec::CodecError;
use crate::external;
use crate::model::SerdeBytes;

/// The article the study follows.
const SOURCE: &str =
    "Ingo Kegel, \"Java vs. Kotlin: who (de)serializes faster?\", ej-technologies blog, 2026-08-31";

pub fn study() -> Study {
    Study {
        info: StudyInfo {
            name: "formats".into(),
            title: "Which engine is fastest on the Order graph, and why".into(),
            source: SOURCE.into(),
            kind: StudyKind::Measured,
            question: None,
            baseline: None,
            steps: Vec::new(),
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
    format: Format,
    engine_frames: &'static str,
    notes: &'static str,
) -> ConfigInfo {
    ConfigInfo {
        study: "formats".into(),
        config: config.into(),
        engine: engine.into(),
        engine_version: version.into(),
        format,
        dataset: DatasetKind::Orders,
        operation: Operation::RoundTrip,
        engine_frames: FramePattern::builtin(engine_frames),
        notes: notes.into(),
        document: None,
    }
}

type Made = Result<AnyCodec, CodecError>;

fn orders(codec: impl crate::codec::Codec<crate::model::Order> + 'static) -> Made {
    Ok(AnyCodec::Orders(Box::new(codec)))
}

pub fn configs() -> Vec<Config> {
    use external::{bincode, bitcode, ciborium, postcard, prost, rmp_serde, serde_json};
    use external::{fory, simd_json, sonic_rs};
    vec![
        // JSON.
        Config {
            info: info(
                "bytes_json",
                "bytes_json",
                "serprof",
                Format::Json,
                "bytes_json",
                "hand-written (the bytes study's engine): streaming writer, cursor reader, base64 with the table decoder; decimals exact with their scale; nulls omitted like Fory JSON; shared references not kept",
            ),
            make: Arc::new(|| {
                orders(crate::casestudy::bytes_json::BytesJson {
                    options: crate::casestudy::bytes_json::Options::default(),
                })
            }),
        },
        Config {
            info: info(
                "serde_json",
                "serde_json",
                serde_json::VERSION,
                Format::Json,
                "serde_json|serde(_core)?::|base64",
                "derived serde; byte arrays as base64 (base64 crate); decimals through f64 (2.00 is \
                 written 2.0); nulls written; shared references not kept",
            ),
            make: Arc::new(|| orders(serde_json::SerdeJson { bytes: SerdeBytes::Base64 })),
        },
        Config {
            info: info(
                "sonic-rs",
                "sonic-rs",
                sonic_rs::VERSION,
                Format::Json,
                "sonic_rs|serde(_core)?::|base64",
                "derived serde, the serde_json mapping: byte arrays as base64 (base64 crate); \
                 decimals through f64 (2.00 is written 2.0); nulls written; shared references not kept",
            ),
            make: Arc::new(|| orders(sonic_rs::SonicRs { bytes: SerdeBytes::Base64 })),
        },
        Config {
            info: info(
                "simd-json",
                "simd-json",
                simd_json::VERSION,
                Format::Json,
                "simd_json|serde(_core)?::|base64",
                "derived serde, the serde_json mapping (base64, f64 decimals, nulls written); parses \
                 the encode buffer in place with reused tape buffers, no copy; shared references not kept",
            ),
            make: Arc::new(|| orders(simd_json::SimdJson::new(SerdeBytes::Base64))),
        },
        // Binary, object graph.
        Config {
            info: info(
                "fory",
                "fory",
                fory::VERSION,
                Format::Binary,
                "fory",
                "native mode, same schema (compatible=false), reference tracking on: shared \
                 references kept (address, products, categories written once); prices as i64 \
                 cents; attributes, tags, thumbnails through small serializers of ours",
            ),
            make: Arc::new(|| orders(fory::ForyCodec::new()?)),
        },
        // Binary, schema.
        Config {
            info: info(
                "prost",
                "prost",
                prost::VERSION,
                Format::Binary,
                "prost|serprof_engines::external::prost",
                "Protobuf messages derived in Rust; the Order is converted to messages in encode and \
                 back in decode, inside the timed round trip (strings and thumbnails copied); prices \
                 as int64 cents; attributes as repeated entries (a proto map loses order); shared \
                 references not kept",
            ),
            make: Arc::new(|| orders(prost::Prost)),
        },
        // Binary, serde: as serde comes, then with native byte strings.
        Config {
            info: info(
                "rmp-serde",
                "rmp-serde",
                rmp_serde::VERSION,
                Format::Binary,
                "rmp_serde|rmp::|serde(_core)?::",
                "MessagePack, structs as arrays (no field names, rmp-serde's default); Vec<u8> as \
                 serde's sequence of integers; prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(rmp_serde::RmpSerde { bytes: SerdeBytes::Seq })),
        },
        Config {
            info: info(
                "rmp-serde+bytes",
                "rmp-serde",
                rmp_serde::VERSION,
                Format::Binary,
                "rmp_serde|rmp::|serde(_core)?::",
                "MessagePack, structs as arrays; byte arrays as bin (serialize_bytes); prices as i64 \
                 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(rmp_serde::RmpSerde { bytes: SerdeBytes::Native })),
        },
        Config {
            info: info(
                "ciborium",
                "ciborium",
                ciborium::VERSION,
                Format::Binary,
                "ciborium|serde(_core)?::",
                "CBOR, structs as maps with field names (like Jackson CBOR); Vec<u8> as serde's \
                 sequence of integers; prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(ciborium::Ciborium { bytes: SerdeBytes::Seq })),
        },
        Config {
            info: info(
                "ciborium+bytes",
                "ciborium",
                ciborium::VERSION,
                Format::Binary,
                "ciborium|serde(_core)?::",
                "CBOR, structs as maps with field names; byte arrays as CBOR byte strings \
                 (serialize_bytes); prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(ciborium::Ciborium { bytes: SerdeBytes::Native })),
        },
        Config {
            info: info(
                "bincode",
                "bincode",
                bincode::VERSION,
                Format::Binary,
                "bincode|serde(_core)?::",
                "bincode 2 serde API, config::standard() (varints, no field names); Vec<u8> as \
                 serde's sequence; prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(bincode::Bincode { bytes: SerdeBytes::Seq })),
        },
        Config {
            info: info(
                "bincode+bytes",
                "bincode",
                bincode::VERSION,
                Format::Binary,
                "bincode|serde(_core)?::",
                "bincode 2 serde API, config::standard(); byte arrays through serialize_bytes; \
                 prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(bincode::Bincode { bytes: SerdeBytes::Native })),
        },
        Config {
            info: info(
                "postcard",
                "postcard",
                postcard::VERSION,
                Format::Binary,
                "postcard|serde(_core)?::",
                "no field names, varints; Vec<u8> as serde's sequence; prices as i64 cents; shared \
                 references not kept",
            ),
            make: Arc::new(|| orders(postcard::Postcard { bytes: SerdeBytes::Seq })),
        },
        Config {
            info: info(
                "postcard+bytes",
                "postcard",
                postcard::VERSION,
                Format::Binary,
                "postcard|serde(_core)?::",
                "no field names, varints; byte arrays through serialize_bytes; prices as i64 cents; \
                 shared references not kept",
            ),
            make: Arc::new(|| orders(postcard::Postcard { bytes: SerdeBytes::Native })),
        },
        Config {
            info: info(
                "bitcode",
                "bitcode",
                bitcode::VERSION,
                Format::Binary,
                "bitcode|serde(_core)?::",
                "serde API (bitcode's own derive rejects the recursive Category); returns an owned \
                 Vec, copied into the buffer; Vec<u8> as serde's sequence; prices as i64 cents; \
                 shared references not kept",
            ),
            make: Arc::new(|| orders(bitcode::Bitcode { bytes: SerdeBytes::Seq })),
        },
        Config {
            info: info(
                "bitcode+bytes",
                "bitcode",
                bitcode::VERSION,
                Format::Binary,
                "bitcode|serde(_core)?::",
                "serde API (bitcode's own derive rejects the recursive Category); returns an owned \
                 Vec, copied into the buffer; byte arrays through serialize_bytes, which bitcode's \
                 serde writes and reads as the same u8 sequence: a control, equal to `bitcode`; \
                 prices as i64 cents; shared references not kept",
            ),
            make: Arc::new(|| orders(bitcode::Bitcode { bytes: SerdeBytes::Native })),
        },
    ]
}
