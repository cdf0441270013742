//! The commands a measured program serves on its own values (`serprof encode`, `decode` and
//! `dataset`): the driver hands them to the program that has the values, through the worker
//! protocol's serve request, and a binary with the driver runs them itself.

pub(crate) mod codec_io;
pub(crate) mod dataset;
