//! Bytes by field and the findings about them, under a study's text table: each engine's
//! largest field (its share of the payload, and its type's share of each operation's CPU
//! samples where the profile names the type), the engines without a split, and the findings
//! of verification and of the profile, byte arrays grouped by field. The report's section of
//! the same is `render::report_fields`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serprof_api::__private::FieldBytes;
use serprof_api::__private::Finding;

use crate::analyze::findings::{large_field_remedy, remedies};
use crate::model::diagnosis::DiagnosisKind;
use crate::model::ConfigResult;

/// The kinds this section writes from verification's findings, grouped by field.
const SPLIT_KINDS: [DiagnosisKind; 3] = [
    DiagnosisKind::ElementByElement,
    DiagnosisKind::LargeField,
    DiagnosisKind::LargeType,
];

/// A configuration's name without its operation (`serde_json` for `serde_json.serialize`):
/// every operation of an engine has the same payloads, so the same split.
pub(crate) fn engine_name(r: &ConfigResult) -> &str {
    r.config
        .strip_suffix(r.operation.as_str())
        .and_then(|s| s.strip_suffix('.'))
        .unwrap_or(&r.config)
}

/// The first row of each engine ([`engine_name`]).
pub(crate) fn one_per_engine<'a>(rows: &[&'a ConfigResult]) -> Vec<&'a ConfigResult> {
    let mut seen = std::collections::BTreeSet::new();
    rows.iter()
        .copied()
        .filter(|r| seen.insert(engine_name(r)))
        .collect()
}

/// A configuration's largest field (the root, which holds only framing, left out).
pub(crate) fn largest(r: &ConfigResult) -> Option<&FieldBytes> {
    r.fields
        .iter()
        .skip(1)
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
}

/// The share of the CPU samples in `field`'s type's code, as a percentage, where the profile
/// names the type.
pub(crate) fn time_percent(r: &ConfigResult, field: &FieldBytes) -> Option<f64> {
    let types = &r.profile.as_ref()?.types;
    types
        .iter()
        .find(|s| !field.rust_type.is_empty() && s.function == field.rust_type)
        .map(|s| s.percent)
}

/// The rows of `r`'s engine (every operation of it).
fn same_engine<'a>(rows: &[&'a ConfigResult], r: &ConfigResult) -> Vec<&'a ConfigResult> {
    rows.iter()
        .copied()
        .filter(|o| engine_name(o) == engine_name(r))
        .collect()
}

/// `86.6% of deserialize time`, for each operation of `r`'s engine whose profile names the
/// type of `f`.
pub(crate) fn time_text(
    rows: &[&ConfigResult],
    r: &ConfigResult,
    f: &FieldBytes,
) -> Option<String> {
    let parts: Vec<String> = same_engine(rows, r)
        .into_iter()
        .filter_map(|o| time_percent(o, f).map(|t| format!("{t:.1}% of {} time", o.operation)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// One field's cell: `55.1% of bytes (ByteArray: 71.0% of roundtrip time)`.
fn cell(rows: &[&ConfigResult], r: &ConfigResult, f: &FieldBytes) -> String {
    let mut s = format!("{:.1}% of bytes", f.share * 100.0);
    match (time_text(rows, r, f), f.rust_type.is_empty()) {
        (Some(t), _) => {
            let _ = write!(s, " ({}: {t})", f.rust_type);
        }
        (None, false) => {
            let _ = write!(s, " ({})", f.rust_type);
        }
        (None, true) => {}
    }
    s
}

/// The text section under a study's table: each engine's largest field, then the findings.
pub(crate) fn text_section(out: &mut String, rows: &[&ConfigResult]) {
    let engines = one_per_engine(rows);
    let largest: Vec<(&ConfigResult, &FieldBytes)> = engines
        .iter()
        .filter_map(|r| largest(r).map(|f| (*r, f)))
        .collect();
    if !largest.is_empty() {
        let _ = writeln!(
            out,
            "  bytes by field (each engine's largest field, its own bytes' share of the payload; time: its type's share of each operation's CPU samples, where the profile names the type):"
        );
        let width = largest
            .iter()
            .map(|(r, _)| engine_name(r).len())
            .max()
            .unwrap_or(0);
        for (r, f) in &largest {
            let _ = writeln!(
                out,
                "    {:<width$}  {}  {}",
                engine_name(r),
                f.path,
                cell(rows, r, f)
            );
        }
        // The engines without a split, grouped by their reason.
        let mut unsplit: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for r in engines
            .iter()
            .filter(|r| r.fields.is_empty() && r.error.is_none())
        {
            if let Some(n) = &r.fields_note {
                unsplit.entry(n).or_default().push(engine_name(r));
            }
        }
        for (note, names) in unsplit {
            let _ = writeln!(out, "    {}: {note}", names.join(", "));
        }
    }
    for line in finding_lines(rows) {
        let _ = writeln!(out, "  {line}");
    }
}

/// The findings of a study's rows as lines: a byte array written element by element once per
/// field, with the engines that do it (their share of the bytes, and of each operation's
/// time); every other finding once per engine.
pub(crate) fn finding_lines(rows: &[&ConfigResult]) -> Vec<String> {
    let mut arrays: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    let mut large: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut lines = Vec::new();
    for r in one_per_engine(rows) {
        for f in &r.findings {
            match f {
                Finding::ElementByElement {
                    path,
                    rust_type,
                    share,
                    remedy,
                    ..
                } => {
                    let mut at = format!("{} {:.1}% of bytes", engine_name(r), share * 100.0);
                    for o in same_engine(rows, r) {
                        let time = o.findings.iter().find_map(|g| match g {
                            Finding::ElementByElement {
                                path: p,
                                profile_share: Some(t),
                                ..
                            } if p == path => Some(*t),
                            _ => None,
                        });
                        if let Some(t) = time {
                            let _ = write!(at, ", {:.1}% of {} time", t * 100.0, o.operation);
                        }
                    }
                    arrays
                        .entry((path.clone(), rust_type.clone(), remedy.clone()))
                        .or_default()
                        .push(at);
                }
                Finding::LargeField { path, share } => large
                    .entry((path.clone(), large_field_remedy(r, path)))
                    .or_default()
                    .push(format!("{} {:.1}%", engine_name(r), share * 100.0)),
                Finding::LargeType { .. } => {}
                f if f.changes_numbers() => {}
                f => lines.push(format!("{}: {f}", engine_name(r))),
            }
        }
        // A profile's own findings (a type that holds most of the samples), per operation.
        for o in same_engine(rows, r) {
            for f in &o.findings {
                if let Finding::LargeType { rust_type, .. } = f {
                    lines.push(format!(
                        "{}: {f}; remedy: {}",
                        o.config,
                        remedies::large_type(rust_type)
                    ));
                }
            }
            // The findings that name a fix, other than the three above: one line each.
            for d in o
                .diagnoses
                .iter()
                .filter(|d| !SPLIT_KINDS.contains(&d.kind))
            {
                lines.push(format!("{}: {}", o.config, d.line()));
            }
        }
    }
    let mut out: Vec<String> = arrays
        .into_iter()
        .map(|((path, ty, remedy), at)| {
            let ty = if ty.is_empty() {
                String::new()
            } else {
                format!(" ({ty})")
            };
            format!(
                "{path}{ty} is written element by element in {}; remedy: {remedy}",
                at.join("; ")
            )
        })
        .collect();
    out.extend(large.into_iter().map(|((path, remedy), at)| {
        format!(
            "{path} takes more of the payload than the rest of the value together in {}; remedy: {remedy}",
            at.join(", ")
        )
    }));
    out.extend(lines);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{ProfileSummary, Share};

    fn field(path: &str, bytes: f64, share: f64, ty: &str) -> FieldBytes {
        FieldBytes {
            path: path.into(),
            bytes,
            share,
            rust_type: ty.into(),
            names: 0.0,
        }
    }

    pub(crate) fn row(config: &str) -> ConfigResult {
        let mut r: ConfigResult = serde_json::from_value(serde_json::json!({
            "study": "s", "config": config, "engine": "e", "engine_version": "1",
            "format": "json", "operation": "roundtrip", "dataset": "d", "notes": "",
            "engine_frames": "e", "verified": true, "payload_bytes": 100.0
        }))
        .unwrap();
        r.fields = vec![
            field("Reading", 2.0, 0.02, "Reading"),
            field("Reading.raw", 60.0, 0.6, "Vec<u8>"),
            field("Reading.tags", 38.0, 0.38, "Vec<String>"),
        ];
        r.findings = vec![Finding::ElementByElement {
            path: "Reading.raw".into(),
            rust_type: "Vec<u8>".into(),
            share: 0.6,
            bytes: 60.0,
            remedy: "base64".into(),
            profile_share: Some(0.5),
        }];
        r
    }

    #[test]
    fn the_largest_field_leaves_out_the_root_and_names_its_time() {
        let mut r = row("a");
        assert_eq!(largest(&r).unwrap().path, "Reading.raw");
        assert_eq!(time_percent(&r, largest(&r).unwrap()), None);
        r.profile = Some(ProfileSummary {
            top_self: None,
            top_engine: Vec::new(),
            match_regex: None,
            match_percent: None,
            finding: String::new(),
            types: vec![Share {
                function: "Vec<u8>".into(),
                percent: 41.0,
            }],
        });
        let mut out = String::new();
        text_section(&mut out, &[&r, &row("b")]);
        assert!(
            out.contains("a  Reading.raw  60.0% of bytes (Vec<u8>: 41.0% of roundtrip time)"),
            "{out}"
        );
        assert!(
            out.contains("Reading.raw (Vec<u8>) is written element by element in a 60.0% of bytes, 50.0% of roundtrip time; b 60.0% of bytes, 50.0% of roundtrip time; remedy: base64"),
            "{out}"
        );
    }
}
