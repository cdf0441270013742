//! Reading profiles: folded stacks, hotspot tables, findings.

pub(crate) mod before_after;
pub(crate) mod callgrind;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod folded;
pub(crate) mod hotspots;
pub(crate) mod parse_error;
pub(crate) mod pprof;
pub(crate) mod sections;
pub(crate) mod sources;
pub(crate) mod types;
pub(crate) mod views;
