//! serprof's own studies, built with the same builder as a user's ([`crate::StudyOf`]).
//!
//! A configuration is named `STUDY/CONFIG` (`bytes/json-base64-table`, `formats/serde_json`).
//! [`builtin`] is the list serprof's binary hands to the harness, as a user's `main!` hands
//! its own; the harness looks configurations up in the list it was given. Behaviour
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
#[cfg(feature = "testkit")]
pub mod testkit_findings;
#[cfg(feature = "testkit")]
pub mod testkit_types;

pub use serprof_api::__private::{
    Config, ConfigInfo, DocumentRecord, FramePattern, Question, StudyInfo, StudyKind,
};
pub use serprof_api::{Budget, Engine, Format, Operation, Study, StudyOf};

/// serprof's own studies, in the order `serprof list` prints them: `formats`, `bytes`,
/// `reflection`, `corrupt`, `corpus` (unavailable until [`corpus::DOCUMENTS_VAR`] names
/// documents), and the hidden `testkit` study of test doubles in builds with the `testkit`
/// feature (the tests turn it on). The opt-in `rsb-*` studies are the crate `serprof-rsb`'s,
/// which serprof's binary adds after these (`serprof::builtin_studies`).
pub fn builtin() -> Vec<Study> {
    #[allow(unused_mut)]
    let mut all = vec![
        formats::study(),
        bytes::study(),
        reflection::study(),
        corrupt::study(),
        corpus::from_env(),
    ];
    #[cfg(feature = "testkit")]
    all.push(testkit::study());
    #[cfg(feature = "testkit")]
    all.push(testkit_types::study());
    #[cfg(feature = "testkit")]
    all.push(testkit_findings::study());
    #[cfg(feature = "testkit")]
    all.push(testkit_findings::user::user_study());
    all
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
