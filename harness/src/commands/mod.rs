//! The subcommands other than `run`, each a function from its arguments to an exit code.

pub mod codec_io;
pub mod dataset;
pub mod hotspots;
pub mod list;
