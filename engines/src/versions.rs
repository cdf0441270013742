//! The versions of the libraries this build compiled.
//!
//! serprof's requirements are carets, so a library's version is the choice of the lock file
//! that resolved the build: serprof's own `Cargo.lock`, or the lock file of a user's crate that
//! depends on serprof. `build.rs` finds that lock file and reads this crate's dependencies from
//! it; no version is written by hand.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/versions.rs"));
}

/// What a version reads when no lock file listing serprof's engines crate was found (a target
/// folder outside the workspace: see `engines/build.rs`).
pub const UNRESOLVED: &str = "unresolved";

/// The version of crate `name` this build compiled, among its versions compatible with
/// `compatible` (the prefix a caret requirement fixes: `"1."`, `"0.27."`), or [`UNRESOLVED`].
pub fn of(name: &str, compatible: &str) -> &'static str {
    generated::RESOLVED
        .iter()
        .find(|(n, v)| *n == name && v.starts_with(compatible))
        .map_or(UNRESOLVED, |(_, v)| v)
}

/// The lock file the versions come from, or `None` when none was found.
pub fn lockfile() -> Option<&'static str> {
    Some(generated::LOCKFILE).filter(|l| !l.is_empty())
}
