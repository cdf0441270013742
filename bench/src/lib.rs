//! What a crate measured by serprof depends on: serprof's library without its driver, and the
//! engines of this crate's features. Everything is serprof's: `serprof_bench::main!`,
//! `serprof_bench::Study`, ... (or, with the dependency renamed to `serprof`, the same paths
//! as serprof's own documentation uses). See serprof's crate documentation.

#![warn(missing_docs)]

pub use serprof::*;
