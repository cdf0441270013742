//! The subcommands, each a function from its arguments to an exit code: they read arguments,
//! call the layers below, and print.

pub(crate) mod ab;
pub(crate) mod before_after;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod flame;
pub(crate) mod hotspots;
pub(crate) mod lines;
pub(crate) mod list;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod tree;
