//! serprof: a profiling-instrumented research harness for serialization engines.
//!
//! The binary (`src/main.rs`) only hands over to [`cli`]; everything else lives here so that it
//! can be tested. The layers, top to bottom (each imports only layers below it; a test checks
//! that no module imports one above it and that no import cycle exists, see
//! docs/ARCHITECTURE.md):
//! - [`cli`]: parsing and dispatch; the only importer of [`commands`];
//! - [`commands`]: one module per subcommand: reads arguments, prints results;
//! - [`run`]: the runner: plan (selection, resume), executor (worker children), the corrupt
//!   study's parent, comparisons on disk, progress;
//! - [`measure`]: what a worker child does: the workload and its loops, timing, CPU samples,
//!   allocations, the corrupt decoder;
//! - [`render`]: flame graphs, tables, the report; [`analyze`]: folded stacks, hot spots,
//!   comparisons in memory;
//! - [`process`]: the one process guard (spawn, caps, verdicts, interrupts); [`protocol`]: every
//!   request and reply between a parent and its worker children, and their command lines;
//! - [`layout`]: every file and folder name of a run, atomic writes; [`model`]: the types
//!   serprof writes (settings, manifest, results, statistics);
//! - [`error`]: exit codes and one-line messages, used by every layer.

pub mod analyze;
pub mod cli;
pub mod commands;
pub mod error;
pub mod layout;
pub mod measure;
pub mod model;
pub mod process;
pub mod protocol;
pub mod render;
pub mod run;

// Unit tests of the counting allocator need it installed in the test binary too.
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: measure::alloc::CountingAlloc = measure::alloc::CountingAlloc;
