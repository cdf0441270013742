//! The page around `report.html`'s content: escaping, links, the stylesheet, the error
//! recorder, and the run's manifest (versions, machine, settings, sampling rates, warnings).
//!
//! Everything is inline: the report must open from a copied folder, offline, with no request
//! leaving the page (its Content-Security-Policy forbids any).

use std::fmt::Write;

use crate::model::{Machine, RunManifest};
use crate::render::report_data::RunData;
use crate::render::table::{format_ns, format_thousands};

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative link to `rel` (a `/`-separated path inside the run folder), percent-encoded
/// except for characters that are safe in a path (`+` of `postcard+bytes` stays readable).
pub(crate) fn href(rel: &str) -> String {
    let mut out = String::new();
    for b in rel.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/+".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Inline only: no request may leave the page. Scripts are the error recorder below.
pub(crate) const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/// Records script errors, failed loads, blocked requests and `console.error` calls into the
/// `data-errors` attribute of `<html>`; when the page has loaded, sets `data-loaded` and
/// `data-width` (the page's scroll width and the window's width, to show it fits). The
/// report needs no script itself; this is how a headless browser's DOM dump can prove that
/// the page rendered without errors (tests/report_chromium.rs).
pub(crate) const ERROR_RECORDER: &str = r#"<script>
(function () {
  var d = document.documentElement;
  function note(m) { d.setAttribute('data-errors', (d.getAttribute('data-errors') || '') + m + '\n'); }
  window.addEventListener('error', function (e) {
    var t = e.target;
    note(e.message || ('failed to load ' + ((t && (t.src || t.href)) || 'a resource')));
  }, true);
  window.addEventListener('unhandledrejection', function (e) { note('unhandled rejection: ' + e.reason); });
  document.addEventListener('securitypolicyviolation', function (e) { note('blocked by CSP: ' + e.blockedURI); });
  var original = console.error;
  console.error = function () { note(Array.prototype.join.call(arguments, ' ')); return original.apply(console, arguments); };
  window.addEventListener('load', function () {
    d.setAttribute('data-width', d.scrollWidth + ' ' + window.innerWidth);
    d.setAttribute('data-loaded', '1');
  });
})();
</script>"#;

/// The stylesheet: readable at phone width (tables scroll sideways with the configuration
/// column kept in view; charts shrink to the column).
pub(crate) const CSS: &str = r#"
:root { --fg: #1d1d1f; --muted: #686870; --line: #e2e3e8; --panel: #f5f6f8; --accent: #2f5d8a;
  --bad: #b3261e; --warn: #8a5a00; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--fg); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 18px 20px 40px; }
a { color: var(--accent); }
h1 { font-size: 1.65rem; margin: .1em 0 .1em; letter-spacing: -.01em; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 .2rem; padding-top: .8rem; border-top: 2px solid var(--line); }
h3 { font-size: 1rem; margin: 1.4rem 0 .4rem; }
p { margin: .3rem 0 .6rem; }
.muted { color: var(--muted); }
.small { font-size: .85rem; }
code { font: .85em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--panel);
  padding: .05em .3em; border-radius: 3px; overflow-wrap: anywhere; }
.badges { margin: .5rem 0; }
.badge { display: inline-block; padding: .1em .65em; border-radius: 999px; background: var(--panel);
  margin: 0 .25em .35em 0; font-size: .85rem; white-space: nowrap; }
.badge.ok { background: #e2f3e6; color: #1e6b34; }
.badge.bad { background: #fde7e6; color: var(--bad); }
.badge.warn { background: #fff3d6; color: var(--warn); }
nav.toc { background: var(--panel); border-radius: 6px; padding: .5rem .9rem; margin: .8rem 0; }
nav.toc ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .2rem 1.2rem; }
.table-wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; border: 1px solid var(--line);
  border-radius: 6px; margin: .6rem 0; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; font-variant-numeric: tabular-nums; }
th, td { padding: .4rem .65rem; border-bottom: 1px solid var(--line); text-align: right;
  white-space: nowrap; vertical-align: top; }
tr:last-child > * { border-bottom: 0; }
thead th { background: var(--panel); font-weight: 600; font-size: .8rem; color: #444; }
th.name, td.text { text-align: left; }
tbody th.name { position: sticky; left: 0; background: #fff; font-weight: 600; z-index: 1;
  box-shadow: 1px 0 0 var(--line); }
thead th.name { position: sticky; left: 0; z-index: 2; box-shadow: 1px 0 0 var(--line); }
th.name .sub { display: block; font-weight: 400; font-size: .78rem; color: var(--muted); }
tr.group th { background: #fafbfc; text-align: left; font-size: .75rem; letter-spacing: .06em;
  text-transform: uppercase; color: var(--muted); }
td.text { white-space: normal; min-width: 12rem; }
td.text code { overflow-wrap: normal; white-space: nowrap; }
td.error { color: var(--bad); text-align: left; white-space: normal; min-width: 16rem; }
td.fastest { font-weight: 700; }
th.name .sub a { font-weight: 400; }
th.name .cfg { white-space: nowrap; }
.swatch { display: inline-block; width: .75em; height: .75em; border-radius: 2px; margin-right: .35em;
  vertical-align: -.05em; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 330px), 1fr));
  gap: .9rem; margin: 1rem 0; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: .55rem .6rem .3rem;
  min-width: 0; }
figcaption { font-weight: 600; font-size: .9rem; margin-bottom: .25rem; }
p.legend { margin: 1rem 0 -.4rem; }
p.legend .key { white-space: nowrap; margin-left: .6em; }
svg.chart { display: block; width: 100%; height: auto; max-width: 100%; }
ul.findings, ul.steps { padding-left: 1.1rem; }
ul.steps li { margin: .2rem 0; }
.bad { color: var(--bad); }
ul.findings li { margin: .25rem 0; overflow-wrap: anywhere; }
ul.warnings { padding-left: 1.1rem; color: var(--warn); font-size: .88rem; }
details { margin: .6rem 0; }
summary { cursor: pointer; font-weight: 600; font-size: .92rem; }
ul.settings { list-style: none; padding: 0; margin: .4rem 0; columns: 15rem; column-gap: 1.5rem; }
ul.settings li { margin: .1rem 0; break-inside: avoid; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1.2rem; margin: .5rem 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
footer { margin-top: 2.5rem; font-size: .82rem; color: var(--muted); }
@media (max-width: 640px) {
  body { font-size: 14px; }
  main { padding: 12px 12px 32px; }
  h1 { font-size: 1.35rem; }
  h2 { font-size: 1.15rem; }
  dl.kv { grid-template-columns: 1fr; gap: 0; }
  tbody th.name { white-space: normal; min-width: 8.5rem; max-width: 10.5rem; }
  dl.kv dd { margin-bottom: .45rem; }
}
"#;

/// `<dl>` of label/value pairs; values are HTML already.
fn kv(out: &mut String, pairs: &[(&str, String)]) {
    out.push_str("<dl class=\"kv\">");
    for (k, v) in pairs {
        let _ = write!(out, "<dt>{}</dt><dd>{v}</dd>", esc(k));
    }
    out.push_str("</dl>\n");
}

/// The effective CPU sampling rates of the run: `118–145 Hz (requested 199 Hz)`.
pub(crate) fn sampling_summary(data: &RunData) -> Option<String> {
    let cpus: Vec<_> = data
        .studies
        .iter()
        .flat_map(|s| &s.rows)
        .filter_map(|r| r.result.cpu.as_ref())
        .collect();
    let lo = cpus
        .iter()
        .map(|c| c.effective_hz)
        .fold(f64::INFINITY, f64::min);
    let hi = cpus.iter().map(|c| c.effective_hz).fold(0.0, f64::max);
    let requested = cpus.first()?.requested_hz;
    let range = if (hi - lo).abs() < 0.5 {
        format!("{hi:.0} Hz")
    } else {
        format!("{lo:.0}–{hi:.0} Hz")
    };
    Some(format!("{range} (requested {requested:.0} Hz)"))
}

/// The run's manifest: how to trust and reproduce the figures above.
pub(crate) fn manifest_section(out: &mut String, data: &RunData) {
    out.push_str("<section id=\"manifest\">\n<h2>Run manifest</h2>\n");
    out.push_str(
        "<p class=\"muted\">What these figures were measured with, from <a href=\"run.json\">run.json</a>.</p>\n",
    );
    manifest_facts(out, data);
    settings_list(out, &data.manifest);
    sampling_table(out, data);
    warnings_and_failures(out, data);
    out.push_str("</section>\n");
}

/// Versions, machine, times, completeness and command line of the run.
fn manifest_facts(out: &mut String, data: &RunData) {
    let m = &data.manifest;
    kv(
        out,
        &[
            ("run", format!("<code>{}</code>", esc(&data.run_id))),
            (
                "serprof",
                format!("{} (git {})", esc(&m.serprof_version), esc(&m.git_rev)),
            ),
            ("compiler", esc(&m.rustc)),
            (
                "engines",
                m.engines
                    .iter()
                    .map(|e| format!("{} {}", esc(&e.engine), esc(&e.version)))
                    .collect::<Vec<_>>()
                    .join(" · "),
            ),
            ("machine", machine_text(&m.machine)),
            (
                "build",
                m.binary.as_ref().map_or("not recorded".into(), |b| {
                    format!(
                        "target features: {}",
                        esc(&b.build.target_features.join(", "))
                    )
                }),
            ),
            (
                "time (UTC)",
                format!(
                    "{} → {}",
                    esc(&m.start),
                    esc(m.end.as_deref().unwrap_or("not finished"))
                ),
            ),
            (
                "complete",
                if m.complete {
                    "yes: every selected configuration finished".into()
                } else {
                    "no: the run was interrupted (finish it with <code>serprof run --resume</code>)"
                        .into()
                },
            ),
            (
                "command",
                format!("<code>{}</code>", esc(&m.command.join(" "))),
            ),
            ("buffer policy", esc(&m.buffer_policy)),
        ],
    );
}

/// `8 × model · os arch · kernel … · host …`.
fn machine_text(machine: &Machine) -> String {
    format!(
        "{} × {} · {} {} · kernel {} · host {}",
        machine.cpus,
        esc(&machine.cpu_model),
        esc(&machine.os),
        esc(&machine.arch),
        esc(&machine.kernel),
        esc(&machine.hostname)
    )
}

/// Every field of the run's settings, as `run.json` writes it.
fn settings_list(out: &mut String, m: &RunManifest) {
    out.push_str("<h3>Settings</h3>\n<ul class=\"settings\">");
    let settings = serde_json::to_value(&m.settings).unwrap_or_default();
    for (k, v) in settings.as_object().into_iter().flatten() {
        let _ = write!(
            out,
            "<li><span class=\"muted\">{}</span> <code>{}</code></li>",
            esc(k),
            esc(&v.to_string())
        );
    }
    out.push_str("</ul>\n");
}

/// The run's failures and the warnings not about a single configuration, with a count of
/// those that are (listed under their studies).
fn warnings_and_failures(out: &mut String, data: &RunData) {
    let m = &data.manifest;
    // Warnings of a configuration are listed under its study; here go the rest.
    let per_config: Vec<String> = data
        .studies
        .iter()
        .flat_map(|s| &s.rows)
        .flat_map(|r| {
            r.result
                .warnings
                .iter()
                .map(|w| format!("{}: {w}", r.result.name()))
        })
        .collect();
    let run_level: Vec<&String> = m
        .warnings
        .iter()
        .filter(|w| !per_config.contains(w))
        .collect();
    out.push_str("<h3>Warnings and failures</h3>\n<ul class=\"warnings\">\n");
    for f in &m.failed {
        let _ = writeln!(out, "<li>failed: {}</li>", esc(&f.to_string()));
    }
    for w in &run_level {
        let _ = writeln!(out, "<li>{}</li>", esc(w));
    }
    if !per_config.is_empty() {
        let _ = writeln!(
            out,
            "<li>{} warning{} about single configurations, listed under their studies above.</li>",
            per_config.len(),
            if per_config.len() == 1 { "" } else { "s" }
        );
    }
    if m.failed.is_empty() && run_level.is_empty() && per_config.is_empty() {
        out.push_str("<li class=\"muted\">None.</li>\n");
    }
    out.push_str("</ul>\n");
}

/// Requested and effective sampling rate per configuration, and what sampling cost.
fn sampling_table(out: &mut String, data: &RunData) {
    let rows: Vec<_> = data
        .studies
        .iter()
        .flat_map(|s| &s.rows)
        .filter_map(|r| Some((r.result.name(), r.result.cpu.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<h3>CPU sampling</h3>\n<p class=\"muted small\">The effective rate is samples per CPU-second of the sampled batches, what each profile really got; overhead is the median of the ratios of sampled to unsampled batches interleaved in the same process (S U, U S, ...).</p>\n");
    out.push_str("<div class=\"table-wrap\"><table><thead><tr><th class=\"name\">configuration</th><th>samples</th><th>requested</th><th>effective</th><th>CPU time</th><th>time/op sampled</th><th>overhead</th></tr></thead><tbody>\n");
    for (name, c) in rows {
        let overhead = c
            .overhead_ratio
            .map(|r| format!("{r:.2}×"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "<tr><th class=\"name\">{}</th><td>{}</td><td>{:.0} Hz</td><td>{:.0} Hz</td><td>{:.2} s</td><td>{}</td><td>{overhead}</td></tr>",
            esc(&name),
            format_thousands(c.samples as f64, 0),
            c.requested_hz,
            c.effective_hz,
            c.seconds,
            format_ns(c.median_ns_under_sampling),
        );
    }
    out.push_str("</tbody></table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_encodes_links() {
        assert_eq!(
            esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            href("formats/postcard+bytes/cpu.svg"),
            "formats/postcard+bytes/cpu.svg"
        );
        assert_eq!(href("a b/#?\"<.svg"), "a%20b/%23%3F%22%3C.svg");
    }
}
