//! The README and the guide in docs/: every relative link reaches a file, the guide's
//! docs/SUMMARY.md lists every guide page (and only pages that exist), and the README stays a front door
//! (under 250 lines, no run ids).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The markdown files checked: README.md and every .md under docs/.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut stack = vec![root().join("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The targets of inline links `[text](target)` outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Leave out code spans, whose brackets are code.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_reaches_a_file() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let file = page.parent().unwrap().join(path);
            if !file.exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_book_summary_lists_every_guide_page() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: Vec<String> = links(&summary);
    for l in &listed {
        assert!(
            docs.join(l).exists(),
            "SUMMARY.md lists {l}, which does not exist"
        );
    }
    for e in std::fs::read_dir(docs.join("guide")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".md") {
            let page = format!("guide/{name}");
            assert!(listed.contains(&page), "SUMMARY.md does not list {page}");
        }
    }
}

#[test]
fn the_readme_is_a_front_door() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines < 250, "README.md has {lines} lines");
    let run_id = regex::Regex::new(r"\d{8}T\d{6}Z").unwrap();
    assert!(!run_id.is_match(&text), "README.md names a run id");
    for word in [
        "now fixed",
        "before the fix",
        "afternoon",
        "this evening",
        "this morning",
    ] {
        assert!(
            !text.to_lowercase().contains(word),
            "README.md says {word:?}"
        );
    }
}

/// The README's prose outside code and outside the blocks `scripts/readme-figures.py` writes
/// (`<!-- figures:NAME -->` ... `<!-- /figures -->`, each a copy of `docs/figures/NAME.md`).
fn readme_prose(text: &str) -> String {
    let code = regex::Regex::new(r"(?s)```.*?```|`[^`\n]*`|\]\([^)]*\)").unwrap();
    let blocks = regex::Regex::new(r"(?s)<!-- figures:\w+ -->.*?<!-- /figures -->").unwrap();
    code.replace_all(&blocks.replace_all(text, ""), "")
        .into_owned()
}

/// A measured figure: a number with a unit of time, size, rate or count.
fn figures_in(prose: &str) -> Vec<String> {
    let figure = regex::Regex::new(
        r"\b\d[\d,.]*\s?(µs|ns|ms|s|%|x|Hz|MB/s|B|KiB|MiB|samples|children|orders|configurations)\b",
    )
    .unwrap();
    figure
        .find_iter(prose)
        .map(|m| m.as_str().to_string())
        .collect()
}

#[test]
fn every_readme_figure_is_written_by_the_figure_script() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let found = figures_in(&readme_prose(&text));
    assert!(
        found.is_empty(),
        "README.md states figures outside the blocks scripts/readme-figures.py writes: {found:?}"
    );
    let block = regex::Regex::new(r"(?s)<!-- figures:(\w+) -->\n(.*?)<!-- /figures -->").unwrap();
    let commit =
        regex::Regex::new(r"[Mm]easured at commit `[0-9a-f]{7}(-dirty)?` on \d{4}-\d{2}-\d{2}")
            .unwrap();
    let mut names = Vec::new();
    for c in block.captures_iter(&text) {
        let name = &c[1];
        let file = root().join("docs/figures").join(format!("{name}.md"));
        let written = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("README.md has a {name} block but {}: {e}", file.display()));
        assert_eq!(
            &c[2], written,
            "README.md's {name} block is not docs/figures/{name}.md: run scripts/readme-figures.py"
        );
        // A table of measured figures names the commit it was measured at, so a reader can
        // tell how stale it is (the method block states settings, not measurements).
        assert!(
            name == "method" || commit.is_match(&c[2]),
            "README.md's {name} table does not name the commit it was measured at: run scripts/readme-figures.py on a new run"
        );
        names.push(name.to_string());
    }
    for name in ["formats", "bytes", "corpus", "method"] {
        assert!(
            names.iter().any(|n| n == name),
            "README.md has no {name} block"
        );
    }
}

#[test]
fn the_figure_finder_finds_figures_outside_code_and_blocks() {
    let prose = readme_prose(
        "runs 12 children at 199 Hz\n`9 µs`\n```\n5 ms\n```\n<!-- figures:x -->\n3.5 µs\n<!-- /figures -->\nexits 2, Job 1",
    );
    assert_eq!(figures_in(&prose), ["12 children", "199 Hz"]);
}

#[test]
fn the_link_finder_finds_links_and_skips_code() {
    let found = links("see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n![d](d.png)");
    assert_eq!(found, ["a.md", "d.png"]);
}

/// The kept figures of the README (`docs/figures/run/`) must be of the code serprof measures
/// today: each row's engine call (`call` in its result.json) is the one `serprof list --json`
/// gives for that configuration. A row whose configuration is gone, or whose call changed, is
/// stale: run `serprof run` and `scripts/readme-figures.py` again.
#[test]
fn the_kept_figures_call_what_serprof_lists_today() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_serprof"))
        .args(["list", "--json"])
        .env_remove("SERPROF_CORPUS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut calls = std::collections::HashMap::new();
    let mut unavailable = Vec::new();
    for study in listed["studies"].as_array().unwrap() {
        if !study["unavailable"].is_null() {
            unavailable.push(study["study"].as_str().unwrap().to_string());
        }
        for c in study["configs"].as_array().into_iter().flatten() {
            calls.insert(
                c["name"].as_str().unwrap().to_string(),
                c["call"].as_str().unwrap_or_default().to_string(),
            );
        }
    }
    let kept = root().join("docs/figures/run");
    let (mut checked, mut stale) = (0, Vec::new());
    for study in std::fs::read_dir(&kept).unwrap() {
        let study = study.unwrap().path();
        if !study.is_dir() {
            continue;
        }
        let name = study.file_name().unwrap().to_string_lossy().to_string();
        if unavailable.contains(&name) {
            eprintln!(
                "skipping the kept {name} rows: the {name} study needs its data to be listed"
            );
            continue;
        }
        for config in std::fs::read_dir(&study).unwrap() {
            let file = config.unwrap().path().join("result.json");
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let row: serde_json::Value = serde_json::from_str(&text).unwrap();
            let id = format!(
                "{}/{}",
                row["study"].as_str().unwrap(),
                row["config"].as_str().unwrap()
            );
            let kept_call = row["call"].as_str().unwrap_or_default();
            match calls.get(&id) {
                Some(call) if call == kept_call => checked += 1,
                Some(call) => stale.push(format!("{id}: kept {kept_call:?}, today {call:?}")),
                None => stale.push(format!("{id}: no such configuration today")),
            }
        }
    }
    assert!(checked > 100, "only {checked} kept rows checked");
    assert!(
        stale.is_empty(),
        "kept figures of other code (run `serprof run` and scripts/readme-figures.py): {stale:#?}"
    );
}
