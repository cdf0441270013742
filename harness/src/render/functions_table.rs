//! A before-after row's functions over layouts ([`crate::analyze::moved`]), as text (under the
//! table of `before-after.txt`) and as HTML (on `before-after.html`): called ones first.

use std::fmt::Write as _;

use crate::analyze::before_after::Row;
use crate::analyze::compare::compact_name;
use crate::analyze::moved::{percent_ci, FunctionMove, FAMILY_ALPHA};
use crate::render::functions_diff::ratio_ci;
use crate::render::report_page::esc;
use crate::render::table::format_ns;

/// Functions shown per row: every called one, then the largest others up to this many.
pub(crate) const SHOWN: usize = 8;

/// The functions a row shows: the called ones, then the largest others, [`SHOWN`] at least.
fn shown(row: &Row) -> impl Iterator<Item = &FunctionMove> {
    let called = row.functions.iter().filter(|m| m.called).count();
    row.functions.iter().take(called.max(SHOWN))
}

/// An exact count's change, or "-".
fn exact(delta: Option<f64>, digits: usize) -> String {
    delta.map_or("-".into(), |d| format!("{d:+.digits$}"))
}

/// The heading of a row's table.
fn heading(row: &Row) -> Option<String> {
    let s = row.functions_summary.as_ref()?;
    Some(format!(
        "functions in {} over {} layouts (self time per operation: share of each layout's profile times its time; {} and {} samples; called: Holm at {:.0}% family-wise over {} functions; the rest {:+.1}% of the row)",
        row.config,
        s.sets,
        s.samples[0],
        s.samples[1],
        100.0 * FAMILY_ALPHA,
        s.examined,
        100.0 * s.unlisted_contribution
    ))
}

/// The text of a row's table (nothing without one).
pub(crate) fn text(s: &mut String, row: &Row) {
    let Some(heading) = heading(row) else {
        return;
    };
    let _ = writeln!(s, "\n{heading}:");
    let _ = writeln!(
        s,
        "  {:<6} {:>24} {:>22} {:>10} {:>10} {:>11} {:>10} {:>10}  function",
        "called",
        "of the row [95% CI]",
        "after/before [95% CI]",
        "before",
        "after",
        "instr/op",
        "mispred/op",
        "L1d/op"
    );
    for m in shown(row) {
        let _ = writeln!(
            s,
            "  {:<6} {:>24} {:>22} {:>10} {:>10} {:>11} {:>10} {:>10}  {}",
            if m.called { "yes" } else { "-" },
            percent_ci(m.contribution, m.contribution_ci95),
            ratio_ci(m),
            format_ns(m.before_ns),
            format_ns(m.after_ns),
            exact(m.instructions_delta, 0),
            exact(m.branch_mispredicts_delta, 1),
            exact(m.d1_misses_delta, 1),
            compact_name(&m.name)
        );
    }
}

/// The HTML of a row's table (nothing without one).
pub(crate) fn html(out: &mut String, row: &Row) {
    let Some(heading) = heading(row) else {
        return;
    };
    let _ = writeln!(
        out,
        "<p class=\"small\">{}</p><div class=\"table-wrap\"><table class=\"functions\"><thead><tr><th class=\"name\">function</th><th>called</th><th>of the row [95% CI]</th><th>after/before [95% CI]</th><th>before</th><th>after</th><th>Δ instructions/op</th><th>Δ mispredicted/op</th><th>Δ L1d misses/op</th><th>Δ LL misses/op</th></tr></thead><tbody>",
        esc(&heading)
    );
    for m in shown(row) {
        let _ = writeln!(
            out,
            "<tr><td class=\"text\"><code title=\"{}\">{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&m.name),
            esc(&compact_name(&m.name)),
            if m.called { "<span class=\"badge bad\">called</span>" } else { "-" },
            esc(&percent_ci(m.contribution, m.contribution_ci95)),
            esc(&ratio_ci(m)),
            esc(&format_ns(m.before_ns)),
            esc(&format_ns(m.after_ns)),
            exact(m.instructions_delta, 0),
            exact(m.branch_mispredicts_delta, 1),
            exact(m.d1_misses_delta, 1),
            exact(m.ll_misses_delta, 1)
        );
    }
    out.push_str("</tbody></table></div>\n");
}
