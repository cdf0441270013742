//! The subcommands, each a function from its arguments to an exit code: they read arguments,
//! call the layers below, and print.

#[cfg(feature = "driver")]
pub(crate) mod ab;
#[cfg(feature = "driver")]
pub(crate) mod before_after;
#[cfg(feature = "driver")]
pub(crate) mod check;
pub(crate) mod codec_io;
#[cfg(feature = "driver")]
pub(crate) mod compare;
pub(crate) mod dataset;
#[cfg(feature = "driver")]
pub(crate) mod doctor;
#[cfg(feature = "driver")]
pub(crate) mod explain;
#[cfg(feature = "driver")]
pub(crate) mod flame;
#[cfg(feature = "driver")]
pub(crate) mod hotspots;
#[cfg(feature = "driver")]
pub(crate) mod lines;
#[cfg(feature = "driver")]
pub(crate) mod list;
#[cfg(feature = "driver")]
pub(crate) mod report;
#[cfg(feature = "driver")]
pub(crate) mod run;
#[cfg(feature = "driver")]
pub(crate) mod tree;
