//! Reading profiles: folded stacks, hotspot tables, findings.

pub mod folded;
pub mod hotspots;
