//! `serprof doctor [--json]`: what this machine lets a run measure, in about 15 s.
//!
//! - Per CPU: the speed of a fixed reference workload (`formats/serde_json`'s round trip),
//!   measured on this thread pinned to each CPU in turn, alternating.
//! - Between processes: the same workload in 16 short child processes pinned to the CPU a run
//!   would choose, one after another; consecutive processes make A/A pairs, and their ratios
//!   say how far two processes of identical code read apart.
//! - Load averages, the frequency governor and steal time (over the measurement), where the
//!   kernel shows them.
//!
//! From the A/A pair ratios it estimates a default run's ratio precision: a default run's ratio
//! interval is [3rd, 10th] of 12 pair ratios, whose half-width is about 0.79 standard
//! deviations of their logarithm (the expected 3rd and 10th of 12 normal values lie 0.79 of
//! them from the middle).

use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use serprof_api::__private::Config;

use crate::measure::reference;
use crate::model::stats::median;
use crate::model::Program;
use crate::process::{Guarded, Limits};
use crate::protocol::{ProbeReply, WorkerRequest};
use crate::render::table::format_ns;
use crate::run::placement;

/// Probe processes for the between-process spread.
const PROCESSES: usize = 16;
/// Batches per probe process.
const PROCESS_BATCHES: usize = 20;
/// Alternating passes over the CPUs in the per-CPU probe.
const CPU_PASSES: usize = 6;

#[derive(Debug, Serialize)]
struct CpuSpeed {
    cpu: usize,
    median_ns: f64,
    /// (max - min) / median of the passes' medians, in percent.
    spread_percent: f64,
}

#[derive(Debug, Serialize)]
struct Doctor {
    reference: &'static str,
    cpus: Vec<CpuSpeed>,
    /// The CPU `serprof run` would pin (the fastest).
    would_pin: Option<usize>,
    /// Per probe process: median ns per operation, pinned to `would_pin`.
    process_medians_ns: Vec<f64>,
    /// (max - min) / median of the process medians, in percent.
    process_spread_percent: f64,
    /// Ratios of consecutive processes (A/A pairs).
    aa_pair_ratios: Vec<f64>,
    /// Standard deviation of the pairs' log ratio, in percent.
    aa_sd_percent: f64,
    /// Expected half-width of a default run's ratio interval, in percent.
    expected_ratio_halfwidth_percent: f64,
    loadavg: [f64; 3],
    governor: Vec<String>,
    steal_percent: Option<f64>,
    seconds: f64,
    /// The target features this build was compiled for (every crate gets the same ones).
    target_features: Vec<String>,
    /// What the build lacks, one line each with the fix (no SIMD although the CPU has it, no
    /// frame pointers, no debug info).
    build_shortcomings: Vec<String>,
    advice: Vec<String>,
}

fn spread(values: &[f64]) -> f64 {
    let m = median(values);
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
            (l.min(x), h.max(x))
        });
    100.0 * (hi - lo) / m
}

fn probe_child(exe: &std::path::Path, cpu: Option<usize>) -> Result<f64> {
    let mut cmd = WorkerRequest::Probe {
        batches: PROCESS_BATCHES,
    }
    .command(exe);
    cmd.stdout(Stdio::piped());
    let child = Guarded::spawn(
        cmd,
        Limits {
            address_space: 0,
            cpu,
        },
    )?;
    let (ended, stdout) = child.wait_with_stdout(Duration::from_secs(60))?;
    if !ended.verdict.success() {
        anyhow::bail!(
            "a probe process {}{}",
            ended.verdict.describe(),
            ended.stderr.suffix()
        );
    }
    let reply: ProbeReply =
        serde_json::from_slice(&stdout).context("a probe process printed no figure")?;
    Ok(reply.median_ns)
}

pub(crate) fn run(program: &Program, json: bool) -> Result<ExitCode> {
    let started = Instant::now();
    let jiffies = placement::cpu_jiffies();
    eprintln!("serprof doctor: probing each CPU, then {PROCESSES} processes (about 15 s)");

    let speeds = cpu_speeds(&program.reference())?;
    let would_pin = speeds
        .iter()
        .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns))
        .map(|s| s.cpu);
    let medians = process_medians(would_pin)?;
    let pairs = aa_pairs(&medians);
    let sd = log_sd(&pairs);
    let health = placement::health();
    let steal = placement::steal_percent(jiffies, placement::cpu_jiffies());

    let mut doc = Doctor {
        reference: reference::REFERENCE,
        cpus: speeds,
        would_pin,
        process_spread_percent: spread(&medians),
        process_medians_ns: medians,
        aa_pair_ratios: pairs,
        aa_sd_percent: 100.0 * sd,
        expected_ratio_halfwidth_percent: 79.0 * sd,
        loadavg: health.loadavg,
        governor: health.governor,
        steal_percent: steal,
        seconds: 0.0,
        target_features: crate::model::BuildInfo::this().target_features,
        build_shortcomings: crate::model::BuildInfo::this().shortcomings(),
        advice: Vec::new(),
    };
    doc.advice = advice(&doc);
    doc.seconds = started.elapsed().as_secs_f64();
    if json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&doc));
    }
    Ok(ExitCode::SUCCESS)
}

/// The reference workload on this thread pinned to each CPU in turn: `CPU_PASSES` alternating
/// passes after one that warms up. CPUs this thread cannot be pinned to are left out.
fn cpu_speeds(reference_config: &Config) -> Result<Vec<CpuSpeed>> {
    let cpus = reference::allowed_cpus();
    let mut w = reference::build(reference_config)?;
    let mut per_cpu: Vec<Vec<f64>> = vec![Vec::new(); cpus.len()];
    for pass in 0..=CPU_PASSES {
        for (i, &cpu) in cpus.iter().enumerate() {
            if let Some(b) = reference::on_cpu(cpu, || reference::batches(w.as_mut(), 20)) {
                let b = b?;
                if pass > 0 {
                    per_cpu[i].push(median(&b));
                }
            }
        }
    }
    Ok(cpus
        .iter()
        .zip(&per_cpu)
        .filter(|(_, m)| !m.is_empty())
        .map(|(&cpu, m)| CpuSpeed {
            cpu,
            median_ns: median(m),
            spread_percent: spread(m),
        })
        .collect())
}

/// The median of each of `PROCESSES` probe processes, run one after another, pinned where a
/// run would pin (`cpu`).
fn process_medians(cpu: Option<usize>) -> Result<Vec<f64>> {
    let exe = std::env::current_exe().context("cannot find serprof's own executable")?;
    let mut medians = Vec::new();
    for _ in 0..PROCESSES {
        medians.push(probe_child(&exe, cpu)?);
    }
    Ok(medians)
}

/// Ratios of consecutive processes, as A/A pairs: the 2nd over the 1st, the 4th over the 3rd, ...
fn aa_pairs(medians: &[f64]) -> Vec<f64> {
    medians
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| c[1] / c[0])
        .collect()
}

/// The sample standard deviation of the ratios' logarithms.
fn log_sd(ratios: &[f64]) -> f64 {
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
    (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (logs.len().max(2) - 1) as f64).sqrt()
}

/// What the figures of `d` mean for a run: CPUs that differ, load, steal, and the precision
/// a default run can expect.
fn advice(d: &Doctor) -> Vec<String> {
    let mut advice = Vec::new();
    if d.cpus.len() > 1 {
        let fastest = d
            .cpus
            .iter()
            .map(|s| s.median_ns)
            .fold(f64::INFINITY, f64::min);
        let slowest = d.cpus.iter().map(|s| s.median_ns).fold(0.0, f64::max);
        if slowest / fastest > 1.05 {
            advice.push(format!(
                "the CPUs differ by {:.0}%: runs pin every timing and CPU child to one (CPU {}), so never compare figures taken on different CPUs",
                100.0 * (slowest / fastest - 1.0),
                d.would_pin.map_or("-".into(), |c| c.to_string())
            ));
        }
    }
    // The probes themselves keep one CPU busy, so a load of about 1 is this command's own.
    if d.loadavg[0] > 1.5 {
        advice.push(format!(
            "load average {:.2}: something else is running; figures will be noisier",
            d.loadavg[0]
        ));
    }
    if d.steal_percent.is_some_and(|s| s > 1.0) {
        advice.push("the hypervisor steals CPU time: expect drift".into());
    }
    advice.push(format!(
        "a default run (12 processes per configuration) can expect ratio intervals of about ±{:.1}%; a ratio within that of 1 is within noise",
        d.expected_ratio_halfwidth_percent
    ));
    advice
}

fn render(d: &Doctor) -> String {
    let mut s = format!(
        "serprof doctor ({:.1} s), reference workload {}\n",
        d.seconds, d.reference
    );
    let simd: Vec<&str> = d
        .target_features
        .iter()
        .map(String::as_str)
        .filter(|f| ["avx2", "pclmulqdq", "avx512f", "bmi2", "fma", "neon"].contains(f))
        .collect();
    s.push_str(&format!(
        "  build: compiled for {} ({} target features in all)\n",
        if simd.is_empty() {
            "the baseline instruction set".to_string()
        } else {
            simd.join(", ")
        },
        d.target_features.len()
    ));
    for line in &d.build_shortcomings {
        s.push_str(&format!("  build: {line}\n"));
    }
    s.push_str("  per CPU (this thread pinned, alternating passes):\n");
    for c in &d.cpus {
        let mark = if Some(c.cpu) == d.would_pin {
            "  <- a run pins this one"
        } else {
            ""
        };
        s.push_str(&format!(
            "    CPU {}: {:>10}/op  (passes spread {:.1}%){mark}\n",
            c.cpu,
            format_ns(c.median_ns),
            c.spread_percent
        ));
    }
    s.push_str(&format!(
        "  between {} processes on CPU {}: spread {:.1}% (min to max of their medians); A/A pair ratios sd {:.2}%\n",
        d.process_medians_ns.len(),
        d.would_pin.map_or("-".into(), |c| c.to_string()),
        d.process_spread_percent,
        d.aa_sd_percent
    ));
    s.push_str(&format!(
        "  load {:.2} {:.2} {:.2}; governor {}; steal {}\n",
        d.loadavg[0],
        d.loadavg[1],
        d.loadavg[2],
        if d.governor.is_empty() {
            "not shown by the kernel".to_string()
        } else {
            d.governor.join(", ")
        },
        d.steal_percent
            .map_or("not shown".into(), |p| format!("{p:.1}%"))
    ));
    for a in &d.advice {
        s.push_str(&format!("  - {a}\n"));
    }
    s
}
