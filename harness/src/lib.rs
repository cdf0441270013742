//! serprof: a profiling-instrumented research harness for serialization engines.
//!
//! serprof measures engines on a dataset: it verifies that every value round-trips, times the
//! engines in worker processes, samples their CPU time into flame graphs, counts their
//! allocations and (with valgrind) their instructions, and compares them. Its command line
//! works the same on serprof's own studies and on yours.
//!
//! # Profile your own types
//!
//! A binary of your crate that ends in [`main!`] is a serprof of its own, measuring your
//! studies with every subcommand (`run`, `hotspots`, `flame`, `compare`, `before-after`, ...):
//!
//! ```no_run
//! use serde::{Deserialize, Serialize};
//! use serprof::{Codec, CodecError, Study};
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
//! pub struct Reading { pub sensor: String, pub at: u64, pub values: Vec<f64>, pub raw: Vec<u8> }
//!
//! fn readings() -> Vec<Reading> {
//!     (0..100)
//!         .map(|i| Reading { sensor: format!("s{i}"), at: i, values: vec![0.5; 8], raw: vec![7; 64] })
//!         .collect()
//! }
//!
//! #[derive(Default)]
//! struct Handwritten;
//! impl Codec<Reading> for Handwritten {
//!     fn encode(&mut self, v: &Reading, out: &mut Vec<u8>) -> Result<(), CodecError> {
//!         serde_json::to_writer(out, v).map_err(CodecError::encode)
//!     }
//!     fn decode(&mut self, bytes: &mut [u8]) -> Result<Reading, CodecError> {
//!         serde_json::from_slice(bytes).map_err(CodecError::decode)
//!     }
//! }
//!
//! fn studies() -> Vec<Study> {
//!     vec![Study::new("readings", "Which engine for our sensor readings?")
//!         .dataset(readings)                         // Vec<T>; one value per operation, cycling
//!         .engines(serprof::engines::serde())        // every serde engine serprof ships, on T
//!         .codec("handwritten", || Ok(Handwritten))  // the user's own engine
//!         .baseline("serde_json")
//!         .into()]
//! }
//!
//! serprof::main!(studies);   // fn main, the counting allocator, the hidden workers
//! ```
//!
//! The one step beyond the program: a study with a dataset is a [`StudyOf<T>`] until `.into()`
//! makes it a [`Study`] (the list holds studies of any value type).
//!
//! Honest profiles need frame pointers and debug info in the release build: a
//! `.cargo/config.toml` with `[build] rustflags = ["-C", "force-frame-pointers=yes"]` and
//! `debug = "limited"` (or more) under `[profile.release]` in the workspace's `Cargo.toml`. A binary built
//! without them says so in one line when it runs.
//!
//! serprof's own layers are private (see
//! `docs/ARCHITECTURE.md`).

#![deny(missing_docs)]
#![warn(unreachable_pub)]
// Without the `driver` feature the crate is a measured program's part only: what serves the
// driver's planning, analysis and rendering is compiled out, and items both share may go unused.
#![cfg_attr(not(feature = "driver"), allow(dead_code, unused_imports))]

// The driver, gated once: its layers are `crate::cli`, `commands`, `run`, `render` and `analyze`.
#[cfg(feature = "driver")]
mod driver;
#[cfg(feature = "driver")]
use driver::{analyze, cli, commands, render, run};
mod entry;
mod error;
mod layout;
mod measure;
mod model;
mod process;
mod profile;
mod protocol;
mod serve;

pub use measure::alloc::CountingAlloc;
pub use measure::chosen::ChosenAlloc;
// What a measured crate writes: the `serprof-api` crate's user-facing items (its contract with
// the driver stays in that crate's hidden module).
pub use serprof_api::fields;
pub use serprof_api::{
    Budget, Codec, CodecError, Damage, DamagedInput, Engine, Format, Operation, Study, StudyOf,
    Value,
};

/// serprof's own studies (`formats`, `bytes`, `reflection`, `corrupt`, and `corpus`, which is
/// unavailable until `SERPROF_CORPUS` names documents), then, with the `rsb` feature, the four
/// opt-in `rsb-*` studies of rust_serialization_benchmark's datasets: what the `serprof`
/// binary measures.
pub fn builtin_studies() -> Vec<Study> {
    #[allow(unused_mut)]
    let mut all = serprof_engines::studies::builtin();
    #[cfg(feature = "rsb")]
    all.extend(serprof_rsb::studies());
    all
}

/// Engines serprof ships, on a type of the user's, to add to a study with
/// [`StudyOf::engines`] or [`StudyOf::engine`]: [`engines::serde`] for a type that derives
/// serde's traits, and one function per library that derives its own (`borsh`, `rkyv`,
/// `speedy`, `wincode`, `bitcode`, `musli`, `nanoserde`, `msgpacker`, `minicbor`, `bilrost`,
/// `fory`), each behind the cargo feature of its crate's name. Engine names are unique in a
/// study: bitcode's derive is `bitcode-derive`, beside `bitcode` (its serde API) of `serde()`.
pub mod engines {
    use serprof_api::Engine;
    use serprof_engines::external::SerdeValue;

    /// Every serde engine of this build's features, on `T`, each as serde comes (`Vec<u8>`
    /// as a sequence of integers), each through its library's fast call for a caller-owned
    /// buffer: JSON (`serde_json`, `sonic-rs`, `simd-json`) and binary (`rmp-serde`,
    /// `ciborium`, `bincode`, `bincode1`, `postcard` through `to_slice`, `bitcode` through its
    /// serde API). A type that derives serde's `Serialize` and `Deserialize` takes them all:
    /// `.engines(serprof::engines::serde())`.
    pub fn serde<T: SerdeValue>() -> Vec<Engine<T>> {
        serprof_engines::external::serde_engines()
    }

    // One engine per library that derives its own traits on a user's type, each named after
    // its crate; the compiler checks the type's derives against the library's traits.
    #[cfg(feature = "bilrost")]
    pub use serprof_engines::external::bilrost::engine as bilrost;
    #[cfg(feature = "bitcode")]
    pub use serprof_engines::external::bitcode::derive_engine as bitcode;
    #[cfg(feature = "borsh")]
    pub use serprof_engines::external::borsh::engine as borsh;
    #[cfg(feature = "fory")]
    pub use serprof_engines::external::fory::engine as fory;
    #[cfg(feature = "minicbor")]
    pub use serprof_engines::external::minicbor::engine as minicbor;
    #[cfg(feature = "msgpacker")]
    pub use serprof_engines::external::msgpacker::engine as msgpacker;
    #[cfg(feature = "musli")]
    pub use serprof_engines::external::musli::engine as musli;
    #[cfg(feature = "nanoserde")]
    pub use serprof_engines::external::nanoserde::engine as nanoserde;
    #[cfg(feature = "rkyv")]
    pub use serprof_engines::external::rkyv::engine as rkyv;
    #[cfg(feature = "rkyv")]
    pub use serprof_engines::external::rkyv::engine_with_access as rkyv_access;
    #[cfg(feature = "rkyv")]
    pub use serprof_engines::external::rkyv::engine_with_update as rkyv_update;
    #[cfg(feature = "rkyv")]
    pub use serprof_engines::external::rkyv::Updates as RkyvUpdates;
    #[cfg(feature = "speedy")]
    pub use serprof_engines::external::speedy::engine as speedy;
    #[cfg(feature = "wincode")]
    pub use serprof_engines::external::wincode::engine as wincode;
}

/// What the harness takes from serprof's engines crate beyond the studies: the probe's
/// reference workload, and the `dataset` command where the studies include the Order dataset.
/// This file is the one door of the harness into the engines crate.
fn builtins(studies: &[Study]) -> model::program::Builtins {
    let orders = studies
        .iter()
        .flat_map(|s| s.configs())
        .any(|c| c.info.dataset == serprof_engines::dataset::ORDERS);
    model::program::Builtins {
        reference: serprof_engines::studies::formats::reference,
        dataset: orders.then_some(dataset as model::program::DatasetFn),
        lockfile: serprof_engines::versions::lockfile(),
    }
}

/// serprof's `dataset` command, on the engines crate's export.
fn dataset(args: &model::program::DatasetArgs, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    use serprof_engines::casestudy::export::{write, Export, ExportError};
    let req = Export {
        order: args.order,
        stats: args.stats,
        json: args.json,
    };
    match write(&req, out) {
        Ok(()) => Ok(()),
        Err(ExportError::Misuse(m)) => Err(error::misuse_err(m)),
        Err(e) => Err(e.into()),
    }
}

/// What serprof's own tests and benches reach below the public API; not for users (it
/// follows serprof's internals and changes with them).
#[doc(hidden)]
pub mod testing {
    /// serprof's own binary measuring `studies`.
    pub fn program(studies: Vec<crate::Study>) -> Program {
        let builtins = crate::builtins(&studies);
        Program::new(crate::model::binary::Binary::SERPROF, studies, builtins)
    }

    /// What the harness takes from serprof's engines crate, for serprof's own studies.
    pub fn builtins() -> crate::model::program::Builtins {
        crate::builtins(&crate::builtin_studies())
    }

    pub use crate::layout::read_json;
    pub use crate::measure::cpu::{fold_report, BLOCKLIST};
    pub use crate::model::manifest::RunManifest;
    pub use crate::model::program::Program;
    pub use crate::model::result::ConfigResult;
    pub use crate::model::settings::Settings;
    #[cfg(feature = "driver")]
    pub use crate::render::{
        corrupt_table::render_table as corrupt_table,
        flame::{flame_svg, Kind},
        functions_diff::svg_of as functions_diff_svg,
        table::render as table,
    };
}

/// What [`main!`] expands to; not for direct use.
#[doc(hidden)]
pub mod __private {
    pub use crate::model::binary::Binary;

    /// The `main` of a binary measuring `studies`.
    pub fn main_with(binary: Binary, studies: fn() -> Vec<crate::Study>) -> std::process::ExitCode {
        crate::entry::main_with(binary, studies, crate::builtins)
    }
}

/// The `main` of a binary that measures `studies` (a `fn() -> Vec<Study>`): it parses
/// serprof's command line, runs the hidden worker processes, and installs the counting
/// allocator as the global allocator.
///
/// - `serprof::main!(studies)`: the counting allocator wraps the system allocator, or the one
///   `run --allocators` names for a child ([`ChosenAlloc`]; jemalloc and mimalloc need the
///   features of those names).
/// - `serprof::main!(studies, allocator: MyAlloc = MyAlloc::new())`: it wraps yours (take
///   your own `#[global_allocator]` line out).
/// - `serprof::main!(studies, allocator = none)`: no counting allocator (the crate keeps a
///   `#[global_allocator]` of its own): allocation figures are left out, with a warning.
#[macro_export]
macro_rules! main {
    ($studies:path) => {
        $crate::main!($studies, allocator: $crate::ChosenAlloc = $crate::ChosenAlloc);
    };
    ($studies:path, allocator = none) => {
        fn main() -> ::std::process::ExitCode {
            $crate::__private::main_with(
                $crate::__private::Binary {
                    package: ::std::env!("CARGO_PKG_NAME"),
                    bin: match ::std::option_env!("CARGO_BIN_NAME") {
                        ::std::option::Option::Some(bin) => bin,
                        ::std::option::Option::None => ::std::env!("CARGO_PKG_NAME"),
                    },
                    manifest_dir: ::std::env!("CARGO_MANIFEST_DIR"),
                    built_rev: ::std::option_env!("SERPROF_BUILD_REV"),
                },
                $studies,
            )
        }
    };
    ($studies:path, allocator: $ty:ty = $alloc:expr) => {
        #[global_allocator]
        static SERPROF_ALLOCATOR: $crate::CountingAlloc<$ty> = $crate::CountingAlloc::new($alloc);
        $crate::main!($studies, allocator = none);
    };
}

// Unit tests of the counting allocator need it installed in the test binary too.
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: CountingAlloc = CountingAlloc::system();
