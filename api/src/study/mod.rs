//! Studies as values: what a study asks, its dataset, and the configurations that answer it.
//!
//! A study is built with [`Study::new`], given a dataset of its own type with
//! [`Study::dataset`] (which makes a [`StudyOf<T>`]), and given engines: every serde engine
//! serprof ships (`.engines(serprof::engines::serde())`), an engine described in full
//! ([`StudyOf::engine`]), or a codec of one's own ([`StudyOf::codec`]). The methods that
//! describe the study (its source, question, baseline, steps, budget) are written once
//! (`describe_study!`) for both types. serprof's own studies are built the same way. The
//! harness knows a configuration only as a [`ConfigInfo`] (its name, engine, format,
//! operation, the frames that are the engine's) and a [`Config::workload`] to build in a worker
//! process: the type of the values is erased there.

mod engine;
mod info;

use std::sync::{Arc, OnceLock};

pub use engine::Engine;
pub use info::{
    Budget, Config, ConfigInfo, Damage, DamagedInput, DocumentRecord, Format, FramePattern,
    FramePatternError, MakeWorkload, Question, StudyInfo, StudyKind,
};

use crate::codec::{Codec, CodecError};
use crate::workload::{Checks, Data, Operation, Value, Values, Workload};

/// The builder methods of a study's description, shared by [`Study`] and [`StudyOf`]: each
/// type names the study it builds with a method `study_mut(&mut self) -> &mut Study`.
macro_rules! describe_study {
    () => {
        /// What the article it reproduces is, or where its question comes from.
        pub fn source(mut self, text: impl Into<String>) -> Self {
            self.study_mut().info.source = text.into();
            self
        }

        /// The frames whose share of the CPU samples answers the study's question (a regular
        /// expression over frame names), and what that share is called (`byte-array code`).
        pub fn question(mut self, frames: &str, label: impl Into<String>) -> Self {
            let label = label.into();
            self.study_mut().info.question = Some(Question {
                frames: FramePattern::builtin(frames),
                caption: format!("Share of CPU samples in {label}"),
                label: format!("{label} share"),
            });
            self
        }

        /// Ratios are taken against this engine instead of the fastest: each row's ratio is to
        /// the engine's row of the same operation (`serde_json` means `serde_json.serialize`
        /// for a serialize row, `serde_json.deserialize` for a deserialize row). A full
        /// configuration name (`serde_json.serialize`) makes that one row every row's
        /// reference. A baseline that names neither stops the program when it starts, in one
        /// line that names it.
        pub fn baseline(mut self, config: impl Into<String>) -> Self {
            self.study_mut().info.baseline = Some(config.into());
            self
        }

        /// Before/after steps: configurations (names inside the study) each compared with the
        /// one before it, the way an article shows its fixes. A step that names no
        /// configuration stops the program when it starts.
        pub fn steps<S: Into<String>>(mut self, configs: impl IntoIterator<Item = S>) -> Self {
            self.study_mut().info.steps = configs.into_iter().map(Into::into).collect();
            self
        }

        /// Hidden from `serprof list` and from a `run` without `--study`.
        pub fn hidden(mut self) -> Self {
            self.study_mut().info.hidden = true;
            self
        }

        /// Listed by `serprof list`, but left out of a `run` without `--study`: a study too
        /// long for the default run is measured only when named.
        pub fn opt_in(mut self) -> Self {
            self.study_mut().info.opt_in = true;
            self
        }

        /// Caps per configuration, for a study whose configurations are many.
        pub fn budget(mut self, budget: Budget) -> Self {
            let study = self.study_mut();
            study.info.budget = Some(budget);
            for c in &mut study.configs {
                c.info.budget = Some(budget);
            }
            self
        }

        /// The study decodes damaged payloads of its configurations, made by `damage`, in
        /// guarded children instead of timing them, and counts what each engine does with
        /// them. Each engine of a dataset is then one configuration that decodes, whatever
        /// the study's operations are.
        pub fn corrupt(mut self, damage: Damage) -> Self {
            let info = &mut self.study_mut().info;
            info.kind = StudyKind::Corrupt;
            info.damage = Some(damage);
            self
        }
    };
}

/// A study: its description and its configurations. Built with [`Study::new`], a dataset
/// ([`Study::dataset`]) and engines; a `Vec<Study>` is what `serprof::main!` measures.
#[derive(Debug, Clone)]
pub struct Study {
    info: StudyInfo,
    configs: Vec<Config>,
}

impl Study {
    /// A study named `name` (the first part of its configurations' names: lowercase letters,
    /// digits, `-` and `_`) that answers `title`.
    pub fn new(name: impl Into<String>, title: impl Into<String>) -> Study {
        Study {
            info: StudyInfo {
                name: name.into(),
                title: title.into(),
                source: String::new(),
                kind: StudyKind::Measured,
                question: None,
                baseline: None,
                steps: Vec::new(),
                hidden: false,
                opt_in: false,
                unavailable: None,
                budget: None,
                damage: None,
            },
            configs: Vec::new(),
        }
    }

    /// The study measures `make`'s values: one value per operation, cycling through them (a
    /// dataset of one value measures that value whole). `make` runs once in each worker
    /// process that needs the data, not in the parent.
    pub fn dataset<T: Value>(
        self,
        make: impl Fn() -> Vec<T> + Send + Sync + 'static,
    ) -> StudyOf<T> {
        let name = short_type_name::<T>();
        self.dataset_named(name, make)
    }

    /// [`Study::dataset`] under a name of its own (tables say "roundtrip of NAME").
    pub fn dataset_named<T: Value>(
        self,
        name: impl Into<String>,
        make: impl Fn() -> Vec<T> + Send + Sync + 'static,
    ) -> StudyOf<T> {
        StudyOf {
            study: self,
            dataset: Dataset {
                name: name.into(),
                make: Source::Built(Arc::new(make)),
                built: Arc::new(OnceLock::new()),
            },
            checks: Checks::default(),
            operations: vec![Operation::RoundTrip],
            engines: Vec::new(),
        }
    }

    /// [`Study::dataset_named`] of a static dataset of serprof's own, measured where it was
    /// generated (never copied).
    #[doc(hidden)]
    pub fn dataset_static<T: Value>(
        self,
        name: impl Into<String>,
        values: fn() -> &'static [T],
    ) -> StudyOf<T> {
        let mut s = self.dataset_named(name, Vec::new);
        s.dataset.make = Source::Static(values);
        s
    }

    describe_study!();

    /// The study these methods build: itself.
    fn study_mut(&mut self) -> &mut Study {
        self
    }

    /// The study's description (what the driver is told of it).
    #[doc(hidden)]
    pub fn info(&self) -> &StudyInfo {
        &self.info
    }

    /// Its configurations.
    #[doc(hidden)]
    pub fn configs(&self) -> &[Config] {
        &self.configs
    }

    /// The description and the configurations.
    #[doc(hidden)]
    pub fn into_parts(self) -> (StudyInfo, Vec<Config>) {
        (self.info, self.configs)
    }

    /// A study of `info` and `configs` as they are (serprof's own studies of documents).
    #[doc(hidden)]
    pub fn from_parts(info: StudyInfo, configs: Vec<Config>) -> Study {
        Study { info, configs }
    }

    /// What makes the study unusable, in one line, if anything: two configurations of one name
    /// (an engine added twice, or two engines given one name), or a baseline or step that names
    /// no configuration and no engine of the study. An unavailable study has none of these.
    /// The program stops with it when it starts.
    #[doc(hidden)]
    pub fn problem(&self) -> Option<String> {
        let name = &self.info.name;
        let mut seen = std::collections::HashSet::new();
        for c in &self.configs {
            if !seen.insert(c.info.config.as_str()) {
                return Some(format!(
                    "study {name}: two configurations are named {} (engine names must be unique within a study: rename one with `Engine::named`)",
                    c.info.config
                ));
            }
        }
        if self.configs.is_empty() {
            return None;
        }
        let names = || {
            self.configs
                .iter()
                .map(|c| c.info.config.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some(b) = &self.info.baseline {
            let names_engine = |c: &Config| {
                c.info.config == *b
                    || c.info
                        .config
                        .strip_prefix(b.as_str())
                        .and_then(|r| r.strip_prefix('.'))
                        == Some(c.info.operation.as_str())
            };
            if !self.configs.iter().any(names_engine) {
                return Some(format!(
                    "study {name}: the baseline {b:?} names no configuration or engine of it (it has {})",
                    names()
                ));
            }
        }
        if let Some(step) = self
            .info
            .steps
            .iter()
            .find(|s| !self.configs.iter().any(|c| &c.info.config == *s))
        {
            return Some(format!(
                "study {name}: the step {step:?} names no configuration of it (it has {})",
                names()
            ));
        }
        None
    }

    /// The study cannot be measured in this process, for `reason` (one line: what is missing
    /// and how to give it). A study built from files or the environment says so when they are
    /// absent or wrong: `list` shows the reason, a `run` of every study leaves it out with a
    /// note, and naming it (`--study NAME`) is an error that prints the reason.
    pub fn unavailable(mut self, reason: impl Into<String>) -> Study {
        self.info.unavailable = Some(reason.into());
        self.configs.clear();
        self
    }

    /// Adds a configuration of a workload of its own (one that is not a codec on a dataset).
    #[doc(hidden)]
    pub fn config(mut self, mut config: Config) -> Study {
        config.info.study = self.info.name.clone();
        config.info.budget = self.info.budget;
        self.configs.push(config);
        self
    }
}

/// Where a dataset's values come from.
enum Source<T: 'static> {
    /// Built by a function of the study's, once per process.
    Built(Arc<dyn Fn() -> Vec<T> + Send + Sync>),
    /// A static dataset of serprof's own.
    Static(fn() -> &'static [T]),
}

impl<T> Clone for Source<T> {
    fn clone(&self) -> Self {
        match self {
            Source::Built(f) => Source::Built(Arc::clone(f)),
            Source::Static(f) => Source::Static(*f),
        }
    }
}

/// A dataset, built at most once per process and shared by every configuration of its study.
struct Dataset<T: 'static> {
    name: String,
    make: Source<T>,
    built: Arc<OnceLock<Arc<[T]>>>,
}

impl<T> Clone for Dataset<T> {
    fn clone(&self) -> Self {
        Dataset {
            name: self.name.clone(),
            make: self.make.clone(),
            built: Arc::clone(&self.built),
        }
    }
}

impl<T> Dataset<T> {
    fn values(&self) -> Data<T> {
        match &self.make {
            Source::Built(f) => Data::Shared(Arc::clone(self.built.get_or_init(|| f().into()))),
            Source::Static(f) => Data::Static(f()),
        }
    }
}

/// A study whose dataset holds values of `T`, being given its engines. It becomes a [`Study`]
/// with `.into()`.
pub struct StudyOf<T: 'static> {
    study: Study,
    dataset: Dataset<T>,
    checks: Checks<T>,
    operations: Vec<Operation>,
    engines: Vec<Engine<T>>,
}

impl<T: Value> StudyOf<T> {
    /// Adds a codec of one's own, named `name`, built by `make` in each worker process.
    pub fn codec<C: Codec<T> + 'static>(
        self,
        name: impl Into<String>,
        make: impl Fn() -> Result<C, CodecError> + Send + Sync + 'static,
    ) -> Self {
        self.engine(Engine::new(name, make))
    }

    /// Adds an engine described in full.
    pub fn engine(mut self, engine: Engine<T>) -> Self {
        if self.checks.json.is_none() {
            self.checks.json = engine.json_view.clone();
        }
        self.engines.push(engine);
        self
    }

    /// Adds engines described in full, in order: `.engines(serprof::engines::serde())` adds
    /// every serde engine of the build.
    pub fn engines(self, engines: impl IntoIterator<Item = Engine<T>>) -> Self {
        engines.into_iter().fold(self, StudyOf::engine)
    }

    /// The operations each engine is measured on, each a configuration of its own: a round
    /// trip (the default), serialize only, deserialize only. A round trip keeps the engine's
    /// name; the others are named `ENGINE.serialize` and `ENGINE.deserialize`, or the engine's
    /// name when the study measures that one operation only. A corrupt study
    /// ([`StudyOf::corrupt`]) decodes, whatever they are.
    pub fn operations(mut self, operations: impl IntoIterator<Item = Operation>) -> Self {
        self.operations = operations.into_iter().collect();
        self
    }

    /// A further check of each decoded value against its original, after the round trip:
    /// `Some(what is wrong)` fails the configuration.
    pub fn verify_with(
        mut self,
        check: impl Fn(&T, &T) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.checks.verify_with = Some(Arc::new(check));
        self
    }

    /// How to say what differs between two unequal values (the default is the first line
    /// where their `{:#?}` differ).
    pub fn describe_difference(
        mut self,
        describe: impl Fn(&T, &T) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.checks.describe = Some(Arc::new(describe));
        self
    }

    /// The digest of a value that an engine's in-place access must read from its payload
    /// ([`Engine::access`]): every field, as the engines crate's `model::Digest` combines them.
    pub fn digest(mut self, digest: impl Fn(&T) -> u64 + Send + Sync + 'static) -> Self {
        self.checks.digest = Some(Arc::new(digest));
        self
    }

    /// Records whether decoded values keep their shared references (`Arc`s that pointed to
    /// one allocation); never a failure.
    pub fn shared_references(mut self, check: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        self.checks.shares_references = Some(Arc::new(check));
        self
    }

    describe_study!();

    /// The study these methods build: the one the dataset was given to.
    fn study_mut(&mut self) -> &mut Study {
        &mut self.study
    }

    /// The configuration of `engine` on `operation`.
    fn config(&self, engine: &Engine<T>, operation: Operation) -> Config {
        let config = match (operation, self.operations.len()) {
            (
                Operation::Access
                | Operation::ValidatedAccess
                | Operation::Borrow
                | Operation::UnvalidatedDeserialize
                | Operation::EncodeMessage
                | Operation::DecodeMessage
                | Operation::Update,
                _,
            ) => {
                format!("{}.{}", engine.name, operation.as_str())
            }
            (Operation::RoundTrip | Operation::Decode, _) | (_, 1) => engine.name.clone(),
            (op, _) => format!("{}.{}", engine.name, op.as_str()),
        };
        let info = ConfigInfo {
            study: self.study.info.name.clone(),
            config,
            engine: engine.library.clone(),
            engine_version: engine.version.clone(),
            call: engine.call.clone(),
            format: engine.format,
            dataset: self.dataset.name.clone(),
            operation,
            engine_frames: FramePattern::builtin(&engine.frames),
            notes: engine.notes.clone(),
            document: None,
            feature: engine.feature.clone(),
            loop_function: crate::workload::values_loop(operation).into(),
            budget: self.study.info.budget,
        };
        let (dataset, checks, make, fields) = (
            self.dataset.clone(),
            self.checks.clone(),
            Arc::clone(&engine.make),
            engine.fields.clone(),
        );
        let json = engine.format == Format::Json;
        Config::new(info, move || {
            let codec = make()?;
            let in_place = codec.decodes_in_place();
            Ok(Box::new(
                Values::new(codec, dataset.values(), operation, checks.clone(), in_place)
                    .with_fields(fields.clone(), json),
            ) as Box<dyn Workload>)
        })
    }
}

impl<T: Value> From<StudyOf<T>> for Study {
    fn from(mut s: StudyOf<T>) -> Study {
        let mut configs = Vec::new();
        // A corrupt study decodes damaged payloads, one configuration per engine: an engine's
        // extra configurations (in-place reads and updates, the unvalidated decode, the message
        // decode; unchecked reads and writes among them) never see them.
        let measured = s.study.info.kind == StudyKind::Measured;
        if !measured {
            s.operations = vec![Operation::Decode];
        }
        for engine in &s.engines {
            let extra = if measured { &engine.extra[..] } else { &[] };
            let chosen = |op: &&Operation| match &engine.only {
                Some(only) if measured => only.contains(op),
                _ => true,
            };
            for &op in s.operations.iter().filter(chosen).chain(extra) {
                configs.push(s.config(engine, op));
            }
        }
        let mut study = s.study.clone();
        study.configs.extend(configs);
        study
    }
}

/// The last segment of `T`'s path (`Reading` for `readings::Reading`, `Vec<Sample>` for a
/// `Vec<model::Sample>`).
fn short_type_name<T>() -> String {
    crate::fields::tally::short_type(std::any::type_name::<T>())
}

#[cfg(test)]
mod tests;
