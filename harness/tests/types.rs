//! "Your type explained" on a real run of the hidden `testkit-types` study (a type with a
//! nested struct, an enum with data, an `Option`, a map, a list of strings and a `Vec<u8>`):
//! the split by field adds up to the payload, the `Vec<u8>` is a finding with its remedy, and
//! `hotspots --by type` names the type and the byte array with shares that add up to the
//! samples of the measured loop. Counts are recomputed here from the files on their own.

use std::path::Path;

mod common;
use common::run_once;

use assert_cmd::Command;
use serde_json::Value;

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn a_users_type_is_explained_by_field_and_by_type() {
    let out = tempfile::tempdir().unwrap();
    let run = run_once(out.path(), &["--study", "testkit-types", "--no-alloc"], &[]);
    for config in [
        "serde_json.serialize",
        "serde_json.deserialize",
        "bincode.serialize",
        "bincode.deserialize",
    ] {
        let r = read_json(&run.join("testkit-types").join(config).join("result.json"));
        let fields = r["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("{config}: {r}"));
        let sum: f64 = fields.iter().map(|f| f["bytes"].as_f64().unwrap()).sum();
        let payload = r["payload_bytes"].as_f64().unwrap();
        assert!(
            (sum - payload).abs() < 1e-6,
            "{config}: {sum} against {payload}"
        );
        assert_eq!(fields[0]["path"], "Station", "{config}");
        let raw = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "element_by_element")
            .unwrap_or_else(|| panic!("{config}: no byte-array finding in {}", r["findings"]));
        assert_eq!(raw["path"], "Station.raw");
        assert_eq!(raw["rust_type"], "Vec<u8>");
        let remedy = raw["remedy"].as_str().unwrap();
        let want = if config.starts_with("serde_json") {
            "base64"
        } else {
            "serde_bytes"
        };
        assert!(remedy.contains(want), "{config}: {remedy}");
        let share = raw["share"].as_f64().unwrap();
        let raw_field = fields.iter().find(|f| f["path"] == "Station.raw").unwrap();
        assert_eq!(share, raw_field["share"].as_f64().unwrap());
    }

    // The type view of serde_json's deserialize row.
    let dir = run.join("testkit-types/serde_json.deserialize");
    let o = Command::cargo_bin("serprof")
        .unwrap()
        .env_remove("RUST_LOG")
        .args(["hotspots", "--by", "type", "--json", "--top", "1000"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["function"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Station"), "{names:?}");
    assert!(names.contains(&"Vec<u8>"), "{names:?}");
    let self_samples: u64 = rows
        .iter()
        .map(|r| r["self_samples"].as_u64().unwrap())
        .sum();
    // Every sample of the profile is under the measured loop, and every one is in one row.
    let folded = std::fs::read_to_string(dir.join("cpu.folded")).unwrap();
    let (mut all, mut in_loop) = (0u64, 0u64);
    for line in folded.lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        let n: u64 = n.parse().unwrap();
        all += n;
        if stack.contains("serprof_api::workload::values::deserialize_loop") {
            in_loop += n;
        }
    }
    assert_eq!(doc["total"].as_u64().unwrap(), all);
    assert_eq!(in_loop, all, "the profile is the measured loop's");
    assert_eq!(self_samples, all, "the rows partition the samples");
    let percent: f64 = rows
        .iter()
        .map(|r| r["self_percent"].as_f64().unwrap())
        .sum();
    assert!((percent - 100.0).abs() < 0.01, "{percent}");
}
