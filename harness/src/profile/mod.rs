//! Profile formats both sides of the seam read and write: folded stacks, pprof-rs's reports,
//! the source files frames belong to, and their parse errors. The measured program's sampler
//! writes them; the driver's analysis reads them.

pub(crate) mod folded;
pub(crate) mod parse_error;
pub(crate) mod pprof;
pub(crate) mod sources;
