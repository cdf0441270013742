//! Opens a real run's `report.html` in headless Chromium (Debian's `chromium`) and checks what a
//! reader would: the page loads with no script error, failed load or blocked request; the
//! charts are there; every link and source points at a file of the run folder; the page fits
//! a phone-width window; a screenshot gets taken; and a linked flame graph's search works.
//!
//! Without Chromium the test says it was skipped, except in CI (`CI` set), where it fails:
//! CI must install it (`scripts/test` does).

use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;
use regex::Regex;

mod common;

/// Runs headless Chromium on `url` with `args`; returns stdout. A fresh profile folder and no
/// background networking, so nothing but the page's own loads happen.
fn headless(browser: &Path, profile: &Path, args: &[&str], url: &str) -> String {
    let out = Process::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium starts");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// Undoes the report's percent-encoding of a link.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// The `data-NAME` attribute of the dumped `<html>` element.
fn html_attribute(dom: &str, name: &str) -> Option<String> {
    let html = Regex::new(r"<html[^>]*>").unwrap().find(dom)?.as_str();
    let re = Regex::new(&format!(r#"{name}="([^"]*)""#)).unwrap();
    re.captures(html).map(|c| c[1].to_string())
}

#[test]
fn the_report_renders_in_headless_chromium() {
    let Some(browser) = common::chromium() else {
        return;
    };

    // A real run: one measured configuration and one that fails verification.
    let out = tempfile::tempdir().unwrap();
    let run = Command::cargo_bin("serprof")
        .unwrap()
        .env_remove("RUST_LOG")
        .args(["run", "--quick", "--quiet", "--no-alloc", "--rounds", "5"])
        .args(["--cpu-samples", "100"])
        // The testkit study is hidden: it takes `--study` to be selected.
        .args(["--study", "formats", "--study", "testkit"])
        .args([
            "--config",
            "formats/postcard+bytes",
            "--config",
            "testkit/drop-field",
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "one configuration fails: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let run_dir = out.path().join("latest").canonicalize().unwrap();

    // A diff flame graph where `serprof compare` puts them; `serprof report` must link it.
    let compare = run_dir.join("compare/self");
    std::fs::create_dir_all(&compare).unwrap();
    std::fs::copy(
        run_dir.join("formats/postcard+bytes/cpu.svg"),
        compare.join("diff.svg"),
    )
    .unwrap();
    let rewritten = Command::cargo_bin("serprof")
        .unwrap()
        .arg("report")
        .arg(out.path().join("latest"))
        .output()
        .unwrap();
    assert!(rewritten.status.success());
    let report = run_dir.join("report.html");
    assert!(String::from_utf8_lossy(&rewritten.stdout).contains("report.html"));

    let profile = tempfile::tempdir().unwrap();
    let dom = headless(
        &browser,
        profile.path(),
        &["--window-size=390,2000", "--dump-dom"],
        &file_url(&report),
    );

    // Loaded, and nothing went wrong on the way (the page's error recorder, report_page.rs).
    assert_eq!(
        html_attribute(&dom, "data-loaded").as_deref(),
        Some("1"),
        "the page's load event ran"
    );
    assert_eq!(
        html_attribute(&dom, "data-errors"),
        None,
        "console errors, failed loads or blocked requests"
    );
    // Fits a phone: nothing wider than the window but the tables' own scrolling boxes.
    let width = html_attribute(&dom, "data-width").expect("the page records its width");
    let (scroll, inner) = width.split_once(' ').unwrap();
    let (scroll, inner): (u32, u32) = (scroll.parse().unwrap(), inner.parse().unwrap());
    assert!(
        scroll <= inner,
        "page is {scroll}px wide in a {inner}px window"
    );

    // Charts: time and payload (allocations were not recorded), with labelled bars.
    let charts = dom.matches("<svg class=\"chart\"").count();
    assert_eq!(charts, 2, "two charts");
    assert!(dom.contains("postcard+bytes") && dom.contains(" µs"));
    // The failed configuration is shown with its reason.
    assert!(dom.contains("drop-field") && dom.contains("failed: "));

    // Every link and source resolves to a file of the run folder.
    let links = Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    let mut checked = Vec::new();
    for c in links.captures_iter(&dom) {
        let target = c[1].replace("&amp;", "&");
        if target.starts_with('#') {
            continue;
        }
        assert!(
            !target.contains("://") && !target.starts_with('/'),
            "links are relative: {target}"
        );
        let path = run_dir.join(percent_decode(&target));
        assert!(path.is_file(), "{target} links to a missing file");
        checked.push(target);
    }
    for expected in [
        "formats/postcard+bytes/cpu.svg",
        "formats/postcard+bytes/result.json",
        "compare/self/diff.svg",
        "run.json",
    ] {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} is linked: {checked:?}"
        );
    }

    // A screenshot at phone width.
    let png = profile.path().join("report-phone.png");
    headless(
        &browser,
        profile.path(),
        &[
            "--window-size=390,2000",
            &format!("--screenshot={}", png.display()),
        ],
        &file_url(&report),
    );
    let bytes = std::fs::read(&png).expect("a screenshot was written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "it is a PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(width, 390);
    assert!(
        bytes.len() > 20_000,
        "not a blank page: {} bytes",
        bytes.len()
    );

    // The linked flame graph opens and its search works: inferno's script reads `?s=` on load,
    // highlights the matches and reports the matched share.
    let flame = run_dir.join("formats/postcard+bytes/cpu.svg");
    let svg_dom = headless(
        &browser,
        profile.path(),
        &["--dump-dom"],
        &format!("{}?s=serialize", file_url(&flame)),
    );
    assert!(
        svg_dom.contains("function search("),
        "inferno's search script"
    );
    assert!(
        svg_dom.contains("Reset Search") && svg_dom.contains("Matched: "),
        "the search ran and matched frames"
    );
}
