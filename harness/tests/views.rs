//! The investigation views on real recordings: `hotspots --match --backtraces`, `tree --by crate`,
//! `hotspots --alloc --sites`, `hotspots --lines`, and their misuse errors. Counts are
//! recomputed here from the folded files on their own, with none of serprof's code.

use std::collections::HashMap;
use std::path::Path;

mod common;
use common::{have_valgrind, run_once};

use assert_cmd::Command;
use pprof::protos::Message;
use serde_json::Value;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c
}

fn json_of(args: &[&str]) -> Value {
    let o = serprof().args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON document")
}

/// Every (path, total) of a tree document: the path is the frames from the root down to and
/// including this node's chain.
fn paths(node: &Value, prefix: &[String], out: &mut Vec<(Vec<String>, u64)>) {
    let mut path = prefix.to_vec();
    for f in node["frames"].as_array().unwrap() {
        path.push(f.as_str().unwrap().to_string());
    }
    out.push((path.clone(), node["total"].as_u64().unwrap()));
    for c in node["children"].as_array().unwrap() {
        paths(c, &path, out);
    }
}

fn folded_lines(file: &Path) -> Vec<(Vec<String>, u64)> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            let (stack, n) = l.rsplit_once(' ').unwrap();
            (
                stack.split(';').map(str::to_string).collect(),
                n.parse().unwrap(),
            )
        })
        .collect()
}

fn folded_total(file: &Path) -> u64 {
    folded_lines(file).iter().map(|(_, n)| n).sum()
}

/// The sum of `field` over the objects of a JSON array.
fn sum_of(array: &Value, field: &str) -> u64 {
    array
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[field].as_u64().unwrap())
        .sum()
}

#[test]
fn backtraces_tree_by_crate_and_sites_on_real_profiles() {
    let out = tempfile::tempdir().unwrap();
    let run = run_once(
        out.path(),
        &[],
        &["bytes/json-decimal", "formats/serde_json"],
    );
    let decimal = run.join("bytes/json-decimal");
    let dir = decimal.to_str().unwrap();

    // Backtraces of scan_number_text, recomputed from cpu.folded: for each stack with a
    // matching frame, the frames from the innermost match outward; every node's count is the
    // number of samples whose backtrace starts with the node's path.
    let doc = json_of(&[
        "hotspots",
        dir,
        "--match",
        "scan_number_text",
        "--backtraces",
        "--min",
        "0",
        "--depth",
        "1000",
        "--json",
    ]);
    let stacks = folded_lines(&decimal.join("cpu.folded"));
    let mut backtraces: Vec<(Vec<String>, u64)> = Vec::new();
    for (frames, n) in &stacks {
        let funcs = &frames[1..];
        if let Some(i) = funcs.iter().rposition(|f| f.contains("scan_number_text")) {
            backtraces.push((funcs[..=i].iter().rev().cloned().collect(), *n));
        }
    }
    let matched: u64 = backtraces.iter().map(|(_, n)| n).sum();
    assert!(matched > 0, "scan_number_text is sampled");
    assert_eq!(doc["matched"].as_u64(), Some(matched));
    let mut nodes = Vec::new();
    for r in doc["roots"].as_array().unwrap() {
        paths(r, &[], &mut nodes);
    }
    for (path, total) in &nodes {
        let expected: u64 = backtraces
            .iter()
            .filter(|(b, _)| b.starts_with(path))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(*total, expected, "{path:?}");
    }
    // The hot path reaches it through parse_i64 and read_byte_array_decimal.
    let (hot, _) = nodes
        .iter()
        .filter(|(p, _)| p.iter().any(|f| f.contains("read_byte_array_decimal")))
        .max_by_key(|(_, n)| *n)
        .expect("a backtrace through read_byte_array_decimal");
    let at = |name: &str| hot.iter().position(|f| f.ends_with(name)).unwrap();
    assert!(at("scan_number_text") < at("parse_i64"), "{hot:?}");
    assert!(at("parse_i64") < at("read_byte_array_decimal"), "{hot:?}");

    // The call tree by crate separates the crates of formats/serde_json, each node's count
    // again the samples through its path (frames grouped by crate, runs of one crate merged).
    let sj = run.join("formats/serde_json");
    let tree = json_of(&[
        "tree",
        sj.to_str().unwrap(),
        "--by",
        "crate",
        "--min",
        "0",
        "--depth",
        "1000",
        "--json",
    ]);
    let mut nodes = Vec::new();
    for r in tree["roots"].as_array().unwrap() {
        paths(r, &[], &mut nodes);
    }
    let crates: std::collections::BTreeSet<&str> = nodes
        .iter()
        .flat_map(|(p, _)| p.iter().map(String::as_str))
        .collect();
    for krate in [
        "serde_json",
        "base64",
        "serde_core",
        "serprof_engines",
        "serprof",
        "libc",
    ] {
        assert!(crates.contains(krate), "{krate} in {crates:?}");
    }
    assert!(
        ["core", "alloc", "std"].iter().all(|k| crates.contains(k)),
        "{crates:?}"
    );
    assert!(
        !crates.iter().any(|c| c.contains("::") || c.contains('<')),
        "crate names only: {crates:?}"
    );
    let total = folded_total(&sj.join("cpu.folded"));
    assert_eq!(tree["total"].as_u64(), Some(total));
    assert_eq!(
        sum_of(&tree["roots"], "total"),
        total,
        "every sample is under a root"
    );

    // The side table names a registry file for serde_core's functions, and every function of
    // it whose file is in serde_core's registry folder counts under serde_core.
    let sources = std::fs::read_to_string(sj.join("cpu.sources")).unwrap();
    let in_registry: Vec<&str> = sources
        .lines()
        .filter(|l| {
            l.split('\t')
                .nth(1)
                .is_some_and(|f| f.contains("/serde_core-"))
        })
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert!(
        in_registry.iter().any(|f| f.starts_with('<')),
        "trait impls among serde_core's functions: {in_registry:?}"
    );
    let flat = json_of(&[
        "hotspots",
        sj.to_str().unwrap(),
        "--by",
        "crate",
        "--top",
        "1000",
        "--json",
    ]);
    let rows = flat["rows"].as_array().unwrap();
    let row = |c: &str| rows.iter().find(|r| r["function"] == c).cloned();
    let serde_core = row("serde_core").expect("serde_core row");
    // Recompute serde_core's self share: samples whose leaf function is in its folder.
    let files: HashMap<&str, &str> = sources
        .lines()
        .filter_map(|l| {
            let mut p = l.split('\t');
            Some((p.next()?, p.next()?))
        })
        .collect();
    let leaf_in_serde_core: u64 = folded_lines(&sj.join("cpu.folded"))
        .iter()
        .filter(|(f, _)| {
            files
                .get(f.last().unwrap().as_str())
                .is_some_and(|file| file.contains("/serde_core-"))
        })
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        serde_core["self_samples"].as_u64(),
        Some(leaf_in_serde_core)
    );

    // cpu.pb has the frames of cpu.folded: every sample's leaf function and count, decoded
    // from the protobuf, gives the same self counts as the folded file's leaves.
    let pb = std::fs::read(sj.join("cpu.pb")).unwrap();
    let profile = pprof::protos::Profile::decode(pb.as_slice()).unwrap();
    let name_of: HashMap<u64, &str> = profile
        .function
        .iter()
        .map(|f| (f.id, profile.string_table[f.name as usize].as_str()))
        .collect();
    let mut pb_self: HashMap<String, u64> = HashMap::new();
    let mut pb_frames = std::collections::BTreeSet::new();
    for sample in &profile.sample {
        let names: Vec<&str> = sample.location_id.iter().map(|l| name_of[l]).collect();
        *pb_self.entry(names[0].to_string()).or_insert(0) += sample.value[0] as u64;
        pb_frames.extend(names);
    }
    let mut folded_self: HashMap<String, u64> = HashMap::new();
    let mut folded_frames = std::collections::BTreeSet::new();
    for (frames, n) in folded_lines(&sj.join("cpu.folded")) {
        *folded_self
            .entry(frames.last().unwrap().clone())
            .or_insert(0) += n;
        folded_frames.extend(frames[1..].to_vec());
    }
    assert_eq!(pb_self, folded_self);
    let folded_frames: std::collections::BTreeSet<&str> =
        folded_frames.iter().map(String::as_str).collect();
    assert_eq!(pb_frames, folded_frames, "no inline chain in cpu.pb");

    // Allocation sites: no site is Vec or String growth, and the bytes add up.
    let sites = json_of(&[
        "hotspots",
        sj.to_str().unwrap(),
        "--alloc",
        "--sites",
        "--top",
        "1000",
        "--json",
    ]);
    let alloc_total = folded_total(&sj.join("alloc.folded"));
    assert_eq!(sites["total"].as_u64(), Some(alloc_total));
    assert_eq!(sum_of(&sites["rows"], "self_samples"), alloc_total);
    for r in sites["rows"].as_array().unwrap() {
        let f = r["function"].as_str().unwrap();
        if r["self_samples"].as_u64().unwrap() > 0 {
            assert!(
                !f.starts_with("alloc::") && !f.contains("RawVec") && !f.starts_with("__rust"),
                "{f} is plumbing, not a site"
            );
        }
    }
}

#[test]
fn lines_name_the_hot_source_lines_of_the_instructions_recording() {
    if !have_valgrind() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = run_once(
        out.path(),
        &["--instructions", "--no-cpu", "--no-alloc"],
        &["bytes/json-base64-twopass"],
    );
    let dir = run.join("bytes/json-base64-twopass");
    let doc = json_of(&["hotspots", dir.to_str().unwrap(), "--lines", "--json"]);
    assert!(doc["note"].as_str().unwrap().contains("not of time"));
    let lines = doc["lines"].as_array().unwrap();
    let ours: Vec<&Value> = lines
        .iter()
        .filter(|l| l["file"].as_str().unwrap().ends_with("two_pass.rs"))
        .collect();
    assert!(!ours.is_empty(), "{lines:?}");
    // The text printed is the file's line.
    for l in &ours {
        let n = l["line"].as_u64().unwrap() as usize;
        if n == 0 {
            continue;
        }
        let file = std::fs::read_to_string(l["file"].as_str().unwrap()).unwrap();
        let text = file.lines().nth(n - 1).unwrap().trim();
        assert_eq!(l["text"].as_str(), Some(text));
    }
    let counts: Vec<u64> = lines
        .iter()
        .map(|l| l["instructions"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "hottest first");
    assert!(counts.iter().sum::<u64>() <= doc["total"].as_u64().unwrap());
    let text = serprof()
        .args(["hotspots", dir.to_str().unwrap(), "--lines"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("not of time") && text.contains("two_pass.rs:"),
        "{text}"
    );
}

#[test]
fn bad_regexes_and_missing_paths_are_one_line_misuse() {
    let dir = tempfile::tempdir().unwrap();
    let folded = dir.path().join("cpu.folded");
    std::fs::write(&folded, "cfg;main;a 3\ncfg;main;b 1\n").unwrap();
    let f = folded.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["hotspots", f, "--match", "a(", "--backtraces"],
        vec!["tree", f, "--match", "[z"],
        vec![
            "hotspots",
            "/no/such/folder",
            "--match",
            "a",
            "--backtraces",
        ],
        vec!["tree", "/no/such/folder"],
        vec!["hotspots", "/no/such/folder", "--lines"],
        vec!["tree", f, "--min", "200"],
    ];
    for args in cases {
        let o = serprof().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("serprof: error: "), "{err}");
        assert!(o.stdout.is_empty());
    }
    // The toy profile: one document per view, the tree's counts exact.
    let t = json_of(&["tree", f, "--json", "--min", "0"]);
    assert_eq!(t["total"], 4);
    assert_eq!(t["roots"][0]["frames"][0], "main");
    assert_eq!(t["roots"][0]["children"][0]["total"], 3);
    // --match: only the stacks through ^b$, each from its outermost match.
    let t = json_of(&["tree", f, "--match", "^b$", "--json", "--min", "0"]);
    assert_eq!(
        (t["focused"].as_u64(), t["total"].as_u64()),
        (Some(1), Some(4))
    );
    assert_eq!(t["roots"][0]["frames"][0], "b");
    assert_eq!(t["roots"].as_array().unwrap().len(), 1);
    let b = json_of(&["hotspots", f, "--match", "^b$", "--backtraces", "--json"]);
    assert_eq!(
        (b["matched"].as_u64(), b["total"].as_u64()),
        (Some(1), Some(4))
    );
}
