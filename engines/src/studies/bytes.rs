//! The `bytes` study (seeds/004): placeholder until its engine lands.

use super::{Config, StudyInfo};

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "bytes",
        title: "The byte-array hotspot, before and after the fix",
        source: "seeds/004 (Apache Fory JSON byte-array decoding, 4.5x faster)",
        hotspot_match: Some("byte_array|base64"),
        baseline: None,
        hidden: false,
    }
}

pub fn configs() -> Vec<Config> {
    Vec::new()
}
