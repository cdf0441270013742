//! `casestudy::reflect_json`.

use serprof_api::Codec;
use serprof_engines::casestudy::reflect_json::*;
use serprof_engines::dataset::fixed_sample;
use serprof_engines::dataset::samples::sample;
use serprof_engines::model::Sample;

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
