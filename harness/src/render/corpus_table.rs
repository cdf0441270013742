//! The corpus study's part of `report.html`: a section per document, with its parse,
//! serialize and round-trip tables in MB/s and time per operation (the text tables are in
//! [`crate::render::table`], which says how MB/s is counted).

use std::fmt::Write;

use crate::model::ConfigResult;
use crate::render::report_page::esc;
use crate::render::table::{
    by_document, mark, mbps, median_text, operation_tables, payload_text, variant, COPY_NOTE,
};

/// The HTML sections, per document.
pub(crate) fn write_html(out: &mut String, results: &[&ConfigResult]) {
    for (name, rs) in by_document(results) {
        let d = rs[0].document.as_ref().expect("grouped by document");
        let _ = writeln!(
            out,
            "<h3 id=\"document-{}\">Document <code>{}</code></h3>\n<p class=\"muted\">{} · {} bytes · SHA-256 <code>{}</code>. MB/s counts the document's JSON bytes for every operation; <b>*</b>: the engine changes numbers (see its findings); <b>†</b>: {}.</p>",
            esc(&name),
            esc(&name),
            esc(&d.path.display().to_string()),
            d.bytes,
            esc(&d.sha256),
            COPY_NOTE
        );
        out.push_str("<div class=\"corpus-tables\">\n");
        for (op, rows) in operation_tables(&rs) {
            let _ = writeln!(
                out,
                "<table>\n<caption>{}</caption>\n<tr><th>engine</th><th>time/op</th><th>MB/s</th><th>payload B</th></tr>",
                op.as_str()
            );
            for r in rows {
                if let Some(e) = &r.error {
                    let _ = writeln!(
                        out,
                        "<tr><td>{}</td><td colspan=\"3\">failed: {}</td></tr>",
                        esc(variant(r)),
                        esc(&e.to_string())
                    );
                    continue;
                }
                let time = median_text(r);
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td class=\"num\">{}{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    esc(variant(r)),
                    esc(&time),
                    mark(r),
                    mbps(r),
                    payload_text(r)
                );
            }
            out.push_str("</table>\n");
        }
        out.push_str("</div>\n");
        let mut findings: Vec<String> = rs
            .iter()
            .flat_map(|r| r.findings.iter().map(|f| format!("{}: {f}", variant(r))))
            .collect();
        findings.sort();
        if !findings.is_empty() {
            out.push_str("<ul class=\"findings\">\n");
            for f in findings {
                let _ = writeln!(out, "<li>{}</li>", esc(&f));
            }
            out.push_str("</ul>\n");
        }
    }
}
