//! The plan of a run: which configurations (`--study`, `--config`), or, with `--resume`, what an
//! interrupted run folder still lacks.
//!
//! Repeated flags of one kind widen the selection (OR); `--study` and `--config` together narrow
//! it (AND). A `--config` glob is matched against `STUDY/CONFIG`; a glob without `/` is matched
//! against the `CONFIG` part in every study. Unknown names are a misuse (exit 2) whose message
//! lists the valid ones (the first screenful), or, for a glob that matches only configurations
//! of studies the run leaves out, the `--study` flags to add. Hidden studies (test doubles) and opt-in ones (`StudyInfo::opt_in`) run
//! only when named with `--study`.

use anyhow::Result;

use crate::model::allocator::Allocator;
use crate::model::{Planned, Program, Settings};

use crate::misuse;

/// The configurations selected by `studies` (names) and `globs`.
pub(crate) fn select(
    program: &Program,
    study_names: &[String],
    globs: &[String],
) -> Result<Vec<Planned>> {
    let all_studies = program.infos();
    for name in study_names {
        if let Some(why) = all_studies
            .iter()
            .find(|s| &s.name == name)
            .and_then(|s| s.unavailable.as_ref())
        {
            misuse!("--study {name}: {why}");
        }
        if !all_studies.iter().any(|s| &s.name == name) {
            let valid: Vec<&str> = all_studies
                .iter()
                .filter(|s| !s.hidden)
                .map(|s| s.name.as_str())
                .collect();
            misuse!(
                "unknown study {name:?}; valid studies: {}",
                valid.join(", ")
            );
        }
    }
    let mut patterns = Vec::new();
    for g in globs {
        match glob::Pattern::new(g) {
            Ok(p) => patterns.push((g, p)),
            Err(e) => misuse!("invalid --config glob {g:?}: {e}"),
        }
    }
    let hidden: Vec<&str> = all_studies
        .iter()
        .filter(|s| s.hidden || s.opt_in)
        .map(|s| s.name.as_str())
        .collect();
    let in_study = |c: &Planned| {
        if study_names.is_empty() {
            !hidden.contains(&c.info().study.as_str())
        } else {
            study_names.iter().any(|s| s == &c.info().study)
        }
    };
    let matches = |pattern: &glob::Pattern, text: &str, c: &Planned| {
        if text.contains('/') {
            pattern.matches(&c.name())
        } else {
            pattern.matches(&c.info().config)
        }
    };
    let configs: Vec<Planned> = program.configs().into_iter().map(Planned::new).collect();
    for (text, pattern) in &patterns {
        if !configs
            .iter()
            .any(|c| in_study(c) && matches(pattern, text, c))
        {
            // Configurations of studies the run leaves out (opt-in ones, or ones `--study` did
            // not name): the glob is right, the study is missing.
            let mut left_out: Vec<&str> = configs
                .iter()
                .filter(|c| !in_study(c) && matches(pattern, text, c))
                .map(|c| c.info().study.as_str())
                .filter(|s| all_studies.iter().any(|i| i.name == *s && !i.hidden))
                .collect();
            left_out.dedup();
            if !left_out.is_empty() {
                let flags: Vec<String> = left_out.iter().map(|s| format!("--study {s}")).collect();
                misuse!(
                    "--config {text:?} matches configurations of {} only, which this run leaves \
                     out ({}): add {}",
                    if left_out.len() == 1 {
                        format!("the study {}", left_out[0])
                    } else {
                        format!("the studies {}", left_out.join(", "))
                    },
                    if study_names.is_empty() {
                        "opt-in studies run only when named with --study"
                    } else {
                        "it has the studies --study names"
                    },
                    flags.join(" ")
                );
            }
            let valid: Vec<_> = configs
                .iter()
                .filter(|c| in_study(c))
                .map(|c| c.name())
                .collect();
            misuse!(
                "--config {text:?} matches no configuration; valid names: {}",
                crate::model::program::some_names(&valid)
            );
        }
    }
    Ok(configs
        .into_iter()
        .filter(|c| {
            in_study(c) && (patterns.is_empty() || patterns.iter().any(|(t, p)| matches(p, t, c)))
        })
        .collect())
}

/// The configuration named exactly `STUDY/CONFIG`, or a misuse error listing the valid names.
pub(crate) fn one(program: &Program, name: &str) -> Result<Planned> {
    program.one(name)
}

/// `configs`, each timed one (not the corrupt study's) once per allocator, a configuration's
/// allocators next to each other; no allocators: `configs`.
pub(crate) fn under_allocators(
    program: &Program,
    configs: Vec<Planned>,
    allocators: &[Allocator],
) -> Vec<Planned> {
    if allocators.is_empty() {
        return configs;
    }
    let mut out = Vec::new();
    for c in configs {
        if program.is_corrupt(&c.info().study) {
            out.push(c);
            continue;
        }
        for &a in allocators {
            out.push(Planned {
                allocator: Some(a),
                ..c.clone()
            });
        }
    }
    out
}

/// The one line `serprof run` without `--study` says about each study that is unavailable in
/// this process (and so left out), with its reason.
pub(crate) fn unavailable_notes(program: &Program) -> Vec<String> {
    program
        .infos()
        .iter()
        .filter_map(|i| {
            let why = i.unavailable.as_ref().filter(|_| !i.hidden)?;
            Some(format!("the {} study is left out: {why}", i.name))
        })
        .collect()
}

/// The settings of one configuration: the run's, within its study's budget (fewer timing
/// processes, CPU samples and overhead pairs for a study of many configurations).
pub(crate) fn budgeted(settings: &Settings, config: &Planned) -> Settings {
    let Some(b) = config.info().budget else {
        return settings.clone();
    };
    let (processes, cpu_samples, overhead_pairs) = if settings.quick {
        (
            b.quick_processes,
            b.quick_cpu_samples,
            b.quick_overhead_pairs,
        )
    } else {
        (b.processes, b.cpu_samples, b.overhead_pairs)
    };
    Settings {
        processes: settings.processes.min(processes),
        cpu_samples: settings.cpu_samples.min(cpu_samples),
        overhead_pairs: settings.overhead_pairs.min(overhead_pairs),
        ..settings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit_code_of;

    fn names(c: &[Planned]) -> Vec<String> {
        c.iter().map(|c| c.name()).collect()
    }

    #[test]
    fn study_and_glob_narrow_and_widen() {
        let program = crate::model::program::builtin();
        let formats = select(&program, &["formats".into()], &[]).unwrap();
        assert!(!formats.is_empty() && formats.iter().all(|c| c.info().study == "formats"));
        let one = select(&program, &[], &["formats/serde_json".into()]).unwrap();
        assert_eq!(names(&one), ["formats/serde_json"]);
        let two = select(
            &program,
            &[],
            &["formats/serde_json".into(), "formats/postcard".into()],
        )
        .unwrap();
        assert_eq!(two.len(), 2);
        let bare = select(&program, &["formats".into()], &["postcard*".into()]).unwrap();
        assert!(names(&bare).contains(&"formats/postcard+bytes".to_string()));
        assert!(bare.iter().all(|c| c.info().config.starts_with("postcard")));
    }

    #[test]
    fn opt_in_studies_run_only_when_named() {
        let program = crate::model::program::builtin();
        let opt_in: Vec<String> = program
            .infos()
            .into_iter()
            .filter(|s| s.opt_in)
            .map(|s| s.name)
            .collect();
        assert!(opt_in.iter().any(|s| s == "rsb-log"), "{opt_in:?}");
        let every = select(&program, &[], &[]).unwrap();
        assert!(every.iter().all(|c| !opt_in.contains(&c.info().study)));
        let named = select(&program, &["rsb-log".into()], &[]).unwrap();
        assert!(!named.is_empty() && named.iter().all(|c| c.info().study == "rsb-log"));
    }

    #[test]
    fn unknown_names_are_misuse_listing_valid_names() {
        let program = crate::model::program::builtin();
        let e = select(&program, &["nope".into()], &[]).unwrap_err();
        assert_eq!(exit_code_of(&e), 2);
        assert!(e.to_string().contains("formats"), "{e}");
        let e = select(&program, &[], &["formats/nope".into()]).unwrap_err();
        assert_eq!(exit_code_of(&e), 2);
        assert!(e.to_string().contains("formats/serde_json"), "{e}");
        // The list stops at a screenful, pointing at `serprof list`.
        assert!(e.to_string().contains("more: `serprof list`"), "{e}");
        assert_eq!(exit_code_of(&one(&program, "x/y").unwrap_err()), 2);
    }

    #[test]
    fn a_glob_of_a_study_the_run_leaves_out_says_which_study_to_add() {
        let program = crate::model::program::builtin();
        let e = select(&program, &[], &["rsb-mesh/rkyv.update".into()]).unwrap_err();
        assert_eq!(exit_code_of(&e), 2);
        assert!(
            e.to_string().ends_with(
                "the study rsb-mesh only, which this run leaves out (opt-in studies run only when \
                 named with --study): add --study rsb-mesh"
            ),
            "{e}"
        );
        let e = select(&program, &["formats".into()], &["rkyv.update".into()]).unwrap_err();
        assert!(
            e.to_string().ends_with(
                "add --study rsb-log --study rsb-mesh --study rsb-minecraft --study rsb-mk48"
            ),
            "{e}"
        );
        // Named, it matches.
        let named = select(&program, &["rsb-mesh".into()], &["rkyv.update".into()]).unwrap();
        assert_eq!(names(&named), ["rsb-mesh/rkyv.update"]);
    }
}
