//! `reflect_json`: the article's Jackson-like serializer, built on honest run-time reflection, and
//! the steps that close the gap to a streaming serializer. The article is the Korean blog post
//! "Jackson 직접 구현해보기 (JSON 직렬화기 구현)" ("Implementing Jackson ourselves: a JSON
//! serializer", part 2 of a series on Jackson's internals): a `NonCachedJsonSerializer` that
//! introspects every bean, a `CachedJsonSerializer` with a per-class `ConcurrentHashMap`, and
//! JMH figures over 10,000 Samples against Jackson 2.12.5 on JDK 17 (non-cached about 3x
//! Jackson's time, cached about 1.8x).
//!
//! Rust has no run-time reflection, so each model type describes itself (`reflect`, `model`):
//! a [`Class`] lists its methods by name with their signatures and a function pointer to invoke
//! each on a `&dyn Any` receiver, getters among `toString`, `hashCode`, setters and lookalikes.
//! The serializer knows nothing of `Sample`: it discovers properties from that list the way the
//! article's `introspect` does ([`introspect`]: `get...`/`is...` names, decapitalised, sorted
//! into a new list), invokes the getters, and writes what they return through a type switch
//! (`dynamic`).
//!
//! What varies is one option, [`Variant`]: where the property lists come from and how values
//! are written. `cache` is the per-type map, `typed` the per-property writers and per-call
//! plans, `write` the JSON text of single values shared by all (over `casestudy::json_text`,
//! which `bytes_json` writes with too).

mod cache;
mod dynamic;
mod introspect;
mod model;
mod reflect;
mod typed;
mod write;

pub use self::introspect::{decapitalize, introspect, is_property_getter, Property};
pub use self::model::{ADDRESS_CLASS, SAMPLE_CLASS, SAMPLE_LIST};
pub use self::reflect::{
    Call, Class, Declarer, List as ReflectList, Method, Reflect, ReflectError, Type, Value,
};

use std::sync::atomic::{AtomicUsize, Ordering};

use self::cache::PropertyCache;
use self::typed::TypedProperty;
use crate::codec::{Codec, CodecError};
use crate::model::Sample;

/// How the serializer finds properties and writes values. Each is one configuration of the
/// `reflection` study; the tuned ones add one step each to the one before, so each step's share
/// is measured on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Introspects a bean's class again for every bean, like the article's
    /// `NonCachedJsonSerializer`; writes into a fresh `String`.
    NonCached,
    /// Introspects once per type and looks the list up in a concurrent map per bean, like the
    /// article's `CachedJsonSerializer`; writes into a fresh `String`.
    Cached,
    /// `Cached`, writing straight into the caller's reused `Vec<u8>` (Jackson's streaming core
    /// and recycled buffers).
    TunedBytes,
    /// `TunedBytes`, with a writer chosen once per property at introspection instead of a type
    /// switch per value (Jackson's type-specific serializers).
    TunedTyped,
    /// `TunedTyped`, with each type's property list resolved once per call and held instead of a
    /// map lookup per nested object (Jackson resolves serializers once per root type).
    TunedResolved,
}

impl Variant {
    /// Every variant, from the article's slowest to the last tuning step.
    pub const ALL: [Variant; 5] = [
        Variant::NonCached,
        Variant::Cached,
        Variant::TunedBytes,
        Variant::TunedTyped,
        Variant::TunedResolved,
    ];

    /// The configuration name in the `reflection` study.
    pub fn config_name(self) -> &'static str {
        match self {
            Variant::NonCached => "reflect-noncached",
            Variant::Cached => "reflect-cached",
            Variant::TunedBytes => "reflect-tuned-bytes",
            Variant::TunedTyped => "reflect-tuned-typed",
            Variant::TunedResolved => "reflect-tuned-resolved",
        }
    }
}

/// The reflective serializer. Like the article's serializers it may be shared between threads
/// (its caches are concurrent); one instance keeps its caches for its whole life.
pub struct ReflectJson {
    variant: Variant,
    /// Property lists of the type-switch variants.
    properties: PropertyCache<Property>,
    /// Property lists with writers, of the typed variants.
    typed: PropertyCache<TypedProperty>,
    /// Introspections done by `NonCached`, which has no cache to count them.
    fresh_introspections: AtomicUsize,
}

impl ReflectJson {
    pub fn new(variant: Variant) -> ReflectJson {
        ReflectJson {
            variant,
            properties: PropertyCache::default(),
            typed: PropertyCache::default(),
            fresh_introspections: AtomicUsize::new(0),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The article's `serialize(Object)`: `value` as JSON in a new `String`, through the type
    /// switch, with this variant's way of finding properties.
    pub fn serialize(&self, value: Value<'_>) -> Result<String, ReflectError> {
        let mut json = String::new();
        self.write_value(value, &mut json)?;
        Ok(json)
    }

    /// Appends `value`, whose declared type is `declared`, to `out` as JSON, the way this
    /// variant does. `NonCached` and `Cached` build a fresh `String` and copy its bytes: that
    /// cost is part of their figure, as the `String` is part of the article's.
    pub fn write(
        &self,
        value: Value<'_>,
        declared: &Type,
        out: &mut Vec<u8>,
    ) -> Result<(), ReflectError> {
        match self.variant {
            Variant::NonCached | Variant::Cached => {
                let json = self.serialize(value)?;
                out.extend_from_slice(json.as_bytes());
                Ok(())
            }
            Variant::TunedBytes => self.write_value(value, out),
            Variant::TunedTyped => self.write_typed(value, declared, false, out),
            Variant::TunedResolved => self.write_typed(value, declared, true, out),
        }
    }

    /// How many times this serializer has introspected a class: once per bean for `NonCached`,
    /// once per type for the others.
    pub fn introspections(&self) -> usize {
        self.fresh_introspections.load(Ordering::Relaxed)
            + self.properties.introspections()
            + self.typed.introspections()
    }
}

/// The `reflection` study's codec: the whole Sample list per operation.
///
/// The engine only serializes. `decode` parses with serde_json: it is the reference that
/// verification checks the output against, and the study's operation is `Serialize`, so it is
/// never timed.
impl Codec<Vec<Sample>> for ReflectJson {
    fn encode(&mut self, value: &Vec<Sample>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.write(Value::List(value), &SAMPLE_LIST, out)
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Vec<Sample>, CodecError> {
        serde_json::from_slice(bytes).map_err(CodecError::decode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::fixed_sample;
    use crate::dataset::samples::sample;

    const FIXED: &str = r#"{"active":true,"address":{"city":"Seoul","zipCode":"04524"},"age":33,"email":"kim@example.com","id":7,"name":"kim","roles":["ADMIN","USER"]}"#;

    fn write(json: &ReflectJson, s: &Sample) -> String {
        let mut out = b"kept".to_vec();
        json.write(Value::Object(s), &Type::Object(&SAMPLE_CLASS), &mut out)
            .unwrap();
        String::from_utf8(out.split_off(4)).unwrap()
    }

    #[test]
    fn every_variant_writes_the_fixed_sample_exactly() {
        for variant in Variant::ALL {
            let json = ReflectJson::new(variant);
            assert_eq!(write(&json, &fixed_sample()), FIXED, "{variant:?}");
            assert_eq!(
                json.serialize(Value::Object(&fixed_sample())).unwrap(),
                FIXED
            );
        }
    }

    #[test]
    fn cached_variants_introspect_once_per_type() {
        let list: Vec<Sample> = (0..50).map(sample).collect();
        for variant in Variant::ALL {
            let mut json = ReflectJson::new(variant);
            for _ in 0..3 {
                json.encode(&list, &mut Vec::new()).unwrap();
            }
            // Sample and SampleAddress; NonCached: both, for each of 50 Samples, 3 times.
            let expected = if variant == Variant::NonCached {
                300
            } else {
                2
            };
            assert_eq!(json.introspections(), expected, "{variant:?}");
        }
    }

    #[test]
    fn strings_are_escaped_in_every_variant() {
        let mut s = fixed_sample();
        s.name = "\"quoted\" \\ back\nline\t\u{1}é".into();
        s.roles.push(String::new());
        for variant in Variant::ALL {
            let json = write(&ReflectJson::new(variant), &s);
            let back: Sample = serde_json::from_str(&json).unwrap();
            assert_eq!(back, s, "{variant:?}");
        }
    }

    #[test]
    fn a_plan_is_not_used_for_another_class() {
        // The root declared as a list of Samples, holding one: the plan matches.
        let json = ReflectJson::new(Variant::TunedResolved);
        let list = vec![fixed_sample()];
        let mut out = Vec::new();
        json.write(Value::List(&list), &SAMPLE_LIST, &mut out)
            .unwrap();
        assert_eq!(out, format!("[{FIXED}]").as_bytes());
        // An address where the plan expects a Sample: looked up by its own class.
        let addresses = vec![fixed_sample().address];
        out.clear();
        json.write(Value::List(&addresses), &SAMPLE_LIST, &mut out)
            .unwrap();
        assert_eq!(out, br#"[{"city":"Seoul","zipCode":"04524"}]"#);
    }
}
