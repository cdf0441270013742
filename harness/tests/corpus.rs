//! The corpus study on a user's own document: a document made here (nested objects,
//! escapes, integers beyond 64 bits, floats) runs through the DOM configurations; damaged
//! copies of it, a folder without `.json`, a file over the size limit are one-line errors with
//! exit 2 and no panic; each result records its document and `--resume` refuses one that
//! changed. The documents are named by `SERPROF_CORPUS`, as every process of a run reads it.

use std::path::Path;

use assert_cmd::Command;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c
}

/// A document with what parsers find hard: nesting, escapes, big integers, floats.
fn document() -> String {
    let mut items = Vec::new();
    for i in 0..40u64 {
        items.push(format!(
            r#"{{"id": {}, "big": 1{:028}, "neg": -{}, "x": {}.{:03}e-{}, "s": "tab\there \"q\" \\ \u00e9\ud83d\ude00 {i}", "nested": {{"a": [{i}, [{{"b": null}}, true, false]], "empty": {{}}, "list": []}}}}"#,
            u64::MAX - i,
            i,
            i * 7,
            i,
            (i * 37) % 1000,
            i % 9
        ));
    }
    format!(
        "{{\"items\": [\n{}\n], \"pi\": 3.141592653589793}}\n",
        items.join(",\n")
    )
}

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Runs `serprof args` with `SERPROF_CORPUS=corpus` (none when empty): exit 2, one
/// `serprof: error:` line containing every needle.
fn misuse(corpus: &str, args: &[&str], needles: &[&str]) -> String {
    let mut c = serprof();
    if !corpus.is_empty() {
        c.env("SERPROF_CORPUS", corpus);
    }
    let o = c.args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("serprof: error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected {n:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn the_generated_document_is_valid_json() {
    let v: serde_json::Value = serde_json::from_str(&document()).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 40);
}

#[test]
fn damaged_documents_are_one_line_errors_naming_file_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let good = document();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let damaged: Vec<(&str, Vec<u8>, usize)> = vec![
        (
            "truncated.json",
            good.as_bytes()[..good.len() / 2].to_vec(),
            good.len() / 2,
        ),
        (
            "trailing.json",
            format!("{good}}}").into_bytes(),
            good.len(),
        ),
        (
            "escape.json",
            good.replacen("\\t", "\\q", 1).into_bytes(),
            good.find("\\t").unwrap(),
        ),
        (
            "utf8.json",
            {
                let mut b = good.clone().into_bytes();
                let at = good.find("here").unwrap();
                b[at] = 0xFF;
                b
            },
            good.find("here").unwrap(),
        ),
        ("empty.json", Vec::new(), 0),
    ];
    for (name, bytes, offset) in damaged {
        let path = write(dir.path(), name, &bytes);
        misuse(
            &path,
            &["run", "--study", "corpus", "--out", out],
            &[name, &format!("at byte {offset}")],
        );
        let o = serprof()
            .env("SERPROF_CORPUS", &path)
            .arg("list")
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{listed}");
        assert!(
            listed.contains("corpus: unavailable") && listed.contains(name),
            "{listed}"
        );
    }
    assert!(!Path::new(out).exists(), "no run folder for a misuse");
}

#[test]
fn folders_without_json_missing_documents_and_size_limits_are_misuse() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("nothing");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "not json").unwrap();
    misuse(
        empty.to_str().unwrap(),
        &["run", "--study", "corpus"],
        &["nothing", "no .json"],
    );
    misuse(
        "",
        &["run", "--study", "corpus", "--quick"],
        &["SERPROF_CORPUS=PATH"],
    );
    let big = "[".to_string() + &"1234567,".repeat(200_000) + "0]";
    let path = write(dir.path(), "big.json", big.as_bytes());
    let o = serprof()
        .env("SERPROF_CORPUS", &path)
        .env("SERPROF_CORPUS_MAX_MIB", "1")
        .args(["run", "--study", "corpus"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("big.json") && err.contains("SERPROF_CORPUS_MAX_MIB"),
        "{err}"
    );
}

#[test]
fn list_shows_dom_configurations_and_keeps_same_named_files_apart() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        write(&dir.path().join(sub), "data.json", document().as_bytes());
    }
    let both = std::env::join_paths([dir.path().join("a"), dir.path().join("b")]).unwrap();
    let o = serprof()
        .env("SERPROF_CORPUS", both)
        .args(["list", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let corpus = doc["studies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["study"] == "corpus")
        .expect("the corpus study is listed");
    let names: Vec<&str> = corpus["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"corpus/a_data.parse.dom-serde_json"),
        "{names:?}"
    );
    assert!(
        names.contains(&"corpus/b_data.parse.dom-serde_json"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.contains("typed")), "{names:?}");
}

#[test]
fn a_users_document_runs_through_the_dom_configurations_and_resume_checks_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "mine.json", document().as_bytes());
    let out = dir.path().join("runs");
    let o = serprof()
        .env("SERPROF_CORPUS", &path)
        .args(["run", "--config", "corpus/*", "--quick"])
        .args([
            "--no-cpu",
            "--no-alloc",
            "--processes",
            "1",
            "--cpu",
            "none",
        ])
        .args(["--rounds", "1", "-q", "--json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let results = doc["results"].as_array().unwrap();
    assert!(results.len() >= 10, "{err}: {} results", results.len());
    // simd-json refuses integers beyond 64 bits (its `big-int-as-float` feature is off): its
    // configurations fail with its reason, and the run exits 1; every other one is measured.
    let refused = |r: &serde_json::Value| {
        r["engine"] == "simd-json"
            && r["error"]["kind"] == "engine"
            && r["error"]["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("InvalidNumber")
    };
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        results.iter().filter(|r| refused(r)).count(),
        4,
        "{}",
        doc["failed"]
    );
    for r in results.iter().filter(|r| !refused(r)) {
        assert_eq!(r["verified"], true, "{r}");
        assert!(r["error"].is_null(), "{r}");
        assert!(r["time_ns"]["median"].as_f64().unwrap() > 0.0, "{r}");
        // A document makes no list of payloads to compress: no sizes, and no warning either.
        let warnings = r["warnings"].as_array().map_or(&[][..], |w| &w[..]);
        assert!(
            !warnings
                .iter()
                .any(|w| w.as_str().unwrap_or("").contains("compressed")),
            "{r}"
        );
        assert_eq!(r["document"]["path"].as_str().unwrap(), {
            Path::new(&path).canonicalize().unwrap().to_str().unwrap()
        });
    }
    let ops: Vec<&str> = results
        .iter()
        .map(|r| r["operation"].as_str().unwrap())
        .collect();
    for op in ["parse", "serialize", "roundtrip"] {
        assert!(ops.contains(&op), "{ops:?}");
    }
    // The big integers do not fit a serde_json Value: serde_json's DOM changes them, a finding.
    let serde_dom = results
        .iter()
        .find(|r| r["config"] == "mine.parse.dom-serde_json")
        .unwrap();
    let findings = serde_dom["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["kind"] == "numbers_changed" && f["first"]["path"] == "$.items[0].big"),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["kind"] == "duplicate_keys" && f["behaviour"]["is"] == "keeps_last"),
        "{findings:?}"
    );

    let run_dir = Path::new(doc["run_dir"].as_str().unwrap());
    let recorded = &results[0]["document"];
    assert_eq!(recorded["bytes"], document().len() as u64);
    assert_eq!(recorded["sha256"].as_str().unwrap().len(), 64);

    // The document changes: the study list's fingerprint changes with its hash, and a resume
    // refuses to finish the run with other studies than it planned.
    std::fs::write(&path, document().replace("3.14", "2.71")).unwrap();
    misuse(
        &path,
        &["run", "--resume", run_dir.to_str().unwrap()],
        &["--resume", "other studies than were planned"],
    );
}
