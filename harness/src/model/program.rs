//! The program a process runs: its binary and the studies it was handed (`serprof::main!`
//! hands them to the command line, which hands them to every command as a value). A worker
//! child is the same binary and builds its studies by calling the same function again; the
//! [`StudyStamp`] its parent planned with travels in the request's settings and the child
//! checks it ([`Program::check_stamp`]), so a list that depends on files or the environment
//! cannot differ silently between the two.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serprof_api::__private::{Config, ConfigInfo, StudyInfo, StudyKind};
use serprof_api::Study;

use super::allocator::{self, Allocator};
use super::binary::{git_rev_of, Binary, BuildInfo};
use super::ConfigId;

/// A row a run plans: one of the studies' configurations, and the allocator its children
/// allocate with when the run names allocators (`run --allocators`). Its [`Planned::id`]
/// names it everywhere after the plan: the timing lanes, the recordings, the folder and the
/// result.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The study's configuration.
    pub config: Config,
    /// The allocator its children allocate with (`None`: the program's own).
    pub allocator: Option<Allocator>,
}

impl Planned {
    /// `config` under the program's own allocator.
    pub fn new(config: Config) -> Planned {
        Planned {
            config,
            allocator: None,
        }
    }

    /// Its description.
    pub fn info(&self) -> &ConfigInfo {
        &self.config.info
    }

    /// Its typed name: `STUDY/CONFIG`, with its allocator.
    pub fn id(&self) -> ConfigId {
        ConfigId::new(&self.config.info.study, &self.config.info.config).under(self.allocator)
    }

    /// `STUDY/CONFIG` (`@ALLOCATOR` under an allocator), for a person.
    pub fn name(&self) -> String {
        self.id().to_string()
    }
}

/// What a process measures: its binary, that binary's revision and build, its studies, and
/// what the harness takes from serprof's own engines.
///
/// The studies are this process's own ([`Program::new`]: serprof's binary, or a program whose
/// serprof has the `driver` feature), or another program's as it describes them
/// (`Description::into_program` of `model::described`: the driver measuring a program that
/// ends in `serprof::main!`). A
/// described program's configurations cannot build workloads here: every workload runs in
/// that program's worker children.
#[derive(Debug, Clone)]
pub struct Program {
    binary: Binary,
    rev: String,
    /// The executable whose worker children measure.
    exe: std::path::PathBuf,
    build: BuildInfo,
    infos: Vec<StudyInfo>,
    configs: Vec<Config>,
    /// The studies' stamp, computed once (the studies never change).
    stamp: StudyStamp,
    builtins: Builtins,
    /// The studies run in this process (not described by another program).
    local: bool,
    /// The program has serprof's `dataset` command (its studies include the Order dataset).
    has_dataset: bool,
}

/// What the harness takes from serprof's engines crate, handed in as values by the crate root
/// (the one file of the harness that names that crate).
#[derive(Debug, Clone, Copy)]
pub struct Builtins {
    /// The probe's fixed reference workload: `formats/serde_json` on the Order dataset,
    /// whatever studies the program measures.
    pub reference: fn() -> Config,
    /// serprof's `dataset` command, where the program's studies include the Order dataset.
    pub dataset: Option<DatasetFn>,
    /// The lock file the engines' library versions were read from when they were built
    /// (`None`: none was found, and the versions read `unresolved`).
    pub lockfile: Option<&'static str>,
}

/// serprof's `dataset` command: writes what the arguments ask for.
pub(crate) type DatasetFn = fn(&DatasetArgs, &mut dyn std::io::Write) -> anyhow::Result<()>;

/// The arguments of `serprof dataset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatasetArgs {
    /// Only this Order.
    pub order: Option<usize>,
    /// The dataset's facts instead of the Orders.
    pub stats: bool,
    /// One JSON document.
    pub json: bool,
}

/// The names of a list of studies and a fingerprint of their configurations: what a parent
/// planned with, checked by each worker child and by `--resume`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyStamp {
    /// The studies' names, in order.
    pub names: Vec<String>,
    /// FNV-1a (hex) of every configuration's name, engine, version, dataset, operation and
    /// document hash, and every unavailable study's reason.
    pub fingerprint: String,
}

impl Program {
    /// The program of `binary` measuring `studies` in this process.
    pub fn new(binary: Binary, studies: Vec<Study>, builtins: Builtins) -> Program {
        let infos: Vec<StudyInfo> = studies.iter().map(|s| s.info().clone()).collect();
        let configs: Vec<Config> = studies
            .iter()
            .flat_map(|s| s.configs().iter().cloned())
            .collect();
        let exe = std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into());
        let has_dataset = builtins.dataset.is_some();
        Program::of_parts(
            (binary, git_rev_of(&binary), exe),
            BuildInfo::this(),
            infos,
            configs,
            builtins,
            true,
            has_dataset,
        )
    }

    /// A program of parts: `local` when its studies run in this process, else described by
    /// the program `exe` (`super::described::Description::into_program`).
    pub(crate) fn of_parts(
        (binary, rev, exe): (Binary, String, std::path::PathBuf),
        build: BuildInfo,
        infos: Vec<StudyInfo>,
        configs: Vec<Config>,
        builtins: Builtins,
        local: bool,
        has_dataset: bool,
    ) -> Program {
        Program {
            binary,
            rev,
            exe,
            build,
            stamp: stamp_of(&infos, &configs),
            infos,
            configs,
            builtins,
            local,
            has_dataset,
        }
    }

    /// This program with the stamp `stamp` (a described program's own, computed over studies
    /// the driver may not all keep).
    pub(crate) fn stamped(mut self, stamp: StudyStamp) -> Program {
        self.stamp = stamp;
        self
    }

    /// Whether the studies run in this process (else another program describes them).
    pub fn is_local(&self) -> bool {
        self.local
    }

    /// The executable whose worker children measure this program.
    pub fn exe(&self) -> &std::path::Path {
        &self.exe
    }

    /// How the measuring binary was built.
    pub fn build(&self) -> &BuildInfo {
        &self.build
    }

    /// The probe's reference workload.
    pub fn reference(&self) -> Config {
        (self.builtins.reference)()
    }

    /// serprof's `dataset` command, when the studies include the Order dataset.
    pub fn dataset_command(&self) -> Option<DatasetFn> {
        self.builtins.dataset
    }

    /// What the harness takes from serprof's engines crate.
    pub fn builtins(&self) -> Builtins {
        self.builtins
    }

    /// Whether the program has serprof's `dataset` command (served by the program itself when
    /// it is described).
    pub fn has_dataset(&self) -> bool {
        self.has_dataset
    }

    /// The lock file the library versions come from.
    pub fn lockfile(&self) -> Option<&'static str> {
        self.builtins.lockfile
    }

    /// The binary that measures.
    pub fn binary(&self) -> Binary {
        self.binary
    }

    /// The binary's revision: the one `before-after` gave its build, serprof's own for
    /// serprof's binary, else the user's repository's HEAD (`+dirty` with changes; `nogit`).
    pub fn git_rev(&self) -> &str {
        &self.rev
    }

    /// Every study's description, in the order `list` prints them.
    pub fn infos(&self) -> Vec<StudyInfo> {
        self.infos.clone()
    }

    /// Every configuration of every study.
    pub fn configs(&self) -> Vec<Config> {
        self.configs.clone()
    }

    /// The configuration named `STUDY/CONFIG`.
    ///
    /// `STUDY/CONFIG@ALLOCATOR` is that configuration under an allocator (`run --allocators`).
    pub fn find(&self, name: &str) -> Option<Planned> {
        self.find_id(&name.parse().ok()?)
    }

    /// The configuration `id` names, under its allocator.
    pub fn find_id(&self, id: &ConfigId) -> Option<Planned> {
        let found = self
            .configs
            .iter()
            .find(|c| c.info.study == id.study && c.info.config == id.config)?;
        Some(Planned {
            config: found.clone(),
            allocator: id.allocator,
        })
    }

    /// The description of the study named `name`.
    pub fn find_info(&self, name: &str) -> Option<StudyInfo> {
        self.infos.iter().find(|s| s.name == name).cloned()
    }

    /// The configuration named `name`, or a misuse error listing the valid names.
    pub fn one(&self, name: &str) -> anyhow::Result<Planned> {
        match self.find(name) {
            Some(c) => Ok(c),
            None => {
                let valid: Vec<_> = self
                    .configs
                    .iter()
                    .filter(|c| !self.find_info(&c.info.study).is_some_and(|s| s.hidden))
                    .map(|c| c.info.name())
                    .collect();
                crate::misuse!(
                    "unknown configuration {name:?}; valid names: {}",
                    some_names(&valid)
                )
            }
        }
    }

    /// Whether the study named `study` decodes damaged inputs rather than being timed.
    pub fn is_corrupt(&self, study: &str) -> bool {
        self.find_info(study).map(|s| s.kind) == Some(StudyKind::Corrupt)
    }

    /// The stamp of this program's studies.
    pub fn stamp(&self) -> StudyStamp {
        self.stamp.clone()
    }

    /// The configuration `id` of a worker child whose parent planned `planned`: an error
    /// when this process built other studies, or has no such configuration, or the allocator
    /// `name` asks for is not `has`, the one this process allocates with (`None`: a global
    /// allocator of the crate's own). An empty stamp planned nothing: the timing children of
    /// another build (a before/after side, whose studies are its own revision's, or a layout of
    /// `run --layouts`, built with the selected configurations' engines only).
    pub fn planned(
        &self,
        planned: &StudyStamp,
        id: &ConfigId,
        has: Option<Allocator>,
    ) -> Result<Planned, PlanError> {
        if !planned.fingerprint.is_empty() {
            self.check_stamp(planned)?;
        }
        let config = self.find_id(id).ok_or_else(|| PlanError::Unknown {
            name: id.to_string(),
        })?;
        let name = id.to_string();
        match (config.allocator, has) {
            (Some(asked), Some(has)) if asked == has => Ok(config),
            (Some(asked), _) if !asked.compiled() => Err(PlanError::NotCompiled { name, asked }),
            (Some(asked), None) => Err(PlanError::OwnAllocator { name, asked }),
            (Some(asked), Some(has)) => Err(PlanError::OtherAllocator { name, asked, has }),
            (None, _) => Ok(config),
        }
    }

    /// Checks that this process's studies are the ones `planned` describes (a worker child's
    /// or a resumed run's): one error line naming both lists when not.
    pub fn check_stamp(&self, planned: &StudyStamp) -> Result<(), OtherStudies> {
        match planned == &self.stamp {
            true => Ok(()),
            false => Err(OtherStudies {
                planned: planned.clone(),
                built: self.stamp.clone(),
            }),
        }
    }
}

/// This process built other studies than its parent (or the resumed run) planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "this process built other studies than were planned: planned [{}] (fingerprint {}), built [{}] (fingerprint {}); a study list that depends on files or the environment must give every process of a run the same list",
    planned.names.join(", "),
    planned.fingerprint,
    built.names.join(", "),
    built.fingerprint
)]
pub struct OtherStudies {
    /// What the parent planned.
    pub planned: StudyStamp,
    /// What this process built.
    pub built: StudyStamp,
}

/// Why a child cannot measure the configuration it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// Its studies are not the planned ones.
    #[error(transparent)]
    OtherStudies(#[from] OtherStudies),
    /// No configuration of that name.
    #[error("unknown configuration {name}")]
    Unknown { name: String },
    /// The allocator it names is a feature this program was built without.
    #[error(
        "{name}: this program was built without {asked} (turn on serprof's feature `{asked}`)"
    )]
    NotCompiled { name: String, asked: Allocator },
    /// The program's global allocator is its own: it cannot switch.
    #[error("{name}: this program's global allocator is its own, so it cannot allocate with {asked} (`run --allocators` needs `serprof::main!` without `allocator:`)")]
    OwnAllocator { name: String, asked: Allocator },
    /// The child was started for another allocator.
    #[error(
        "{name}: this child allocates with {has}, not {asked} ({} was not set for it)",
        allocator::ENV
    )]
    OtherAllocator {
        name: String,
        asked: Allocator,
        has: Allocator,
    },
}

/// The stamp of studies `infos` with configurations `configs`: their names, and FNV-1a over
/// every study's name and reason when unavailable and every configuration's name, engine,
/// version, dataset, operation and document hash.
fn stamp_of(infos: &[StudyInfo], configs: &[Config]) -> StudyStamp {
    let mut text = String::new();
    for i in infos {
        let _ = writeln!(text, "study {} {:?}", i.name, i.unavailable);
        for c in configs.iter().filter(|c| c.info.study == i.name) {
            let c = &c.info;
            let doc = c.document.as_ref().map(|d| d.sha256.as_str());
            let _ = writeln!(
                text,
                "{} {} {} {} {} {doc:?}",
                c.name(),
                c.engine,
                c.engine_version,
                c.dataset,
                c.operation
            );
        }
    }
    StudyStamp {
        names: infos.iter().map(|i| i.name.clone()).collect(),
        fingerprint: format!("{:016x}", super::hash::fnv(text.as_bytes())),
    }
}

/// The first names of `names`, as many as a misuse line can show, and how many more `serprof
/// list` shows.
pub(crate) fn some_names(names: &[String]) -> String {
    const SHOWN: usize = 24;
    let mut line = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        line += &format!(
            ", and {} more: `serprof list` shows every one",
            names.len() - SHOWN
        );
    }
    line
}

/// serprof's own program (its binary and studies), built afresh, for unit tests.
#[cfg(test)]
pub(crate) fn builtin() -> Program {
    crate::testing::program(crate::builtin_studies())
}

#[cfg(test)]
mod tests {
    use serprof_api::{Codec, CodecError, Study};

    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Tick(u8);

    struct Byte;
    impl Codec<Tick> for Byte {
        fn encode(&mut self, v: &Tick, out: &mut Vec<u8>) -> Result<(), CodecError> {
            out.push(v.0);
            Ok(())
        }
        fn decode(&mut self, bytes: &mut [u8]) -> Result<Tick, CodecError> {
            bytes
                .first()
                .map(|&b| Tick(b))
                .ok_or_else(|| CodecError::decode("empty"))
        }
    }

    fn id(name: &str) -> ConfigId {
        name.parse().unwrap()
    }

    fn ticks(name: &str, engines: &[&str]) -> Program {
        let study = engines
            .iter()
            .fold(
                Study::new(name, "q").dataset(|| vec![Tick(1), Tick(2)]),
                |s, &e| s.codec(e, || Ok(Byte)),
            )
            .into();
        crate::testing::program(vec![study])
    }

    #[test]
    fn two_study_lists_live_side_by_side_and_each_finds_only_its_own() {
        let a = ticks("alpha", &["one"]);
        let b = ticks("beta", &["one", "two"]);
        assert!(a.find("alpha/one").is_some() && a.find("beta/one").is_none());
        assert!(b.find("beta/two").is_some() && b.find("alpha/one").is_none());
        let mut w = b.find("beta/two").unwrap().config.workload().unwrap();
        w.verify().unwrap();
        assert_eq!(a.configs().len(), 1);
        assert_eq!(b.configs().len(), 2);
        // Neither has the Order dataset: no `dataset` command; serprof's own has it.
        assert!(a.dataset_command().is_none());
        assert!(builtin().dataset_command().is_some());
    }

    #[test]
    fn a_configuration_under_an_allocator_is_found_and_checked_against_the_childs() {
        let p = ticks("alpha", &["one"]);
        let any = StudyStamp::default();
        let c = p.find("alpha/one@system").unwrap();
        assert_eq!(c.info().config, "one");
        assert_eq!(c.allocator, Some(Allocator::System));
        assert_eq!(c.name(), "alpha/one@system");
        assert!(p.find("alpha/two@system").is_none());
        let sys = Some(Allocator::System);
        assert!(p.planned(&any, &id("alpha/one@system"), sys).is_ok());
        assert!(p.planned(&any, &id("alpha/one"), None).is_ok());
        let own = p.planned(&any, &id("alpha/one@system"), None).unwrap_err();
        assert!(matches!(own, PlanError::OwnAllocator { .. }), "{own}");
        for other in [Allocator::Jemalloc, Allocator::Mimalloc] {
            let name = format!("alpha/one@{other}");
            let err = p.planned(&any, &id(&name), sys).unwrap_err();
            match other.compiled() {
                true => assert!(err
                    .to_string()
                    .contains(&format!("allocates with system, not {other}"))),
                false => assert!(matches!(err, PlanError::NotCompiled { .. }), "{err}"),
            }
        }
    }

    #[test]
    fn a_child_with_other_studies_refuses_what_its_parent_planned() {
        let parent = ticks("alpha", &["one"]);
        let same = ticks("alpha", &["one"]);
        let other = ticks("alpha", &["one", "two"]);
        let planned = parent.stamp();
        assert_eq!(planned.names, ["alpha"]);
        assert!(same.planned(&planned, &id("alpha/one"), None).is_ok());
        let err = other.planned(&planned, &id("alpha/one"), None).unwrap_err();
        assert!(
            err.to_string().contains("other studies than were planned"),
            "{err}"
        );
        assert!(err.to_string().contains(&planned.fingerprint), "{err}");
        // An unplanned (empty) stamp is a before/after side's: no check, only the lookup.
        assert!(other
            .planned(&StudyStamp::default(), &id("alpha/two"), None)
            .is_ok());
        assert!(same.planned(&planned, &id("alpha/nope"), None).is_err());
    }
}
