//! The rsb studies' datasets are rust_serialization_benchmark's, value for value: serde_json
//! writes each whole dataset in exactly the bytes rsb publishes for it.

use serprof_engines::dataset::rsb::{self, log, mesh, minecraft, mk48};

/// The bytes serde_json writes for the dataset's one value.
fn json_len<T: serde::Serialize>(values: &[T]) -> usize {
    assert_eq!(values.len(), 1, "an rsb dataset is one value");
    serde_json::to_vec(&values[0]).unwrap().len()
}

fn published(name: &str) -> usize {
    rsb::SERDE_JSON_BYTES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bytes)| *bytes)
        .unwrap()
}

#[test]
fn rsb_sizes() {
    assert_eq!(json_len(&log::logs()), published("log"), "log");
    assert_eq!(json_len(&mesh::mesh()), published("mesh"), "mesh");
    assert_eq!(
        json_len(&minecraft::players()),
        published("minecraft_savedata"),
        "minecraft_savedata"
    );
    assert_eq!(json_len(&mk48::updates()), published("mk48"), "mk48");
}
