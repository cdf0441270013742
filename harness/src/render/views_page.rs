//! `views.html` of a configuration folder: the investigation views of its CPU profile as a
//! static page the report links to (hot spots, their backtraces, the call tree by function
//! and by crate), and links to its flame graph and speedscope file. The same text as
//! `serprof hotspots` and `serprof tree` print.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;
use regex::Regex;

use crate::analyze::hotspots::compute;
use crate::analyze::views::{backtraces, call_tree, regroup, ViewLimits};
use crate::layout::{self, write_atomic};
use crate::profile::folded::Folded;
use crate::profile::sources::{By, Sources};
use crate::render::report_page::{esc, href, CSP};
use crate::render::tree::{tree_text, Chain};

/// Hot spots whose backtraces the page shows.
const BACKTRACED: usize = 3;

/// Writes `dir/views.html` from `dir/cpu.folded` (and its side table); `false` when the folder
/// has no CPU profile.
pub(crate) fn write(dir: &Path, title: &str) -> Result<bool> {
    let Ok(text) = std::fs::read_to_string(dir.join(layout::CPU_FOLDED)) else {
        return Ok(false);
    };
    let Ok(folded) = Folded::parse(&text) else {
        return Ok(false);
    };
    if folded.total() == 0 {
        return Ok(false);
    }
    let sources = Sources::read(&dir.join(layout::CPU_SOURCES));
    write_atomic(
        &dir.join(layout::VIEWS_HTML),
        page(&folded, &sources, title).as_bytes(),
    )?;
    Ok(true)
}

fn pre(out: &mut String, id: &str, heading: &str, body: &str) {
    let _ = write!(
        out,
        "<section id=\"{id}\"><h2>{}</h2>\n<pre>{}</pre></section>\n",
        esc(heading),
        esc(body)
    );
}

fn page(folded: &Folded, sources: &Sources, title: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n<title>{} · views</title>\n\
         <style>body{{font:14px system-ui,sans-serif;margin:1em}}pre{{font:12px ui-monospace,monospace;overflow-x:auto}}</style>\n\
         </head>\n<body>\n<h1>{}: CPU profile views</h1>\n<p>{} samples · \
         <a href=\"#hotspots\">hot spots</a> · <a href=\"#backtraces\">backtraces</a> · \
         <a href=\"#tree\">call tree</a> · <a href=\"#crates\">by crate</a> · \
         <a href=\"{}\">flame graph</a> · <a href=\"{}\">speedscope file</a></p>\n",
        esc(title),
        esc(title),
        folded.total(),
        href(layout::CPU_SVG),
        href(layout::CPU_SPEEDSCOPE)
    );
    let table = compute(folded, None, None);
    let mut hot = format!("{:>7} {:>8} {:>9}  function\n", "self", "total", "samples");
    for r in table.rows.iter().take(20) {
        let _ = writeln!(
            hot,
            "{:>6.1}% {:>7.1}% {:>9}  {}",
            r.self_percent, r.total_percent, r.self_samples, r.function
        );
    }
    pre(&mut out, "hotspots", "Hot spots (self time)", &hot);
    let mut bt = String::new();
    for r in table
        .rows
        .iter()
        .filter(|r| r.self_samples > 0)
        .take(BACKTRACED)
    {
        let Ok(re) = Regex::new(&format!("^{}$", regex::escape(&r.function))) else {
            continue;
        };
        let b = backtraces(
            folded,
            &re,
            ViewLimits {
                min_percent: 2.0,
                depth: 40,
            },
        );
        let _ = writeln!(
            bt,
            "{}: {:.1}% of the samples\n{}",
            r.function,
            b.matched_percent,
            tree_text(&b.roots, "samples", Chain::Stacked, false)
        );
    }
    pre(
        &mut out,
        "backtraces",
        "Backtraces of the top hot spots",
        &bt,
    );
    let limits = ViewLimits {
        min_percent: 1.0,
        depth: 14,
    };
    let tree = call_tree(folded, None, limits);
    pre(
        &mut out,
        "tree",
        "Call tree (nodes of 1% and more)",
        &tree_text(&tree.roots, "samples", Chain::OneLine, true),
    );
    let by_crate = call_tree(&regroup(folded, By::Crate, sources), None, limits);
    pre(
        &mut out,
        "crates",
        "Call tree by crate",
        &tree_text(&by_crate.roots, "samples", Chain::OneLine, true),
    );
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_every_view_escaped() {
        let folded = Folded::parse("cfg;main;<a as b>::run;leaf 3\ncfg;main;other 1\n").unwrap();
        let html = page(&folded, &Sources::default(), "study/cfg");
        for id in ["hotspots", "backtraces", "tree", "crates"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(html.contains("&lt;a as b&gt;::run") && !html.contains("<a as b>"));
        assert!(html.contains("leaf: 75.0% of the samples"), "{html}");
    }
}
