//! Reading profiles: folded stacks, hotspot tables, findings.

#[cfg(feature = "driver")]
pub(crate) mod before_after;
#[cfg(feature = "driver")]
pub(crate) mod callgrind;
#[cfg(feature = "driver")]
pub(crate) mod check;
#[cfg(feature = "driver")]
pub(crate) mod compare;
#[cfg(feature = "driver")]
pub(crate) mod findings;
pub(crate) mod folded;
#[cfg(feature = "driver")]
pub(crate) mod hotspots;
pub(crate) mod parse_error;
pub(crate) mod pprof;
#[cfg(feature = "driver")]
pub(crate) mod sections;
pub(crate) mod sources;
#[cfg(feature = "driver")]
pub(crate) mod types;
#[cfg(feature = "driver")]
pub(crate) mod views;
