//! Reading profiles: hotspot tables, findings, comparisons, types, investigation views (the
//! driver's; the profile formats themselves are in `crate::profile`).

pub(crate) mod before_after;
pub(crate) mod callgrind;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod findings;
pub(crate) mod hotspots;
pub(crate) mod moved;
pub(crate) mod sections;
pub(crate) mod types;
pub(crate) mod views;
