//! The profiles of one timed configuration: its CPU recording (flame graph, profile summary),
//! its allocation recording and its instruction count, merged into its result.

use std::path::Path;

use crate::model::Planned;

use super::executor::{Executor, Outcome};
use super::progress;
use crate::analyze::hotspots;
use crate::analyze::types::{self, TypeHints};
use crate::layout;
use crate::model::manifest::PhaseSeconds;
use crate::model::{ConfigResult, Failure, Program, Recording, Settings};
use crate::profile::folded::Folded;

/// What the recordings after timing need.
pub(crate) struct Profiling<'a> {
    pub exec: &'a dyn Executor,
    /// The studies measured (a study's question names the frames of its profile summary).
    pub program: &'a Program,
    /// The run's settings (a study's budget is applied here).
    pub settings: &'a Settings,
    /// `valgrind --version` when instructions are counted.
    pub valgrind: Option<&'a str>,
    pub progress: &'a progress::Progress,
}

impl Profiling<'_> {
    /// The CPU, allocation and instructions recordings of one timed configuration (those its
    /// settings ask for), merged into `result`; their time goes into `clock`. Nothing is
    /// recorded for a configuration that already failed.
    pub(crate) fn profile(
        &self,
        config: &Planned,
        dir: &Path,
        result: &mut ConfigResult,
        clock: &mut PhaseSeconds,
    ) {
        let settings = super::budgeted(self.settings, config);
        if result.error.is_none() {
            profile_config(self, config, dir, &settings, result, clock);
        }
        if let (None, Some(version)) = (&result.error, self.valgrind) {
            self.progress
                .recording(&config.name(), "instructions (callgrind)");
            let counted = clock.time(
                |c| &mut c.instructions,
                || super::instructions::record(self.exec, config, dir, &settings, version),
            );
            match counted {
                Ok(stats) => result.instructions = Some(stats),
                Err(why) => result.error = Some(why),
            }
        }
        let found = crate::analyze::findings::diagnose_dir(dir, result);
        result.diagnoses = found.diagnoses;
        result.near_threshold = found.near;
    }
}

/// The CPU and allocation recordings of one timed configuration, merged into `result`: one
/// child makes both when both are asked for (the allocation recording after the CPU one, on the
/// warm workload), else each its own.
fn profile_config(
    profiling: &Profiling,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    result: &mut ConfigResult,
    clock: &mut PhaseSeconds,
) {
    let (exec, progress) = (profiling.exec, profiling.progress);
    let name = config.name();
    let id = config.id();
    let recording = match (settings.cpu, settings.alloc) {
        (true, _) => Recording::Cpu,
        (false, true) => Recording::Alloc,
        (false, false) => return,
    };
    let what = match (settings.cpu, settings.alloc) {
        (true, true) => format!("cpu ({} samples), then alloc", settings.cpu_samples),
        (true, false) => format!("cpu ({} samples)", settings.cpu_samples),
        _ => "alloc".to_string(),
    };
    progress.recording(&name, &what);
    let started = std::time::Instant::now();
    let recorded = exec.record(&id, recording, dir, settings);
    let seconds = started.elapsed().as_secs_f64();
    let report = match recorded {
        Ok(Outcome::Reported(r)) => Some(*r),
        Ok(Outcome::Crashed(why)) => {
            result.error = Some(why);
            None
        }
        Err(e) => {
            result.error = Some(Failure::of(e));
            None
        }
    };
    // A CPU child's time is the CPU recording's but for the allocation recording it made after.
    let alloc_seconds = match recording {
        Recording::Cpu => report
            .as_ref()
            .and_then(|r| r.alloc_seconds)
            .unwrap_or(0.0)
            .min(seconds),
        _ => seconds,
    };
    clock.alloc += alloc_seconds;
    clock.cpu += seconds - alloc_seconds;
    let Some(report) = report else {
        return;
    };
    if let Some(cpu) = report.cpu {
        keep_cpu(profiling, config, dir, settings, result, cpu);
    }
    if let Some(alloc) = &report.alloc {
        if let Err(e) = crate::render::recording::alloc_views(dir, &name, alloc) {
            result
                .warnings
                .push(format!("the allocation flame graph was not drawn: {e:#}"));
        }
    }
    result.alloc = report.alloc;
    result.warnings.extend(report.warnings);
    if report.error.is_some() {
        result.error = report.error;
    }
}

/// A CPU recording's figures and views, checked against what was asked for, into `result`.
fn keep_cpu(
    profiling: &Profiling,
    config: &Planned,
    dir: &Path,
    settings: &Settings,
    result: &mut ConfigResult,
    cpu: crate::model::CpuStats,
) {
    let name = config.name();
    let quick = if settings.quick { " (quick run)" } else { "" };
    if cpu.effective_hz < 0.8 * cpu.requested_hz {
        result.warnings.push(format!(
            "effective sampling rate {:.0} Hz is below 80% of the requested {:.0} Hz{quick}",
            cpu.effective_hz, cpu.requested_hz
        ));
    }
    // The samples asked for (the study's budget applied) are what the shares were sized for;
    // fewer means the recording hit its time cap.
    if (cpu.samples as f64) < 0.8 * settings.cpu_samples as f64 {
        result.warnings.push(format!(
            "only {} of the {} CPU samples asked for{quick}: shares are rough",
            cpu.samples, settings.cpu_samples
        ));
    }
    if let Err(e) = crate::render::recording::cpu_views(dir, &name, &cpu) {
        result
            .warnings
            .push(format!("the CPU flame graph was not drawn: {e:#}"));
    }
    result.cpu = Some(cpu);
    // One read of the profile, one regrouping by type, for the summary and the findings.
    if let Some(folded) = read_folded(dir) {
        let by_type = types::by_type(&folded, &TypeHints::of(&result.fields));
        result.profile = Some(summarize_profile(
            profiling.program,
            config,
            &folded,
            &by_type,
        ));
        types::complete_findings(&mut result.findings, &by_type);
    }
}

/// A configuration's `cpu.folded`, if it reads.
fn read_folded(dir: &Path) -> Option<Folded> {
    let text = std::fs::read_to_string(dir.join(layout::CPU_FOLDED)).ok()?;
    Folded::parse(&text).ok()
}

/// The profile summary of a configuration from its `cpu.folded`.
fn summarize_profile(
    program: &Program,
    config: &Planned,
    folded: &Folded,
    by_type: &Folded,
) -> crate::model::ProfileSummary {
    let question = program
        .find_info(&config.info().study)
        .and_then(|s| s.question);
    hotspots::summarize(
        folded,
        &config.info().config,
        config.info().engine_frames.regex(),
        question.as_ref().map(|q| q.frames.regex()),
        by_type,
    )
}
