//! serprof's own studies, built with the same builder as a user's ([`crate::study`]), and the
//! registry of a process's studies.
//!
//! A configuration is named `STUDY/CONFIG` (`bytes/json-base64-table`, `formats/serde_json`).
//! The harness looks configurations up here by name, in the parent (to list and select them)
//! and in each worker child (to build the workload it measures). The registry is built once
//! per process ([`registry`]): the studies `serprof::main!` set, or serprof's own. Behaviour
//! that differs between studies is decided by the typed fields of [`StudyInfo`]
//! ([`StudyKind`], [`Question`], `steps`), never by comparing names; this module is the only
//! place that knows which study is which.

pub mod bytes;
pub mod corpus;
pub mod corrupt;
pub mod formats;
pub mod reflection;
#[cfg(feature = "testkit")]
pub mod testkit;

use std::sync::OnceLock;

pub use crate::study::{
    Budget, Config, ConfigInfo, DocumentRecord, Engine, Format, FramePattern, Operation, Question,
    Study, StudyInfo, StudyKind, StudyOf,
};

/// serprof's own studies, in the order `serprof list` prints them: `formats`, `bytes`,
/// `reflection`, `corrupt`, `corpus` when documents were registered, and the hidden `testkit`
/// study of test doubles in builds with the `testkit` feature (the tests turn it on).
pub fn builtin() -> Vec<Study> {
    corpus::offer();
    #[allow(unused_mut)]
    let mut all = vec![
        formats::study(),
        bytes::study(),
        reflection::study(),
        corrupt::study(),
    ];
    all.extend(corpus::registered_study());
    #[cfg(feature = "testkit")]
    all.push(testkit::study());
    all
}

/// Every study of this process, built once: the list `serprof::main!` set
/// ([`crate::study::set_studies`]), else serprof's own ([`builtin`]). The corpus study's
/// documents register before the first call ([`corpus::register`]).
pub fn registry() -> &'static [Study] {
    static REGISTRY: OnceLock<Vec<Study>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let studies = crate::study::studies_fn().unwrap_or(builtin)();
        corpus::freeze();
        studies
    })
}

/// Every study with its configurations, in the order `serprof list` prints them.
pub fn all() -> &'static [Study] {
    registry()
}

/// Every study's description.
pub fn studies() -> Vec<StudyInfo> {
    all().iter().map(|s| s.info().clone()).collect()
}

/// Every configuration of every study.
pub fn configs() -> Vec<Config> {
    all()
        .iter()
        .flat_map(|s| s.configs().iter().cloned())
        .collect()
}

/// The configuration named `STUDY/CONFIG`.
pub fn find(name: &str) -> Option<Config> {
    let (study, config) = name.split_once('/')?;
    find_study(study)?
        .configs()
        .iter()
        .find(|c| c.info.config == config)
        .cloned()
}

/// The study named `name`.
pub fn find_study(name: &str) -> Option<&'static Study> {
    all().iter().find(|s| s.info().name == name)
}

/// The description of the study named `name`.
pub fn find_info(name: &str) -> Option<StudyInfo> {
    find_study(name).map(|s| s.info().clone())
}

/// Whether the study named `study` decodes damaged inputs ([`StudyKind::Corrupt`]) rather than
/// being timed.
pub fn is_corrupt(study: &str) -> bool {
    find_study(study).map(|s| s.info().kind) == Some(StudyKind::Corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_study_builds_its_patterns_and_names_its_own_configurations() {
        // Building every study compiles every frame pattern (a typo panics here).
        for study in all() {
            let info = study.info();
            assert!(
                !study.configs().is_empty(),
                "{} has no configuration",
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
            if let Some(b) = &info.baseline {
                assert!(study.configs().iter().any(|c| &c.info.config == b));
            }
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
    fn find_takes_study_and_config() {
        let c = find("formats/serde_json").expect("formats/serde_json");
        assert_eq!(c.info.name(), "formats/serde_json");
        assert!(find("formats").is_none());
        assert!(find("nope/serde_json").is_none());
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
}
