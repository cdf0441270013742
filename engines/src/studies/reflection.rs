//! The `reflection` study: the reflective serializer of a Korean blog post, "Implementing Jackson
//! yourself (a JSON serializer)" (part 2 of a series on Jackson's internals; no author or date
//! given), reproduced in Rust. The article's reflective serializer, non-cached and
//! cached, the tuning steps that follow Jackson's design one at a time, and serde_json as the
//! Jackson of Rust. Every configuration serializes the whole 10,000-Sample list per operation.

use std::sync::Arc;

use super::{
    AnyCodec, Config, ConfigInfo, DatasetKind, Format, FramePattern, Operation, Question, Study,
    StudyInfo, StudyKind,
};
use crate::casestudy::reflect_json::{ReflectJson, Variant};
use crate::external;

/// The before/after steps: non-cached, cached, then the tuning steps one at a time.
pub const STEPS: [Variant; 5] = [
    Variant::NonCached,
    Variant::Cached,
    Variant::TunedBytes,
    Variant::TunedTyped,
    Variant::TunedResolved,
];

/// The article the study follows.
const SOURCE: &str = "a Korean blog post, \"Implementing Jackson yourself (a JSON serializer)\", part 2 of a series on Jackson's internals";

pub fn study() -> Study {
    Study {
        info: StudyInfo {
            name: "reflection".into(),
            title: "Reflection is slow only when repeated".into(),
            source: SOURCE.into(),
            kind: StudyKind::Measured,
            // Discovery work: the walk over the methods, the getter filter, decapitalising,
            // sorting.
            question: Some(Question {
                frames: FramePattern::builtin(
                    "introspect|is_property_getter|decapitalize|get_methods",
                ),
                label: "discovery share",
                caption: "Share of CPU samples in property discovery",
            }),
            baseline: Some("serde_json".into()),
            steps: STEPS.iter().map(|v| v.config_name().to_string()).collect(),
            hidden: false,
            budget: None,
        },
        configs: configs(),
    }
}

/// Frames of the reflective engine.
const REFLECT_FRAMES: &str = "reflect_json";

fn info(
    config: &'static str,
    engine: &'static str,
    version: &'static str,
    engine_frames: &'static str,
    notes: &'static str,
) -> ConfigInfo {
    ConfigInfo {
        study: "reflection".into(),
        config: config.into(),
        engine: engine.into(),
        engine_version: version.into(),
        format: Format::Json,
        dataset: DatasetKind::Samples,
        operation: Operation::Serialize,
        engine_frames: FramePattern::builtin(engine_frames),
        notes: notes.into(),
        document: None,
    }
}

/// The configuration of one variant.
fn reflect(variant: Variant, notes: &'static str) -> Config {
    Config {
        info: info(
            variant.config_name(),
            "reflect_json",
            "serprof",
            REFLECT_FRAMES,
            notes,
        ),
        make: Arc::new(move || reflect_codec(variant)),
    }
}

fn reflect_codec(variant: Variant) -> Result<AnyCodec, crate::codec::CodecError> {
    Ok(AnyCodec::Samples(Box::new(ReflectJson::new(variant))))
}

pub fn configs() -> Vec<Config> {
    vec![
        reflect(
            Variant::NonCached,
            "introspects every bean's class again; type switch per value; fresh String per operation, copied into the output",
        ),
        reflect(
            Variant::Cached,
            "properties once per type, looked up per bean in an RwLock<HashMap<TypeId, _>>; type switch per value; fresh String per operation, copied into the output",
        ),
        reflect(
            Variant::TunedBytes,
            "reflect-cached, writing straight into the reused output Vec<u8>",
        ),
        reflect(
            Variant::TunedTyped,
            "reflect-tuned-bytes, with a writer chosen per property at introspection instead of a type switch per value",
        ),
        reflect(
            Variant::TunedResolved,
            "reflect-tuned-typed, with property lists resolved once per operation and held instead of a map lookup per bean",
        ),
        Config {
            info: info(
                "serde_json",
                "serde_json",
                external::serde_json::VERSION,
                "serde_json|serde::",
                "derived serde; keys in alphabetical order because Sample's fields are declared so",
            ),
            make: Arc::new(|| Ok(AnyCodec::Samples(Box::new(external::serde_json::SerdeJson::default())))),
        },
    ]
}
