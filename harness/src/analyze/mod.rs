//! Reading profiles: folded stacks, hotspot tables, findings.

pub mod before_after;
pub mod callgrind;
pub mod check;
pub mod compare;
pub mod folded;
pub mod hotspots;
pub mod parse_error;
pub mod sections;
pub mod sources;
pub mod views;
