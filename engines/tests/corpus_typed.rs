//! The typed models of the three standard documents give back their documents: parsed into the
//! model and serialised, each is equal (as a serde_json `Value`) to the document itself, and
//! every configuration of the corpus study verifies on it.
//!
//! The documents are not in the repository: the tests read them from `../shared/corpora`
//! (beside the repository root) and skip, saying why, when it is absent; with
//! `SERPROF_REQUIRE_CORPORA=1` (which `.ci/run` sets) its absence fails them.

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serprof_engines::studies::corpus::{self, typed};

fn corpora() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora");
    if dir.is_dir() {
        return Some(dir);
    }
    let why = format!(
        "{} is absent (the standard documents are not in the repository)",
        dir.display()
    );
    assert!(
        std::env::var_os("SERPROF_REQUIRE_CORPORA").is_none(),
        "{why}, and SERPROF_REQUIRE_CORPORA is set: this test must run"
    );
    println!("skipped: {why}");
    None
}

fn round_trips<T: Serialize + DeserializeOwned>(dir: &std::path::Path, file: &str) {
    let path = dir.join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let model: T = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    let back = serde_json::to_value(&model).unwrap();
    // Equal as JSON values: canada.json writes some coordinates as integers (`47`), which the
    // model's f64 writes back as `47.0`; serde_json's `Value` tells the two apart, JSON does not.
    assert_eq!(
        corpus::reference::first_difference(&doc, &back),
        None,
        "{file}"
    );
    assert!(
        back == doc || file == "canada.json",
        "{file}: Values differ"
    );
}

#[test]
fn typed_models_round_trip_each_standard_document() {
    let Some(dir) = corpora() else { return };
    round_trips::<typed::Twitter>(&dir, "twitter.json");
    round_trips::<typed::CitmCatalog>(&dir, "citm_catalog.json");
    round_trips::<typed::Canada>(&dir, "canada.json");
}

#[test]
fn every_configuration_verifies_on_the_standard_documents() {
    let Some(dir) = corpora() else { return };
    let docs = corpus::load(&[dir], corpus::DEFAULT_MAX_MIB).unwrap();
    assert_eq!(docs.len(), 3, "{docs:?}");
    let study = corpus::study(&docs);
    for c in study.configs() {
        let mut work = c
            .workload()
            .unwrap_or_else(|e| panic!("{}: {e}", c.info.name()));
        let verified = work
            .verify()
            .unwrap_or_else(|e| panic!("{}: {e}", c.info.name()));
        println!("{}: {:?}", c.info.name(), verified.findings);
    }
}
