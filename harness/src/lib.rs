//! serprof: a profiling-instrumented research harness for serialization engines.
//!
//! The binary (`src/main.rs`) only parses the command line and dispatches; everything else lives
//! here so that it can be tested:
//! - [`runner`] and [`child`]: `serprof run`, one worker child per configuration and recording;
//! - [`worker`] and [`record`]: what a child measures (timing, CPU samples, allocations);
//! - [`analyze`]: folded stacks and hotspot tables; [`render`]: flame graphs and tables;
//! - [`snapshot`] and [`result`]: the files a run writes; [`stats`]: medians and intervals.

pub mod analyze;
pub mod child;
pub mod cli;
pub mod commands;
pub mod corrupt;
pub mod error;
pub mod interrupt;
pub mod progress;
pub mod record;
pub mod render;
pub mod result;
pub mod runner;
pub mod select;
pub mod settings;
pub mod snapshot;
pub mod stats;
pub mod worker;

// Unit tests of the counting allocator need it installed in the test binary too.
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: record::alloc::CountingAlloc = record::alloc::CountingAlloc;
