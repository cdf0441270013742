//! The `reflection` study (seeds/000): placeholder until its engine lands.

use super::{Config, StudyInfo};

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "reflection",
        title: "Reflection is slow only when repeated",
        source: "seeds/000 (a Jackson-like reflective serializer, cached and not)",
        hotspot_match: Some("introspect"),
        baseline: Some("serde_json"),
        hidden: false,
    }
}

pub fn configs() -> Vec<Config> {
    Vec::new()
}
