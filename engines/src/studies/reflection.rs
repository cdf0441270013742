//! The `reflection` study (seeds/000): the article's reflective serializer, non-cached and
//! cached, the tuning steps that follow Jackson's design one at a time, and serde_json as the
//! Jackson of Rust. Every configuration serializes the whole 10,000-Sample list per operation.

use super::{AnyCodec, Config, ConfigInfo, DatasetKind, Format, Operation, StudyInfo};
use crate::casestudy::reflect_json::{ReflectJson, Variant};
use crate::external;

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "reflection",
        title: "Reflection is slow only when repeated",
        source: "seeds/000 (a Jackson-like reflective serializer, cached and not)",
        // Discovery work: the walk over the methods, the getter filter, decapitalising, sorting.
        hotspot_match: Some("introspect|is_property_getter|decapitalize|get_methods"),
        baseline: Some("serde_json"),
        hidden: false,
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
        study: "reflection",
        config,
        engine,
        engine_version: version,
        format: Format::Json,
        dataset: DatasetKind::Samples,
        operation: Operation::Serialize,
        engine_frames,
        notes,
    }
}

/// The configuration of one variant. `make` must be a plain function pointer, so each variant
/// has its own (a closure capturing the variant could not be one).
fn reflect(
    variant: Variant,
    notes: &'static str,
    make: fn() -> Result<AnyCodec, crate::codec::CodecError>,
) -> Config {
    Config {
        info: info(
            variant.config_name(),
            "reflect_json",
            "serprof",
            REFLECT_FRAMES,
            notes,
        ),
        make,
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
            || reflect_codec(Variant::NonCached),
        ),
        reflect(
            Variant::Cached,
            "properties once per type, looked up per bean in an RwLock<HashMap<TypeId, _>>; type switch per value; fresh String per operation, copied into the output",
            || reflect_codec(Variant::Cached),
        ),
        reflect(
            Variant::TunedBytes,
            "reflect-cached, writing straight into the reused output Vec<u8>",
            || reflect_codec(Variant::TunedBytes),
        ),
        reflect(
            Variant::TunedTyped,
            "reflect-tuned-bytes, with a writer chosen per property at introspection instead of a type switch per value",
            || reflect_codec(Variant::TunedTyped),
        ),
        reflect(
            Variant::TunedResolved,
            "reflect-tuned-typed, with property lists resolved once per operation and held instead of a map lookup per bean",
            || reflect_codec(Variant::TunedResolved),
        ),
        Config {
            info: info(
                "serde_json",
                "serde_json",
                external::serde_json::VERSION,
                "serde_json|serde::",
                "derived serde; keys in alphabetical order because Sample's fields are declared so",
            ),
            make: || Ok(AnyCodec::Samples(Box::new(external::serde_json::SerdeJson::default()))),
        },
    ]
}
