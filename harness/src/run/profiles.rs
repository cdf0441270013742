//! The profiles of one timed configuration: its CPU recording (flame graph, profile summary)
//! and its allocation recording, merged into its result.

use std::path::Path;

use serprof_engines::studies::{self, Config};

use super::executor::{Executor, Outcome};
use super::plan::config_id;
use super::progress;
use crate::analyze::folded::Folded;
use crate::analyze::hotspots;
use crate::layout;
use crate::model::{ConfigResult, Failure, Recording, Settings};
use crate::process::interrupt;

/// The CPU and allocation recordings of one timed configuration, merged into `result`.
pub fn profile_config(
    exec: &dyn Executor,
    config: &Config,
    dir: &Path,
    settings: &Settings,
    progress: &progress::Progress,
    result: &mut ConfigResult,
) {
    let name = config.info.name();
    let id = config_id(config);
    if settings.cpu {
        progress.recording(&name, &format!("cpu ({} samples)", settings.cpu_samples));
        match exec.record(&id, Recording::Cpu, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => {
                if let Some(cpu) = r.cpu {
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
            Err(e) => result.error = Some(Failure::of(e)),
        }
        if result.error.is_some() || interrupt::interrupted() {
            return;
        }
    }

    if settings.alloc {
        progress.recording(&name, "alloc");
        match exec.record(&id, Recording::Alloc, dir, settings) {
            Ok(Outcome::Reported(r)) if r.error.is_none() => {
                result.alloc = r.alloc;
                result.warnings.extend(r.warnings);
            }
            Ok(Outcome::Reported(r)) => result.error = r.error,
            Ok(Outcome::Crashed(why)) => result.error = Some(why),
            Err(e) => result.error = Some(Failure::of(e)),
        }
    }
}

/// The profile summary of a configuration from its `cpu.folded`.
fn summarize_profile(config: &Config, dir: &Path) -> Option<crate::model::ProfileSummary> {
    let text = std::fs::read_to_string(dir.join(layout::CPU_FOLDED)).ok()?;
    let folded = Folded::parse(&text).ok()?;
    let question = studies::find_info(&config.info.study).and_then(|s| s.question);
    Some(hotspots::summarize(
        &folded,
        &config.info.config,
        config.info.engine_frames.regex(),
        question.as_ref().map(|q| q.frames.regex()),
    ))
}
