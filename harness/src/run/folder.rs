//! The run folder of `serprof run`: a new run's manifest, a resumed run's reopening, what a
//! finished run records of its outcomes, and the comparisons of each study's before/after steps.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::model::Planned;
use anyhow::{Context, Result};

use super::{compare, placement};
use crate::layout::{self, config_dir, read_json, utc_rfc3339};
use crate::misuse;
use crate::model::manifest::BinaryRecord;
use crate::model::{
    ConfigResult, EngineVersion, Failed, Machine, Program, RunManifest, Settings, BUFFER_POLICY,
    RUSTC,
};

fn engine_versions(configs: &[Planned]) -> Vec<EngineVersion> {
    let set: BTreeSet<(String, String)> = configs
        .iter()
        .map(|c| (c.info().engine.clone(), c.info().engine_version.clone()))
        .collect();
    set.into_iter()
        .map(|(engine, version)| EngineVersion { engine, version })
        .collect()
}

/// A manifest's list of failed configurations and of warnings, from their results.
pub(crate) fn record_outcomes(manifest: &mut RunManifest, results: &[&ConfigResult]) {
    manifest.failed = results
        .iter()
        .filter_map(|r| {
            r.error.as_ref().map(|failure| Failed {
                config: r.id(),
                failure: failure.clone(),
            })
        })
        .collect();
    manifest.warnings = results
        .iter()
        .flat_map(|r| r.warnings.iter().map(move |w| format!("{}: {w}", r.name())))
        .collect();
}

/// The manifest of a new run of `configs`, as this binary writes it (a before/after side
/// overwrites the revision with its own).
pub(crate) fn new_manifest(
    program: &Program,
    configs: &[Planned],
    settings: Settings,
    placed: Option<crate::model::manifest::CpuPlacement>,
) -> RunManifest {
    RunManifest {
        serprof_version: env!("CARGO_PKG_VERSION").into(),
        git_rev: program.git_rev().into(),
        rustc: RUSTC.into(),
        engines: engine_versions(configs),
        lockfile: program.lockfile().map(str::to_string),
        machine: Machine::this(),
        settings,
        buffer_policy: BUFFER_POLICY.into(),
        unwinder: crate::measure::cpu::UNWINDER.into(),
        command: std::env::args().collect(),
        configs: configs.iter().map(Planned::id).collect(),
        start: utc_rfc3339(SystemTime::now()),
        end: None,
        complete: false,
        failed: Vec::new(),
        warnings: Vec::new(),
        sessions: Vec::new(),
        placement: placed,
        health: Some(placement::health()),
        binary: Some(BinaryRecord {
            package: program.binary().package.into(),
            bin: program.binary().bin.into(),
            build: crate::model::BuildInfo::this(),
        }),
        schedules: Vec::new(),
        layouts: Vec::new(),
        layouts_notes: Vec::new(),
    }
}

/// Compares each before/after step of the studies in this run with the step before it
/// (`json-decimal` -> `json-base64-twopass` -> `json-base64-table`), writing `compare.json`,
/// `diff.svg` and `diff-reverse.svg` under `<run>/compare/`. A step that failed or has no
/// profile is skipped; a comparison that cannot be made is logged, never fatal.
pub(crate) fn compare_steps(program: &Program, run_dir: &Path, results: &[ConfigResult]) {
    let _span = tracing::info_span!("compare_steps").entered();
    let mut studies_seen: Vec<&str> = Vec::new();
    for r in results {
        if !studies_seen.contains(&r.study.as_str()) {
            studies_seen.push(&r.study);
        }
    }
    for study in studies_seen {
        let steps = program
            .find_info(study)
            .map(|s| s.steps)
            .unwrap_or_default();
        let measured: Vec<&ConfigResult> = steps
            .iter()
            .filter_map(|step| {
                results.iter().find(|r| {
                    r.study == study && &r.config == step && r.error.is_none() && r.cpu.is_some()
                })
            })
            .collect();
        for pair in measured.windows(2) {
            let [before, after] = [pair[0], pair[1]].map(|r| (config_dir(run_dir, &r.id()), r));
            let compared = compare::compare_step((&before.0, before.1), (&after.0, after.1));
            if let Err(e) = compared {
                tracing::warn!(
                    "cannot compare {study}/{} with {study}/{}: {}",
                    before.1.config,
                    after.1.config,
                    crate::error::one_line(&e)
                );
            }
        }
    }
}

/// A configuration folder's finished result, if it has one (for `--resume`).
pub(crate) fn finished_result(dir: &Path) -> Option<ConfigResult> {
    let bytes = std::fs::read(dir.join(layout::RESULT_JSON)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Reopens an interrupted run: its manifest, settings and selection.
pub(crate) fn resume(
    program: &Program,
    dir: &Path,
) -> Result<(PathBuf, RunManifest, Vec<Planned>)> {
    if !dir.is_dir() {
        misuse!("--resume {}: not a folder", dir.display());
    }
    let manifest: RunManifest = read_json(&dir.join(layout::RUN_JSON))?;
    if !manifest.settings.studies.fingerprint.is_empty() {
        if let Err(e) = program.check_stamp(&manifest.settings.studies) {
            misuse!("--resume {}: {e}", dir.display());
        }
    }
    let mut configs = Vec::new();
    for name in &manifest.configs {
        match program.find(&name.to_string()) {
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
