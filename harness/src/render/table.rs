//! Text tables in the articles' style: per study, configuration, time per operation with its
//! interval, payload, allocations, ratio, and the top self-time function.

use std::fmt::Write;

use serprof_api::__private::StudyInfo;
use serprof_api::Operation;

use crate::analyze::hotspots::short_name;
use crate::model::stats::RatioStats;
use crate::model::{ConfigResult, Program};

pub(crate) use super::numbers::{format_ns, format_ratio, paired_ratio};

/// `9,814.14` (thousands separators, `decimals` fraction digits).
pub(crate) fn format_thousands(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map(|(a, b)| (a, Some(b)))
        .unwrap_or((&s, None));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    if x < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// What a study's ratio column divides by ([`Reference::of`]).
///
/// A baseline that names a configuration (`serde_json.serialize`) is every row's reference. A
/// baseline that names an engine (`serde_json`) is, for each row, that engine's row of the same
/// operation (`serde_json.serialize` for a serialize row, `serde_json.deserialize` for a
/// deserialize row). Without a baseline, or where the baseline's row has no time (it failed),
/// a row's reference is the fastest row of its operation.
#[derive(Debug, Clone)]
pub(crate) struct Reference<'a> {
    /// The study's baseline.
    baseline: Option<String>,
    /// The rows with a time.
    timed: Vec<&'a ConfigResult>,
}

impl<'a> Reference<'a> {
    pub(crate) fn new(baseline: Option<&str>, results: &[&'a ConfigResult]) -> Reference<'a> {
        Reference {
            baseline: baseline.map(str::to_string),
            timed: results
                .iter()
                .copied()
                .filter(|r| r.time_ns.is_some() && r.error.is_none())
                .collect(),
        }
    }

    /// The study's baseline row for `r`, if it was measured.
    fn baseline_of(&self, r: &ConfigResult) -> Option<&'a ConfigResult> {
        let b = self.baseline.as_deref()?;
        if let Some(whole) = self.timed.iter().find(|x| x.config == b) {
            return Some(whole);
        }
        let per_operation = format!("{b}.{}", r.operation.as_str());
        self.timed
            .iter()
            .find(|x| x.operation == r.operation && x.config == per_operation)
            .copied()
    }

    /// The row `r`'s ratio divides by: its baseline, else the fastest of its operation.
    pub(crate) fn of(&self, r: &ConfigResult) -> Option<&'a ConfigResult> {
        self.baseline_of(r).or_else(|| {
            self.timed
                .iter()
                .filter(|x| x.operation == r.operation)
                .min_by(|x, y| median(x).total_cmp(&median(y)))
                .copied()
        })
    }

    /// The ratio column's heading: `ratio to serde_json`, `ratio to fastest`.
    pub(crate) fn label(&self) -> String {
        match &self.baseline {
            Some(b) if self.timed.iter().any(|r| self.baseline_of(r).is_some()) => {
                format!("ratio to {b}")
            }
            _ => "ratio to fastest".into(),
        }
    }

    /// Whether `x` is a row of the study's baseline (else it is a fastest row).
    pub(crate) fn is_baseline_row(&self, x: &ConfigResult) -> bool {
        self.baseline_of(x).is_some_and(|b| std::ptr::eq(b, x))
    }

    /// The distinct reference rows, in the rows' order.
    pub(crate) fn rows(&self) -> Vec<&'a ConfigResult> {
        let mut out: Vec<&ConfigResult> = Vec::new();
        for r in &self.timed {
            if let Some(x) = self.of(r) {
                if !out.iter().any(|o| std::ptr::eq(*o, x)) {
                    out.push(x);
                }
            }
        }
        out
    }
}

fn median(r: &ConfigResult) -> f64 {
    r.time_ns.as_ref().map_or(f64::INFINITY, |t| t.median)
}

/// A row's ratio to its reference: from per-round pairs with their interval when both have
/// timing processes, else the ratio of medians; `1.00x` for the reference itself.
pub(crate) fn ratio_to(
    r: &ConfigResult,
    reference: &Reference,
) -> Option<(f64, Option<RatioStats>)> {
    let base = reference.of(r)?;
    let t = r.time_ns.as_ref()?;
    if std::ptr::eq(base, r) {
        return Some((1.0, None));
    }
    let plain = t.median / median(base);
    Some((plain, paired_ratio(r, base)))
}

/// The table of a run, grouped by study, each group sorted by time.
pub fn render(program: &Program, results: &[ConfigResult]) -> String {
    let mut out = String::new();
    for study in study_names(results) {
        if program.is_corrupt(study) {
            // The corrupt study counts outcomes of damaged inputs: its own table.
            out.push_str(&super::corrupt_table::render_table(study, results));
            continue;
        }
        let group = fastest_first(results.iter().filter(|r| r.study == study).collect());
        if group.is_empty() {
            continue;
        }
        if has_documents(&group) {
            // A study of documents: a section per document, in MB/s and time per operation.
            out.push_str(&render_documents(&group));
            continue;
        }
        study_table(&mut out, results, study, program.find_info(study), &group);
    }
    out
}

/// The studies of `results`, in order of first appearance.
fn study_names(results: &[ConfigResult]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.study.as_str()) {
            names.push(&r.study);
        }
    }
    names
}

/// `rows` sorted by median time, fastest first; rows without a time last, in their order.
fn fastest_first(mut rows: Vec<&ConfigResult>) -> Vec<&ConfigResult> {
    let key = |r: &ConfigResult| r.time_ns.as_ref().map_or(f64::INFINITY, |t| t.median);
    rows.sort_by(|a, b| key(a).total_cmp(&key(b)));
    rows
}

/// What the columns of one study's table depend on beyond the row itself.
struct Columns<'a> {
    /// What the ratio column divides by.
    reference: Reference<'a>,
    /// Whether any row has instruction counts: the `instr/op` column.
    counted: bool,
    /// Whether any row has compressed payload sizes: the `zlib B` and `zstd B` columns.
    compressed: bool,
    /// Whether any row has the heap a decoded value keeps: the `kept B` column.
    retained: bool,
    /// Whether any row has callgrind's simulated branch counts: the `mispred/op` column.
    simulated: bool,
    /// Whether any row was timed over layouts (`run --layouts N`): the `layout ±` column.
    spread: bool,
    /// The frames of the study's question: the `match %` column.
    match_regex: Option<&'a str>,
}

/// One measured study's table: its heading, a row per configuration, its steps and its notes.
/// `group` is the study's results, non-empty and fastest first.
fn study_table(
    out: &mut String,
    results: &[ConfigResult],
    study: &str,
    info: Option<StudyInfo>,
    group: &[&ConfigResult],
) {
    let first = group[0];
    let baseline = info.as_ref().and_then(|i| i.baseline.as_deref());
    let reference = Reference::new(baseline, group);
    let ratio_name = reference.label();
    // Every operation of the study, in the order the rows first show them.
    let mut operations: Vec<&str> = Vec::new();
    for r in group {
        if !operations.contains(&r.operation.as_str()) {
            operations.push(r.operation.as_str());
        }
    }
    let each = if operations.len() > 1 {
        " of each row's operation"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "\n{study}: {} of {} ({ratio_name}{each})",
        operations.join(", "),
        first.dataset.as_str(),
    );
    // The study's question as a column: the inclusive share of samples matching its regex
    // (the byte-array code in `bytes`, the discovery work in `reflection`).
    let question = info.as_ref().and_then(|s| s.question.clone());
    let cols = Columns {
        reference,
        counted: group.iter().any(|r| r.instructions.is_some()),
        compressed: group.iter().any(|r| r.compressed.is_some()),
        retained: group.iter().any(|r| r.retained_bytes.is_some()),
        simulated: group.iter().any(|r| {
            r.instructions
                .as_ref()
                .is_some_and(|i| i.branch_mispredicts_per_op.is_some())
        }),
        spread: group.iter().any(|r| {
            r.time_ns
                .as_ref()
                .is_some_and(|t| t.layout_spread.is_some())
        }),
        match_regex: question.as_ref().map(|q| q.frames.as_str()),
    };
    column_header(out, &cols);
    for r in group {
        study_row(out, r, &cols);
    }
    let steps = info.map(|s| s.steps).unwrap_or_default();
    steps_section(out, results, study, &steps);
    super::allocators::section(out, group);
    // The bytes by field do not depend on the allocator: one allocator's rows say it.
    super::fields::text_section(out, &super::allocators::one_allocator(group));
    notes_section(out, results, study, &cols);
}

/// The line of column names.
fn column_header(out: &mut String, cols: &Columns) {
    let instr_header = match (cols.counted, cols.simulated) {
        (true, true) => "     instr/op  mispred/op",
        (true, false) => "     instr/op",
        _ => "",
    };
    let kept_header = if cols.retained {
        format!(" {:>9}", "kept B")
    } else {
        String::new()
    };
    let spread_header = if cols.spread { "  layout ±" } else { "" };
    let match_header = if cols.match_regex.is_some() {
        " match %"
    } else {
        ""
    };
    let zip_header = if cols.compressed {
        format!(" {:>10} {:>10}", "zlib B", "zstd B")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{:<26} {:>10} {:>23}{spread_header} {:>11}{kept_header}{zip_header} {:>9} {:>10}{instr_header} {:<31}{match_header}  top self-time",
        "configuration",
        "time/op",
        "95% CI",
        "payload B",
        "allocs/op",
        "bytes/op",
        "ratio [95% CI]"
    );
}

/// One configuration's row, or its failure.
fn study_row(out: &mut String, r: &ConfigResult, cols: &Columns) {
    if let Some(e) = &r.error {
        let _ = writeln!(out, "{:<26} FAILED: {e}", r.config);
        return;
    }
    let (mut time, ci, ratio) = time_cells(r, cols);
    if r.copies_input {
        time.push('†');
    }
    let payload = r
        .payload_bytes
        .map(|p| format_thousands(p, 2))
        .unwrap_or_else(|| "-".into());
    let kept = match (r.retained_bytes, cols.retained) {
        (Some(b), _) => format!(" {:>9}", format_thousands(b, 0)),
        (None, true) => format!(" {:>9}", "-"),
        (None, false) => String::new(),
    };
    let zip = match (&r.compressed, cols.compressed) {
        (Some(c), _) => format!(
            " {:>10} {:>10}",
            format_thousands(c.zlib, 0),
            format_thousands(c.zstd, 0)
        ),
        (None, true) => format!(" {:>10} {:>10}", "-", "-"),
        (None, false) => String::new(),
    };
    let (allocs, bytes) = match &r.alloc {
        Some(a) => (
            format_thousands(a.allocs_per_op, 1),
            format_thousands(a.bytes_per_op, 0),
        ),
        None => ("-".into(), "-".into()),
    };
    let top = r
        .profile
        .as_ref()
        .and_then(|p| p.top_self.as_ref())
        .map(|s| format!("{:.0}% {}", s.percent, short_name(&s.function)))
        .unwrap_or_default();
    // How much layout alone moves the row: the relative standard deviation across layouts.
    let spread = match (
        r.time_ns.as_ref().and_then(|t| t.layout_spread),
        cols.spread,
    ) {
        (Some(s), _) => format!(" {:>9}", format!("{:.1}%", 100.0 * s)),
        (None, true) => format!(" {:>9}", "-"),
        (None, false) => String::new(),
    };
    let mut instr = match (&r.instructions, cols.counted) {
        (Some(i), _) => format!(" {:>12}", format_thousands(i.per_op, 1)),
        (None, true) => format!(" {:>12}", "-"),
        (None, false) => String::new(),
    };
    if cols.simulated {
        let mispredicts = r
            .instructions
            .as_ref()
            .and_then(|i| i.branch_mispredicts_per_op);
        instr.push_str(&format!(
            " {:>11}",
            mispredicts.map_or("-".into(), |m| format_thousands(m, 1))
        ));
    }
    let share = match (
        cols.match_regex,
        r.profile.as_ref().and_then(|p| p.match_percent),
    ) {
        (Some(_), Some(p)) => format!(" {:>6.1}%", p),
        (Some(_), None) => format!(" {:>7}", "-"),
        (None, _) => String::new(),
    };
    let _ = writeln!(
        out,
        "{:<26} {time:>10} {ci:>23}{spread} {payload:>11}{kept}{zip} {allocs:>9} {bytes:>10}{instr} {ratio:<31}{share}  {top}",
        r.config
    );
}

/// The time, interval and ratio cells of a row (`-` without a time).
fn time_cells(r: &ConfigResult, cols: &Columns) -> (String, String, String) {
    let Some(t) = &r.time_ns else {
        return ("-".into(), "-".into(), "-".into());
    };
    let ratio = match ratio_to(r, &cols.reference) {
        Some((_, Some(q))) => format_ratio(&q),
        Some((plain, None)) => format!("{plain:.2}x"),
        None => "-".into(),
    };
    (
        format_ns(t.median),
        format!("[{}, {}]", format_ns(t.ci95[0]), format_ns(t.ci95[1])),
        ratio,
    )
}

/// The study's before/after steps that were measured, each to the next and first to last
/// (nothing with fewer than two).
fn steps_section(out: &mut String, results: &[ConfigResult], study: &str, steps: &[String]) {
    let row_of = |config: &str| {
        results
            .iter()
            .find(|r| r.study == study && r.config == config && r.error.is_none())
            .filter(|r| r.time_ns.is_some())
    };
    let measured: Vec<&ConfigResult> = steps.iter().filter_map(|s| row_of(s)).collect();
    if measured.len() < 2 {
        return;
    }
    let _ = writeln!(
        out,
        "  steps (before / after, per operation, 95% CI from paired rounds):"
    );
    for pair in measured.windows(2) {
        let _ = writeln!(
            out,
            "    {} -> {}: {}",
            pair[0].config,
            pair[1].config,
            step_ratio(pair[0], pair[1])
        );
    }
    let (first, last) = (measured[0], measured[measured.len() - 1]);
    let _ = writeln!(
        out,
        "    {} -> {}: {} overall",
        first.config,
        last.config,
        step_ratio(first, last)
    );
}

/// The ratio of one step: paired by round, else of the medians.
fn step_ratio(a: &ConfigResult, b: &ConfigResult) -> String {
    match paired_ratio(a, b) {
        Some(q) => format_ratio(&q),
        None => {
            let m = |r: &ConfigResult| r.time_ns.as_ref().map_or(f64::NAN, |t| t.median);
            format!("{:.2}x", m(a) / m(b))
        }
    }
}

/// What the `instr/op` and `match %` columns mean, and each profile's finding.
fn notes_section(out: &mut String, results: &[ConfigResult], study: &str, cols: &Columns) {
    let findings: Vec<&str> = results
        .iter()
        .filter(|r| r.study == study)
        .filter_map(|r| r.profile.as_ref().map(|p| p.finding.as_str()))
        .collect();
    if cols.counted {
        let _ = writeln!(
            out,
            "  instr/op = instructions per operation under callgrind (exact; valgrind's emulated CPU; work done, not time)"
        );
    }
    if cols.simulated {
        let _ = writeln!(
            out,
            "  mispred/op = branches mispredicted per operation by valgrind's simulated predictor (a model, not this CPU's predictor; repeatable to a few parts per million); `serprof hotspots --event branch-mispredicts` shows where"
        );
    }
    if cols.retained {
        let _ = writeln!(
            out,
            "  kept B = heap bytes a decoded value keeps once decoding returns (exact, Vec capacity slack included; 0 for a reading in place: the access rows)"
        );
    }
    if results.iter().any(|r| r.study == study && r.copies_input) {
        let _ = writeln!(out, "  † {COPY_NOTE}");
    }
    if let (Some(re), false) = (cols.match_regex, findings.is_empty()) {
        let _ = writeln!(
            out,
            "  match % = inclusive share of CPU samples whose stack matches /{re}/"
        );
    }
    if !findings.is_empty() {
        let _ = writeln!(out, "  where the time goes (from each profile):");
        for f in findings {
            let _ = writeln!(out, "    {f}");
        }
    }
}

// ---- The corpus study: a section per document. MB/s is the document's JSON bytes per second
// for every operation and format (a MessagePack parse is counted by the JSON it stands for), as
// nativejson-benchmark counts it. A time marked `*` belongs to an engine that changes numbers
// (its findings say which, and where). ----

/// The documents of `results`, in order of first appearance, with their results.
pub(crate) fn by_document<'a>(
    results: &[&'a ConfigResult],
) -> Vec<(String, Vec<&'a ConfigResult>)> {
    let mut docs: Vec<(String, Vec<&ConfigResult>)> = Vec::new();
    for r in results {
        let Some(d) = &r.document else { continue };
        match docs.iter_mut().find(|(name, _)| *name == d.name) {
            Some((_, rs)) => rs.push(r),
            None => docs.push((d.name.clone(), vec![r])),
        }
    }
    docs
}

/// The part of a configuration's name after `DOC.OPERATION.` (`typed-sonic-rs`).
pub(crate) fn variant(r: &ConfigResult) -> &str {
    r.config.splitn(3, '.').nth(2).unwrap_or(&r.config)
}

const OPERATIONS: [Operation; 3] = [Operation::Parse, Operation::Serialize, Operation::RoundTrip];

/// The parse, serialize and round-trip tables of one document's results (those it has).
pub(crate) fn operation_tables<'a>(
    results: &[&'a ConfigResult],
) -> Vec<(Operation, Vec<&'a ConfigResult>)> {
    OPERATIONS
        .iter()
        .map(|&op| (op, operation_rows(results, op)))
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
}

/// Rows of one document and operation, fastest first.
fn operation_rows<'a>(results: &[&'a ConfigResult], op: Operation) -> Vec<&'a ConfigResult> {
    fastest_first(
        results
            .iter()
            .copied()
            .filter(|r| r.operation == op)
            .collect(),
    )
}

/// `*`: the engine changes numbers; `†`: the timed parse copies the document first (an
/// in-place parser), and the figure includes the copy.
pub(crate) fn mark(r: &ConfigResult) -> &'static str {
    match (r.changes_numbers(), r.copies_input) {
        (true, true) => "*†",
        (true, false) => "*",
        (false, true) => "†",
        (false, false) => "",
    }
}

/// The footnote of the `†` mark.
pub(crate) const COPY_NOTE: &str =
    "the engine parses in place, so each timed parse reads a fresh copy of its input; its figures include the copy";

/// The median time per operation, or `-`.
pub(crate) fn median_text(r: &ConfigResult) -> String {
    r.time_ns
        .as_ref()
        .map_or("-".into(), |t| format_ns(t.median))
}

/// Payload bytes, or `-`.
pub(crate) fn payload_text(r: &ConfigResult) -> String {
    r.payload_bytes.map_or("-".into(), |b| format!("{b:.0}"))
}

pub(crate) fn mbps(r: &ConfigResult) -> String {
    r.megabytes_per_second()
        .map_or("-".into(), |m| format!("{m:.0}"))
}

/// Whether any of `results` runs on a document.
pub(crate) fn has_documents(results: &[&ConfigResult]) -> bool {
    results.iter().any(|r| r.document.is_some())
}

/// The text tables, per document.
pub(crate) fn render_documents(results: &[&ConfigResult]) -> String {
    let mut out = String::new();
    for (name, rs) in by_document(results) {
        let d = rs[0].document.as_ref().expect("grouped by document");
        let _ = writeln!(
            out,
            "\ncorpus document {name}: {} ({} bytes, SHA-256 {})",
            d.path.display(),
            d.bytes,
            &d.sha256[..d.sha256.len().min(12)]
        );
        for (op, rows) in operation_tables(&rs) {
            let _ = writeln!(
                out,
                "  {:<10} {:<24} {:>10} {:>8} {:>10} {:>10}",
                op.as_str(),
                "engine",
                "time/op",
                "MB/s",
                "payload B",
                "allocs/op"
            );
            for r in rows {
                if let Some(e) = &r.error {
                    let _ = writeln!(out, "  {:<10} {:<24} FAILED: {e}", "", variant(r));
                    continue;
                }
                let time = median_text(r);
                let _ = writeln!(
                    out,
                    "  {:<10} {:<24} {:>9}{:1} {:>8} {:>10} {:>10}",
                    "",
                    variant(r),
                    time,
                    mark(r),
                    mbps(r),
                    payload_text(r),
                    r.alloc
                        .as_ref()
                        .map_or("-".into(), |a| format!("{:.0}", a.allocs_per_op)),
                );
            }
        }
        let mut findings: Vec<String> = rs
            .iter()
            .flat_map(|r| r.findings.iter())
            .filter(|f| f.changes_numbers())
            .map(ToString::to_string)
            .collect();
        findings.sort();
        findings.dedup();
        for f in findings {
            let _ = writeln!(out, "  * {f}");
        }
        if rs.iter().any(|r| r.copies_input) {
            let _ = writeln!(out, "  † {COPY_NOTE}");
        }
    }
    out
}

/// Instruction moves as text lines: the first `limit` of changed work, then the first `limit`
/// layout effects under a line of their own.
pub(crate) fn instruction_moves_text(
    s: &mut String,
    moved: &[crate::analyze::compare::InstructionMove],
    limit: usize,
) {
    let (work, layout) = crate::analyze::compare::work_and_layout(moved);
    let line = |s: &mut String, m: &crate::analyze::compare::InstructionMove| {
        let _ = writeln!(
            s,
            "  {:>+14.1} incl  {:>+14.1} self  {}",
            m.delta_per_op,
            m.self_delta_per_op,
            crate::analyze::compare::compact_name(&m.function)
        );
    };
    for m in work.iter().take(limit) {
        line(s, m);
    }
    if !layout.is_empty() {
        let _ = writeln!(
            s,
            "  layout effects (libc memory and string routines, or under 1% of the function's count):"
        );
        for m in layout.iter().take(limit) {
            line(s, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_baseline_is_the_engines_row_of_each_rows_operation() {
        use crate::model::stats::TimeStats;
        use serprof_api::__private::{ConfigInfo, FramePattern};
        use serprof_api::Format;
        use serprof_api::Operation;
        let row = |config: &str, operation: Operation, ns: f64| {
            let mut r = ConfigResult::new(&ConfigInfo {
                study: "s".into(),
                config: config.into(),
                engine: "e".into(),
                engine_version: "1".into(),
                call: String::new(),
                format: Format::Binary,
                dataset: "d".into(),
                operation,
                engine_frames: FramePattern::builtin("e"),
                notes: String::new(),
                document: None,
                feature: None,
                loop_function: "f".into(),
                budget: None,
            });
            r.time_ns = TimeStats::from_batches(vec![ns; 5], 1);
            r
        };
        let rows = [
            row("json.serialize", Operation::Serialize, 100.0),
            row("json.deserialize", Operation::Deserialize, 400.0),
            row("fast.serialize", Operation::Serialize, 10.0),
            row("fast.deserialize", Operation::Deserialize, 20.0),
            row("fast.access", Operation::Access, 5.0),
        ];
        let all: Vec<&ConfigResult> = rows.iter().collect();
        let ratio = |baseline: Option<&str>, r: &ConfigResult| {
            ratio_to(r, &Reference::new(baseline, &all)).map(|(plain, _)| plain)
        };
        // `json`: each row to json's row of its operation; access, which json lacks, to its
        // fastest (itself).
        assert_eq!(ratio(Some("json"), &rows[2]), Some(0.1));
        assert_eq!(ratio(Some("json"), &rows[3]), Some(0.05));
        assert_eq!(ratio(Some("json"), &rows[1]), Some(1.0));
        assert_eq!(ratio(Some("json"), &rows[4]), Some(1.0));
        // A full configuration name: every row to that one row.
        assert_eq!(ratio(Some("json.serialize"), &rows[3]), Some(0.2));
        assert_eq!(ratio(Some("json.serialize"), &rows[1]), Some(4.0));
        // No baseline: the fastest of each operation.
        assert_eq!(ratio(None, &rows[1]), Some(20.0));
        assert_eq!(ratio(None, &rows[0]), Some(10.0));
        let reference = Reference::new(Some("json"), &all);
        assert_eq!(reference.label(), "ratio to json");
        assert!(reference.is_baseline_row(&rows[0]) && !reference.is_baseline_row(&rows[4]));
    }

    #[test]
    fn formats_numbers_for_people() {
        assert_eq!(format_ns(845.2), "845 ns");
        assert_eq!(format_ns(25_100.0), "25.10 µs");
        assert_eq!(format_ns(3_210_000.0), "3.21 ms");
        assert_eq!(format_thousands(9814.14, 2), "9,814.14");
        assert_eq!(format_thousands(1_962_828.0, 0), "1,962,828");
        assert_eq!(format_thousands(12.0, 1), "12.0");
        assert_eq!(format_thousands(-1234.5, 1), "-1,234.5");
    }
}
