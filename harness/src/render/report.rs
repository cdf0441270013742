//! `report.html`: the page a person reads after a run. Self-contained (inline CSS, inline SVG
//! charts, no script it needs, no request leaving the page) and written into the run folder,
//! so that its links to each configuration's flame graphs are relative and the folder can be
//! copied or archived whole.
//!
//! Per study: the article-style table (sorted by time, JSON and binary apart when a study has
//! both, failed configurations with their reason), bar charts of time, payload and allocated
//! bytes per operation, where each engine's time goes (`profile.finding`), and warnings. Then
//! any differential flame graphs `serprof compare` left in the folder, and the run's manifest.
//! The runner writes it at the end of every run; `serprof report RUN_DIR` rewrites it.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::model::{ConfigResult, Program};
use crate::render::charts::{self, Bar};
use crate::render::report_data::{self, ReportRow, RunData, StudyData};
use crate::render::report_page::{self, esc, href};
use crate::render::report_table::{self, css_color, format_color, format_label};
use crate::render::table::{format_ns, format_thousands, Reference};
use anyhow::Result;
use serprof_api::Format;

/// Writes `run_dir/report.html` from the run's files and returns its path.
pub(crate) fn write(program: &Program, run_dir: &Path) -> Result<PathBuf> {
    write_views_pages(run_dir)?;
    write_data(run_dir, &report_data::load(program, run_dir)?)
}

/// `report.html` of a run just measured, from its manifest and results in memory.
pub(crate) fn write_measured<'r>(
    program: &Program,
    run_dir: &Path,
    manifest: &crate::model::RunManifest,
    results: impl IntoIterator<Item = &'r crate::model::ConfigResult>,
) -> Result<PathBuf> {
    write_views_pages(run_dir)?;
    let data = report_data::measured(program, run_dir, manifest.clone(), results);
    write_data(run_dir, &data)
}

/// Renders `data` into the run folder's `report.html`.
fn write_data(run_dir: &Path, data: &report_data::RunData) -> Result<PathBuf> {
    let html = render(data)?;
    let path = run_dir.join(crate::layout::REPORT_HTML);
    crate::layout::write_atomic(&path, html.as_bytes())?;
    Ok(path)
}

/// `views.html` in every configuration folder (`<study>/<config>/` with a `result.json`) that
/// has a CPU profile.
fn write_views_pages(run_dir: &Path) -> Result<()> {
    let dirs = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect()
    };
    for study in dirs(run_dir) {
        for config in dirs(&study) {
            if config.join(crate::layout::RESULT_JSON).is_file() {
                let name = format!(
                    "{}/{}",
                    study.file_name().unwrap_or_default().to_string_lossy(),
                    config.file_name().unwrap_or_default().to_string_lossy()
                );
                crate::render::views_page::write(&config, &name)?;
            }
        }
    }
    Ok(())
}

/// The whole page.
pub(crate) fn render(data: &RunData) -> Result<String> {
    let mut out = String::with_capacity(64 * 1024);
    let title = format!("serprof report · {}", data.run_id);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n<title>{}</title>\n{}\n<style>{}</style>\n</head>\n<body>\n<main>\n",
        report_page::CSP,
        esc(&title),
        report_page::ERROR_RECORDER,
        report_page::CSS
    );
    header(&mut out, data);
    if !data.problems.is_empty() {
        out.push_str("<ul class=\"warnings\">\n");
        for p in &data.problems {
            let _ = writeln!(out, "<li>not shown: {}</li>", esc(p));
        }
        out.push_str("</ul>\n");
    }
    for study in &data.studies {
        study_section(&mut out, study)?;
    }
    diffs_section(&mut out, data);
    report_page::manifest_section(&mut out, data);
    let _ = write!(
        out,
        "<footer>Written by serprof {} from <code>run.json</code> and each configuration's <code>result.json</code>; \
         rewrite it with <code>serprof report {}</code>. Each configuration folder also holds <code>cpu.folded</code>, \
         <code>alloc.folded</code> and <code>cpu.pb</code> (for <code>pprof</code>).</footer>\n</main>\n</body>\n</html>\n",
        esc(env!("CARGO_PKG_VERSION")),
        esc(&data.run_id)
    );
    Ok(out)
}

fn header(out: &mut String, data: &RunData) {
    let m = &data.manifest;
    let rows: Vec<&ReportRow> = data.studies.iter().flat_map(|s| &s.rows).collect();
    let failed = rows.iter().filter(|r| r.result.error.is_some()).count();
    let warnings: usize = rows.iter().map(|r| r.result.warnings.len()).sum();
    let _ = writeln!(
        out,
        "<header>\n<h1>serprof report</h1>\n<p class=\"muted\">Run <code>{}</code> · {} → {} UTC · {} on {} × {}</p>",
        esc(&data.run_id),
        esc(&m.start),
        esc(m.end.as_deref().unwrap_or("…")),
        esc(&m.git_rev),
        m.machine.cpus,
        esc(&m.machine.cpu_model)
    );
    out.push_str("<div class=\"badges\">");
    if m.complete {
        out.push_str("<span class=\"badge ok\">complete</span>");
    } else {
        out.push_str("<span class=\"badge bad\">incomplete: the run was interrupted</span>");
    }
    let _ = write!(
        out,
        "<span class=\"badge\">{} configuration{} in {} stud{}</span>",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        data.studies.len(),
        if data.studies.len() == 1 { "y" } else { "ies" }
    );
    if m.settings.quick {
        out.push_str("<span class=\"badge warn\">quick run: rough figures</span>");
    }
    if failed > 0 {
        let _ = write!(out, "<span class=\"badge bad\">{failed} failed</span>");
    }
    if let Some(first) = data
        .studies
        .iter()
        .find(|s| s.rows.iter().any(|r| !r.result.warnings.is_empty()))
    {
        let _ = write!(
            out,
            "<span class=\"badge warn\"><a href=\"#warnings-{}\">{warnings} warning{}</a></span>",
            esc(&first.name),
            if warnings == 1 { "" } else { "s" }
        );
    }
    if let Some(rate) = report_page::sampling_summary(data) {
        let _ = write!(
            out,
            "<span class=\"badge\">CPU sampled at {}</span>",
            esc(&rate)
        );
    }
    out.push_str("</div>\n");
    let _ = writeln!(
        out,
        "<p class=\"muted small\">{}</p>",
        esc(&crate::render::summary::measurement_summary(m))
    );
    out.push_str("<nav class=\"toc\"><ul>");
    for s in &data.studies {
        let _ = write!(
            out,
            "<li><a href=\"#study-{}\">{}</a></li>",
            esc(&s.name),
            esc(&s.name)
        );
    }
    if !data.diffs.is_empty() {
        out.push_str("<li><a href=\"#comparisons\">comparisons</a></li>");
    }
    out.push_str("<li><a href=\"#manifest\">run manifest</a></li></ul></nav>\n</header>\n");
}

/// The study's fixes one step at a time (its `steps`), as the articles showed them:
/// each step's speed-up over the one before, then overall.
fn steps(out: &mut String, study: &StudyData) {
    let steps = study
        .info
        .as_ref()
        .map(|i| i.steps.clone())
        .unwrap_or_default();
    let measured: Vec<(&str, f64)> = steps
        .iter()
        .filter_map(|s| {
            let row = study
                .rows
                .iter()
                .find(|r| r.result.config == *s && r.result.error.is_none())?;
            Some((s.as_str(), row.median()?))
        })
        .collect();
    if measured.len() < 2 {
        return;
    }
    let line = |a: (&str, f64), b: (&str, f64), overall: bool| {
        let ratio = a.1 / b.1;
        let verdict = if ratio >= 1.0 {
            format!("<b>{ratio:.2}× faster</b>")
        } else {
            format!("<b class=\"bad\">{:.2}× slower</b>", 1.0 / ratio)
        };
        format!(
            "<li>{}<code>{}</code> → <code>{}</code>: {verdict} ({} → {})</li>",
            if overall { "overall, " } else { "" },
            esc(a.0),
            esc(b.0),
            format_ns(a.1),
            format_ns(b.1)
        )
    };
    out.push_str("<h3>Before and after, one step at a time</h3>\n<ul class=\"steps\">\n");
    for pair in measured.windows(2) {
        out.push_str(&line(pair[0], pair[1], false));
    }
    if measured.len() > 2 {
        out.push_str(&line(measured[0], measured[measured.len() - 1], true));
    }
    out.push_str("</ul>\n");
}

fn study_section(out: &mut String, study: &StudyData) -> Result<()> {
    let title = study
        .info
        .as_ref()
        .map_or(study.name.as_str(), |i| i.title.as_str());
    let _ = writeln!(
        out,
        "<section id=\"study-{}\">\n<h2>{} <span class=\"muted small\"><code>{}</code></span></h2>",
        esc(&study.name),
        esc(title),
        esc(&study.name)
    );
    let results: Vec<&ConfigResult> = study.rows.iter().map(|r| &r.result).collect();
    let baseline = study.info.as_ref().and_then(|i| i.baseline.as_deref());
    let reference = Reference::new(baseline, &results);
    let mut about = Vec::new();
    if let Some(source) = study
        .info
        .as_ref()
        .map(|i| i.source.as_str())
        .filter(|s| !s.is_empty())
    {
        about.push(format!("Reproduces {}.", esc(source)));
    }
    if let Some(first) = study.rows.iter().find(|r| r.missing.is_none()) {
        about.push(format!(
            "One operation is a {} of the {} dataset.",
            esc(first.result.operation.as_str()),
            esc(first.result.dataset.as_str())
        ));
    }
    let refs = reference.rows();
    let names = |baseline: bool| -> Vec<String> {
        refs.iter()
            .filter(|r| reference.is_baseline_row(r) == baseline)
            .map(|r| format!("<b>{}</b>", esc(&r.config)))
            .collect()
    };
    let (based, fastest) = (names(true), names(false));
    let each = |n: &[String]| {
        if n.len() > 1 {
            " of each row's operation"
        } else {
            ""
        }
    };
    let mut basis = Vec::new();
    if !based.is_empty() {
        basis.push(format!(
            "to the study's baseline{}, {}",
            each(&based),
            based.join(", ")
        ));
    }
    if !fastest.is_empty() {
        let other = if based.is_empty() {
            ""
        } else {
            "for the other operations, "
        };
        basis.push(format!(
            "{other}to the fastest{}, {}",
            each(&fastest),
            fastest.join(", ")
        ));
    }
    if !basis.is_empty() {
        about.push(format!(
            "Sorted by median time; ratios are {}. Lower is better everywhere.",
            basis.join("; ")
        ));
    }
    let _ = writeln!(out, "<p class=\"muted\">{}</p>", about.join(" "));

    report_table::write_table(out, study, &reference);
    if crate::render::table::has_documents(&results) {
        crate::render::corpus_table::write_html(out, &results);
    }
    let groups = report_table::groups(&study.rows);
    steps(out, study);
    charts_block(out, study, &groups)?;
    findings(out, study);
    let rows: Vec<&ConfigResult> = study.rows.iter().map(|r| &r.result).collect();
    super::report_fields::html_section(out, &rows);
    notes_and_warnings(out, study);
    out.push_str("</section>\n");
    Ok(())
}

/// One chart per figure the study has: time (with its interval), payload, allocated bytes,
/// and the study's matched share (the byte-array share of `bytes`).
fn charts_block(
    out: &mut String,
    study: &StudyData,
    groups: &[(Format, Vec<&ReportRow>)],
) -> Result<()> {
    let ordered: Vec<&ReportRow> = groups
        .iter()
        .flat_map(|(_, rows)| rows.iter().copied())
        .filter(|r| r.result.error.is_none())
        .collect();
    // A figure of a result: its value, its interval if any, and its label.
    type Point = (f64, Option<[f64; 2]>, String);
    type Figure = fn(&ConfigResult) -> Option<Point>;
    type Tick = fn(f64) -> String;
    let question = study.info.as_ref().and_then(|i| i.question.as_ref());
    // The share chart is captioned by the study's question when it has one.
    let share_caption = question.map_or("Share of CPU samples in the study's hotspot", |q| {
        q.caption.as_str()
    });
    let specs: [(&str, Figure, Tick); 4] = [
        (
            "Time per operation (median, 95% interval)",
            |r| {
                let t = r.time_ns.as_ref()?;
                Some((t.median, Some(t.ci95), format_ns(t.median)))
            },
            charts::compact_ns,
        ),
        (
            "Payload bytes per operation",
            |r| {
                let p = r.payload_bytes?;
                Some((p, None, format!("{} B", format_thousands(p, 0))))
            },
            charts::compact_bytes,
        ),
        (
            "Bytes allocated per operation",
            |r| {
                let b = r.alloc.as_ref()?.bytes_per_op;
                Some((b, None, format!("{} B", format_thousands(b, 0))))
            },
            charts::compact_bytes,
        ),
        (
            share_caption,
            |r| {
                let p = r.profile.as_ref()?.match_percent?;
                Some((p, None, format!("{p:.0}%")))
            },
            |x| format!("{x:.0}%"),
        ),
    ];
    let mut figures = String::new();
    for (caption, figure, tick) in specs {
        let bars: Vec<Bar> = ordered
            .iter()
            .filter_map(|row| {
                let (value, interval, value_text) = figure(&row.result)?;
                Some(Bar {
                    label: row.result.config.clone(),
                    value,
                    interval,
                    value_text,
                    color: format_color(row.result.format),
                })
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        let svg = charts::bar_chart(&bars, &tick)?;
        let _ = write!(
            figures,
            "<figure><figcaption>{}</figcaption>\n{svg}</figure>\n",
            esc(caption)
        );
    }
    if !figures.is_empty() {
        let _ = write!(
            out,
            "{}<div class=\"charts\">\n{figures}</div>\n",
            legend(groups)
        );
    }
    Ok(())
}

/// The colour key, when bars have more than one colour.
fn legend(groups: &[(Format, Vec<&ReportRow>)]) -> String {
    if groups.len() < 2 {
        return String::new();
    }
    let keys: Vec<String> = groups
        .iter()
        .map(|(f, _)| {
            format!(
                "<span class=\"key\"><span class=\"swatch\" style=\"background:{}\"></span>{}</span>",
                css_color(format_color(*f)),
                esc(format_label(*f))
            )
        })
        .collect();
    format!(
        "<p class=\"legend muted small\">Bars in table order, coloured by format: {}</p>\n",
        keys.join(" ")
    )
}

/// Where the time goes, one line per configuration (from its CPU profile), in table order.
fn findings(out: &mut String, study: &StudyData) {
    let lines: Vec<String> = study
        .rows
        .iter()
        .filter_map(|r| r.result.profile.as_ref().map(|p| p.finding.as_str()))
        .filter(|f| !f.is_empty())
        .map(|f| match f.split_once(": ") {
            Some((name, rest)) => format!("<b>{}</b>: {}", esc(name), esc(rest)),
            None => esc(f),
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    out.push_str("<h3>Where the time goes</h3>\n<ul class=\"findings\">\n");
    for l in lines {
        let _ = writeln!(out, "<li>{l}</li>");
    }
    out.push_str("</ul>\n");
}

fn notes_and_warnings(out: &mut String, study: &StudyData) {
    let warnings: Vec<String> = study
        .rows
        .iter()
        .flat_map(|r| {
            r.result
                .warnings
                .iter()
                .map(move |w| format!("<b>{}</b>: {}", esc(&r.result.config), esc(w)))
        })
        .collect();
    if !warnings.is_empty() {
        let _ = writeln!(
            out,
            "<h3 id=\"warnings-{}\">Warnings</h3>\n<ul class=\"warnings\">",
            esc(&study.name)
        );
        for w in warnings {
            let _ = writeln!(out, "<li>{w}</li>");
        }
        out.push_str("</ul>\n");
    }
    let notes: Vec<&ReportRow> = study
        .rows
        .iter()
        .filter(|r| !r.result.notes.is_empty())
        .collect();
    if !notes.is_empty() {
        out.push_str("<details><summary>What each configuration does differently</summary>\n<dl class=\"kv\">");
        for r in notes {
            let _ = write!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                esc(&r.result.config),
                esc(&r.result.notes)
            );
        }
        out.push_str("</dl></details>\n");
    }
}

/// Differential flame graphs `serprof compare` wrote into this run folder.
fn diffs_section(out: &mut String, data: &RunData) {
    if data.diffs.is_empty() {
        return;
    }
    out.push_str("<section id=\"comparisons\">\n<h2>Comparisons</h2>\n<p class=\"muted\">Differential flame graphs written by <code>serprof compare</code>: the shape is the after profile's, red where a function grew, blue where it shrank.</p>\n<ul>\n");
    for d in &data.diffs {
        let _ = writeln!(out, "<li><a href=\"{}\">{}</a></li>", esc(&href(d)), esc(d));
    }
    out.push_str("</ul>\n</section>\n");
}
