//! `serprof ab CONFIG_A CONFIG_B [--rounds N] [--processes P]`: lock-step A/B timing, for
//! changes of a few percent on a noisy 2-core machine. The measurement is
//! [`crate::run::ab`]'s (which says how it times and what its folder holds); this reads the
//! request and prints the table or the JSON.

use std::process::ExitCode;

use anyhow::Result;

use crate::layout;
use crate::model::ab::AbRecord;
use crate::model::{ConfigResult, Program};
use crate::render::table::format_ns;
use crate::run::ab::{measure, AbOutcome, AbRequest};

pub(crate) use crate::run::ab::DEFAULT_PROCESSES;

/// Measures `req` and prints its table (or, with `json`, its figures as JSON).
pub(crate) fn run(program: &Program, req: &AbRequest, json: bool) -> Result<ExitCode> {
    let AbOutcome {
        dir,
        record,
        a,
        b,
        within_noise,
    } = measure(program, req)?;
    let median_of = |r: &ConfigResult| r.time_ns.as_ref().map_or(f64::NAN, |t| t.median);
    let doc = serde_json::json!({
        "ab_dir": dir,
        "a": record.a,
        "b": record.b,
        "a_ns": median_of(&a),
        "b_ns": median_of(&b),
        "ratio": record.ratio,
        "ci95": record.ci95,
        "coverage": record.coverage,
        "within_noise": within_noise,
        "process_ratios": record.process_ratios,
        "pooled_ci95": record.pooled_ci95,
        "method": record.method,
        "clock": record.clock,
        "wall_ratio": record.wall_ratio,
        "wall_ci95": record.wall_ci95,
        "processes": record.processes,
        "rounds": record.rounds,
        "seconds": record.seconds,
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&record, [&a, &b]));
    }
    let [side_a_dir, side_b_dir] = layout::AB_SIDES;
    eprintln!("ab folder: {}", dir.display());
    eprintln!(
        "compare it: serprof compare {} {}",
        dir.join(side_a_dir).display(),
        dir.join(side_b_dir).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The human table of an A/B run.
fn render(r: &AbRecord, sides: [&ConfigResult; 2]) -> String {
    let mut s = format!(
        "ab: {} lock-step children x {} rounds in {:.1} s (samples of ~{} ms, alternating order{})\n",
        r.processes,
        r.rounds / r.processes.max(1),
        r.seconds,
        r.batch_ms,
        r.pinned_cpu.map_or(String::new(), |c| format!(", CPU {c}"))
    );
    for (letter, side) in ['A', 'B'].into_iter().zip(sides) {
        let t = side.time_ns.as_ref();
        s.push_str(&format!(
            "  {letter}  {:<34} {:>10} CPU time per op (median of {} children)\n",
            side.name(),
            format_ns(t.map_or(f64::NAN, |t| t.median)),
            t.map_or(0, |t| t.processes.len())
        ));
    }
    let within = r.ci95[0] <= 1.0 && 1.0 <= r.ci95[1];
    s.push_str(&format!(
        "  B/A  {:.4}  95% CI [{:.4}, {:.4}] ({:.1}% coverage, across children)  ({:+.2}%){}\n  child ratios: {}\n  pooled rounds' interval (too narrow: one child's samples share its layout): [{:.4}, {:.4}]\n  wall-clock B/A {:.4} [{:.4}, {:.4}] (includes waiting for a core)\n  method: {}; clock: {}\n",
        r.ratio,
        r.ci95[0],
        r.ci95[1],
        100.0 * r.coverage,
        100.0 * (r.ratio - 1.0),
        if within { "  within noise" } else { "" },
        r.process_ratios.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>().join(" "),
        r.pooled_ci95[0],
        r.pooled_ci95[1],
        r.wall_ratio,
        r.wall_ci95[0],
        r.wall_ci95[1],
        r.method,
        r.clock
    ));
    s
}
