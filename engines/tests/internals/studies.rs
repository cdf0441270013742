//! `studies`.

use serprof_engines::studies::*;

#[test]
fn every_study_builds_its_patterns_and_names_its_own_configurations() {
    // Building every study compiles every frame pattern (a typo panics here).
    for study in &builtin() {
        let info = study.info();
        // A study that cannot be built here (the corpus study without documents) says why.
        assert!(
            !study.configs().is_empty() || info.unavailable.is_some(),
            "{} has no configuration and no reason",
            info.name
        );
        for c in study.configs() {
            assert_eq!(c.info.study, info.name);
            assert!(
                !c.info.engine_frames.as_str().is_empty(),
                "{}",
                c.info.name()
            );
        }
        for step in &info.steps {
            assert!(
                study.configs().iter().any(|c| &c.info.config == step),
                "{}: step {step} is no configuration",
                info.name
            );
        }
        // A baseline names a configuration or an engine (`Study::problem` checks both).
        assert_eq!(study.problem(), None, "{}", info.name);
        let mut names: Vec<_> = study.configs().iter().map(|c| c.info.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(
            names.len(),
            n,
            "{}: duplicate configuration names",
            info.name
        );
    }
}

#[test]
fn enums_serialize_as_their_names() {
    assert_eq!(
        serde_json::to_string(&Operation::RoundTrip).unwrap(),
        "\"roundtrip\""
    );
    assert_eq!(
        serde_json::to_string(&Format::Binary).unwrap(),
        "\"binary\""
    );
    for op in [
        Operation::RoundTrip,
        Operation::Serialize,
        Operation::Decode,
    ] {
        assert_eq!(
            serde_json::to_string(&op).unwrap(),
            format!("\"{}\"", op.as_str())
        );
    }
}
