//! Opens a `functions-diff.svg` in headless Chromium (Debian's `chromium`) and checks what a
//! reader sees: the frames of the one function whose change is called are red and their
//! tooltip gives its ratio and contribution with their intervals; every other frame is grey,
//! its tooltip saying it was not called (or not examined). The graph is drawn by serprof from
//! 40 synthetic layouts per side (one function 50% slower after, the others unchanged), as
//! before-after draws it; a script added to the SVG reads each frame's title and the fill the
//! browser computed for its rectangle.
//!
//! Without Chromium the test says it was skipped, except in CI (`CI` set), where it fails.

use std::path::Path;
use std::process::Command as Process;

use regex::Regex;

mod common;

/// The DOM of `file` after its scripts ran, in headless Chromium.
fn dump_dom(browser: &Path, file: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Process::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("chromium starts");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One side's 40 layouts: per layout, folded stacks with `counts` samples per function (10
/// samples per ns of its time, so the shares are exact), the first and last function trading
/// a few samples from layout to layout (`mix` varies the pattern), and the layout's time per
/// operation (the functions' times, moved by a few percent by the layout).
fn side(weights: &[(&str, i64)], mix: usize) -> (Vec<String>, Vec<f64>) {
    let mut texts = Vec::new();
    let mut times = Vec::new();
    let total: i64 = weights.iter().map(|w| w.1).sum();
    for k in 0..40 {
        let layout = 1.0 + 0.04 * (((k * 7) % 11) as f64 / 10.0 - 0.5);
        let trade = ((k * mix) % 5) as i64 - 2;
        let mut text = String::new();
        for (i, (name, w)) in weights.iter().enumerate() {
            let n = 10 * w
                + match i {
                    0 => trade,
                    i if i + 1 == weights.len() => -trade,
                    _ => 0,
                };
            text.push_str(&format!(
                "cfg;main;serprof_api::workload::values::roundtrip_loop;{name} {n}\n"
            ));
        }
        texts.push(text);
        times.push(total as f64 * layout);
    }
    (texts, times)
}

#[test]
fn called_frames_are_coloured_with_their_interval_and_the_rest_grey() {
    let Some(browser) = common::chromium() else {
        return;
    };
    // slow_u16 takes 20 ns more per operation after; parse and write are unchanged.
    let before = side(&[("parse", 40), ("slow_u16", 20), ("write", 40)], 3);
    let after = side(&[("parse", 40), ("slow_u16", 40), ("write", 40)], 7);
    let sets = |(texts, times): &(Vec<String>, Vec<f64>)| -> Vec<(usize, String, f64)> {
        texts
            .iter()
            .zip(times)
            .enumerate()
            .map(|(k, (t, &ns))| (k, t.clone(), ns))
            .collect()
    };
    let (b, a) = (sets(&before), sets(&after));
    fn borrow(v: &[(usize, String, f64)]) -> Vec<(usize, &str, f64)> {
        v.iter().map(|(k, t, ns)| (*k, t.as_str(), *ns)).collect()
    }
    let svg = serprof::testing::functions_diff_svg(&borrow(&b), &borrow(&a)).unwrap();
    let mut svg = String::from_utf8(svg).unwrap();
    // The probe: every frame's title and its rectangle's computed fill, into an attribute.
    let probe = r##"<script type="text/ecmascript"><![CDATA[
window.addEventListener("load", function () {
  var rows = [];
  document.querySelectorAll("#frames > g").forEach(function (g) {
    var t = g.querySelector("title"), r = g.querySelector("rect");
    if (t && r) rows.push(getComputedStyle(r).fill + "|" + t.textContent);
  });
  document.documentElement.setAttribute("data-frames", rows.join("\n"));
});
]]></script>"##;
    let end = svg.rfind("</svg>").unwrap();
    svg.insert_str(end, probe);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("functions-diff.svg");
    std::fs::write(&file, &svg).unwrap();
    let dom = dump_dom(&browser, &file);
    let frames = Regex::new(r#"data-frames="([^"]*)""#)
        .unwrap()
        .captures(&dom)
        .map(|c| c[1].replace("&#10;", "\n").replace("&amp;", "&"))
        .unwrap_or_else(|| panic!("the probe ran: {dom}"));
    let rows: Vec<(&str, &str)> = frames.lines().filter_map(|l| l.split_once('|')).collect();
    assert!(rows.len() >= 5, "every frame read: {frames}");
    let interval = Regex::new(r"time after/before [12]\.\d\d \[[12]\.\d\d, [12]\.\d\d\]; \+\d+\.\d% \[\d+\.\d, \d+\.\d\] of the row's time").unwrap();
    let mut seen_called = false;
    for (fill, title) in &rows {
        if title.starts_with("slow_u16") {
            seen_called = true;
            assert_eq!(
                *fill, "rgb(215, 48, 39)",
                "a called slower frame is red: {title}"
            );
            assert!(
                interval.is_match(title),
                "its intervals in the tooltip: {title}"
            );
        } else {
            assert_eq!(
                *fill, "rgb(200, 200, 200)",
                "grey where nothing was called: {title}"
            );
            assert!(
                title.contains("not called")
                    || title.contains("not examined")
                    || title.starts_with("all "),
                "{title}"
            );
        }
    }
    assert!(
        seen_called,
        "the slower function's frame is drawn: {frames}"
    );
}
