//! `serprof compare BEFORE AFTER [--out DIR] [--json]`: what changed between two measurements
//! (the comparison itself is [`crate::run::compare`]; this prints it).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::analyze::compare::{compact_name, ConfigComparison, ShareKind};
use crate::misuse;
use crate::render::table::{format_ns, format_thousands};
use crate::run::compare::{compare_configs, compare_runs, open, Compared, Report};

pub(crate) fn run(before: &Path, after: &Path, out: Option<&Path>, json: bool) -> Result<ExitCode> {
    let report = match (open(before)?, open(after)?) {
        (Compared::Config(bd, br), Compared::Config(ad, ar)) => {
            compare_configs((bd, &br), (ad, &ar), out)?
        }
        (Compared::Run(bd, bm), Compared::Run(ad, am)) => compare_runs((bd, &bm), (ad, &am), out)?,
        (Compared::Config(dir, _), Compared::Run(..))
        | (Compared::Run(..), Compared::Config(dir, _)) => {
            misuse!(
                "cannot compare a configuration folder with a run folder ({} is a configuration folder): give two of one kind",
                dir.display()
            )
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
        eprintln!("compare outputs: {}", report.out_dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `+1.2%`, or `-` without a figure.
fn percent(d: Option<&crate::analyze::compare::Delta>) -> String {
    match d.and_then(|d| d.percent.map(|p| (p, d.delta))) {
        Some((p, _)) => format!("{p:+.1}%"),
        None => d
            .map(|d| format!("{:+.0}", d.delta))
            .unwrap_or_else(|| "-".into()),
    }
}

/// The human table: one row per configuration, then each one's moved functions.
fn render(report: &Report) -> String {
    let mut s = format!(
        "compare: {} -> {}\n",
        report.before.display(),
        report.after.display()
    );
    summary_table(&mut s, &report.comparisons);
    for c in &report.comparisons {
        instruction_moves(&mut s, c);
        share_moves(&mut s, c);
        for n in &c.notes {
            let _ = writeln!(s, "note ({}): {n}", c.after);
        }
    }
    let (only_before, only_after) = (&report.only_before, &report.only_after);
    if !only_before.is_empty() || !only_after.is_empty() {
        let _ = writeln!(
            s,
            "\nnot compared: only before [{}]; only after [{}]",
            only_before.join(", "),
            only_after.join(", ")
        );
    }
    if let Some(c) = report.comparisons.first() {
        methods(&mut s, c);
    }
    s
}

/// A comparison's name: the configuration, or `before -> after` when the two differ.
fn label(c: &ConfigComparison) -> String {
    if c.before == c.after {
        c.after.clone()
    } else {
        format!("{} -> {}", c.before, c.after)
    }
}

/// The column names and a row per comparison, the first column as wide as the longest name.
fn summary_table(s: &mut String, cmps: &[ConfigComparison]) {
    let w = cmps
        .iter()
        .map(|c| label(c).chars().count())
        .max()
        .unwrap_or(0)
        .max(13);
    let _ = writeln!(
        s,
        "{:<w$} {:>10} {:>10} {:>24} {:>9} {:>10}  top moved (Δ share, points)",
        "configuration", "before", "after", "after/before [95% CI]", "payload Δ", "bytes/op Δ"
    );
    for c in cmps {
        summary_row(s, c, w);
    }
}

/// One comparison: times, ratio, deltas and the two functions whose share moved most.
fn summary_row(s: &mut String, c: &ConfigComparison, w: usize) {
    let label = label(c);
    let (tb, ta, ratio) = match &c.time {
        Some(t) => (
            format_ns(t.before_ns),
            format_ns(t.after_ns),
            format!("{:.3} [{:.3}, {:.3}]", t.ratio, t.ci95[0], t.ci95[1]),
        ),
        None => ("-".into(), "-".into(), "-".into()),
    };
    let moved = match &c.moved {
        None => "(no profiles)".to_string(),
        Some(m) if m.is_empty() => "none".to_string(),
        Some(m) => m
            .iter()
            .take(2)
            .map(|m| format!("{:+.0} {}", m.delta_pp, compact_name(&m.function)))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let _ = writeln!(
        s,
        "{label:<w$} {tb:>10} {ta:>10} {ratio:>24} {:>9} {:>10}  {moved}",
        percent(c.payload_bytes.as_ref()),
        percent(c.bytes_per_op.as_ref())
    );
}

/// Instructions per operation of a comparison and the first ten functions whose count moved
/// (nothing without instruction counts).
fn instruction_moves(s: &mut String, c: &ConfigComparison) {
    let Some(i) = &c.instructions else { return };
    let _ = writeln!(
        s,
        "\ninstructions per operation ({}): {} -> {} ({:+.1}, {:.4}x), exact",
        c.after,
        format_thousands(i.before_per_op, 1),
        format_thousands(i.after_per_op, 1),
        i.delta_per_op,
        i.ratio
    );
    crate::render::table::instruction_moves_text(s, &i.moved, 10);
}

/// The first ten functions whose share of CPU samples moved (nothing when none did).
fn share_moves(s: &mut String, c: &ConfigComparison) {
    let Some(m) = c.moved.as_ref().filter(|m| !m.is_empty()) else {
        return;
    };
    let _ = writeln!(s, "\nmoved in {} ({} of them):", c.after, m.len());
    for f in m.iter().take(10) {
        let kind = match f.kind {
            ShareKind::SelfTime => "self",
            ShareKind::Inclusive => "incl",
        };
        let _ = writeln!(
            s,
            "  {:>5.1}% -> {:>5.1}% {:>+6.1}  {kind:<4} z={:>+6.1}  {}",
            f.before_percent,
            f.after_percent,
            f.delta_pp,
            f.z,
            compact_name(&f.function)
        );
    }
}

/// How the ratio and the moves were decided, and where the flame graphs are, from the first
/// comparison.
fn methods(s: &mut String, c: &ConfigComparison) {
    if let Some(t) = &c.time {
        let _ = writeln!(s, "\nratio: {}", t.method);
    }
    let _ = writeln!(s, "moved: {}", c.moved_rule);
    if let Some(d) = &c.diff_svg {
        let _ = writeln!(s, "flame graphs: {d} (and diff-reverse.svg next to it)");
    }
}
