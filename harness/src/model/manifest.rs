//! `run.json`: the manifest of a run, and the machine it ran on.

use serde::{Deserialize, Serialize};

use super::config_id::ConfigId;
use super::settings::Settings;

/// The compiler that built serprof.
pub(crate) const RUSTC: &str = env!("SERPROF_RUSTC");

/// An engine library and its exact version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineVersion {
    pub engine: String,
    pub version: String,
}

/// The binary that measured a run, as `run.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BinaryRecord {
    /// Its cargo package and binary target.
    pub package: String,
    pub bin: String,
    /// How it was built.
    pub build: super::binary::BuildInfo,
}

/// The machine a run ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub kernel: String,
    pub cpus: usize,
    pub cpu_model: String,
    pub hostname: String,
}

/// `run.json`: the manifest of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// The version of serprof that measured.
    pub serprof_version: String,
    /// The revision of the binary that measured (`+dirty` with changes).
    pub git_rev: String,
    /// The compiler that built it.
    pub rustc: String,
    /// Every measured engine and its version: the version this binary compiled, as the lock
    /// file below resolved it.
    pub engines: Vec<EngineVersion>,
    /// The `Cargo.lock` the versions were read from when the binary was built (the user's own,
    /// for a crate that depends on serprof); `None`: none was found.
    #[serde(default)]
    pub lockfile: Option<String>,
    /// The machine it ran on.
    pub machine: Machine,
    /// The measurement settings.
    pub settings: Settings,
    /// The buffer policy every engine runs under.
    pub buffer_policy: String,
    /// The stack unwinder of the CPU recordings (`measure::cpu::UNWINDER`).
    #[serde(default)]
    pub unwinder: String,
    /// The command line that started the run.
    pub command: Vec<String>,
    /// Configurations selected, as `STUDY/CONFIG`.
    pub configs: Vec<ConfigId>,
    /// When the run started (RFC 3339, UTC).
    pub start: String,
    /// When its last session ended; `None` while running.
    pub end: Option<String>,
    /// True only when every selected configuration finished (measured or failed with a reason).
    pub complete: bool,
    /// Configurations that failed, with their reasons.
    #[serde(default, deserialize_with = "super::failure::failed_or_sentences")]
    pub failed: Vec<super::failure::Failed>,
    /// Warnings of the configurations, `CONFIG: warning` each.
    pub warnings: Vec<String>,
    /// How the run was pieced together: one session per `serprof run` (the first) and per
    /// `--resume`, with the configurations each measured and kept. Figures of configurations
    /// measured in different sessions were not interleaved with each other.
    #[serde(default)]
    pub sessions: Vec<SessionRecord>,
    /// Where the timing and CPU children ran.
    #[serde(default)]
    pub placement: Option<CpuPlacement>,
    /// The machine's state at the start (a short form of `serprof doctor`).
    #[serde(default)]
    pub health: Option<Health>,
    /// The binary that measured (`serprof`, or a user's crate) and how it was built.
    #[serde(default)]
    pub binary: Option<BinaryRecord>,
    /// The lock-step timing schedules, one per session that timed anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedules: Vec<super::lockstep::Schedule>,
    /// `run --layouts N`: the layouts the timing children ran, set `k` in `layouts[k]` (their
    /// binaries removed once timed); empty when the timing ran this binary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layouts: Vec<super::binary::Layout>,
    /// What the layouts are of, or why there are none although they were asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layouts_notes: Vec<String>,
}

/// One `serprof run` or `--resume` of a run folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// When the run started (RFC 3339, UTC).
    pub start: String,
    pub end: String,
    /// The revision of the binary that measured (`+dirty` with changes).
    pub git_rev: String,
    /// Configurations this session found finished and kept.
    pub kept: Vec<ConfigId>,
    /// Configurations this session measured to the end.
    pub measured: Vec<ConfigId>,
    /// Where its time went.
    #[serde(default)]
    pub seconds: PhaseSeconds,
    /// The machine's measuring lock it held while it timed and recorded (absent in folders
    /// written before the lock, and in sessions that measured nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_lock: Option<MachineLock>,
}

/// The machine's measuring lock as a session held it (`process::machine`): from the CPU probe
/// that placed its children to its last recording, no other serprof measured on this machine.
/// Times are RFC 3339 with milliseconds, UTC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineLock {
    /// The lock file.
    pub path: String,
    /// When the session asked for the lock.
    pub asked: String,
    /// When it had it: its timing and recordings start after this.
    pub acquired: String,
    /// When it let go: its timing and recordings ended before this.
    pub released: String,
    /// Seconds it waited for another measurement (0 when the machine was free).
    pub waited_s: f64,
    /// The holder it waited for, as that one described itself (process id and command line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_for: Option<String>,
}

/// Wall-clock seconds a session spent in each phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseSeconds {
    /// Verification children.
    pub verify: f64,
    /// The lock-step timing schedule.
    pub timing: f64,
    /// CPU recordings, summed over the recording slots ([`Settings::jobs`]).
    pub cpu: f64,
    /// Allocation recordings, summed over the slots.
    pub alloc: f64,
    /// Instruction counts under callgrind, summed over the slots.
    pub instructions: f64,
    /// Wall-clock seconds of the recordings after timing (CPU, allocation, instructions): with
    /// several slots side by side, less than their sum.
    #[serde(default)]
    pub recordings: f64,
    /// The corrupt study.
    pub corrupt: f64,
    /// Building and linking the layouts (a before-after's sides linked again; `run --layouts`:
    /// the working tree built and linked).
    #[serde(default)]
    pub layouts: f64,
}

impl PhaseSeconds {
    /// Runs `f`, adding its wall time to the phase `pick` chooses.
    pub fn time<T>(&mut self, pick: fn(&mut PhaseSeconds) -> &mut f64, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = f();
        *pick(self) += start.elapsed().as_secs_f64();
        out
    }

    /// Adds a recording slot's CPU, allocation and instruction seconds.
    pub fn add_recordings(&mut self, slot: &PhaseSeconds) {
        self.cpu += slot.cpu;
        self.alloc += slot.alloc;
        self.instructions += slot.instructions;
    }

    /// The session's wall-clock seconds: verification, timing, the recordings (side by side
    /// when there are several slots) and the corrupt study.
    pub fn total(&self) -> f64 {
        let recordings = match self.recordings > 0.0 {
            true => self.recordings,
            false => self.cpu + self.alloc + self.instructions,
        };
        self.verify + self.timing + recordings + self.corrupt
    }
}

/// Where a run's timing and CPU children ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuPlacement {
    /// The CPU they were pinned to, or `None` when not pinned.
    pub cpu: Option<usize>,
    /// How it was chosen (`--cpu`, or the start probe's figures).
    pub how: String,
    /// The start probe: per CPU, the median time of a fixed reference workload, in ns.
    pub probe_ns: Vec<(usize, f64)>,
}

/// The machine's state as serprof saw it: load, frequency governor, steal time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// 1, 5 and 15 minute load averages.
    pub loadavg: [f64; 3],
    /// `scaling_governor` per CPU, where the kernel exposes it.
    pub governor: Vec<String>,
    /// Share of CPU time stolen by the hypervisor since boot, in percent, where `/proc/stat`
    /// has it (`serprof doctor` gives it over its own measurement).
    pub steal_percent: Option<f64>,
}

/// The one output-buffer policy, written into every manifest.
pub(crate) const BUFFER_POLICY: &str = "one Vec<u8> per configuration, cleared before each encode and reused; its capacity is kept across operations, so allocation figures measure the codec, not Vec growth";

impl Machine {
    /// This machine, as `/proc` and `std` describe it.
    pub fn this() -> Machine {
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        Machine {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            kernel: read("/proc/sys/kernel/osrelease"),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            cpu_model,
            hostname: read("/proc/sys/kernel/hostname"),
        }
    }
}
