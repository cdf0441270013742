//! The `reflection` study: the reflective serializer of a Korean blog post, "Implementing Jackson
//! yourself (a JSON serializer)" (part 2 of a series on Jackson's internals; no author or date
//! given), reproduced in Rust. The article's reflective serializer, non-cached and
//! cached, the tuning steps that follow Jackson's design one at a time, and serde_json as the
//! Jackson of Rust. Every configuration serializes the whole 10,000-Sample list per operation.

use super::{Engine, Operation, Study};
use crate::casestudy::reflect_json::{ReflectJson, Variant};
use crate::external;
use crate::model::{Sample, SerdeBytes};

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

/// The study: [`engines`] serializing the whole Sample list per operation.
pub fn study() -> Study {
    engines()
        .into_iter()
        .fold(
            Study::new("reflection", "Reflection is slow only when repeated")
                .source(SOURCE)
                // Discovery work: the walk over the methods, the getter filter, decapitalising,
                // sorting.
                .question(
                    "introspect|is_property_getter|decapitalize|get_methods",
                    "property discovery",
                )
                .baseline("serde_json")
                .steps(STEPS.iter().map(|v| v.config_name()))
                .dataset_static("samples", crate::dataset::samples),
            |study, engine| study.engine(engine),
        )
        .operations([Operation::Serialize])
        .into()
}

/// The dataset: one value, the whole 10,000-Sample list.
pub fn samples() -> Vec<Vec<Sample>> {
    crate::dataset::samples().to_vec()
}

/// Frames of the reflective engine.
const REFLECT_FRAMES: &str = "reflect_json";

/// The engine of one variant.
fn reflect(variant: Variant, notes: &str) -> Engine<Vec<Sample>> {
    Engine::new(variant.config_name(), move || Ok(ReflectJson::new(variant)))
        .library("reflect_json", "serprof")
        .json()
        .fields(crate::casestudy::json_fields("Vec<Sample>", &[]))
        .frames(REFLECT_FRAMES)
        .notes(notes)
}

/// The reflective engine's variants, then serde_json.
pub fn engines() -> Vec<Engine<Vec<Sample>>> {
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
        external::serde_json::engine(SerdeBytes::Seq)
            .frames("serde_json|serde::")
            .notes("derived serde; keys in alphabetical order because Sample's fields are declared so"),
    ]
}
