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
