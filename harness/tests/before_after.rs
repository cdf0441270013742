//! `serprof before-after`, end to end, in scratch clones of this repository:
//! - misuse is a one-line error with exit 2 before anything is built (outside a repository, a
//!   bad revision, a cache inside the repository, a bad `--patch`, an unknown study, a crate not
//!   in the graph, a patch cargo would not use);
//! - `run --layouts` times layouts of a build of serprof's own working tree;
//! - one comparison of two builds: the after side is a revision that gives one `bytes_json`
//!   codec a known amount of extra work in a non-inlined function, with the `base64` crate
//!   patched by a copy of its pinned source whose decoder does extra work and whose version is
//!   past the pin. The instruction growth shows in those two configurations, each with its
//!   function at the top of the moved list, the side's lock file is moved to it and said, and a configuration
//!   that uses neither does not move; each side was timed in its own layouts (seeds the other
//!   side does not use), the two binaries' code differs, and no verdict is `within-noise`.
//!   (One comparison, not one per change: every side is a release build of the workspace, the
//!   longest part of the test.)
//!
//! The builds share one cache (`$SERPROF_BA_CACHE`, default
//! `$TMPDIR/serprof-before-after-tests`), seeded from the workspace's release build when there
//! is one. Needs git, valgrind and cargo's registry copy of base64; without them the tests say
//! so and pass, except valgrind in CI (`CI=true`). Timing verdicts are printed,
//! never asserted.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::{git, have_valgrind, workspace};

/// A test that builds and measures holds this, so that no other such test runs beside it: their
/// timing children would share a CPU otherwise.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cache() -> PathBuf {
    common::test_cache()
}

fn serprof(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG")
        .env("SERPROF_BA_CACHE", cache())
        .current_dir(dir);
    c
}

/// A clone of this repository at its HEAD, or `None` (with the reason printed) when the
/// workspace is not a git repository.
fn scratch_clone() -> Option<tempfile::TempDir> {
    let ws = workspace();
    let inside = StdCommand::new("git")
        .arg("-C")
        .arg(&ws)
        .args(["rev-parse", "--git-dir"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !inside {
        common::skip(&format!("{} is not a git repository", ws.display()), "CI");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("serprof");
    let out = StdCommand::new("git")
        .args(["clone", "-q", "--no-hardlinks"])
        .arg(&ws)
        .arg(&clone)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir)
}

fn clone_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("serprof")
}

/// Runs the command, expecting exit 2 with one line on stderr containing `needle`.
fn misuse(mut cmd: Command, needle: &str) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("serprof: error:"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    assert!(errors[0].contains(needle), "{needle:?} in {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A minimal crate named `name` at `version` in `dir`.
fn fake_crate(dir: &Path, name: &str, version: &str) -> PathBuf {
    let root = dir.join(format!("{name}-{version}"));
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\n"),
    )
    .unwrap();
    std::fs::write(root.join("src/lib.rs"), "").unwrap();
    root
}

#[test]
fn misuse_is_one_line_and_exit_2_before_any_build() {
    let outside = tempfile::tempdir().unwrap();
    misuse(
        {
            let mut c = serprof(outside.path());
            c.args(["before-after", "HEAD"]);
            c
        },
        "git repository",
    );
    let Some(scratch) = scratch_clone() else {
        return;
    };
    let repo = clone_path(&scratch);
    let ba = |args: &[&str]| {
        let mut c = serprof(&repo);
        c.arg("before-after")
            .args(args)
            .args(["--quick", "--quiet"]);
        c
    };
    misuse(ba(&["no-such-revision"]), "is not a git revision");
    let inside = repo.join("target").join("cache");
    misuse(
        ba(&["HEAD", "--cache", &inside.display().to_string()]),
        "cargo would merge into every side's build",
    );
    misuse(ba(&["HEAD", "--patch", "base64"]), "give CRATE=PATH");
    misuse(
        ba(&["HEAD", "--patch", "base64=/no/such/checkout"]),
        "is not a crate checkout",
    );
    misuse(ba(&["HEAD", "--study", "no-such-study"]), "unknown study");
    let crates = tempfile::tempdir().unwrap();
    let stranger = fake_crate(crates.path(), "serprof-no-such-crate", "0.1.0");
    misuse(
        ba(&[
            "HEAD",
            "HEAD",
            "--patch",
            &format!("serprof-no-such-crate={}", stranger.display()),
        ]),
        "is not in the dependency graph",
    );
    // itoa is in the graph only through serde_json (`^1`): a 0.0.1 checkout is not used.
    let unused = fake_crate(crates.path(), "itoa", "0.0.1");
    misuse(
        ba(&[
            "HEAD",
            "HEAD",
            "--patch",
            &format!("itoa={}", unused.display()),
        ]),
        "cargo does not use it",
    );
    // A side's binary of another protocol is refused after its build: the unit tests of
    // `run::sides` check that refusal on stand-in binaries, without building a revision.
}

/// `run --layouts` in serprof's own repository times layouts of a build of its working tree
/// (serprof's studies without the driver, with the selected configurations' engines only): the
/// timing children of that other build find the planned configurations by name.
#[test]
fn run_layouts_times_a_build_of_serprofs_own_studies() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let Some(scratch) = scratch_clone() else {
        return;
    };
    let repo = clone_path(&scratch);
    let out_dir = repo.join("snapshots-test");
    let out = serprof(&repo)
        .args([
            "run",
            "--quick",
            "--layouts",
            "2",
            "--no-cpu",
            "--no-alloc",
            "--json",
            "--config",
            "bytes/json-decimal",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run --layouts failed: {stderr}");
    assert!(
        stderr.contains("--bin serprof-studies"),
        "the build without the driver: {stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{doc}");
    assert!(results[0]["error"].is_null(), "{doc}");
    assert!(
        results[0]["time_ns"]["median"].as_f64().unwrap() > 0.0,
        "{doc}"
    );
    let run_dir = PathBuf::from(doc["run_dir"].as_str().unwrap());
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["layouts"].as_array().map(Vec::len),
        Some(2),
        "{}",
        manifest["layouts"]
    );
}

/// Runs `before-after` with `--json` and returns its record, printing the table's verdicts.
fn before_after(repo: &Path, args: &[&str]) -> (Value, String) {
    let out_dir = repo.join("snapshots-test");
    let out = serprof(repo)
        .arg("before-after")
        .args(args)
        .args(["--quick", "--no-alloc", "--json", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "before-after failed: {stderr}");
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    for row in record["rows"].as_array().unwrap() {
        let t = &row["comparison"]["time"];
        eprintln!(
            "timing verdict {}: {} ({} [{}, {}])",
            row["config"], row["verdict"], t["ratio"], t["ci95"][0], t["ci95"][1]
        );
    }
    (record, stderr)
}

fn row<'a>(record: &'a Value, config: &str) -> &'a Value {
    record["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["config"] == config)
        .unwrap_or_else(|| panic!("no row {config}: {record}"))
}

/// Inserts `insert` after the first line of `file` that contains `anchor`.
fn insert_after(file: &Path, anchor: &str, insert: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find(anchor)
        .unwrap_or_else(|| panic!("{anchor:?} not in {}: update this test", file.display()));
    let end = at + text[at..].find('\n').unwrap() + 1;
    let new = format!("{}{insert}\n{}", &text[..end], &text[end..]);
    std::fs::write(file, new).unwrap();
}

/// A non-inlined function that executes a fixed loop; `name` is its name.
fn extra_work_fn(name: &str) -> String {
    format!(
        "\n/// Extra work added by serprof's before-after test.\n#[inline(never)]\npub fn {name}(seed: usize) -> usize {{\n    let mut a = seed;\n    for i in 0..1000 {{\n        a = std::hint::black_box(a.wrapping_mul(31).wrapping_add(i));\n    }}\n    a\n}}\n"
    )
}

/// The registry copy of the crate `name` at the version the workspace locks.
fn registry_copy(name: &str) -> Option<PathBuf> {
    let out = StdCommand::new("cargo")
        .current_dir(workspace())
        .args(["metadata", "--format-version", "1"])
        .output()
        .ok()?;
    let doc: Value = serde_json::from_slice(&out.stdout).ok()?;
    doc["packages"]
        .as_array()?
        .iter()
        .filter(|p| {
            p["name"] == name
                && p["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("registry"))
        })
        .filter_map(|p| {
            Some(
                PathBuf::from(p["manifest_path"].as_str()?)
                    .parent()?
                    .to_path_buf(),
            )
        })
        .find(|d| d.join("src/lib.rs").is_file())
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A copy of base64's registry source at the next patch version past the pin, whose decoder
/// does extra work on every call; returns the copy and that version.
fn base64_past_the_pin(source: &Path, into: &Path) -> (PathBuf, String) {
    let copy = into.join("base64-copy");
    copy_tree(source, &copy);
    let manifest = copy.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let pinned = text
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("the package version")
        .to_string();
    let mut parts: Vec<u64> = pinned.split('.').map(|p| p.parse().unwrap()).collect();
    *parts.last_mut().unwrap() += 1;
    let past: Vec<String> = parts.iter().map(u64::to_string).collect();
    let past = past.join(".");
    std::fs::write(
        &manifest,
        text.replacen(
            &format!("version = \"{pinned}\""),
            &format!("version = \"{past}\""),
            1,
        ),
    )
    .unwrap();
    insert_after(
        &copy.join("src/engine/general_purpose/decode.rs"),
        ") -> Result<DecodeMetadata, DecodeSliceError> {",
        "    let _ = crate::serprof_patch_extra_work(input.len());",
    );
    let lib = copy.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str(&extra_work_fn("serprof_patch_extra_work"));
    std::fs::write(&lib, text).unwrap();
    (copy, past)
}

/// One before-after of two builds (so two side builds, not three): the after side is a commit
/// giving the two-pass decoder extra work in a non-inlined function, with base64 patched by a
/// copy past its pin whose decoder does extra work too. Each change shows in its own
/// configuration, with its function at the top of the moved list, and a configuration that
/// uses neither does not move.
#[test]
fn extra_work_in_a_commit_and_in_a_patched_crate_moves_those_functions_only() {
    if !have_valgrind() {
        return;
    }
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let Some(source) = registry_copy("base64") else {
        common::skip("no registry copy of base64 (run `cargo fetch` first)", "CI");
        return;
    };
    let Some(scratch) = scratch_clone() else {
        return;
    };
    let repo = clone_path(&scratch);
    let file = repo.join("engines/src/casestudy/bytes_json/base64/two_pass.rs");
    insert_after(
        &file,
        "let (digits, body_end) = validate(input, start)?;",
        "    let _ = serprof_test_extra_work(start);",
    );
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&extra_work_fn("serprof_test_extra_work"));
    std::fs::write(&file, text).unwrap();
    git(
        &repo,
        &["commit", "-qam", "extra work in the two-pass decoder"],
    );
    let (copy, past) = base64_past_the_pin(&source, scratch.path());

    let changed = "bytes/json-base64-twopass";
    let patched = "bytes/json-base64-crate";
    let untouched = "bytes/json-decimal";
    let (record, stderr) = before_after(
        &repo,
        &[
            "HEAD~1",
            "HEAD",
            "--patch",
            &format!("base64={}", copy.display()),
            "--config",
            changed,
            "--config",
            patched,
            "--config",
            untouched,
        ],
    );

    // The commit: growth in the two-pass decoder, its new function on top.
    let grown = &row(&record, changed)["comparison"]["instructions"];
    let delta = grown["delta_per_op"].as_f64().unwrap();
    assert!(
        delta >= 1000.0,
        "at least one instruction per iteration: {grown}"
    );
    let top = grown["moved"][0]["function"].as_str().unwrap();
    assert!(
        top.contains("serprof_test_extra_work"),
        "the new function tops the moved list: {grown}"
    );
    assert!(grown["moved"][0]["self_delta_per_op"].as_f64().unwrap() >= 1000.0);

    // Where the time moved, over layouts: the commit's new function is called first, slower,
    // with its exact instructions beside it; the contributions add up to the row's change.
    let changed_row = row(&record, changed);
    let functions = changed_row["functions"].as_array().unwrap();
    eprintln!(
        "evidence: {} ({})",
        changed_row["evidence"], changed_row["functions_summary"]
    );
    for f in functions.iter().take(6) {
        eprintln!(
            "  {} {} {} {} {}",
            f["called"], f["contribution"], f["time_ratio"], f["instructions_delta"], f["name"]
        );
    }
    let first = &functions[0];
    assert!(
        first["name"]
            .as_str()
            .unwrap()
            .contains("serprof_test_extra_work")
            && first["called"] == true,
        "the new function is called first: {changed_row}"
    );
    assert!(first["contribution"].as_f64().unwrap() > 0.0, "{first}");
    assert!(
        first["instructions_delta"].as_f64().unwrap() >= 1000.0,
        "{first}"
    );
    let ci = first["time_ci95"].as_array();
    assert!(
        ci.is_none_or(|ci| ci.len() == 2),
        "two numbers, or null when unbounded: {first}"
    );
    let summary = &changed_row["functions_summary"];
    let sum: f64 = functions
        .iter()
        .map(|f| f["contribution"].as_f64().unwrap())
        .sum::<f64>()
        + summary["unlisted_contribution"].as_f64().unwrap();
    assert!(
        (sum - summary["change"].as_f64().unwrap()).abs() < 1e-9,
        "{summary}"
    );
    let evidence = changed_row["evidence"].as_str().unwrap();
    assert!(
        evidence.contains("serprof_test_extra_work")
            && evidence.contains("instructions per operation"),
        "the verdict names its evidence: {evidence}"
    );
    for r in record["rows"].as_array().unwrap() {
        let called: Vec<&str> = r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["called"] == true)
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        eprintln!("called in {}: {called:?}", r["config"]);
    }

    // The patch: built with the side's lock file moved to it (and said), growth inside base64.
    assert!(
        stderr.contains(&format!(
            "base64 {past} is not the version the source takes"
        )) && stderr.contains(&format!("Cargo.lock: base64 0.23.1 -> {past}")),
        "{stderr}"
    );
    let patch = &record["after"]["patches"][0];
    assert_eq!(patch["version"], past.as_str());
    assert!(!patch["relaxed"].as_array().unwrap().is_empty(), "{patch}");
    assert!(record["before"]["patches"].as_array().unwrap().is_empty());
    let grown = &row(&record, patched)["comparison"]["instructions"];
    assert!(grown["delta_per_op"].as_f64().unwrap() >= 1000.0, "{grown}");
    let top = grown["moved"][0]["function"].as_str().unwrap();
    assert!(top.starts_with("base64::"), "inside base64: {grown}");

    // The untouched configuration runs the same code, but in another binary: its static data
    // and code moved, and code whose path depends on an address costs a few instructions more
    // or fewer on other alignments (a few dozen of about 1.5 million per operation: libc's
    // memcmp, or a loop inlined into an engine function, which then lists it with a self change
    // of a few dozen). Every engine function listed is such a layout effect (the comparison's
    // `layout`: under 1% of its count), none changed work, and the total stays within 0.1%.
    let same = &row(&record, untouched)["comparison"]["instructions"];
    let drift = same["delta_per_op"].as_f64().unwrap().abs();
    assert!(
        drift < 1e-3 * same["before_per_op"].as_f64().unwrap(),
        "{same}"
    );
    for m in same["moved"].as_array().unwrap() {
        let f = m["function"].as_str().unwrap();
        if f.contains("serprof_engines") || f.starts_with("base64::") {
            assert_eq!(m["layout"], true, "no engine function's work moves: {same}");
        }
    }

    // Each side was timed in layouts of its own build, one per set of children, on seeds the
    // other side does not use; the two binaries cargo linked differ in their code.
    let seeds = |side: &str| -> Vec<u64> {
        record[side]["layouts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["seed"].as_u64().unwrap())
            .collect()
    };
    let (b, a) = (seeds("before"), seeds("after"));
    assert_eq!(
        b.len() as u64,
        record["settings"]["processes"].as_u64().unwrap()
    );
    assert_eq!(a.len(), b.len());
    assert!(b.iter().all(|s| *s != 0 && !a.contains(s)), "{b:?} {a:?}");
    let differ = record["binary_diff"]["differ"].as_array().unwrap();
    assert!(
        differ.iter().any(|d| d["name"] == ".text"),
        "the code differs: {differ:?}"
    );
    // The default layouts move both the order of functions and their offsets.
    for side in ["before", "after"] {
        for l in record[side]["layouts"].as_array().unwrap() {
            assert_eq!(l["mode"], "both", "{l}");
            assert!(l["shifts"].is_array(), "{l}");
        }
    }
    for row in record["rows"].as_array().unwrap() {
        let verdict = row["verdict"].as_str().unwrap();
        assert!(
            ["faster", "slower", "layout"].contains(&verdict),
            "with layouts, no `within-noise`: {row}"
        );
        // The ratio is over layouts, and each side says how much its layouts spread it.
        let time = &row["comparison"]["time"];
        assert_eq!(time["method"], "layout_means", "{time}");
        for side in ["before_layout_spread", "after_layout_spread"] {
            let spread = time[side].as_f64().unwrap_or(-1.0);
            assert!((0.0..0.5).contains(&spread), "{side}: {time}");
        }
    }

    // The folder holds the record, the page and each configuration's comparison.
    let out = PathBuf::from(record["out_dir"].as_str().unwrap());
    for f in [
        "before-after.json",
        "before-after.html",
        "before-after.txt",
        "compare.json",
    ] {
        assert!(out.join(f).is_file(), "{f} in {}", out.display());
    }
    let cfg = out.join(changed);
    for f in [
        "compare.json",
        "diff.svg",
        "diff-reverse.svg",
        "instructions-diff.svg",
        "functions-diff.svg",
    ] {
        assert!(cfg.join(f).is_file(), "{f} in {}", cfg.display());
    }
    let page = std::fs::read_to_string(out.join("before-after.html")).unwrap();
    assert!(
        page.contains("serprof_test_extra_work"),
        "moved function on the page"
    );
    assert!(page.contains("instructions-diff.svg"), "linked flame graph");
    assert!(
        page.contains("functions-diff.svg"),
        "linked functions graph"
    );
    let text = std::fs::read_to_string(out.join("before-after.txt")).unwrap();
    assert!(
        text.contains(evidence) && text.contains(&format!("functions in {changed} over")),
        "the table shows the evidence and the functions: {text}"
    );
    eprintln!("{text}");
}
