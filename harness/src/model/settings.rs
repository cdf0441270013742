//! How a run measures: every knob in one plain struct, written into `run.json` and handed to
//! each worker child. The command line fills it from [`Settings::defaults`] or
//! [`Settings::quick`].

use super::StudyStamp;
use serde::{Deserialize, Serialize};

/// Measurement settings of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// A smoke run: fewer processes and batches, ~300 CPU samples. Default is false.
    pub quick: bool,
    /// Lock-step timing children. Each child holds every configuration of the run and runs them
    /// one sample at a time in a shuffled round-robin; a configuration's time is the median of
    /// the children's state-adjusted medians, with an order-statistics interval across the
    /// children (for 12, the 3rd smallest to the 3rd largest: 96.1%). Default is 12 (quick: 5,
    /// [min, max]: 93.8%).
    #[serde(default = "default_processes")]
    pub processes: usize,
    /// The CPU every timing and CPU child is pinned to (`sched_setaffinity`); `None`: not pinned.
    /// `serprof run` chooses one at start unless `--cpu` says which.
    #[serde(default)]
    pub pin_cpu: Option<usize>,
    /// Recording slots: the CPU, allocation and instruction recordings of this many
    /// configurations run side by side, slot `k` pinned to the `k`-th CPU of
    /// [`Settings::recording_cpus`]. Their figures are shares, counts and a within-recording
    /// overhead ratio, which a neighbour on another CPU does not change; the timing children
    /// never run beside anything. Default is 1; `serprof run` sets the CPUs it may use.
    #[serde(default = "default_jobs")]
    pub jobs: usize,
    /// Seed of the shuffled order of each round of the timing children.
    #[serde(default)]
    pub seed: u64,
    /// Warm-up of each CPU and allocation child before it measures, in milliseconds. Default
    /// is 100 (quick: 50).
    pub warmup_ms: u64,
    /// Rounds per timing child: each round runs one sample of every configuration. Default is
    /// 20 (quick: 8); a child runs more rounds when fewer would measure for less than
    /// `child_ms`.
    #[serde(default = "default_rounds")]
    pub rounds: usize,
    /// Target length of one timing sample, in milliseconds; a sample is at least one
    /// operation. Default is 3 (a few ms: the machine's state holds for tens of ms, so
    /// neighbouring samples see the same state).
    #[serde(default = "default_sample_ms")]
    pub sample_ms: u64,
    /// Measured time a timing child spends at least (more rounds when the selection is small),
    /// in milliseconds. Default is 2,000 (quick: 600).
    #[serde(default = "default_child_ms")]
    pub child_ms: u64,
    /// Warm-up of each configuration in every timing child, which sizes its samples, in
    /// milliseconds. Default is 10 (quick: 5).
    #[serde(default = "default_calibrate_ms")]
    pub calibrate_ms: u64,
    /// Record CPU samples. Default is true.
    pub cpu: bool,
    /// Requested sampling rate. Default is 997 Hz (a prime, so no lockstep with periodic
    /// work): the timer is a high-resolution one (`measure::cpu`), so the rate asked for is
    /// the rate obtained, and a 1,000-sample profile takes about a second of sampling. Each
    /// sample costs the sampled thread some tens of µs (DWARF unwinding), which the overhead
    /// pairs measure.
    pub frequency_hz: u32,
    /// Samples to collect before stopping. Default is 1,000 (a 50% share is then within about
    /// ±3 points at 95%; quick: 300). The CPU child alternates sampled and unsampled batches for
    /// the overhead figure, so a recording takes about twice the sampled time.
    pub cpu_samples: u64,
    /// Wall-clock cap on one CPU recording, in seconds. Default is 60 (quick: 15).
    pub cpu_time_cap_s: u64,
    /// Sampled/unsampled batch pairs that open each CPU recording, for the profiler-overhead
    /// figure and its interval. Default is 24 (quick: 8); a study's budget may lower it.
    #[serde(default = "default_overhead_pairs")]
    pub overhead_pairs: usize,
    /// CPU time of the short profile each timing child records of each configuration it holds
    /// after its set's rounds, in milliseconds (before-after's functions over layouts); 0: none.
    /// Default is 0; before-after sets it unless `--no-functions`.
    #[serde(default)]
    pub functions_ms: u64,
    /// Sampling rate of those profiles. Default is 3,989 Hz (a prime): four times the CPU
    /// recording's, since a profile is short and what it is for is a function's share.
    #[serde(default = "default_functions_hz")]
    pub functions_hz: u32,
    /// Count instructions under callgrind (`--instructions`). Default is false.
    #[serde(default)]
    pub instructions: bool,
    /// Passes over the dataset the instructions recording counts (after one uncounted pass).
    /// Default is 2.
    #[serde(default = "default_instruction_passes")]
    pub instruction_passes: u64,
    /// Record allocations. Default is true.
    pub alloc: bool,
    /// One allocation stack is sampled every this many allocated bytes. Default is 64 KiB.
    pub alloc_sample_bytes: u64,
    /// Minimum counted time of the allocation recording, in milliseconds (rounded up to whole
    /// passes over the dataset). Default is 200 (quick: 50).
    pub alloc_min_ms: u64,
    /// A worker child still running after this many seconds is killed and reported as hung.
    /// Default is 300.
    pub child_time_cap_s: u64,
    /// Address-space cap of a worker child, in MiB (`setrlimit(RLIMIT_AS)`). Default is 4096.
    pub memory_cap_mib: u64,
    /// The studies the run was planned with (names and fingerprint): every worker child checks
    /// that it built the same list, and so does `--resume`.
    #[serde(default)]
    pub studies: StudyStamp,
}

/// Sampled/unsampled pairs for the overhead figure of a CPU recording, by default. 24 pairs of
/// 100 ms batches put its interval within about ±0.5% on a quiet machine.
pub(crate) const OVERHEAD_PAIRS: usize = 24;

/// The same for `--quick`.
pub(crate) const QUICK_OVERHEAD_PAIRS: usize = 8;

impl Settings {
    /// [`Settings::frequency_hz`] unless `--frequency` says otherwise (full and quick runs).
    pub const DEFAULT_FREQUENCY_HZ: u32 = 997;
    /// [`Settings::functions_hz`].
    pub const DEFAULT_FUNCTIONS_HZ: u32 = 3989;
    /// [`Settings::sample_ms`] unless `--sample-ms` says otherwise (full and quick runs).
    pub const DEFAULT_SAMPLE_MS: u64 = 3;
    /// [`Settings::alloc_sample_bytes`] unless `--alloc-sample-bytes` says otherwise (full and
    /// quick runs).
    pub const DEFAULT_ALLOC_SAMPLE_BYTES: u64 = 64 * 1024;

    /// The defaults of a full run.
    pub fn defaults() -> Settings {
        Settings {
            quick: false,
            processes: 12,
            pin_cpu: None,
            jobs: 1,
            seed: 0,
            warmup_ms: 100,
            rounds: 20,
            sample_ms: Self::DEFAULT_SAMPLE_MS,
            child_ms: 2000,
            calibrate_ms: 10,
            cpu: true,
            frequency_hz: Self::DEFAULT_FREQUENCY_HZ,
            cpu_samples: 1000,
            cpu_time_cap_s: 60,
            overhead_pairs: OVERHEAD_PAIRS,
            functions_ms: 0,
            functions_hz: Self::DEFAULT_FUNCTIONS_HZ,
            instructions: false,
            instruction_passes: 2,
            alloc: true,
            alloc_sample_bytes: Self::DEFAULT_ALLOC_SAMPLE_BYTES,
            alloc_min_ms: 200,
            child_time_cap_s: 300,
            memory_cap_mib: 4096,
            studies: StudyStamp::default(),
        }
    }

    /// The defaults of `--quick`: a few seconds per configuration and recording.
    pub fn quick() -> Settings {
        Settings {
            quick: true,
            processes: 5,
            warmup_ms: 50,
            rounds: 8,
            child_ms: 600,
            calibrate_ms: 5,
            cpu_samples: 300,
            cpu_time_cap_s: 15,
            overhead_pairs: QUICK_OVERHEAD_PAIRS,
            alloc_min_ms: 50,
            ..Settings::defaults()
        }
    }

    /// The CPU of each recording slot: slot 0 on [`Settings::pin_cpu`], the others on the
    /// remaining CPUs of `allowed` in turn; all unpinned when `pin_cpu` is `None`.
    pub fn recording_cpus(&self, allowed: &[usize]) -> Vec<Option<usize>> {
        let jobs = self.jobs.max(1);
        let Some(first) = self.pin_cpu else {
            return vec![None; jobs];
        };
        let others: Vec<usize> = allowed.iter().copied().filter(|&c| c != first).collect();
        (0..jobs)
            .map(|k| match k {
                0 => Some(first),
                _ if others.is_empty() => Some(first),
                _ => Some(others[(k - 1) % others.len()]),
            })
            .collect()
    }
}

fn default_jobs() -> usize {
    1
}

fn default_instruction_passes() -> u64 {
    2
}

fn default_functions_hz() -> u32 {
    Settings::DEFAULT_FUNCTIONS_HZ
}

fn default_overhead_pairs() -> usize {
    OVERHEAD_PAIRS
}

fn default_processes() -> usize {
    1
}

fn default_rounds() -> usize {
    Settings::defaults().rounds
}

fn default_sample_ms() -> u64 {
    Settings::defaults().sample_ms
}

fn default_child_ms() -> u64 {
    Settings::defaults().child_ms
}

fn default_calibrate_ms() -> u64 {
    Settings::defaults().calibrate_ms
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::defaults()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_slots_start_on_the_chosen_cpu_and_spread_over_the_others() {
        let mut s = Settings::defaults();
        s.jobs = 3;
        assert_eq!(s.recording_cpus(&[0, 1]), [None, None, None], "unpinned");
        s.pin_cpu = Some(1);
        assert_eq!(s.recording_cpus(&[0, 1]), [Some(1), Some(0), Some(0)]);
        assert_eq!(s.recording_cpus(&[1]), [Some(1), Some(1), Some(1)]);
        s.jobs = 0;
        assert_eq!(s.recording_cpus(&[0, 1, 2]), [Some(1)], "at least one slot");
    }
}
