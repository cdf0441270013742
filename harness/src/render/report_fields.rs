//! The report's "Bytes by field" of a study: the largest fields of every engine side by side,
//! with their types' shares of the time, and the findings (`render::fields` has the text).

use std::fmt::Write as _;

use serprof_api::__private::FieldBytes;

use super::fields::{engine_name, finding_lines, one_per_engine, time_text};
use super::report_page::esc;
use crate::model::ConfigResult;

/// The report's section of a study: the largest fields of every engine side by side (the
/// union of each configuration's five largest, rows ordered by their largest share), and the
/// findings.
pub(crate) fn html_section(out: &mut String, rows: &[&ConfigResult]) {
    let split: Vec<&ConfigResult> = one_per_engine(rows)
        .into_iter()
        .filter(|r| !r.fields.is_empty())
        .collect();
    let lines = finding_lines(rows);
    if split.is_empty() && lines.is_empty() {
        return;
    }
    out.push_str("<h3>Bytes by field</h3>\n");
    if !split.is_empty() {
        let mut paths: Vec<(String, f64)> = Vec::new();
        for r in &split {
            let mut top: Vec<&FieldBytes> = r.fields.iter().skip(1).collect();
            top.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
            for f in top.into_iter().take(5) {
                match paths.iter_mut().find(|(p, _)| *p == f.path) {
                    Some((_, s)) => *s = s.max(f.share),
                    None => paths.push((f.path.clone(), f.share)),
                }
            }
        }
        paths.sort_by(|a, b| b.1.total_cmp(&a.1));
        out.push_str("<p class=\"muted small\">Each path's own bytes (its key, framing and leaf values) as a share of each configuration's payload, from <code>result.json</code> <code>fields</code>; under it, the share of the CPU samples in the code of its type, where the profile names it (<code>hotspots --by type</code>).</p>\n<div class=\"table-wrap\"><table><thead><tr><th class=\"name\">field</th>");
        for r in &split {
            let _ = write!(out, "<th>{}</th>", esc(engine_name(r)));
        }
        out.push_str("</tr></thead><tbody>\n");
        for (path, _) in &paths {
            let _ = write!(
                out,
                "<tr><th class=\"name\"><code>{}</code></th>",
                esc(path)
            );
            for r in &split {
                match r.fields.iter().find(|f| &f.path == path) {
                    Some(f) => {
                        let time = time_text(rows, r, f)
                            .map(|t| format!("<br><span class=\"muted\">{}</span>", esc(&t)))
                            .unwrap_or_default();
                        let _ = write!(out, "<td>{:.1}%{time}</td>", f.share * 100.0);
                    }
                    None => out.push_str("<td>-</td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
    }
    if !lines.is_empty() {
        out.push_str("<ul class=\"findings\">\n");
        for l in lines {
            let _ = writeln!(out, "<li>{}</li>", esc(&l));
        }
        out.push_str("</ul>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fields::tests::row;

    #[test]
    fn the_report_puts_every_engines_fields_side_by_side() {
        let (a, b) = (row("a"), row("b"));
        let mut out = String::new();
        html_section(&mut out, &[&a, &b]);
        assert!(out.contains("<th>a</th><th>b</th>"), "{out}");
        let raw = out.find("<code>Reading.raw</code>").unwrap();
        let tags = out.find("<code>Reading.tags</code>").unwrap();
        assert!(raw < tags, "largest first");
        assert!(!out.contains("<code>Reading</code>"), "the root is framing");
    }
}
