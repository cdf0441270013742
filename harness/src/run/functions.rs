//! before-after's functions over layouts, for one row: its table from both sides' per-set
//! profiles and per-set times ([`crate::analyze::moved`]), the exact counts of both sides'
//! instruction recordings beside each function, and `functions-diff.svg`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use crate::analyze::before_after::{BySide, Row};
use crate::analyze::callgrind::Event;
use crate::analyze::moved::{self, Exact, ExactSelf, SetProfile};
use crate::layout::{self, write_atomic};
use crate::model::ConfigResult;
use crate::profile::folded::Folded;

/// One side of a row: its configuration folder, its result and its per-set profiles.
pub(crate) type SideOfRow<'a> = (&'a Path, &'a ConfigResult, &'a [SetProfile]);

/// `row` with its function table and evidence, and its `functions-diff.svg` drawn into the
/// row's comparison folder (a graph that cannot be drawn is a note).
pub(crate) fn add_functions(row: Row, sides: BySide<SideOfRow>) -> Result<Row> {
    let times = |r: &ConfigResult| -> BTreeMap<usize, f64> {
        r.time_ns.as_ref().map(|t| t.by_round()).unwrap_or_default()
    };
    let BySide { before, after } = &sides;
    let (tb, ta) = (times(before.1), times(after.1));
    let exact = exact_counts(&sides);
    let table = moved::functions((before.2, &tb), (after.2, &ta), &exact);
    let mut row = row.with_functions(table);
    if row.functions.is_empty() {
        return Ok(row);
    }
    let stacks = crate::render::functions_diff::from_the_loop(after.2);
    let summary = row.functions_summary.as_ref();
    let subtitle = format!(
        "the after side over {} layouts ({} samples); red: called slower, blue: called faster, grey: not called (Holm at {:.0}% family-wise); the tooltip gives each function's interval",
        summary.map_or(0, |s| s.sets),
        summary.map_or(0, |s| s.samples[1]),
        100.0 * moved::FAMILY_ALPHA
    );
    let svg = crate::render::functions_diff::functions_diff_svg(
        &stacks,
        &row.functions,
        &format!("{}: where the time moved", row.config),
        &subtitle,
    );
    match svg {
        Ok(bytes) => {
            let dir = Path::new(&row.comparison.out_dir);
            std::fs::create_dir_all(dir)?;
            let path = dir.join(layout::FUNCTIONS_DIFF_SVG);
            write_atomic(&path, &bytes)?;
            row.functions_diff_svg = Some(path.display().to_string());
        }
        Err(e) => row.comparison.notes.push(format!(
            "{} not drawn: {}",
            layout::FUNCTIONS_DIFF_SVG,
            crate::error::one_line(&e)
        )),
    }
    Ok(row)
}

/// The exact self counts per operation of both sides' instruction recordings, for every event
/// both recorded (none without both sides' counts).
fn exact_counts(sides: &BySide<SideOfRow>) -> Exact {
    let (Some(bi), Some(ai)) = (&sides.before.1.instructions, &sides.after.1.instructions) else {
        return Exact::default();
    };
    let of = |event: Event| -> Option<ExactSelf> {
        let read = |dir: &Path| -> Option<Folded> {
            let text = std::fs::read_to_string(dir.join(event.folded_file())).ok()?;
            Folded::parse(&text).ok()
        };
        let (b, a) = (read(sides.before.0)?, read(sides.after.0)?);
        Some(ExactSelf::of((&b, bi.ops), (&a, ai.ops)))
    };
    Exact {
        instructions: of(Event::Instructions),
        branch_mispredicts: of(Event::BranchMispredicts),
        d1_misses: of(Event::D1Misses),
        ll_misses: of(Event::LlMisses),
    }
}
