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
//! (`engine`'s `write_value`).
//!
//! What varies is one option, [`Variant`]: where the property lists come from and how values
//! are written. `cache` is the per-type map, `engine` the serializer with its type-switch writer,
//! the per-property writers and the per-call plans, `write` the JSON text of single values shared
//! by all (over `casestudy::json_text`, which `bytes_json` writes with too).

mod cache;
mod engine;
mod introspect;
mod model;
mod reflect;
mod variant;
mod write;

pub use self::engine::ReflectJson;
pub use self::introspect::{decapitalize, introspect, is_property_getter, Property};
pub use self::model::{ADDRESS_CLASS, SAMPLE_CLASS, SAMPLE_LIST};
pub use self::reflect::{
    Call, Class, Declarer, List as ReflectList, Method, Reflect, ReflectError, Type, Value,
};
pub use self::variant::Variant;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::fixed_sample;
    use crate::dataset::samples::sample;
    use crate::model::Sample;
    use serprof_api::Codec;

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
