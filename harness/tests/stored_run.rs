//! A stored run folder (`tests/fixtures/stored-run`: result.json files whose errors and findings
//! are plain strings, and their run.json) reads, and renders the same table text
//! (`tests/fixtures/stored-run.txt`).

use std::path::Path;

use serprof::testing::read_json;
use serprof::testing::{program, ConfigResult, RunManifest};

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/stored-run"
    ))
}

fn rendered() -> String {
    let manifest: RunManifest = read_json(&fixture().join("run.json")).unwrap();
    let results: Vec<ConfigResult> = manifest
        .configs
        .iter()
        .map(|id| {
            let dir = fixture().join(&id.study).join(&id.config);
            read_json(&dir.join("result.json")).unwrap()
        })
        .collect();
    serprof::testing::table(&program(serprof::builtin_studies()), &results)
}

#[test]
fn a_stored_run_renders_the_same_table_text() {
    let expected_file = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/stored-run.txt"
    ));
    let text = rendered();
    if std::env::var_os("SERPROF_BLESS").is_some() {
        std::fs::write(expected_file, &text).unwrap();
    }
    let expected = std::fs::read_to_string(expected_file).unwrap();
    assert_eq!(text, expected);
}
