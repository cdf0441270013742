//! What a measured program says of itself to the driver (`EXE __describe`, one JSON document):
//! its protocol, its binary and revision, how it was built, and its studies with their
//! configurations, with the type of the values and every function erased. The driver plans,
//! analyses and renders from this; the program's worker children do every measurement.

use serde::{Deserialize, Serialize};
use serprof_api::__private::{Config, ConfigInfo, Question, StudyInfo, StudyKind};
use serprof_api::Budget;
use serprof_api::CodecError;

use super::binary::{Binary, BuildInfo};
use super::program::{Builtins, Program, StudyStamp};

/// A program's description of itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Description {
    /// The worker protocol it speaks.
    pub(crate) protocol: u32,
    /// The version of serprof it was built with.
    pub(crate) serprof_version: String,
    /// Its cargo package, binary target and the package's folder when it was built.
    pub(crate) package: String,
    pub(crate) bin: String,
    pub(crate) manifest_dir: String,
    /// Its revision (as `Program::git_rev`).
    pub(crate) git_rev: String,
    pub(crate) build: BuildInfo,
    /// The lock file its engines' versions were read from.
    pub(crate) lockfile: Option<String>,
    /// It has serprof's `dataset` command (its studies include the Order dataset).
    pub(crate) dataset: bool,
    /// The stamp of its studies, which its worker children check (the driver's view of the
    /// studies may leave some out).
    pub(crate) stamp: StudyStamp,
    pub(crate) studies: Vec<StudyWire>,
}

/// A study as described.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StudyWire {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) source: String,
    pub(crate) kind: StudyKind,
    pub(crate) question: Option<Question>,
    pub(crate) baseline: Option<String>,
    pub(crate) steps: Vec<String>,
    pub(crate) hidden: bool,
    #[serde(default)]
    pub(crate) opt_in: bool,
    pub(crate) unavailable: Option<String>,
    pub(crate) budget: Option<Budget>,
    pub(crate) configs: Vec<ConfigInfo>,
}

impl Description {
    /// The description of `program` (its own studies), which speaks worker protocol
    /// `protocol`.
    pub(crate) fn of(program: &Program, protocol: u32) -> Description {
        let b = program.binary();
        let configs = program.configs();
        let studies = program
            .infos()
            .into_iter()
            .map(|i| StudyWire {
                configs: configs
                    .iter()
                    .filter(|c| c.info.study == i.name)
                    .map(|c| c.info.clone())
                    .collect(),
                question: i.question,
                name: i.name,
                title: i.title,
                source: i.source,
                kind: i.kind,
                baseline: i.baseline,
                steps: i.steps,
                hidden: i.hidden,
                opt_in: i.opt_in,
                unavailable: i.unavailable,
                budget: i.budget,
            })
            .collect();
        Description {
            protocol,
            serprof_version: env!("CARGO_PKG_VERSION").into(),
            package: b.package.into(),
            bin: b.bin.into(),
            manifest_dir: b.manifest_dir.into(),
            git_rev: program.git_rev().into(),
            build: program.build().clone(),
            lockfile: program.lockfile().map(str::to_string),
            dataset: program.has_dataset(),
            stamp: program.stamp(),
            studies,
        }
    }

    /// The program `exe` that described itself so: its studies run in its own worker children.
    /// `builtins` are the driver's (the probe's reference workload runs in the program, and
    /// `dataset` is served by it).
    pub(crate) fn into_program(self, exe: std::path::PathBuf, builtins: Builtins) -> Program {
        let (infos, configs) = self.studies();
        let builtins = Builtins {
            lockfile: self
                .lockfile
                .clone()
                .map(|l| &*Box::leak(l.into_boxed_str())),
            dataset: None,
            ..builtins
        };
        Program::of_parts(
            (self.binary(), self.git_rev, exe),
            self.build,
            infos,
            configs,
            builtins,
            false,
            self.dataset,
        )
        .stamped(self.stamp)
    }

    /// The binary it names. Its three names are leaked, once per described program: a
    /// `Binary` holds `'static` names (those `serprof::main!` compiles in).
    pub(crate) fn binary(&self) -> Binary {
        let leak = |s: &str| &*Box::leak(s.to_string().into_boxed_str());
        Binary {
            package: leak(&self.package),
            bin: leak(&self.bin),
            manifest_dir: leak(&self.manifest_dir),
            built_rev: None,
        }
    }

    /// Its studies' descriptions and configurations. A configuration's workload cannot be
    /// built in this process: building one is an error that says where it runs. A corrupt
    /// study is unavailable: the driver remakes each damaged input from the program's damage
    /// function to record its outcome, and that function stays in the program.
    pub(crate) fn studies(&self) -> (Vec<StudyInfo>, Vec<Config>) {
        let mut infos = Vec::new();
        let mut configs = Vec::new();
        for s in &self.studies {
            let unavailable = s.unavailable.clone().or_else(|| {
                (s.kind == StudyKind::Corrupt).then(|| {
                    "a corrupt study is measured by a serprof with its driver in the same binary (depend on the `serprof` package with its default features), not through an installed driver".to_string()
                })
            });
            if unavailable.is_none() {
                configs.extend(s.configs.iter().map(|info| {
                    Config::new(info.clone(), || {
                        Err(CodecError::setup(
                            "this configuration is described by another program: its workload is built in that program's worker children",
                        ))
                    })
                }));
            }
            infos.push(StudyInfo {
                name: s.name.clone(),
                title: s.title.clone(),
                source: s.source.clone(),
                kind: s.kind,
                question: s.question.clone(),
                baseline: s.baseline.clone(),
                steps: s.steps.clone(),
                hidden: s.hidden,
                opt_in: s.opt_in,
                unavailable,
                budget: s.budget,
                damage: None,
            });
        }
        (infos, configs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_described_and_read_back_has_the_same_studies_and_stamp() {
        let own = super::super::program::builtin();
        let d = Description::of(&own, 7);
        let json = serde_json::to_string(&d).unwrap();
        let back: Description = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
        let described = back.into_program("/x".into(), crate::testing::builtins());
        assert_eq!(described.git_rev(), own.git_rev());
        assert!(!described.is_local() && own.is_local());
        assert!(described.has_dataset() && described.dataset_command().is_none());
        assert_eq!(
            described.stamp(),
            own.stamp(),
            "the children check the program's own"
        );
        // Every configuration but the corrupt study's, the same; that study unavailable.
        let corrupt = |p: &Program| -> Vec<String> {
            p.infos()
                .iter()
                .filter(|i| i.kind == StudyKind::Corrupt)
                .map(|i| i.name.clone())
                .collect()
        };
        assert_eq!(corrupt(&own), corrupt(&described));
        let kept: Vec<_> = own
            .configs()
            .into_iter()
            .filter(|c| !corrupt(&own).contains(&c.info.study))
            .collect();
        let b = described.configs();
        assert_eq!(kept.len(), b.len());
        for (x, y) in kept.iter().zip(&b) {
            assert_eq!(x.info, y.info);
        }
        for name in corrupt(&described) {
            let why = described.find_info(&name).unwrap().unavailable.unwrap();
            assert!(why.contains("corrupt study"), "{why}");
        }
        let err = b[0].workload().err().expect("no workload in the driver");
        assert!(err.to_string().contains("another program"), "{err}");
    }
}
