//! Flame graphs with inferno 0.12: one per recording (`cpu.svg`, `alloc.svg`) and differential
//! ones for comparisons. Folded text is the record; SVGs are derived from it, with
//! deterministic colours so the same profile always gives the same picture.

use std::sync::LazyLock;

use anyhow::{Context, Result};
use inferno::flamegraph::{self, color::BasicPalette, Options, Palette};
use regex::Regex;

use crate::profile::folded::Folded;

/// The measured loops' frames: `serprof_api::workload::roundtrip_loop` and the others, and
/// `serprof::measure::workload::*_loop`, their path in profiles of a harness that held the loops
/// itself.
pub(crate) static LOOP_PATTERN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "^({}|serprof::measure::workload::\\w+_loop)$",
        serprof_api::__private::LOOP_FRAMES
    )
});

static LOOP: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(&LOOP_PATTERN).ok());

/// `folded` with every stack started at the measured loop, so that the harness's frames under
/// every engine are left out; a stack without the loop is kept whole, so the total stays.
pub(crate) fn from_the_loop(folded: Folded) -> Folded {
    match &*LOOP {
        Some(re) => folded.starting_at(|f| re.is_match(f)),
        None => folded,
    }
}

/// What kind of counts a flame graph shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// CPU samples (hot palette).
    Cpu,
    /// Allocated bytes (memory palette).
    Alloc,
    /// Executed instructions under callgrind (I/O palette).
    Instructions,
}

/// Renders folded `text` as an SVG flame graph. The SVG's built-in search (Ctrl-F / the
/// "Search" button) works in any browser.
pub fn flame_svg(text: &str, kind: Kind, title: &str, subtitle: &str) -> Result<Vec<u8>> {
    let mut opts = Options::default();
    opts.title = title.to_string();
    opts.subtitle = Some(subtitle.to_string());
    opts.deterministic = true;
    opts.colors = match kind {
        Kind::Cpu => Palette::Basic(BasicPalette::Hot),
        Kind::Alloc => Palette::Basic(BasicPalette::Mem),
        Kind::Instructions => Palette::Basic(BasicPalette::Io),
    };
    opts.count_name = match kind {
        Kind::Cpu => "samples".into(),
        Kind::Alloc => "bytes".into(),
        Kind::Instructions => "instructions".into(),
    };
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opts, text.lines(), &mut out)
        .context("inferno could not render the flame graph")?;
    Ok(out)
}

/// Renders a differential flame graph of `before` -> `after` (inferno `differential`, counts
/// of `before` normalised to the total of `after`): the shape is `after`'s, red where a frame
/// grew, blue where it shrank.
pub(crate) fn diff_svg(before: &str, after: &str, title: &str, subtitle: &str) -> Result<Vec<u8>> {
    diff_svg_of(before, after, title, subtitle, true, "samples")
}

/// Like [`diff_svg`]; with `normalize` false the counts are compared as they are (instructions
/// per operation, which are exact), so a frame that grew is red without the rest looking shrunk.
pub(crate) fn diff_svg_of(
    before: &str,
    after: &str,
    title: &str,
    subtitle: &str,
    normalize: bool,
    count_name: &str,
) -> Result<Vec<u8>> {
    let mut folded = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options {
            normalize,
            strip_hex: false,
        },
        before.as_bytes(),
        after.as_bytes(),
        &mut folded,
    )
    .context("inferno could not build the differential stacks")?;
    let text = String::from_utf8(folded).context("differential stacks are not UTF-8")?;
    let mut opts = Options::default();
    opts.title = title.to_string();
    opts.subtitle = Some(subtitle.to_string());
    opts.deterministic = true;
    opts.count_name = count_name.into();
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opts, text.lines(), &mut out)
        .context("inferno could not render the differential flame graph")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_titles_frames_and_search() {
        let svg = flame_svg(
            "cfg;main;parse 3\ncfg;main;write 1\n",
            Kind::Cpu,
            "formats/x",
            "4 samples",
        )
        .unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains("formats/x") && svg.contains("parse") && svg.contains("4 samples"));
        assert!(
            svg.contains("function search("),
            "inferno's search script is embedded"
        );
        let diff = String::from_utf8(
            diff_svg("cfg;a 3\ncfg;b 1\n", "cfg;a 1\ncfg;b 3\n", "diff", "x").unwrap(),
        )
        .unwrap();
        assert!(diff.contains("rgb(") && diff.contains(">b<") || diff.contains("b ("));
    }
}
