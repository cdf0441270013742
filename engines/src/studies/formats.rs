//! The `formats` study (seeds/003): every major Rust engine on the Order dataset, round trip.

use super::{AnyCodec, Config, ConfigInfo, DatasetKind, Format, Operation, StudyInfo};
use crate::external;
use crate::model::SerdeBytes;

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "formats",
        title: "Which engine is fastest on the Order graph, and why",
        source: "seeds/003 (JSON and binary engines profiled on a realistic object graph)",
        hotspot_match: None,
        baseline: None,
        hidden: false,
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
        study: "formats",
        config,
        engine,
        engine_version: version,
        format,
        dataset: DatasetKind::Orders,
        operation: Operation::RoundTrip,
        engine_frames,
        notes,
    }
}

pub fn configs() -> Vec<Config> {
    vec![
        Config {
            info: info(
                "serde_json",
                "serde_json",
                external::serde_json::VERSION,
                Format::Json,
                "serde_json|serde::|base64",
                "derived serde; byte arrays as base64 (base64 crate); decimals through f64 (2.00 is written 2.0); nulls written",
            ),
            make: || Ok(AnyCodec::Orders(Box::new(external::serde_json::SerdeJson { bytes: SerdeBytes::Base64 }))),
        },
        Config {
            info: info(
                "postcard",
                "postcard",
                external::postcard::VERSION,
                Format::Binary,
                "postcard|serde::",
                "serde's default Vec<u8>: a sequence of integers",
            ),
            make: || Ok(AnyCodec::Orders(Box::new(external::postcard::Postcard { bytes: SerdeBytes::Seq }))),
        },
        Config {
            info: info(
                "postcard+bytes",
                "postcard",
                external::postcard::VERSION,
                Format::Binary,
                "postcard|serde::",
                "byte arrays as serde_bytes",
            ),
            make: || Ok(AnyCodec::Orders(Box::new(external::postcard::Postcard { bytes: SerdeBytes::Native }))),
        },
    ]
}
