//! The findings that name a fix, on a real quick run of the hidden `testkit-findings` study:
//! for each kind, its finding fires on the trap and not on the fixed twin (the remedy applied),
//! its evidence and remedy are there, and `serprof explain` prints it. The twin's measured gain
//! is printed beside the finding's bound, for the reader: a test checks what the findings say,
//! never a speed.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::run_folder;

/// The kinds, as `engines/src/studies/testkit_findings.rs` names its pairs, and the suffix of
/// their configurations (the in-place reads are `.validated-access` rows).
const PAIRS: [(&str, &str); 10] = [
    ("owned_strings", ".validated-access"),
    ("buffer_regrowth", ""),
    ("numbers", ""),
    ("utf8_validation", ".validated-access"),
    ("map_hashing", ""),
    ("field_names", ""),
    ("allocator", ""),
    ("repeated_work", ""),
    ("values_changed", ""),
    ("element_by_element", ""),
];

/// Each test runs serprof, which times and profiles on every core: one at a time, so that
/// neither run's profiles are thinned by the other's load (a trap's finding fires when the low
/// end of its share's interval reaches the threshold, and fewer samples widen the interval).
static ONE_RUN_AT_A_TIME: Mutex<()> = Mutex::new(());

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// A quick run of the study (the default timing children: the gains printed are lock-step
/// ratios of one run).
fn quick_run(out: &Path) -> PathBuf {
    run_folder(
        Command::cargo_bin("serprof")
            .unwrap()
            .env_remove("RUST_LOG")
            .args(["run", "--quick", "--quiet", "--json", "--study"])
            .arg("testkit-findings")
            .arg("--out")
            .arg(out),
    )
}

fn kinds(r: &Value) -> Vec<String> {
    r["diagnoses"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| d["kind"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn each_finding_fires_on_its_trap_and_not_on_its_twin() {
    let _one = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().unwrap();
    let run = quick_run(out.path());
    let dir = run.join("testkit-findings");
    let mut failures = Vec::new();
    for (kind, suffix) in PAIRS {
        let trap = read_json(&dir.join(format!("{kind}-trap{suffix}/result.json")));
        let twin = read_json(&dir.join(format!("{kind}-twin{suffix}/result.json")));
        let d = trap["diagnoses"]
            .as_array()
            .and_then(|a| a.iter().find(|d| d["kind"] == kind));
        match d {
            None => failures.push(format!(
                "{kind}: no finding on the trap (it has {:?})",
                kinds(&trap)
            )),
            Some(d) => {
                assert!(!d["remedy"].as_str().unwrap().is_empty(), "{kind}: {d}");
                assert!(
                    !d["evidence"].as_array().unwrap().is_empty(),
                    "{kind}: no evidence in {d}"
                );
                let share = d["share"].as_f64().unwrap();
                // The bound is what is left once the share is gone: for a sampled share, from
                // a high end at least the 95% interval's.
                let high = d["interval"][1].as_f64().unwrap();
                assert!(high >= share, "{kind}: {d}");
                if let Some(b) = d["bound"].as_f64() {
                    assert!(b >= 1.0 / (1.0 - high) - 1e-9, "{kind}: {d}");
                }
                // What the twin gained, in time and in payload, beside the bound.
                let time = |r: &Value| r["time_ns"]["median"].as_f64().unwrap_or(f64::NAN);
                let bytes = |r: &Value| r["payload_bytes"].as_f64().unwrap_or(f64::NAN);
                eprintln!(
                    "{kind:<20} share {:5.1}% of {:<13} bound {:>6}  twin's gain: time {:.2}x, payload {:.2}x",
                    share * 100.0,
                    d["measure"].as_str().unwrap_or(""),
                    d["bound"]
                        .as_f64()
                        .map_or("none".into(), |b| format!("{b:.2}x")),
                    time(&trap) / time(&twin),
                    bytes(&trap) / bytes(&twin),
                );
            }
        }
        // The twin applied the trap's remedy. A finding of the same kind on it must name another
        // remedy: the numbers twin writes its floats with zmij, which still takes about a tenth
        // of its samples, and then the finding names the next remedy (fewer numbers, or a
        // binary format).
        let trap_remedy = d.map(|d| d["remedy"].clone());
        let same = twin["diagnoses"].as_array().and_then(|a| {
            a.iter()
                .find(|t| t["kind"] == kind && Some(&t["remedy"]) == trap_remedy.as_ref())
        });
        if same.is_some() {
            failures.push(format!(
                "{kind}: the twin has the finding too, with the same remedy"
            ));
        } else if let Some(t) = twin["diagnoses"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["kind"] == kind))
        {
            eprintln!(
                "{kind:<20} the twin's finding names the next remedy: {}",
                t["remedy"]
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // explain prints a trap's finding with its evidence and remedy, from the run folder.
    let o = Command::cargo_bin("serprof")
        .unwrap()
        .args(["explain", "testkit-findings/repeated_work-trap", "--run"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("repeated_work"), "{text}");
    assert!(text.contains("introspect_fields"), "{text}");
    assert!(text.contains("remedy: "), "{text}");
    // hotspots --json carries the same findings beside its rows.
    let o = Command::cargo_bin("serprof")
        .unwrap()
        .arg("hotspots")
        .arg(run.join("testkit-findings/repeated_work-trap"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        table["rows"].as_array().is_some_and(|r| !r.is_empty()),
        "{table}"
    );
    let listed: Vec<&str> = table["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|d| d["kind"].as_str()).collect())
        .unwrap_or_default();
    assert!(listed.contains(&"repeated_work"), "{table}");
    // A name that is no configuration is a misuse (exit 2), not a panic.
    Command::cargo_bin("serprof")
        .unwrap()
        .args(["explain", "testkit-findings/no-such", "--run"])
        .arg(&run)
        .assert()
        .code(2);
}

/// The diagnoses of `config` in the run's `testkit-user` study.
fn user_row(run: &Path, config: &str) -> Value {
    read_json(&run.join("testkit-user").join(config).join("result.json"))
}

#[test]
fn a_crate_of_ones_own_gets_the_findings_of_its_types() {
    let _one = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().unwrap();
    let run = run_folder(
        Command::cargo_bin("serprof")
            .unwrap()
            .env_remove("RUST_LOG")
            .args(["run", "--quick", "--quiet", "--json", "--study"])
            .arg("testkit-user")
            .arg("--out")
            .arg(out.path()),
    );
    let find = |config: &str, kind: &str| -> Option<Value> {
        user_row(&run, config)["diagnoses"]
            .as_array()
            .and_then(|a| a.iter().find(|d| d["kind"] == kind).cloned())
    };
    let names = |d: &Value| -> Vec<String> {
        d["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    // Many String fields decoded by serde_json: the owned strings, naming the fields.
    let owned = find("customer-serde_json", "owned_strings")
        .unwrap_or_else(|| panic!("{}", user_row(&run, "customer-serde_json")["diagnoses"]));
    let fields = names(&owned);
    assert!(
        fields.iter().any(|f| f.starts_with("Customer.")),
        "{fields:?}"
    );
    // A HashMap<String, _>: SipHash, naming the hashing functions.
    let map = find("counts-serde_json", "map_hashing")
        .unwrap_or_else(|| panic!("{}", user_row(&run, "counts-serde_json")["diagnoses"]));
    assert!(
        names(&map).iter().any(|f| f.contains("hash")),
        "{:?}",
        names(&map)
    );
    // Many f64s serialized to JSON: numbers, naming the formatting routine.
    let numbers = find("samples-serde_json", "numbers")
        .unwrap_or_else(|| panic!("{}", user_row(&run, "samples-serde_json")["diagnoses"]));
    assert!(!names(&numbers).is_empty());
    // postcard writes the floats' bytes: no number-as-text finding on its row.
    assert!(find("samples-postcard", "numbers").is_none());
    for config in [
        "customer-serde_json",
        "customer-postcard",
        "counts-serde_json",
        "counts-postcard",
        "samples-serde_json",
        "samples-postcard",
    ] {
        let kinds = kinds(&user_row(&run, config));
        eprintln!("{config}: {kinds:?}");
    }
}
