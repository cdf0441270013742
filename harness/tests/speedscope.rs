//! Opens serprof's speedscope exports in speedscope itself: the npm package `speedscope`
//! (pinned in harness/tests/speedscope/package-lock.json, installed by `scripts/test` with
//! `npm ci`), its built `index.html` from file:// in headless Chromium driven by playwright-core,
//! with software GL (SwiftShader) and no network. The page must name the profile, list the
//! configuration's hottest function in its sandwich table, draw a non-blank flame chart, and
//! raise no error or network request.
//!
//! Without node, the npm packages or Chromium the test says what is missing and passes, except
//! in CI (`CI` set), where it fails.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde_json::Value;

mod common;
use common::run_once;

fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn skip(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why} in CI: scripts/test installs it"
    );
    eprintln!("skipped: {why} (scripts/test installs it)");
}

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/speedscope")
}

/// The function with the most self weight in a folded file, recomputed here.
fn top_self(folded: &Path) -> String {
    let mut counts: HashMap<String, u64> = HashMap::new();
    for line in std::fs::read_to_string(folded).unwrap().lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        let leaf = stack.rsplit(';').next().unwrap().to_string();
        *counts.entry(leaf).or_insert(0) += n.parse::<u64>().unwrap();
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap()
        .0
}

#[test]
fn speedscope_opens_the_profiles_of_a_configuration() {
    let (Some(node), Some(browser)) = (
        on_path(&["node"]),
        on_path(&["chromium", "chromium-browser"]),
    ) else {
        skip("node or chromium is not installed");
        return;
    };
    let index = package_dir().join("node_modules/speedscope/dist/release/index.html");
    if !index.is_file() || !package_dir().join("node_modules/playwright-core").is_dir() {
        skip("the npm packages of harness/tests/speedscope are not installed (npm ci there)");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = run_once(out.path(), &[], &["formats/serde_json"]).join("formats/serde_json");
    for (profile, folded) in [
        ("cpu.speedscope.json", "cpu.folded"),
        ("alloc.speedscope.json", "alloc.folded"),
    ] {
        let frame = top_self(&dir.join(folded));
        let shot = out.path().join(format!("{profile}.png"));
        let o = Process::new(&node)
            .arg(package_dir().join("check.mjs"))
            .arg(&browser)
            .arg(&index)
            .arg(dir.join(profile))
            .arg(&frame)
            .arg(&shot)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "check.mjs on {profile}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();
        assert!(
            seen["title"]
                .as_str()
                .unwrap()
                .starts_with("formats/serde_json ("),
            "{profile}: {seen}"
        );
        assert_eq!(
            seen["frameFound"], true,
            "{profile}: {frame} listed: {seen}"
        );
        assert!(
            seen["colors"].as_u64().unwrap() > 16,
            "{profile}: a drawn chart: {seen}"
        );
        assert_eq!(seen["errors"], serde_json::json!([]), "{profile}: {seen}");
        assert!(shot.is_file());
    }
}
