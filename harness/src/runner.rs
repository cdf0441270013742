//! `serprof run`: the parent. Selects configurations, runs each recording of each in its own
//! child, merges the children's figures into `result.json` (written as soon as a configuration
//! finishes, so a later failure or Ctrl-C loses nothing), and ends with the table.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use regex::Regex;
use serprof_engines::studies::{self, Config};

use crate::analyze::folded::Folded;
use crate::analyze::hotspots;
use crate::child::{self, Outcome};
use crate::result::{ConfigResult, EngineVersion, Machine, RunManifest, BUFFER_POLICY};
use crate::settings::Settings;
use crate::snapshot::{self, read_json, utc_rfc3339, write_json};
use crate::worker::Recording;
use crate::{interrupt, misuse, progress};

/// What `serprof run` was asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub studies: Vec<String>,
    pub configs: Vec<String>,
    pub out: PathBuf,
    pub settings: Settings,
    /// Finish this run folder instead of starting a new one.
    pub resume: Option<PathBuf>,
    /// With `resume`: a new child time cap / memory cap given on the command line (the run's
    /// measurement settings are otherwise its own).
    pub resume_child_timeout: Option<u64>,
    pub resume_memory_cap: Option<u64>,
    pub quiet: bool,
}

/// What a finished run hands back for printing.
#[derive(Debug)]
pub struct RunOutcome {
    pub run_dir: PathBuf,
    pub manifest: RunManifest,
    pub results: Vec<ConfigResult>,
}

/// The folder of a configuration inside a run folder.
pub fn config_dir(run_dir: &Path, study: &str, config: &str) -> PathBuf {
    run_dir.join(study).join(config)
}

/// Reads the machine's description for the manifest.
pub fn machine() -> Machine {
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

fn engine_versions(configs: &[Config]) -> Vec<EngineVersion> {
    let set: BTreeSet<(String, String)> = configs
        .iter()
        .map(|c| (c.info.engine.to_string(), c.info.engine_version.to_string()))
        .collect();
    set.into_iter()
        .map(|(engine, version)| EngineVersion { engine, version })
        .collect()
}

/// Runs the request. Configuration failures are recorded, not returned as errors.
pub fn run(req: &RunRequest) -> Result<RunOutcome> {
    interrupt::install();
    let (run_dir, mut manifest, configs) = match &req.resume {
        Some(dir) => {
            let (run_dir, mut manifest, configs) = resume(dir)?;
            // The measurement settings are the run's own (results stay comparable); only the
            // guards may be changed for the rest of the run.
            if let Some(t) = req.resume_child_timeout {
                manifest.settings.child_time_cap_s = t;
            }
            if let Some(m) = req.resume_memory_cap {
                manifest.settings.memory_cap_mib = m;
            }
            (run_dir, manifest, configs)
        }
        None => {
            let configs = crate::select::select(&req.studies, &req.configs)?;
            if configs.is_empty() {
                misuse!("the selection holds no configuration");
            }
            let run_dir = snapshot::create_run_dir(&req.out)?;
            let manifest = RunManifest {
                serprof_version: env!("CARGO_PKG_VERSION").into(),
                git_rev: snapshot::GIT_REV.into(),
                rustc: snapshot::RUSTC.into(),
                engines: engine_versions(&configs),
                machine: machine(),
                settings: req.settings.clone(),
                buffer_policy: BUFFER_POLICY.into(),
                unwinder: crate::record::cpu::UNWINDER.into(),
                command: std::env::args().collect(),
                configs: configs.iter().map(|c| c.info.name()).collect(),
                start: utc_rfc3339(SystemTime::now()),
                end: None,
                complete: false,
                failed: Vec::new(),
                warnings: Vec::new(),
            };
            (run_dir, manifest, configs)
        }
    };
    write_json(&run_dir.join("run.json"), &manifest)?;
    tracing::info!(run_dir = %run_dir.display(), configs = configs.len(), "run started");

    let show_bars = !req.quiet && std::io::stderr().is_terminal();
    let progress = progress::Progress::new(configs.len() as u64, show_bars, req.quiet);
    let mut results = Vec::new();
    for config in &configs {
        if interrupt::interrupted() {
            break;
        }
        let name = config.info.name();
        let dir = config_dir(&run_dir, config.info.study, config.info.config);
        if let Some(done) = finished_result(&dir) {
            progress.skip(&name);
            results.push(done);
            continue;
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let _span = tracing::info_span!("config", name = %name).entered();
        let result = if config.info.operation == serprof_engines::studies::Operation::Decode {
            crate::corrupt::measure_config(config, &dir, &manifest.settings, &progress)
        } else {
            measure_config(config, &dir, &manifest.settings, &progress)
        };
        if interrupt::interrupted() {
            // The recording in flight was cut short: its configuration is not finished.
            break;
        }
        write_json(&dir.join("result.json"), &result)?;
        progress.finish_config(&result);
        results.push(result);
    }
    progress.done();

    let finished = results.len() == configs.len() && !interrupt::interrupted();
    manifest.failed = results
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| format!("{}: {e}", r.name())))
        .collect();
    manifest.warnings = results
        .iter()
        .flat_map(|r| r.warnings.iter().map(move |w| format!("{}: {w}", r.name())))
        .collect();
    manifest.end = Some(utc_rfc3339(SystemTime::now()));
    manifest.complete = finished;
    write_json(&run_dir.join("run.json"), &manifest)?;
    compare_steps(&run_dir, &results);
    {
        let _span = tracing::info_span!("render").entered();
        if let Err(e) = crate::render::report::write(&run_dir) {
            tracing::warn!(
                "could not write report.html: {}",
                crate::error::one_line(&e)
            );
        }
    }
    if finished {
        let out = run_dir.parent().unwrap_or(Path::new("."));
        snapshot::update_latest(out, &run_dir)?;
    }
    Ok(RunOutcome {
        run_dir,
        manifest,
        results,
    })
}

/// Compares each before/after step of the studies in this run with the step before it
/// (`json-decimal` -> `json-base64-twopass` -> `json-base64-table`), writing `compare.json`,
/// `diff.svg` and `diff-reverse.svg` under `<run>/compare/`. A step that failed or has no
/// profile is skipped; a comparison that cannot be made is logged, never fatal.
fn compare_steps(run_dir: &Path, results: &[ConfigResult]) {
    let _span = tracing::info_span!("compare_steps").entered();
    let mut studies_seen: Vec<&str> = Vec::new();
    for r in results {
        if !studies_seen.contains(&r.study.as_str()) {
            studies_seen.push(&r.study);
        }
    }
    for study in studies_seen {
        let measured: Vec<&str> = studies::steps(study)
            .iter()
            .copied()
            .filter(|step| {
                results.iter().any(|r| {
                    r.study == study && r.config == *step && r.error.is_none() && r.cpu.is_some()
                })
            })
            .collect();
        for pair in measured.windows(2) {
            let before = config_dir(run_dir, study, pair[0]);
            let after = config_dir(run_dir, study, pair[1]);
            if let Err(e) = crate::commands::compare::compare_config_dirs(&before, &after) {
                tracing::warn!(
                    "cannot compare {study}/{} with {study}/{}: {}",
                    pair[0],
                    pair[1],
                    crate::error::one_line(&e)
                );
            }
        }
    }
}

/// A configuration folder's finished result, if it has one (for `--resume`).
fn finished_result(dir: &Path) -> Option<ConfigResult> {
    let bytes = std::fs::read(dir.join("result.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Reopens an interrupted run: its manifest, settings and selection.
fn resume(dir: &Path) -> Result<(PathBuf, RunManifest, Vec<Config>)> {
    if !dir.is_dir() {
        misuse!("--resume {}: not a folder", dir.display());
    }
    let manifest: RunManifest = read_json(&dir.join("run.json"))?;
    let mut configs = Vec::new();
    for name in &manifest.configs {
        match studies::find(name) {
            Some(c) => configs.push(c),
            None => misuse!(
                "--resume {}: configuration {name} no longer exists",
                dir.display()
            ),
        }
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    Ok((dir, manifest, configs))
}

/// Runs every recording of one configuration and merges the figures.
pub fn measure_config(
    config: &Config,
    dir: &Path,
    settings: &Settings,
    progress: &progress::Progress,
) -> ConfigResult {
    let name = config.info.name();
    let mut result = ConfigResult::new(&config.info);

    progress.recording(&name, "verify + timing");
    match child::run_recording(&name, Recording::Timing, dir, settings) {
        Ok(Outcome::Reported(r)) => {
            result.verified = r.verified;
            result.payload_bytes = r.payload_bytes;
            result.shares_references = r.shares_references;
            result.time_ns = r.time_ns;
            result.error = r.error;
        }
        Ok(Outcome::Crashed(why)) => result.error = Some(why),
        Err(e) => result.error = Some(crate::error::one_line(&e)),
    }
    if result.error.is_some() || interrupt::interrupted() {
        return result;
    }

    if settings.cpu {
        progress.recording(&name, &format!("cpu ({} samples)", settings.cpu_samples));
        match child::run_recording(&name, Recording::Cpu, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => {
                if let Some(mut cpu) = r.cpu {
                    cpu.overhead_ratio = (cpu.median_ns_unsampled > 0.0)
                        .then(|| cpu.median_ns_under_sampling / cpu.median_ns_unsampled);
                    let quick = if settings.quick { " (quick run)" } else { "" };
                    if cpu.effective_hz < 0.8 * cpu.requested_hz {
                        result.warnings.push(format!(
                            "effective sampling rate {:.0} Hz is below 80% of the requested {:.0} Hz{quick}",
                            cpu.effective_hz, cpu.requested_hz
                        ));
                    }
                    if cpu.samples < 500 {
                        result.warnings.push(format!(
                            "only {} CPU samples{quick}: shares are rough",
                            cpu.samples
                        ));
                    }
                    result.cpu = Some(cpu);
                    result.profile = summarize_profile(config, dir);
                }
            }
            Ok(Outcome::Reported(r)) => result.error = r.error,
            Ok(Outcome::Crashed(why)) => result.error = Some(why),
            Err(e) => result.error = Some(crate::error::one_line(&e)),
        }
        if result.error.is_some() || interrupt::interrupted() {
            return result;
        }
    }

    if settings.alloc {
        progress.recording(&name, "alloc");
        match child::run_recording(&name, Recording::Alloc, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => result.alloc = r.alloc,
            Ok(Outcome::Reported(r)) => result.error = r.error,
            Ok(Outcome::Crashed(why)) => result.error = Some(why),
            Err(e) => result.error = Some(crate::error::one_line(&e)),
        }
    }
    result
}

/// The profile summary of a configuration from its `cpu.folded`.
fn summarize_profile(config: &Config, dir: &Path) -> Option<crate::result::ProfileSummary> {
    let text = std::fs::read_to_string(dir.join("cpu.folded")).ok()?;
    let folded = Folded::parse(&text).ok()?;
    let engine = Regex::new(config.info.engine_frames).ok()?;
    let matching = studies::find_study(config.info.study)
        .and_then(|s| s.hotspot_match)
        .and_then(|m| Regex::new(m).ok());
    Some(hotspots::summarize(
        &folded,
        config.info.config,
        &engine,
        matching.as_ref(),
    ))
}
