//! The measure layer: what a worker child does. One process per configuration and recording
//! (timing, cpu, alloc), like the JProfiler Gradle plugin's one JVM and one snapshot per
//! configuration and recording.
//!
//! The parent re-executes its own binary as `serprof __worker ...`. The child builds the codec,
//! makes its one recording, writes its files into the configuration's folder, and writes its
//! figures to `.<recording>.json` there (through a temporary file and a rename). A child that
//! crashes writes nothing, and the parent reports the crash.
//!
//! Verification (every value of the dataset round-trips; a corpus document parses to what the
//! reference parser reads) is a recording of its own, made once per configuration before its
//! timing processes: the code is deterministic, so checking it again in each of the 7 to 14
//! children of a configuration only cost time (on the corpus study's documents, 40 to 170 ms per
//! child). The instructions child verifies too, before its passes, as it always has: its counts
//! depend on the heap the verification leaves.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::ValueEnum;
use serde::{Deserialize, Serialize};

pub mod alloc;
pub mod corrupt;
pub mod cpu;
pub mod reference;
pub mod timing;
pub mod workload;

use workload::Measured;

use crate::layout::{self, write_atomic, write_json};
use crate::model::stats::ProcessTiming;
use crate::model::{AllocStats, CpuStats, Settings};
use crate::render::flame::{flame_svg, Kind};
use crate::render::speedscope::{speedscope_json, Unit};

/// The version of the parent-worker protocol: the command line of `serprof __worker` and the
/// report it writes. A parent passes the version it speaks with `--protocol`; a worker of
/// another version refuses with a message naming both, and `serprof __protocol` prints it, so
/// a parent can check a binary (of another revision, say) before it drives it.
pub const PROTOCOL: u32 = 3;

/// The job of an instrumented worker, read from a file in its folder (`--job`), so that its
/// command line is the same length in every run: the length of the arguments moves the stack,
/// which can change instruction counts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub config: String,
    pub recording: Recording,
    pub settings: Settings,
}

/// Size of a job file: padded with spaces to this, so that reading it allocates the same in
/// every run (the heap's layout, like the stack's, can move instruction counts: malloc's own
/// work and `memcpy`'s alignment paths depend on it).
pub const JOB_FILE_BYTES: usize = 8192;
/// Capacity of the job's configuration name, likewise.
const JOB_NAME_CAPACITY: usize = 256;

impl Job {
    /// Writes the job to `path`, padded to [`JOB_FILE_BYTES`].
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut bytes = serde_json::to_vec(self)?;
        if bytes.len() > JOB_FILE_BYTES {
            anyhow::bail!("a job of {} bytes does not fit a job file", bytes.len());
        }
        bytes.resize(JOB_FILE_BYTES, b' ');
        write_atomic(path, &bytes)
    }

    /// Reads a job file written by [`Job::write`].
    pub fn read(path: &Path) -> Result<Job> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut job: Job = serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a job file", path.display()))?;
        let mut name = String::with_capacity(JOB_NAME_CAPACITY.max(job.config.len()));
        name.push_str(&job.config);
        job.config = name;
        Ok(job)
    }
}

/// The recordings a configuration gets, each in its own child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Recording {
    /// The verification alone: the payload size, findings and whether it passed.
    Verify,
    Timing,
    Cpu,
    Alloc,
    /// Under `valgrind --tool=callgrind`: one uncounted pass, then whole counted passes.
    Instructions,
}

impl Recording {
    pub fn as_str(self) -> &'static str {
        match self {
            Recording::Verify => "verify",
            Recording::Timing => "timing",
            Recording::Cpu => "cpu",
            Recording::Alloc => "alloc",
            Recording::Instructions => "instructions",
        }
    }

    /// The file the child writes its figures to, inside the configuration's folder.
    pub fn report_path(self, dir: &Path) -> PathBuf {
        layout::worker_report(dir, self.as_str())
    }
}

/// What a worker child reports to the parent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WorkerReport {
    pub verified: bool,
    pub payload_bytes: Option<f64>,
    pub shares_references: Option<bool>,
    /// The timing recording: one process's figures.
    pub timing: Option<ProcessTiming>,
    /// The instructions recording: operations in the counted call of the measured loop.
    #[serde(default)]
    pub counted_ops: Option<u64>,
    pub cpu: Option<CpuStats>,
    pub alloc: Option<AllocStats>,
    pub error: Option<String>,
    /// Verification's findings that do not fail it (a corpus document's changed numbers).
    #[serde(default)]
    pub findings: Vec<String>,
}

/// Runs one recording of `config_name` and writes its report into `dir`.
pub fn run(config_name: &str, recording: Recording, dir: &Path, settings: &Settings) -> Result<()> {
    // The corpus study's configurations exist once its documents are registered.
    serprof_engines::studies::corpus::register(settings.corpus.clone());
    let config = if recording == Recording::Instructions {
        // Every configuration's registry entry stays allocated: freeing all but the one chosen
        // would leave the heap in a state that depends on which one it is, and malloc's work in
        // the counted loop with it (measured: ~50 instructions per operation between two testkit
        // twins). Kept, the heap below the workload is the same for every configuration.
        let all = serprof_engines::studies::all();
        let found = all
            .iter()
            .flat_map(|s| &s.configs)
            .find(|c| c.info.name() == config_name)
            .cloned();
        std::mem::forget(all);
        found
    } else {
        serprof_engines::studies::find(config_name)
    }
    .ok_or_else(|| anyhow!("unknown configuration {config_name}"))?;
    let mut report = WorkerReport::default();
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
        let prepare = tracing::info_span!("prepare", config = config_name).entered();
        let mut w = workload::workload(&config).map_err(|e| anyhow!("{e}"))?;
        drop(prepare);
        if matches!(recording, Recording::Verify | Recording::Instructions) {
            let _span = tracing::info_span!("verify", config = config_name).entered();
            let verified = match w.verify() {
                Ok(v) => v,
                Err(e) => {
                    report.error = Some(format!("verification failed: {e}"));
                    return Ok(());
                }
            };
            report.verified = true;
            report.payload_bytes = Some(verified.payload_bytes);
            report.shares_references = verified.shares_references;
            report.findings = verified.findings;
        }
        match recording {
            Recording::Verify => {}
            Recording::Timing => {
                let _span = tracing::info_span!("timing", config = config_name).entered();
                report.timing =
                    Some(timing::record(w.as_mut(), settings).map_err(|e| anyhow!("{e}"))?);
            }
            Recording::Cpu => {
                let _span = tracing::info_span!("cpu", config = config_name).entered();
                report.cpu = Some(record_cpu(w.as_mut(), settings, config_name, dir)?);
            }
            Recording::Alloc => {
                let _span = tracing::info_span!("alloc", config = config_name).entered();
                report.alloc = Some(record_alloc(w.as_mut(), settings, config_name, dir)?);
            }
            Recording::Instructions => {
                // Exactly two calls of the measured loop, each dumped by callgrind when it
                // returns (`--dump-after`): one pass uncounted, then the counted passes.
                let pass = w.dataset_len() as u64;
                w.run(pass).map_err(|e| anyhow!("{e}"))?;
                let n = pass * settings.instruction_passes.max(1);
                w.run(n).map_err(|e| anyhow!("{e}"))?;
                report.counted_ops = Some(n);
            }
        }
        Ok(())
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            report.error = Some(format!(
                "{} recording failed: {}",
                recording.as_str(),
                crate::error::one_line(&e)
            ))
        }
        Err(p) => {
            report.error = Some(format!(
                "engine panicked: {}",
                crate::process::panic_text(p.as_ref())
            ))
        }
    }
    write_json(&recording.report_path(dir), &report)
}

fn record_cpu(
    w: &mut dyn Measured,
    settings: &Settings,
    name: &str,
    dir: &Path,
) -> Result<CpuStats> {
    let rec = cpu::record(w, settings, name)?;
    if rec.samples == 0 {
        return Err(anyhow!("the sampler collected no samples"));
    }
    let _write = tracing::info_span!("write").entered();
    let text = rec.folded.to_text();
    write_atomic(&dir.join(layout::CPU_FOLDED), text.as_bytes())?;
    write_atomic(&dir.join(layout::CPU_PB), &rec.pprof)?;
    write_atomic(
        &dir.join(layout::CPU_SOURCES),
        rec.sources.to_text().as_bytes(),
    )?;
    write_atomic(
        &dir.join(layout::CPU_SPEEDSCOPE),
        &speedscope_json(
            &rec.folded,
            &rec.sources,
            &format!("{name} (CPU samples)"),
            Unit::None,
        ),
    )?;
    let subtitle = format!(
        "{} samples at {:.0} Hz effective ({} Hz requested), serprof {}",
        rec.samples,
        rec.effective_hz,
        rec.requested_hz,
        env!("CARGO_PKG_VERSION")
    );
    let svg = flame_svg(&text, Kind::Cpu, name, &subtitle)?;
    write_atomic(&dir.join(layout::CPU_SVG), &svg)?;
    Ok(CpuStats {
        samples: rec.samples,
        requested_hz: rec.requested_hz,
        effective_hz: rec.effective_hz,
        seconds: rec.cpu_seconds,
        median_ns_under_sampling: rec.median_ns_per_op,
        median_ns_unsampled: rec.median_ns_unsampled,
        overhead_ratio: rec.overhead.as_ref().map(|o| o.ratio),
        overhead: rec.overhead,
    })
}

fn record_alloc(
    w: &mut dyn Measured,
    settings: &Settings,
    name: &str,
    dir: &Path,
) -> Result<AllocStats> {
    use std::time::{Duration, Instant};
    // Warm up uncounted (caches, buffer capacity), then count whole passes over the dataset
    // so the figures are exact and repeatable.
    let (ops, took) = workload::warm_up(w, Duration::from_millis(settings.warmup_ms.min(200)))
        .map_err(|e| anyhow!("{e}"))?;
    let pass = w.dataset_len() as u64;
    let ns_per_op = took.as_nanos() as f64 / ops as f64;
    let wanted = (settings.alloc_min_ms as f64 * 1e6 / ns_per_op.max(1.0)).ceil() as u64;
    let passes = wanted.div_ceil(pass).max(1);
    let n = passes * pass;
    let _ = alloc::take_stacks(name); // discard anything sampled before
    let counted = tracing::info_span!("counted_loop").entered();
    let start = Instant::now();
    alloc::start(settings.alloc_sample_bytes);
    let outcome = w.run(n);
    let counts = alloc::stop();
    drop(counted);
    tracing::debug!(
        ops = n,
        took_ms = start.elapsed().as_millis() as u64,
        "alloc loop"
    );
    outcome.map_err(|e| anyhow!("{e}"))?;
    let symbolise = tracing::info_span!("symbolise").entered();
    let (folded, samples, sources) = alloc::take_stacks_with_sources(name);
    drop(symbolise);
    let _write = tracing::info_span!("write").entered();
    let text = folded.to_text();
    write_atomic(&dir.join(layout::ALLOC_FOLDED), text.as_bytes())?;
    write_atomic(
        &dir.join(layout::ALLOC_SOURCES),
        sources.to_text().as_bytes(),
    )?;
    write_atomic(
        &dir.join(layout::ALLOC_SPEEDSCOPE),
        &speedscope_json(
            &folded,
            &sources,
            &format!("{name} (allocated bytes)"),
            Unit::Bytes,
        ),
    )?;
    if folded.total() > 0 {
        let subtitle = format!(
            "{} stacks sampled every {} allocated bytes over {} operations, serprof {}",
            samples,
            settings.alloc_sample_bytes,
            n,
            env!("CARGO_PKG_VERSION")
        );
        let svg = flame_svg(
            &text,
            Kind::Alloc,
            &format!("{name} (allocated bytes)"),
            &subtitle,
        )?;
        write_atomic(&dir.join(layout::ALLOC_SVG), &svg)?;
    } else {
        let _ = std::fs::remove_file(dir.join(layout::ALLOC_SVG));
    }
    Ok(AllocStats {
        allocs_per_op: counts.allocs as f64 / n as f64,
        reallocs_per_op: counts.reallocs as f64 / n as f64,
        bytes_per_op: counts.bytes as f64 / n as f64,
        peak_live_bytes: counts.peak_live_bytes,
        ops: n,
        stack_samples: samples,
        sample_bytes: settings.alloc_sample_bytes,
    })
}

/// Reads a child's report. `None` when the child wrote none (it crashed) or it is unreadable.
pub fn read_report(recording: Recording, dir: &Path) -> Option<WorkerReport> {
    let path = recording.report_path(dir);
    let bytes = std::fs::read(&path).ok()?;
    let report = serde_json::from_slice(&bytes)
        .with_context(|| format!("{}", path.display()))
        .ok();
    let _ = std::fs::remove_file(&path);
    report
}
