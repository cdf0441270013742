//! The guide builds as a book: `mdbook build` of the repository's `book.toml` (into a temporary
//! folder) succeeds, and every relative `href` and `src` of its HTML pages reaches a file, with
//! its `#anchor` an `id` of the page it names. mdbook's own pages that repeat the others
//! (`print.html`, `404.html`, `toc.html`) are left out. Without mdbook the test says so and
//! passes, except in CI (`scripts/test` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{skip, workspace};

/// mdbook on PATH, or where `cargo install` puts it.
fn mdbook() -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    [
        Some(PathBuf::from("mdbook")),
        cargo_home.map(|c| c.join("bin/mdbook")),
    ]
    .into_iter()
    .flatten()
    .find(|m| {
        Command::new(m)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The HTML pages under `dir`, recursively.
fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            pages(&p, out);
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
}

/// Every `href="..."` and `src="..."` value of a page, with `&amp;` and the like decoded.
fn targets(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attr) {
            let after = &rest[at + attr.len()..];
            let end = after.find('"').unwrap_or(after.len());
            out.push(
                after[..end]
                    .replace("&amp;", "&")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'"),
            );
            rest = &after[end..];
        }
    }
    out
}

/// Whether a link leaves the book (a scheme such as `https:` or `mailto:`, or `//host`).
fn external(target: &str) -> bool {
    target.starts_with("//")
        || target
            .split_once(':')
            .is_some_and(|(scheme, _)| scheme.chars().all(|c| c.is_ascii_alphabetic()))
}

/// The broken links of the pages under `book`, one line each.
fn broken_links(book: &Path) -> Vec<String> {
    let mut all = Vec::new();
    pages(book, &mut all);
    let mut broken = Vec::new();
    for page in &all {
        let name = page.file_name().unwrap().to_string_lossy();
        if ["print.html", "404.html", "toc.html"].contains(&name.as_ref()) {
            continue;
        }
        let html = std::fs::read_to_string(page).unwrap();
        for target in targets(&html) {
            if external(&target) {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let path = path.split('?').next().unwrap();
            let file = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            let shown = page.strip_prefix(book).unwrap().display();
            if !file.exists() {
                broken.push(format!("{shown}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                if !text.contains(&format!("id=\"{anchor}\"")) {
                    broken.push(format!("{shown}: {target} (no such anchor)"));
                }
            }
        }
    }
    broken
}

#[test]
fn the_guide_builds_as_a_book_with_no_broken_links() {
    let Some(mdbook) = mdbook() else {
        skip("mdbook is not installed (scripts/test installs it)", "CI");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let built = Command::new(&mdbook)
        .current_dir(workspace())
        .arg("build")
        .arg("--dest-dir")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "mdbook build failed: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let index = out.path().join("guide/your-crate.html");
    assert!(index.is_file(), "the getting-started page is in the book");
    let broken = broken_links(out.path());
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_sees_a_missing_page_and_a_missing_anchor() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.html"),
        r##"<a href="b.html#there">ok</a> <a href="b.html#nowhere">anchor</a>
<a href="c.html">page</a> <img src="https://example.org/x.png"> <a href="mailto:x@y">m</a>
<a href="#top">self</a><h1 id="top">a</h1>"##,
    )
    .unwrap();
    std::fs::write(dir.path().join("b.html"), r#"<h2 id="there">b</h2>"#).unwrap();
    let broken = broken_links(dir.path());
    assert_eq!(
        broken,
        [
            "a.html: b.html#nowhere (no such anchor)",
            "a.html: c.html (no such file)"
        ],
        "{broken:?}"
    );
}
