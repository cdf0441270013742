//! The pieces every pair of the study is made of: a sub-study's configurations, an in-place
//! read's pair of codecs, a serde engine on a trap type and its twin, a codec of the study's own.

use serprof_api::__private::Config;
use serprof_api::{Codec, Engine, Operation, Study};

use crate::external;
use crate::model::SerdeBytes;

/// A sub-study's configurations, only those of `keep` (access rows come beside the study's
/// operations).
pub(super) fn configs(study: Study, keep: Operation) -> Vec<Config> {
    study
        .into_parts()
        .1
        .into_iter()
        .filter(|c| c.info.operation == keep)
        .collect()
}

/// A pair of codecs of one dataset read in place, trap and twin, checked against `digest`.
pub(super) fn access_pair<T: serprof_api::Value + Clone, C: Codec<T> + 'static>(
    kind: &str,
    dataset: fn() -> Vec<T>,
    digest: fn(&T) -> u64,
    make: fn(bool) -> C,
) -> Vec<Config> {
    let engine = |fixed: bool| {
        let side = if fixed { "twin" } else { "trap" };
        own(&format!("{kind}-{side}"), move || make(fixed)).access([Operation::ValidatedAccess])
    };
    let s = sub(kind)
        .dataset(dataset)
        .digest(digest)
        .engine(engine(false))
        .engine(engine(true))
        .operations([Operation::Deserialize])
        .into();
    configs(s, Operation::ValidatedAccess)
}

/// A serde engine on a trap type and on its twin type (the remedy applied to the type).
pub(super) fn serde_pair<A: external::SerdeValue, B: external::SerdeValue>(
    kind: &str,
    engine: fn(SerdeBytes) -> Engine<A>,
    twin_engine: fn(SerdeBytes) -> Engine<B>,
    trap: fn() -> Vec<A>,
    twin: fn() -> Vec<B>,
    operation: Operation,
) -> Vec<Config> {
    let a: Study = sub(kind)
        .dataset(trap)
        .engine(engine(SerdeBytes::Seq).named(format!("{kind}-trap")))
        .operations([operation])
        .into();
    let b: Study = sub(kind)
        .dataset(twin)
        .engine(twin_engine(SerdeBytes::Seq).named(format!("{kind}-twin")))
        .operations([operation])
        .into();
    let mut v = configs(a, operation);
    v.extend(configs(b, operation));
    v
}

pub(super) fn sub(name: &str) -> Study {
    Study::new(name, "testkit-findings part").hidden()
}

/// A codec of this file as an engine.
pub(super) fn own<T: serprof_api::Value, C: Codec<T> + 'static>(
    name: &str,
    make: impl Fn() -> C + Send + Sync + 'static,
) -> Engine<T> {
    Engine::new(name, move || Ok(make()))
        .library("testkit", "serprof")
        .notes("a test double of the findings")
}
