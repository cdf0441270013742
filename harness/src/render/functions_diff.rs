//! `functions-diff.svg`: the after side's flame graph over every layout's profile, a frame
//! coloured only where its function's change is called ([`crate::analyze::moved`]): red where
//! it takes more time, blue where it takes less, grey everywhere else. Every frame's tooltip
//! gives its function's ratio and contribution with their 95% intervals.

use anyhow::{Context, Result};
use inferno::flamegraph::color::{Color, PaletteMap};
use inferno::flamegraph::{self, FuncFrameAttrsMap, Options};

use crate::analyze::compare::compact_name;
use std::collections::BTreeMap;

use crate::analyze::moved::{self, percent_ci, Exact, FunctionMove, SetProfile, FAMILY_ALPHA};
use crate::profile::folded::Folded;

/// A called function that takes more time.
pub(crate) const SLOWER: Color = Color {
    r: 215,
    g: 48,
    b: 39,
};
/// A called function that takes less time.
pub(crate) const FASTER: Color = Color {
    r: 49,
    g: 104,
    b: 196,
};
/// Every other frame.
pub(crate) const NOT_CALLED: Color = Color {
    r: 200,
    g: 200,
    b: 200,
};

/// A function's ratio with its interval: `1.52 [1.31, 1.77]`, or what stands for it.
pub(crate) fn ratio_ci(m: &FunctionMove) -> String {
    match (m.time_ratio, m.time_ci95) {
        (Some(r), Some(ci)) => format!("{r:.2} [{:.2}, {:.2}]", ci[0], ci[1]),
        (Some(r), None) => format!("{r:.2} [unbounded]"),
        (None, _) => "new (none before)".into(),
    }
}

/// What the table says of a function: slower, faster or not called (one mark for its colour,
/// class and tooltip).
#[derive(Debug, Clone, Copy)]
enum Mark {
    Slower,
    Faster,
    NotCalled,
}

impl Mark {
    fn of(m: &FunctionMove) -> Mark {
        match (m.called, m.delta_ns > 0.0) {
            (true, true) => Mark::Slower,
            (true, false) => Mark::Faster,
            (false, _) => Mark::NotCalled,
        }
    }

    fn color(self) -> Color {
        match self {
            Mark::Slower => SLOWER,
            Mark::Faster => FASTER,
            Mark::NotCalled => NOT_CALLED,
        }
    }

    /// The class of its frames.
    fn class(self) -> &'static str {
        match self {
            Mark::Slower => "called-slower",
            Mark::Faster => "called-faster",
            Mark::NotCalled => "not-called",
        }
    }
}

/// The tooltip of a frame of `m`'s function.
fn title(m: &FunctionMove) -> String {
    let call = match Mark::of(m) {
        Mark::Slower => "called: slower".to_string(),
        Mark::Faster => "called: faster".to_string(),
        Mark::NotCalled => format!(
            "not called (Holm at {:.0}% family-wise)",
            100.0 * FAMILY_ALPHA
        ),
    };
    format!(
        "{}: {call}; time after/before {}; {} of the row's time; {:+.2} ns per operation",
        compact_name(&m.name),
        ratio_ci(m),
        percent_ci(m.contribution, m.contribution_ci95),
        m.delta_ns
    )
}

/// Draws `stacks` (the after side's, every layout's profile together) with the frames of each
/// function coloured and titled from `moves`.
pub(crate) fn functions_diff_svg(
    stacks: &Folded,
    moves: &[FunctionMove],
    title_text: &str,
    subtitle: &str,
) -> Result<Vec<u8>> {
    let mut palette = PaletteMap::default();
    // inferno's own root frame, `all` (an empty function name inside inferno).
    palette.insert("", NOT_CALLED);
    let mut attrs = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for (frames, _) in stacks.iter() {
        for f in frames {
            if !seen.insert(f.to_string()) {
                continue;
            }
            let m = moves.iter().find(|m| m.name == f);
            palette.insert(f, m.map_or(NOT_CALLED, |m| Mark::of(m).color()));
            let (t, c) = match m {
                Some(m) => (title(m), Mark::of(m).class()),
                None => (
                    format!("{f}: not examined (too few samples, or not its own time)"),
                    "not-examined",
                ),
            };
            attrs.push_str(&format!("{f}\ttitle={t}\tclass={c}\n"));
        }
    }
    let mut opts = Options::default();
    opts.title = title_text.to_string();
    opts.subtitle = Some(subtitle.to_string());
    opts.deterministic = true;
    opts.count_name = "samples".into();
    opts.palette_map = Some(&mut palette);
    opts.func_frameattrs = FuncFrameAttrsMap::from_reader(attrs.as_bytes())
        .context("the frames' attributes do not read")?;
    let text = stacks.to_text();
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opts, text.lines(), &mut out)
        .context("inferno could not render the functions' flame graph")?;
    Ok(out)
}

/// Every set's profile together, each stack started at the measured loop.
pub(crate) fn from_the_loop(profiles: &[SetProfile]) -> Folded {
    let mut all = Folded::default();
    for p in profiles {
        for (stack, count) in &p.folded.stacks {
            *all.stacks.entry(stack.clone()).or_insert(0) += count;
        }
    }
    crate::render::flame::from_the_loop(all)
}

/// One side's profiles and times for [`svg_of`]: per set, its folded text and its time per
/// operation.
pub(crate) type SetTexts<'a> = &'a [(usize, &'a str, f64)];

/// The function table and `functions-diff.svg` of two sides' per-set profiles and times, as a
/// before-after draws them (for serprof's browser test of the graph).
pub fn svg_of(before: SetTexts, after: SetTexts) -> Result<Vec<u8>> {
    let side = |sets: SetTexts| -> Result<(Vec<SetProfile>, BTreeMap<usize, f64>)> {
        let mut profiles = Vec::new();
        for &(set, text, _) in sets {
            let folded = Folded::parse(text)?;
            profiles.push(SetProfile { set, folded });
        }
        Ok((profiles, sets.iter().map(|&(k, _, t)| (k, t)).collect()))
    };
    let ((pb, tb), (pa, ta)) = (side(before)?, side(after)?);
    let table = moved::functions((&pb, &tb), (&pa, &ta), &Exact::default())
        .ok_or_else(|| anyhow::anyhow!("fewer than {} sets on both sides", moved::MIN_SETS))?;
    functions_diff_svg(
        &from_the_loop(&pa),
        &table.list,
        "functions over layouts",
        "red: called slower, blue: called faster, grey: not called",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(name: &str, called: bool, delta: f64) -> FunctionMove {
        FunctionMove {
            name: name.into(),
            before_ns: 10.0,
            after_ns: 10.0 + delta,
            time_ratio: Some(1.0 + delta / 10.0),
            time_ci95: Some([1.0 + delta / 20.0, 1.0 + delta / 5.0]),
            delta_ns: delta,
            delta_ci95: [delta / 2.0, delta * 2.0],
            contribution: delta / 100.0,
            contribution_ci95: [delta / 200.0, delta / 50.0],
            p_value: 0.5,
            called,
            instructions_delta: None,
            branch_mispredicts_delta: None,
            d1_misses_delta: None,
            ll_misses_delta: None,
        }
    }

    #[test]
    fn only_called_functions_are_coloured_and_every_frame_has_its_interval() {
        let stacks =
            Folded::parse("cfg;loop;slow 30\ncfg;loop;fast 20\ncfg;loop;same 50\n").unwrap();
        let moves = [
            mv("slow", true, 5.0),
            mv("fast", true, -2.0),
            mv("same", false, 0.1),
        ];
        let svg =
            String::from_utf8(functions_diff_svg(&stacks, &moves, "t", "s").unwrap()).unwrap();
        let fill = |c: Color| format!("fill=\"rgb({},{},{})\"", c.r, c.g, c.b);
        assert!(
            svg.contains(&fill(SLOWER)) && svg.contains(&fill(FASTER)),
            "{svg}"
        );
        assert!(svg.contains(&fill(NOT_CALLED)));
        assert!(svg.contains("slow: called: slower; time after/before 1.50 [1.25, 2.00]"));
        assert!(svg.contains("same: not called"));
        assert!(svg.contains("loop: not examined"));
        // Nothing called: nothing but grey.
        let none: Vec<FunctionMove> = moves
            .iter()
            .map(|m| FunctionMove {
                called: false,
                ..m.clone()
            })
            .collect();
        let svg = String::from_utf8(functions_diff_svg(&stacks, &none, "t", "s").unwrap()).unwrap();
        assert!(!svg.contains(&fill(SLOWER)) && !svg.contains(&fill(FASTER)));
    }
}
