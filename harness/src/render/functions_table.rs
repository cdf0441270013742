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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::before_after::Verdict;
    use crate::analyze::compare::{compare_results, TimeComparison};
    use crate::analyze::moved::{Functions, FunctionsSummary};
    use crate::model::ConfigResult;

    fn function(name: &str, called: bool, contribution: f64) -> FunctionMove {
        FunctionMove {
            name: name.into(),
            before_ns: 20.0,
            after_ns: 20.0 + 100.0 * contribution,
            time_ratio: Some(1.0 + 5.0 * contribution),
            time_ci95: Some([1.0 + 2.0 * contribution, 1.0 + 8.0 * contribution]),
            delta_ns: 100.0 * contribution,
            delta_ci95: [50.0 * contribution, 150.0 * contribution],
            contribution,
            contribution_ci95: [contribution / 2.0, 1.5 * contribution],
            p_value: if called { 0.001 } else { 0.4 },
            called,
            instructions_delta: Some(if called { 410.0 } else { 0.0 }),
            branch_mispredicts_delta: Some(if called { 0.0 } else { 1.5 }),
            d1_misses_delta: None,
            ll_misses_delta: None,
        }
    }

    /// A row of `formats/postcard`, 2.1% slower [1.0, 3.2], with `functions`.
    fn row(functions: Option<Vec<FunctionMove>>) -> Row {
        let program = crate::model::program::builtin();
        let config = program.find("formats/postcard").unwrap();
        let result = ConfigResult::of(&config);
        let mut c = compare_results(&result, &result, None, None, None);
        c.time = Some(TimeComparison {
            before_ns: 100.0,
            after_ns: 102.1,
            ratio: 1.021,
            ci95: [1.010, 1.032],
            method: Default::default(),
            samples: 40,
            before_layout_spread: None,
            after_layout_spread: None,
        });
        let summary = FunctionsSummary {
            sets: 40,
            examined: 2,
            samples: [4000, 4000],
            unlisted_contribution: 0.001,
            change: 0.021,
        };
        Row::new(c, true).with_functions(functions.map(|list| Functions { list, summary }))
    }

    #[test]
    fn the_verdict_names_the_function_called_first_and_its_counts() {
        let r = row(Some(vec![
            function("log::slow_u16", true, 0.019),
            function("log::write", false, 0.001),
        ]));
        assert_eq!(r.verdict, Verdict::Slower);
        assert_eq!(
            r.evidence,
            "slower, +2.1% [1.0, 3.2]; `log::slow_u16` +1.9% [0.9, 2.8] of it, +410 instructions per operation"
        );
        let mut s = String::new();
        text(&mut s, &r);
        let lines: Vec<&str> = s.lines().collect();
        assert!(
            lines[1].contains("functions in formats/postcard over 40 layouts"),
            "{s}"
        );
        assert!(
            lines[3].contains("yes") && lines[3].ends_with("log::slow_u16"),
            "{s}"
        );
        assert!(
            lines[4].contains("+1.5") && lines[4].ends_with("log::write"),
            "{s}"
        );
        let mut page = String::new();
        html(&mut page, &r);
        assert!(
            page.contains("<span class=\"badge bad\">called</span>")
                && page.contains("+1.9% [0.9, 2.8]")
        );
        // Nothing called, and no profiles at all.
        let quiet = row(Some(vec![function("log::write", false, 0.001)]));
        assert!(quiet
            .evidence
            .ends_with("; no function called (2 examined over 40 layouts)"));
        let none = row(None);
        assert_eq!(none.evidence, "slower, +2.1% [1.0, 3.2]");
        let mut s = String::new();
        text(&mut s, &none);
        assert!(s.is_empty());
    }
}
