//! Where the timing and CPU children run. Measured on the 2-core machines serprof was written
//! on: the two CPUs run the same code at different speeds (serde_json's round trip read about
//! 51 µs on one and 29-47 µs on the other), so children that land on either CPU measure the
//! placement as much as the engine. A run therefore pins every timing and CPU child to one CPU:
//! `--cpu N`, or by default the CPU on which a short probe of the reference workload
//! ([`crate::measure::reference`]) ran fastest. The choice and the probe's figures go into
//! `run.json`.

use anyhow::Result;

use serprof_api::__private::Config;

use crate::measure::reference;
use crate::misuse;
use crate::model::manifest::{CpuPlacement, Health};
use crate::model::stats::median;
use crate::model::Program;

/// What `--cpu` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CpuChoice {
    /// Probe the CPUs and take the fastest.
    Auto,
    /// This CPU.
    Fixed(usize),
    /// No pinning.
    None,
}

/// A `--cpu` value that is none of a CPU number, `auto` and `none`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}: give a CPU number, `auto` or `none`")]
pub(crate) struct CpuChoiceError(String);

impl std::str::FromStr for CpuChoice {
    type Err = CpuChoiceError;

    /// `--cpu`'s value: a CPU number, `auto` or `none` (clap parses it; absent is `Auto`).
    fn from_str(text: &str) -> Result<CpuChoice, CpuChoiceError> {
        Ok(match text {
            "auto" => CpuChoice::Auto,
            "none" => CpuChoice::None,
            n => CpuChoice::Fixed(n.parse().map_err(|_| CpuChoiceError(n.to_string()))?),
        })
    }
}

/// Batches of the probe per CPU.
const PROBE_BATCHES: usize = 7;

/// The probe: per allowed CPU, the median reference time per operation (ns), measured on this
/// thread pinned there, CPUs alternating twice so that drift hits both.
pub(crate) fn probe(reference_config: &Config) -> Result<Vec<(usize, f64)>> {
    let cpus = reference::allowed_cpus();
    let mut w = reference::build(reference_config)?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cpus.len()];
    // A warm-up pass on each, then two alternating passes.
    for pass in 0..3 {
        for (i, &cpu) in cpus.iter().enumerate() {
            let batches = reference::on_cpu(cpu, || reference::batches(w.as_mut(), PROBE_BATCHES));
            if let Some(b) = batches {
                if pass > 0 {
                    times[i].extend(b?);
                }
            }
        }
    }
    Ok(cpus
        .iter()
        .zip(times)
        .filter(|(_, t)| !t.is_empty())
        .map(|(&c, t)| (c, median(&t)))
        .collect())
}

/// Chooses the CPU as `choice` says.
pub(crate) fn place(program: &Program, choice: &CpuChoice) -> Result<CpuPlacement> {
    match choice {
        CpuChoice::None => Ok(CpuPlacement {
            cpu: None,
            how: "not pinned (--cpu none)".into(),
            probe_ns: Vec::new(),
        }),
        CpuChoice::Fixed(c) => {
            let allowed = reference::allowed_cpus();
            if !allowed.contains(c) {
                misuse!("--cpu {c}: this process may run on CPUs {:?} only", allowed);
            }
            Ok(CpuPlacement {
                cpu: Some(*c),
                how: format!("--cpu {c}"),
                probe_ns: Vec::new(),
            })
        }
        CpuChoice::Auto => {
            let probe = probe(&program.reference())?;
            let fastest = probe
                .iter()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(c, _)| *c);
            let how = match fastest {
                Some(c) => format!(
                    "CPU {c}: the fastest in a probe of {} at start (median ns per operation per CPU in probe_ns)",
                    reference::REFERENCE
                ),
                None => "not pinned: the probe could not pin a thread".into(),
            };
            Ok(CpuPlacement {
                cpu: fastest,
                how,
                probe_ns: probe,
            })
        }
    }
}

/// `seed`, or one from the clock when it is 0 (the settings' "choose one").
pub(crate) fn seed_or_clock(seed: u64) -> u64 {
    match seed {
        0 => clock_seed(),
        s => s,
    }
}

/// A seed from the clock, for the schedule of a run that was given none.
pub(crate) fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    nanos.max(1)
}

/// Total and steal jiffies of all CPUs (`/proc/stat`'s first line).
pub(crate) fn cpu_jiffies() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let steal = *fields.get(7)?;
    Some((fields.iter().sum(), steal))
}

/// Steal time between two `cpu_jiffies` readings, in percent.
pub(crate) fn steal_percent(before: Option<(u64, u64)>, after: Option<(u64, u64)>) -> Option<f64> {
    let ((t0, s0), (t1, s1)) = (before?, after?);
    let total = t1.checked_sub(t0)?;
    (total > 0).then(|| 100.0 * (s1.saturating_sub(s0)) as f64 / total as f64)
}

/// Load, governors and steal time since boot, as the kernel tells them.
pub(crate) fn health() -> Health {
    let loadavg = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|t| {
            let v: Vec<f64> = t
                .split_whitespace()
                .take(3)
                .filter_map(|f| f.parse().ok())
                .collect();
            [0, 1, 2].map(|i| v.get(i).copied().unwrap_or(f64::NAN))
        })
        .unwrap_or([f64::NAN; 3]);
    let governor = reference::allowed_cpus()
        .iter()
        .filter_map(|c| {
            std::fs::read_to_string(format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor"
            ))
            .ok()
            .map(|g| format!("cpu{c}: {}", g.trim()))
        })
        .collect();
    Health {
        loadavg,
        governor,
        steal_percent: steal_percent(Some((0, 0)), cpu_jiffies()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_flag_reads_numbers_auto_and_none() {
        assert_eq!("auto".parse(), Ok(CpuChoice::Auto));
        assert_eq!("1".parse(), Ok(CpuChoice::Fixed(1)));
        assert_eq!("none".parse(), Ok(CpuChoice::None));
        let e = "fast".parse::<CpuChoice>().unwrap_err();
        assert!(e.to_string().contains("give a CPU number"), "{e}");
        let program = crate::model::program::builtin();
        assert!(place(&program, &CpuChoice::Fixed(100_000)).is_err());
    }

    #[test]
    fn steal_is_a_share_of_the_interval() {
        assert_eq!(steal_percent(Some((100, 5)), Some((300, 15))), Some(5.0));
        assert_eq!(steal_percent(None, Some((1, 1))), None);
        assert_eq!(steal_percent(Some((5, 0)), Some((5, 0))), None);
    }
}
