//! Reading profiles: folded stacks, hotspot tables, findings.

pub mod compare;
pub mod folded;
pub mod hotspots;
