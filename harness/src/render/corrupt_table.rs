//! The `corrupt` study's table: outcome counts per engine, then one line per misbehaving engine
//! with its crate version, first case and reproducer.

use std::fmt::Write;

use crate::model::corrupt::CorruptOutcome;
use crate::model::ConfigResult;

/// The table of the results of the corrupt study `study` in `results`.
pub fn render_table(study: &str, results: &[ConfigResult]) -> String {
    let rows: Vec<&ConfigResult> = results.iter().filter(|r| r.study == study).collect();
    let Some(stats) = rows.iter().find_map(|r| r.corrupt.as_ref()) else {
        return failures_only(&rows);
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ncorrupt: decode of {} damaged payloads per engine (seed {}, {} ms per input, {} MiB memory cap)",
        stats.inputs, stats.seed, stats.per_input_cap_ms, stats.memory_cap_mib
    );
    let _ = writeln!(
        out,
        "{:<22} {:<20} {:>7} {:>7} {:>9} {:>5} {:>5} {:>4} {:>4} {:>7}",
        "configuration",
        "engine",
        "clean",
        "altered",
        "unchanged",
        "panic",
        "abort",
        "hang",
        "oom",
        "skipped"
    );
    let mut findings = Vec::new();
    for r in &rows {
        let Some(c) = &r.corrupt else {
            let why = r
                .error
                .as_ref()
                .map_or("no outcome".to_string(), ToString::to_string);
            let _ = writeln!(out, "{:<22} FAILED: {why}", r.config);
            continue;
        };
        let n = c.counts;
        let _ = writeln!(
            out,
            "{:<22} {:<20} {:>7} {:>7} {:>9} {:>5} {:>5} {:>4} {:>4} {:>7}",
            r.config,
            format!("{} {}", r.engine, r.engine_version),
            n.clean_error,
            n.altered,
            n.unchanged,
            n.panic,
            n.abort,
            n.hang,
            n.oom,
            c.skipped
        );
        if n.misbehaviours() > 0 {
            let first = c.cases.iter().find(|k| k.outcome.is_misbehaviour());
            let kinds: Vec<String> = CorruptOutcome::ALL
                .iter()
                .filter(|o| o.is_misbehaviour() && n.get(**o) > 0)
                .map(|o| format!("{} {}", n.get(*o), o.as_str()))
                .collect();
            let mut line = format!(
                "  {} {} ({}): {}",
                r.engine,
                r.engine_version,
                r.config,
                kinds.join(", ")
            );
            if let Some(k) = first {
                let _ = write!(
                    line,
                    "; first: input {} ({}: {}): {}",
                    k.index, k.mutation, k.what, k.detail
                );
                if let Some(repro) = &k.repro {
                    let _ = write!(line, " [{}/{}/{repro}]", r.study, r.config);
                }
            }
            findings.push(line);
        }
    }
    if findings.is_empty() {
        let _ = writeln!(
            out,
            "every engine returned an error or a value for every input"
        );
    } else {
        let _ = writeln!(out, "misbehaving engines (reproducers in the run folder):");
        for f in findings {
            let _ = writeln!(out, "{f}");
        }
    }
    out
}

/// When no configuration got as far as outcomes: their errors.
fn failures_only(rows: &[&ConfigResult]) -> String {
    let mut out = String::new();
    if !rows.is_empty() {
        let _ = writeln!(out, "\ncorrupt: no outcomes");
    }
    for r in rows {
        let why = r
            .error
            .as_ref()
            .map_or("no outcome".to_string(), ToString::to_string);
        let _ = writeln!(out, "{:<22} FAILED: {why}", r.config);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::corrupt::{CorruptCase, CorruptStats, OutcomeCounts};

    fn result(config: &str, counts: OutcomeCounts, cases: Vec<CorruptCase>) -> ConfigResult {
        let info = crate::model::program::builtin()
            .find(&format!("corrupt/{config}"))
            .unwrap();
        let mut r = ConfigResult::of(&info);
        r.corrupt = Some(CorruptStats {
            seed: "0x1".into(),
            inputs: counts.total(),
            skipped: 0,
            per_input_cap_ms: 2000,
            memory_cap_mib: 1024,
            children: 1,
            counts,
            by_mutation: Default::default(),
            cases,
        });
        r
    }

    #[test]
    fn the_table_has_a_row_per_engine_and_names_misbehaviour_with_its_version() {
        let clean = OutcomeCounts {
            clean_error: 90,
            altered: 10,
            ..Default::default()
        };
        let bad = OutcomeCounts {
            clean_error: 97,
            oom: 3,
            ..Default::default()
        };
        let case = CorruptCase {
            index: 7,
            order: 1,
            mutation: "length-inflate".into(),
            what: "byte 3".into(),
            outcome: CorruptOutcome::Oom,
            detail: "out of memory".into(),
            repro: Some("repro/oom-7.bin".into()),
        };
        let text = render_table(
            "corrupt",
            &[
                result("serde_json", clean, vec![]),
                result("fory", bad, vec![case]),
            ],
        );
        assert!(text.contains("decode of 100 damaged payloads"), "{text}");
        let row = text.lines().find(|l| l.starts_with("serde_json")).unwrap();
        assert!(row.contains(" 90 ") && row.contains(" 10 "), "{row}");
        assert!(
            text.contains("fory 1.7.7 (fory): 3 oom; first: input 7")
                && text.contains("[corrupt/fory/repro/oom-7.bin]"),
            "{text}"
        );
        assert_eq!(render_table("corrupt", &[]), "");
    }
}
