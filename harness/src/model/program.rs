//! The program a process runs: its binary and the studies it was handed (`serprof::main!`
//! hands them to the command line, which hands them to every command as a value). A worker
//! child is the same binary and builds its studies by calling the same function again; the
//! [`StudyStamp`] its parent planned with travels in the request's settings and the child
//! checks it ([`Program::check_stamp`]), so a list that depends on files or the environment
//! cannot differ silently between the two.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serprof_api::study::{Config, Study, StudyInfo, StudyKind};

use super::binary::{git_rev_of, Binary};

/// What a process measures: its binary, that binary's revision, its studies.
#[derive(Debug, Clone)]
pub struct Program {
    binary: Binary,
    rev: String,
    studies: Vec<Study>,
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
    /// The program of `binary` measuring `studies`.
    pub fn new(binary: Binary, studies: Vec<Study>) -> Program {
        Program {
            rev: git_rev_of(&binary),
            binary,
            studies,
        }
    }

    /// serprof's own binary with `studies` (the tests' and benches' way in).
    pub fn serprof(studies: Vec<Study>) -> Program {
        Program::new(Binary::SERPROF, studies)
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

    /// Every study, in the order `list` prints them.
    pub fn studies(&self) -> &[Study] {
        &self.studies
    }

    /// Every study's description.
    pub fn infos(&self) -> Vec<StudyInfo> {
        self.studies.iter().map(|s| s.info().clone()).collect()
    }

    /// Every configuration of every study.
    pub fn configs(&self) -> Vec<Config> {
        self.studies
            .iter()
            .flat_map(|s| s.configs().iter().cloned())
            .collect()
    }

    /// The configuration named `STUDY/CONFIG`.
    pub fn find(&self, name: &str) -> Option<Config> {
        let (study, config) = name.split_once('/')?;
        self.find_study(study)?
            .configs()
            .iter()
            .find(|c| c.info.config == config)
            .cloned()
    }

    /// The study named `name`.
    pub fn find_study(&self, name: &str) -> Option<&Study> {
        self.studies.iter().find(|s| s.info().name == name)
    }

    /// The description of the study named `name`.
    pub fn find_info(&self, name: &str) -> Option<StudyInfo> {
        self.find_study(name).map(|s| s.info().clone())
    }

    /// Whether the study named `study` decodes damaged inputs rather than being timed.
    pub fn is_corrupt(&self, study: &str) -> bool {
        self.find_study(study).map(|s| s.info().kind) == Some(StudyKind::Corrupt)
    }

    /// The stamp of this program's studies.
    pub fn stamp(&self) -> StudyStamp {
        let mut text = String::new();
        for s in &self.studies {
            let i = s.info();
            let _ = writeln!(text, "study {} {:?}", i.name, i.unavailable);
            for c in s.configs() {
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
            names: self.studies.iter().map(|s| s.info().name.clone()).collect(),
            fingerprint: format!("{:016x}", super::fnv(text.as_bytes())),
        }
    }

    /// The configuration `name` of a worker child whose parent planned `planned`: an error
    /// when this process built other studies, or has no such configuration. An empty stamp
    /// planned nothing: a before/after side's children, whose studies are their own
    /// revision's, which the parent cannot build.
    pub fn planned(&self, planned: &StudyStamp, name: &str) -> Result<Config, String> {
        if !planned.fingerprint.is_empty() {
            self.check_stamp(planned)?;
        }
        self.find(name)
            .ok_or_else(|| format!("unknown configuration {name}"))
    }

    /// Checks that this process's studies are the ones `planned` describes (a worker child's
    /// or a resumed run's): one error line naming both lists when not.
    pub fn check_stamp(&self, planned: &StudyStamp) -> Result<(), String> {
        let own = self.stamp();
        if *planned == own {
            return Ok(());
        }
        Err(format!(
            "this process built other studies than were planned: planned [{}] (fingerprint {}), built [{}] (fingerprint {}); a study list that depends on files or the environment must give every process of a run the same list",
            planned.names.join(", "),
            planned.fingerprint,
            own.names.join(", "),
            own.fingerprint
        ))
    }
}

/// serprof's own program (its binary and studies), built afresh, for unit tests.
#[cfg(test)]
pub(crate) fn builtin() -> Program {
    Program::serprof(serprof_engines::studies::builtin())
}
