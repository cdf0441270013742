//! The article-style table of one study in `report.html`: a row per configuration, fastest
//! first, JSON and binary apart when a study has both, failed configurations with their reason,
//! and only the columns some row has figures for (a `--no-alloc` run has no allocation columns,
//! a decode-only study no time). Each name links its flame graphs and `result.json`.
//!
//! Figures a study adds beyond the common ones (`extra` in [`ReportRow`], e.g. the `corrupt`
//! study's outcome counts) become columns when they differ between configurations, and one
//! line under the table when they are the same for all.

use std::fmt::Write;

use plotters::style::RGBColor;
use serprof_api::Format;

use crate::analyze::hotspots::short_name;
use crate::model::ConfigResult;
use crate::render::report_data::{ReportRow, StudyData};
use crate::render::report_page::{esc, href};
use crate::render::table::{format_ns, format_thousands, ratio_to, Reference};

/// Bar and swatch colours by format.
const JSON_COLOR: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const BINARY_COLOR: RGBColor = RGBColor(0xe0, 0x7b, 0x39);

/// The colour of a format's bars and swatches.
pub(crate) fn format_color(format: Format) -> RGBColor {
    match format {
        Format::Json => JSON_COLOR,
        Format::Binary => BINARY_COLOR,
    }
}

/// `#3b6ea8`.
pub(crate) fn css_color(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// `JSON`, `binary`.
pub(crate) fn format_label(format: Format) -> &'static str {
    match format {
        Format::Json => "JSON",
        Format::Binary => "binary",
    }
}

/// The header of the study's match-share column: its question, as a share of samples.
pub(crate) fn match_header(study: &StudyData) -> &str {
    study
        .info
        .as_ref()
        .and_then(|i| i.question.as_ref())
        .map_or("hotspot share", |q| q.label.as_str())
}

/// A study's rows in groups: JSON, then binary, then anything else (one group when a study
/// has one format). Rows keep their order (fastest first) inside a group.
pub(crate) fn groups(rows: &[ReportRow]) -> Vec<(Format, Vec<&ReportRow>)> {
    let mut formats: Vec<Format> = rows.iter().map(|r| r.result.format).collect();
    formats.sort();
    formats.dedup();
    formats
        .into_iter()
        .map(|f| {
            let members = rows.iter().filter(|r| r.result.format == f).collect();
            (f, members)
        })
        .collect()
}

/// A column of a study's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Time,
    Ratio,
    Ci,
    Payload,
    Zlib,
    Zstd,
    Allocs,
    AllocBytes,
    MatchShare,
    Instructions,
    TopSelf,
    /// The study's own figure with this index in [`Extras::varying`].
    Extra(usize),
}

/// A study's own figures, split into those that differ between configurations (columns) and
/// those that are the same for all (one line).
struct Extras {
    varying: Vec<String>,
    constant: Vec<(String, String)>,
}

fn extras(rows: &[ReportRow]) -> Extras {
    let measured: Vec<&ReportRow> = rows.iter().filter(|r| r.missing.is_none()).collect();
    let mut keys: Vec<&str> = Vec::new();
    for r in &measured {
        for (k, _) in &r.extra {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let value = |r: &ReportRow, k: &str| {
        r.extra
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let mut out = Extras {
        varying: Vec::new(),
        constant: Vec::new(),
    };
    for k in keys {
        let first = value(measured[0], k);
        let same = measured.len() > 1 && measured.iter().all(|r| value(r, k) == first);
        match (same, first) {
            (true, Some(v)) => out.constant.push((k.to_string(), v)),
            _ => out.varying.push(k.to_string()),
        }
    }
    out
}

fn columns(rows: &[ReportRow], extras: &Extras) -> Vec<Col> {
    let any = |f: &dyn Fn(&ReportRow) -> bool| rows.iter().any(f);
    let mut cols = Vec::new();
    if any(&|r| r.result.time_ns.is_some()) {
        // Ratio next to time: on a phone these two stay in view before the table scrolls.
        cols.extend([Col::Time, Col::Ratio, Col::Ci]);
    }
    if any(&|r| r.result.payload_bytes.is_some()) {
        cols.push(Col::Payload);
    }
    if any(&|r| r.result.compressed.is_some()) {
        cols.extend([Col::Zlib, Col::Zstd]);
    }
    if any(&|r| r.result.alloc.is_some()) {
        cols.extend([Col::Allocs, Col::AllocBytes]);
    }
    if any(&|r| r.result.instructions.is_some()) {
        cols.push(Col::Instructions);
    }
    let profile = |r: &ReportRow| r.result.profile.clone();
    if any(&|r| profile(r).and_then(|p| p.match_percent).is_some()) {
        cols.push(Col::MatchShare);
    }
    cols.extend((0..extras.varying.len()).map(Col::Extra));
    if any(&|r| profile(r).and_then(|p| p.top_self).is_some()) {
        cols.push(Col::TopSelf);
    }
    cols
}

/// A figure's key as a header: its last part, spaced (`counts.clean_error` -> `clean error`).
fn key_header(key: &str) -> String {
    key.rsplit('.')
        .next()
        .unwrap_or(key)
        .replace(['_', '-'], " ")
}

fn header_cell(col: Col, study: &StudyData, extras: &Extras) -> String {
    let text = match col {
        Col::Time => "time/op".to_string(),
        Col::Ratio => "ratio".into(),
        Col::Ci => "95% CI".into(),
        Col::Payload => "payload B".into(),
        Col::Zlib => "zlib B".into(),
        Col::Zstd => "zstd B".into(),
        Col::Allocs => "allocs/op".into(),
        Col::AllocBytes => "alloc B/op".into(),
        Col::MatchShare => match_header(study).into(),
        Col::Instructions => "instr/op".into(),
        Col::TopSelf => return "<th class=\"name\">top self-time</th>".into(),
        Col::Extra(i) => {
            let key = &extras.varying[i];
            return format!("<th title=\"{}\">{}</th>", esc(key), esc(&key_header(key)));
        }
    };
    format!("<th>{text}</th>")
}

/// Writes the study's table, and the line of figures every configuration shares.
pub(crate) fn write_table(out: &mut String, study: &StudyData, reference: &Reference) {
    let extras = extras(&study.rows);
    let cols = columns(&study.rows, &extras);
    out.push_str(
        "<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"name\">configuration</th>",
    );
    for &c in &cols {
        out.push_str(&header_cell(c, study, &extras));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let groups = groups(&study.rows);
    for (format, rows) in &groups {
        if groups.len() > 1 {
            let _ = writeln!(
                out,
                "<tr class=\"group\"><th colspan=\"{}\"><span class=\"swatch\" style=\"background:{}\"></span>{}</th></tr>",
                cols.len() + 1,
                css_color(format_color(*format)),
                esc(format_label(*format))
            );
        }
        for row in rows {
            table_row(out, row, &cols, &extras, reference);
        }
    }
    out.push_str("</tbody></table></div>\n");
    // Rows under allocators (`run --allocators`): the text table's section, as it reads there.
    let results: Vec<&ConfigResult> = study.rows.iter().map(|r| &r.result).collect();
    let mut allocators = String::new();
    crate::render::allocators::section(&mut allocators, &results);
    if !allocators.is_empty() {
        let _ = writeln!(out, "<pre class=\"small\">{}</pre>", esc(&allocators));
    }
    if !extras.constant.is_empty() {
        let items: Vec<String> = extras
            .constant
            .iter()
            .map(|(k, v)| format!("{} <b>{}</b>", esc(&key_header(k)), esc(v)))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"muted small\">The same for every configuration: {}.</p>",
            items.join(", ")
        );
    }
    if study.rows.iter().any(|r| r.result.copies_input) {
        let _ = writeln!(
            out,
            "<p class=\"muted small\">† {}.</p>",
            crate::render::table::COPY_NOTE
        );
    }
    if let Some(re) = study
        .info
        .as_ref()
        .and_then(|i| i.question.as_ref())
        .map(|q| q.frames.as_str())
    {
        if cols.contains(&Col::MatchShare) {
            let _ = writeln!(
                out,
                "<p class=\"muted small\">{} = the share of CPU samples whose stack has a frame matching <code>{}</code>.</p>",
                esc(match_header(study)),
                esc(re)
            );
        }
    }
}

/// The name cell: the configuration, its engine and version, and links to its files.
fn name_cell(row: &ReportRow) -> String {
    let r = &row.result;
    let mut sub = if r.engine.is_empty() || r.engine == r.config {
        esc(&r.engine_version)
    } else {
        format!("{} {}", esc(&r.engine), esc(&r.engine_version))
    };
    for (path, text) in &row.files {
        let _ = write!(
            sub,
            " · <a href=\"{}\" title=\"{}\">{}</a>",
            esc(&href(path)),
            esc(path),
            esc(text)
        );
    }
    format!(
        "<th class=\"name\"><span class=\"cfg\">{}</span><span class=\"sub\">{}</span></th>",
        esc(&r.config),
        sub.trim_start_matches(" · ")
    )
}

fn table_row(
    out: &mut String,
    row: &ReportRow,
    cols: &[Col],
    extras: &Extras,
    reference: &Reference,
) {
    let failed = row.result.error.is_some();
    let _ = write!(
        out,
        "<tr{}>{}",
        if failed { " class=\"failed\"" } else { "" },
        name_cell(row)
    );
    if let Some(e) = &row.result.error {
        let label = if row.missing.is_some() {
            ""
        } else {
            "failed: "
        };
        let _ = writeln!(
            out,
            "<td class=\"error\" colspan=\"{}\">{label}{}</td></tr>",
            cols.len().max(1),
            esc(&e.to_string())
        );
        return;
    }
    for &c in cols {
        out.push_str(&cell(c, row, extras, reference));
    }
    out.push_str("</tr>\n");
}

fn cell(col: Col, row: &ReportRow, extras: &Extras, reference: &Reference) -> String {
    let r = &row.result;
    let dash = || "<td>-</td>".to_string();
    match col {
        Col::Time => r.time_ns.as_ref().map_or_else(dash, |t| {
            let own = reference.of(r).is_some_and(|b| std::ptr::eq(b, r));
            format!(
                "<td{}>{}{}</td>",
                if own { " class=\"fastest\"" } else { "" },
                format_ns(t.median),
                if r.copies_input { "†" } else { "" }
            )
        }),
        Col::Ratio => match ratio_to(r, reference) {
            Some((_, Some(q))) => format!(
                "<td>{:.2}× <span class=\"muted small\">[{:.2}, {:.2}]{}</span></td>",
                q.ratio,
                q.ci95[0],
                q.ci95[1],
                if q.within_noise() {
                    " within noise"
                } else {
                    ""
                }
            ),
            Some((plain, None)) => format!("<td>{plain:.2}×</td>"),
            None => dash(),
        },
        Col::Ci => r.time_ns.as_ref().map_or_else(dash, |t| {
            format!(
                "<td class=\"muted\">{} – {}</td>",
                format_ns(t.ci95[0]),
                format_ns(t.ci95[1])
            )
        }),
        Col::Payload => r
            .payload_bytes
            .map_or_else(dash, |p| format!("<td>{}</td>", format_thousands(p, 2))),
        Col::Zlib => r.compressed.map_or_else(dash, |c| {
            format!("<td>{}</td>", format_thousands(c.zlib, 0))
        }),
        Col::Zstd => r.compressed.map_or_else(dash, |c| {
            format!("<td>{}</td>", format_thousands(c.zstd, 0))
        }),
        Col::Allocs => r.alloc.as_ref().map_or_else(dash, |a| {
            format!("<td>{}</td>", format_thousands(a.allocs_per_op, 1))
        }),
        Col::AllocBytes => r.alloc.as_ref().map_or_else(dash, |a| {
            format!("<td>{}</td>", format_thousands(a.bytes_per_op, 0))
        }),
        Col::MatchShare => r
            .profile
            .as_ref()
            .and_then(|p| p.match_percent)
            .map_or_else(dash, |p| format!("<td>{p:.1}%</td>")),
        Col::Instructions => r.instructions.as_ref().map_or_else(dash, |i| {
            format!("<td>{}</td>", format_thousands(i.per_op, 0))
        }),
        Col::Extra(i) => {
            let key = &extras.varying[i];
            row.extra
                .iter()
                .find(|(k, _)| k == key)
                .map_or_else(dash, |(_, v)| format!("<td>{}</td>", esc(v)))
        }
        Col::TopSelf => match r.profile.as_ref().and_then(|p| p.top_self.as_ref()) {
            Some(s) => format!(
                "<td class=\"text\"><b>{:.0}%</b> <code title=\"{}\">{}</code></td>",
                s.percent,
                esc(&s.function),
                esc(&short_name(&s.function))
            ),
            None => "<td class=\"text\"></td>".into(),
        },
    }
}
