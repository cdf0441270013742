//! The subcommands other than `run`, each a function from its arguments to an exit code.

pub mod ab;
pub mod codec_io;
pub mod compare;
pub mod dataset;
pub mod hotspots;
pub mod list;
pub mod report;
