//! The `reflection` study end to end: every configuration over the 10,000-Sample list, and the
//! article's fixed sample through every variant of `reflect_json`.

use serprof_engines::casestudy::reflect_json::{ReflectJson, Type, Value, Variant, SAMPLE_CLASS};
use serprof_engines::dataset::{fixed_sample, sample_list, samples};
use serprof_engines::model::Sample;
use serprof_engines::studies::{self, reflection, Format, Operation};
use serprof_engines::Codec;

const FIXED: &str = r#"{"active":true,"address":{"city":"Seoul","zipCode":"04524"},"age":33,"email":"kim@example.com","id":7,"name":"kim","roles":["ADMIN","USER"]}"#;

fn samples_codec(engine: &serprof_engines::Engine<Vec<Sample>>) -> Box<dyn Codec<Vec<Sample>>> {
    engine.build().expect("codec builds")
}

#[test]
fn the_fixed_sample_is_written_exactly_by_every_variant() {
    for variant in Variant::ALL {
        let json = ReflectJson::new(variant);
        let mut out = Vec::new();
        json.write(
            Value::Object(&fixed_sample()),
            &Type::Object(&SAMPLE_CLASS),
            &mut out,
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), FIXED, "{variant:?}");
    }
}

#[test]
fn the_study_has_the_settled_configurations() {
    let study = reflection::study();
    assert_eq!(study.info().baseline.as_deref(), Some("serde_json"));
    let configs = study.configs();
    let names: Vec<_> = configs.iter().map(|c| c.info.config.as_str()).collect();
    assert_eq!(
        names,
        [
            "reflect-noncached",
            "reflect-cached",
            "reflect-tuned-bytes",
            "reflect-tuned-typed",
            "reflect-tuned-resolved",
            "serde_json",
        ]
    );
    for config in configs {
        let info = &config.info;
        assert_eq!(info.study, "reflection");
        assert_eq!(info.dataset, "samples");
        assert_eq!(info.operation, Operation::Serialize);
        assert_eq!(info.format, Format::Json);
        let builtin = studies::builtin();
        let listed = builtin
            .iter()
            .flat_map(|s| s.configs())
            .any(|c| c.info.name() == info.name());
        assert!(listed, "{}", info.name());
    }
    assert_eq!(
        samples().len(),
        1,
        "one value per operation: the whole list"
    );
}

#[test]
fn every_configuration_writes_the_list_as_serde_json_reads_it() {
    let list = sample_list();
    let reference = serde_json::to_vec(list).unwrap();
    let mut out = Vec::new();
    for engine in reflection::engines() {
        let name = engine.name().to_string();
        let mut codec = samples_codec(&engine);
        // Twice into the one reused buffer, as the harness does.
        for _ in 0..2 {
            out.clear();
            codec.encode(list, &mut out).unwrap();
        }
        let parsed: Vec<Sample> = serde_json::from_slice(&out).unwrap();
        assert!(parsed == *list, "{name}: parses back to another list");
        // Keys sorted like serde's derive, and the same escapes: byte for byte the same.
        assert!(out == reference, "{name}: differs from serde_json");
        assert!(codec.decode(&mut out).unwrap() == *list, "{name}: decode");
    }
}

#[test]
fn only_the_non_cached_variant_introspects_per_bean() {
    let list = sample_list();
    for variant in Variant::ALL {
        let mut json = ReflectJson::new(variant);
        json.encode(list, &mut Vec::new()).unwrap();
        json.encode(list, &mut Vec::new()).unwrap();
        let expected = match variant {
            // A Sample and its address, for each of 10,000 Samples, twice.
            Variant::NonCached => 40_000,
            _ => 2,
        };
        assert_eq!(json.introspections(), expected, "{variant:?}");
    }
}
