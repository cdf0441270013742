//! The subcommands, each a function from its arguments to an exit code: they read arguments,
//! call the layers below, and print.

pub mod ab;
pub mod before_after;
pub mod check;
pub mod codec_io;
pub mod compare;
pub mod dataset;
pub mod doctor;
pub mod flame;
pub mod hotspots;
pub mod lines;
pub mod list;
pub mod report;
pub mod run;
pub mod tree;
