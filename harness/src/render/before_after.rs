//! `serprof before-after`'s table (printed, and `before-after.txt`) and page
//! (`before-after.html`, in the report's style): the verdicts with their intervals, the exact
//! instruction changes, the functions that moved, and links to every flame graph.

use crate::model::binary::LayoutMode;
use std::fmt::Write as _;
use std::path::Path;

use crate::analyze::before_after::{BeforeAfterRecord, Row, Side, SideRecord, Verdict};
use crate::analyze::compare::{compact_name, Delta, InstructionMove, MovedFunction};
use crate::layout;
use crate::render::report_page::{esc, href, CSP, CSS, ERROR_RECORDER};
use crate::render::table::{format_ns, format_thousands};

/// Rows of moved functions shown per configuration.
const MOVED_SHOWN: usize = 8;

fn ratio_text(row: &Row) -> String {
    match &row.comparison.time {
        Some(t) => format!("{:.3} [{:.3}, {:.3}]", t.ratio, t.ci95[0], t.ci95[1]),
        None => "-".into(),
    }
}

/// A relative spread of layouts in percent ("2.1%"), or "-".
fn percent(spread: Option<f64>) -> String {
    spread.map_or("-".into(), |s| format!("{:.1}%", 100.0 * s))
}

/// Both sides' layout spreads: "2.1% / 1.8%", or "-" when the sides ran one binary each.
fn spread_text(row: &Row) -> String {
    match &row.comparison.time {
        Some(t) if t.layout_spread().is_some() => format!(
            "{} / {}",
            percent(t.before_layout_spread),
            percent(t.after_layout_spread)
        ),
        _ => "-".into(),
    }
}

/// A configuration whose time layout alone moves by more than this (relative standard
/// deviation across layouts) gets a note.
pub(crate) const SPREAD_NOTE_ABOVE: f64 = 0.03;

/// The note of a row whose layouts spread its time by more than [`SPREAD_NOTE_ABOVE`].
fn spread_note(row: &Row) -> Option<String> {
    let t = row.comparison.time.as_ref()?;
    let s = t.layout_spread()?;
    (s > SPREAD_NOTE_ABOVE).then(|| {
        let half = 100.0 * (t.ci95[1] / t.ci95[0]).sqrt().ln();
        format!(
            "layout alone moves this configuration's time by {:.1}% (standard deviation across layouts): its code is sensitive to where functions and data land, and here a change smaller than about {half:.1}% reads `layout`",
            100.0 * s
        )
    })
}

fn instructions_text(row: &Row) -> String {
    match &row.comparison.instructions {
        Some(i) => format!(
            "{} -> {} ({:+.1}, {:.4}x)",
            format_thousands(i.before_per_op, 1),
            format_thousands(i.after_per_op, 1),
            i.delta_per_op,
            i.ratio
        ),
        None => "-".into(),
    }
}

fn side_line(s: &SideRecord) -> String {
    let mut line = format!("{:<6} {}  [{}]", s.label, s.describe, s.git_rev);
    if !s.layouts.is_empty() {
        let _ = write!(line, "  {} layouts", s.layouts.len());
    }
    for n in &s.notes {
        let _ = write!(line, "\n       note: {n}");
    }
    line
}

/// The text table.
pub(crate) fn table(r: &BeforeAfterRecord) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", side_line(&r.before));
    let _ = writeln!(s, "{}\n", side_line(&r.after));
    let w = r
        .rows
        .iter()
        .map(|x| x.config.chars().count())
        .max()
        .unwrap_or(0)
        .max(13);
    let _ = writeln!(
        s,
        "{:<w$} {:>10} {:>10} {:>24} {:>13} {:>13}  instructions/op before -> after (delta, ratio)",
        "configuration", "before", "after", "after/before [95% CI]", "verdict", "layout spread"
    );
    for row in &r.rows {
        let (b, a) = match &row.comparison.time {
            Some(t) => (format_ns(t.before_ns), format_ns(t.after_ns)),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "{:<w$} {b:>10} {a:>10} {:>24} {:>13} {:>13}  {}",
            row.config,
            ratio_text(row),
            row.verdict.as_str(),
            spread_text(row),
            instructions_text(row)
        );
    }
    if r.rows.iter().any(|x| !x.evidence.is_empty()) {
        let _ = writeln!(s, "\nverdicts and their evidence:");
        for row in &r.rows {
            let _ = writeln!(s, "  {}: {}", row.config, row.evidence);
        }
    }
    for row in &r.rows {
        crate::render::functions_table::text(&mut s, row);
        let moved = row.instruction_moves();
        if !moved.is_empty() {
            let _ = writeln!(
                s,
                "\nmoved in {} (instructions per operation, exact):",
                row.config
            );
            crate::render::table::instruction_moves_text(&mut s, moved, MOVED_SHOWN);
        }
        if !row.cpu_alarms.is_empty() {
            let _ = writeln!(
                s,
                "\nCPU share moved in {} (past the A/A threshold):",
                row.config
            );
            for m in &row.cpu_alarms {
                let _ = writeln!(
                    s,
                    "  {:>5.1}% -> {:>5.1}% {:>+6.1}  z={:>+6.1}  {}",
                    m.before_percent,
                    m.after_percent,
                    m.delta_pp,
                    m.z,
                    compact_name(&m.function)
                );
            }
        }
        for n in &row.comparison.notes {
            let _ = writeln!(s, "note ({}): {n}", row.config);
        }
        if let Some(n) = instructions_note(row) {
            let _ = writeln!(s, "note ({}): {n}", row.config);
        }
        if let Some(n) = spread_note(row) {
            let _ = writeln!(s, "note ({}): {n}", row.config);
        }
    }
    let moved_any = r.rows.iter().any(|x| {
        !x.cpu_alarms.is_empty()
            || !x.instruction_moves().is_empty()
            || x.functions.iter().any(|m| m.called)
    });
    if !moved_any && !r.rows.is_empty() {
        let _ = writeln!(s, "\nno function moved");
    }
    for n in &r.not_compared {
        let _ = writeln!(s, "not compared: {n}");
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if let Some(t) = r.rows.iter().find_map(|x| x.comparison.time.as_ref()) {
        let _ = writeln!(s, "\nratio: {}", t.method);
    }
    let _ = writeln!(s, "verdicts: {}", verdict_rule(r));
    let _ = writeln!(
        s,
        "moved: {}; {}",
        r.instruction_move_rule, r.cpu_alarm_rule
    );
    if !r.functions_rule.is_empty() {
        let _ = writeln!(s, "functions: {}", r.functions_rule);
    }
    let _ = writeln!(s, "measured in {:.0} s", r.measure_seconds);
    s
}

/// What a row's equal instruction counts say about its time verdict.
fn instructions_note(row: &Row) -> Option<&'static str> {
    match (row.instructions_equal, row.verdict) {
        (Some(true), Verdict::Faster | Verdict::Slower) => Some("instructions per operation are equal on both sides: the time moved without more or less work (a layout, data placement or machine effect the layouts did not cover)"),
        (Some(true), _) => Some("instructions per operation are equal on both sides"),
        _ => None,
    }
}

/// What the verdicts of this record mean.
pub(crate) fn verdict_rule(r: &BeforeAfterRecord) -> String {
    let layouts = r.before.layouts.len().min(r.after.layouts.len());
    let how = match r.before.layouts.first().map(|l| l.mode) {
        Some(LayoutMode::Shuffle) => "every section in another order",
        Some(LayoutMode::Both) => "every section in another order, and code, read-only data and data moved by random multiples of 16 bytes",
        _ => "code, read-only data and data moved by random multiples of 16 bytes, in their order",
    };
    if layouts > 1 {
        format!(
            "faster or slower when the whole 95% interval of the ratio is on one side of 1; the ratio is the layout-averaged one, its interval a t interval across {layouts} sets of children, each timing its own pair of layouts ({how}), so `layout` says the time moved less than layouts alone let this many layouts show"
        )
    } else {
        "faster or slower when the whole 95% interval of the ratio is on one side of 1; the interval is across processes of one binary per side, not across layouts, so a verdict can be a layout effect".into()
    }
}

/// `path` relative to `dir`, for a link (`None` when it is not inside).
fn rel(dir: &Path, path: &str) -> Option<String> {
    Path::new(path)
        .strip_prefix(dir)
        .ok()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
}

fn link(out: &mut String, target: Option<String>, text: &str) {
    if let Some(t) = target {
        let _ = write!(out, "<a href=\"{}\">{}</a> ", href(&t), esc(text));
    }
}

fn verdict_badge(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "badge ok",
        Verdict::Slower => "badge bad",
        Verdict::WithinNoise | Verdict::Layout => "badge",
        Verdict::NotTimed => "badge warn",
    }
}

/// The table of every configuration's flame graphs: the differential ones and each side's.
fn flame_links(out: &mut String, r: &BeforeAfterRecord, dir: &Path) {
    out.push_str("<h3>Flame graphs</h3>\n<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"name\">configuration</th><th class=\"name\">differential</th><th class=\"name\">before</th><th class=\"name\">after</th></tr></thead>\n<tbody>\n");
    for row in &r.rows {
        let c = &row.comparison;
        let _ = write!(
            out,
            "<tr><th class=\"name\">{}</th><td class=\"text\">",
            esc(&row.config)
        );
        let diffs = [
            (&row.functions_diff_svg, "functions over layouts"),
            (&c.diff_svg, "cpu"),
            (&c.diff_reverse_svg, "cpu (reverse)"),
            (&c.instructions_diff_svg, "instructions"),
        ];
        for (file, text) in diffs {
            link(out, file.as_deref().and_then(|p| rel(dir, p)), text);
        }
        for run in [&r.before_run, &r.after_run] {
            out.push_str("</td><td class=\"text\">");
            let base = rel(dir, run).map(|p| format!("{p}/{}", row.config));
            for (file, text) in [
                (layout::CPU_SVG, "cpu"),
                (layout::ALLOC_SVG, "alloc"),
                (layout::INSTRUCTIONS_SVG, "instructions"),
            ] {
                if Path::new(run).join(&row.config).join(file).is_file() {
                    link(out, base.as_ref().map(|b| format!("{b}/{file}")), text);
                }
            }
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// The page, with links relative to `dir` (the before-after folder).
pub(crate) fn page(r: &BeforeAfterRecord, dir: &Path) -> String {
    let mut out = String::with_capacity(32 * 1024);
    page_head(&mut out, r);
    let _ = writeln!(out, "<h1>before-after</h1>");
    sides(&mut out, r, dir);
    verdict_table(&mut out, r);
    flame_links(&mut out, r, dir);
    for row in &r.rows {
        row_details(&mut out, row);
    }
    let warnings: Vec<String> = r
        .not_compared
        .iter()
        .map(|n| format!("not compared: {n}"))
        .chain(r.notes.iter().cloned())
        .collect();
    warnings_list(&mut out, &warnings);
    page_footer(&mut out, r);
    out
}

/// From the doctype to the opening `<main>`.
fn page_head(out: &mut String, r: &BeforeAfterRecord) {
    let title = format!(
        "serprof before-after · {} → {}",
        r.before.describe, r.after.describe
    );
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n<title>{}</title>\n{ERROR_RECORDER}\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        esc(&title)
    );
}

/// The two sides: what each is, its revision and build time, its report, its notes.
fn sides(out: &mut String, r: &BeforeAfterRecord, dir: &Path) {
    out.push_str("<dl class=\"kv\">\n");
    for s in [&r.before, &r.after] {
        let _ = write!(
            out,
            "<dt>{}</dt><dd>{} <span class=\"muted small\">({}, built in {:.0} s)</span> ",
            s.label,
            esc(&s.describe),
            esc(&s.git_rev),
            s.build_seconds
        );
        let run = if s.label == Side::Before {
            &r.before_run
        } else {
            &r.after_run
        };
        link(
            out,
            rel(dir, run).map(|p| format!("{p}/{}", layout::REPORT_HTML)),
            "report",
        );
        if !s.layouts.is_empty() {
            let seeds: Vec<String> = s.layouts.iter().map(|l| l.seed.to_string()).collect();
            let _ = write!(
                out,
                "<br><span class=\"small\">timed in {} layouts (section shuffle seeds {})</span>",
                s.layouts.len(),
                esc(&seeds.join(", "))
            );
        }
        for n in &s.notes {
            let _ = write!(out, "<br><span class=\"small\">{}</span>", esc(n));
        }
        out.push_str("</dd>\n");
    }
    out.push_str("</dl>\n");
}

/// The table of verdicts: a row per configuration.
fn verdict_table(out: &mut String, r: &BeforeAfterRecord) {
    out.push_str("<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"name\">configuration</th><th>before</th><th>after</th><th>after/before [95% CI]</th><th>verdict</th><th>layout spread</th><th>instructions/op</th><th>payload Δ</th><th>bytes/op Δ</th></tr></thead>\n<tbody>\n");
    for row in &r.rows {
        verdict_row(out, row);
    }
    out.push_str("</tbody></table></div>\n");
    let evidence: Vec<String> = r
        .rows
        .iter()
        .filter(|x| !x.evidence.is_empty())
        .map(|x| format!("<code>{}</code>: {}", esc(&x.config), esc(&x.evidence)))
        .collect();
    html_list(out, "<ul class=\"evidence\">\n", &evidence);
    let _ = writeln!(
        out,
        "<p class=\"muted small\">verdicts: {}</p>",
        esc(&verdict_rule(r))
    );
}

/// One configuration's times, ratio, verdict, instructions and deltas.
fn verdict_row(out: &mut String, row: &Row) {
    let c = &row.comparison;
    let (b, a) = match &c.time {
        Some(t) => (format_ns(t.before_ns), format_ns(t.after_ns)),
        None => ("-".into(), "-".into()),
    };
    let pct = |d: &Option<Delta>| match d.as_ref().and_then(|d| d.percent) {
        Some(p) => format!("{p:+.1}%"),
        None => "-".into(),
    };
    let _ = writeln!(
        out,
        "<tr id=\"{}\"><th class=\"name\">{}</th><td>{}</td><td>{}</td><td>{}</td><td><span class=\"{}\">{}</span></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        esc(&row.config),
        esc(&row.config),
        esc(&b),
        esc(&a),
        esc(&ratio_text(row)),
        verdict_badge(row.verdict),
        row.verdict.as_str(),
        esc(&spread_text(row)),
        esc(&instructions_text(row)),
        pct(&c.payload_bytes),
        pct(&c.bytes_per_op)
    );
}

/// A configuration's moved functions, CPU-share alarms and notes, under its name (nothing
/// when it has none of them).
fn row_details(out: &mut String, row: &Row) {
    let moved = row.instruction_moves();
    let notes: Vec<String> = row
        .comparison
        .notes
        .iter()
        .cloned()
        .chain(instructions_note(row).map(str::to_string))
        .chain(spread_note(row))
        .collect();
    if moved.is_empty() && row.cpu_alarms.is_empty() && notes.is_empty() && row.functions.is_empty()
    {
        return;
    }
    let _ = writeln!(out, "<h3>{}</h3>", esc(&row.config));
    crate::render::functions_table::html(out, row);
    instruction_moves_table(out, moved);
    cpu_alarms_list(out, &row.cpu_alarms);
    warnings_list(out, &notes);
}

/// The first [`MOVED_SHOWN`] functions whose instructions moved (nothing without any).
fn instruction_moves_table(out: &mut String, moved: &[InstructionMove]) {
    if moved.is_empty() {
        return;
    }
    let (work, layout) = crate::analyze::compare::work_and_layout(moved);
    moves_html(out, "function (instructions per operation, exact)", &work);
    moves_html(
        out,
        "layout effects (libc memory and string routines, or under 1% of the function's count)",
        &layout,
    );
}

/// One table of instruction moves under `title` (nothing without any).
fn moves_html(out: &mut String, title: &str, moved: &[&InstructionMove]) {
    if moved.is_empty() {
        return;
    }
    let _ = writeln!(out, "<div class=\"table-wrap\"><table><thead><tr><th class=\"name\">{}</th><th>before</th><th>after</th><th>Δ inclusive</th><th>Δ self</th></tr></thead><tbody>", esc(title));
    for m in moved.iter().take(MOVED_SHOWN) {
        let _ = writeln!(
            out,
            "<tr><td class=\"text\"><code>{}</code></td><td>{}</td><td>{}</td><td>{:+.1}</td><td>{:+.1}</td></tr>",
            esc(&compact_name(&m.function)),
            format_thousands(m.before_per_op, 1),
            format_thousands(m.after_per_op, 1),
            m.delta_per_op,
            m.self_delta_per_op
        );
    }
    out.push_str("</tbody></table></div>\n");
}

/// The CPU-share moves past the A/A threshold (nothing without any).
fn cpu_alarms_list(out: &mut String, alarms: &[MovedFunction]) {
    let items: Vec<String> = alarms
        .iter()
        .map(|m| {
            format!(
                "<code>{}</code>: {:.1}% → {:.1}% ({:+.1} points, z = {:.1})",
                esc(&compact_name(&m.function)),
                m.before_percent,
                m.after_percent,
                m.delta_pp,
                m.z
            )
        })
        .collect();
    html_list(
        out,
        "<p>CPU share moved past the A/A threshold:</p><ul class=\"findings\">\n",
        &items,
    );
}

/// `items` as a list of warnings (nothing when there are none).
fn warnings_list(out: &mut String, items: &[String]) {
    let items: Vec<String> = items.iter().map(|n| esc(n)).collect();
    html_list(out, "<ul class=\"warnings\">\n", &items);
}

/// `items` (HTML already) as the items of the list that `opening` starts, one a line;
/// nothing when there are none.
fn html_list(out: &mut String, opening: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    out.push_str(opening);
    for i in items {
        let _ = writeln!(out, "<li>{i}</li>");
    }
    out.push_str("</ul>\n");
}

/// How the ratios and moves were decided, and how the sides were measured; then the end of
/// the page.
fn page_footer(out: &mut String, r: &BeforeAfterRecord) {
    let method = r
        .rows
        .iter()
        .find_map(|x| x.comparison.time.as_ref())
        .map(|t| t.method.describe())
        .unwrap_or_default();
    let _ = write!(
        out,
        "<footer><p>ratio: {}</p><p>moved: {}; {}</p><p>functions: {}</p><p>measured in {:.0} s · {} timing processes per side and configuration, alternating A B / B A by round, pinned to CPU {}</p></footer>\n</main>\n</body>\n</html>\n",
        esc(method),
        esc(&r.instruction_move_rule),
        esc(&r.cpu_alarm_rule),
        esc(&r.functions_rule),
        r.measure_seconds,
        r.settings.processes,
        r.settings
            .pin_cpu
            .map_or_else(|| "none".to_string(), |c| c.to_string())
    );
}
