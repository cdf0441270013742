//! The allocator a measured child allocates with, as a dimension of a run
//! (`run --allocators system,jemalloc,mimalloc`): a configuration measured under an allocator
//! is a row of its own ([`super::ConfigId::allocator`], named `formats/serde_json@mimalloc`
//! for a person and a folder), and its children get the
//! allocator's name in [`ENV`], which the program's allocator reads before its first
//! allocation and keeps for the child's life (`measure::chosen::ChosenAlloc`).

use std::fmt;

/// The environment variable that names a child's allocator.
pub(crate) const ENV: &str = "SERPROF_ALLOCATOR";
/// [`ENV`] as a C string, for `getenv` inside the allocator.
pub(crate) const ENV_C: &std::ffi::CStr = c"SERPROF_ALLOCATOR";

/// An allocator a child can allocate with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    /// The C library's `malloc` (std's `System`).
    System,
    /// jemalloc (the `tikv-jemallocator` crate; the `jemalloc` feature).
    Jemalloc,
    /// mimalloc (the `mimalloc` crate; the `mimalloc` feature).
    Mimalloc,
}

impl Allocator {
    /// Every allocator, in the order tables list them.
    pub const ALL: [Allocator; 3] = [Allocator::System, Allocator::Jemalloc, Allocator::Mimalloc];

    /// Its name, as `--allocators` and a configuration's suffix spell it.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::Jemalloc => "jemalloc",
            Allocator::Mimalloc => "mimalloc",
        }
    }

    /// The allocator named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Allocator> {
        Allocator::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Whether this build of serprof can allocate with it (jemalloc and mimalloc are features,
    /// which compile C code).
    pub fn compiled(self) -> bool {
        match self {
            Allocator::System => true,
            Allocator::Jemalloc => cfg!(feature = "jemalloc"),
            Allocator::Mimalloc => cfg!(feature = "mimalloc"),
        }
    }

    /// `--allocators`' value: comma-separated names, each once; an error names what is wrong.
    pub fn parse_list(list: &str) -> Result<Vec<Allocator>, AllocatorListError> {
        let mut out = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let a = Allocator::parse(name)
                .ok_or_else(|| AllocatorListError::Unknown { name: name.into() })?;
            if out.contains(&a) {
                return Err(AllocatorListError::Twice { name: name.into() });
            }
            out.push(a);
        }
        if out.is_empty() {
            return Err(AllocatorListError::Empty);
        }
        Ok(out)
    }
}

/// What is wrong with an `--allocators` list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllocatorListError {
    /// A name that is no allocator's.
    #[error("unknown allocator {name:?}; allocators: {}", Allocator::ALL.map(Allocator::name).join(", "))]
    Unknown { name: String },
    /// An allocator named twice.
    #[error("allocator {name:?} is named twice")]
    Twice { name: String },
    /// No name at all.
    #[error("--allocators names no allocator")]
    Empty,
}

/// `--allocators`' value as clap parses it: comma-separated names, each once
/// ([`Allocator::parse_list`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllocatorList(pub Vec<Allocator>);

impl std::str::FromStr for AllocatorList {
    type Err = AllocatorListError;

    fn from_str(list: &str) -> Result<AllocatorList, AllocatorListError> {
        Allocator::parse_list(list).map(AllocatorList)
    }
}

impl fmt::Display for Allocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_has_one_name() {
        assert_eq!(ENV_C.to_str(), Ok(ENV));
    }

    #[test]
    fn the_list_is_checked() {
        assert_eq!(
            Allocator::parse_list("system, mimalloc"),
            Ok(vec![Allocator::System, Allocator::Mimalloc])
        );
        assert!(Allocator::parse_list("tcmalloc")
            .unwrap_err()
            .to_string()
            .contains("allocators: system, jemalloc, mimalloc"));
        assert_eq!(
            Allocator::parse_list("system,system"),
            Err(AllocatorListError::Twice {
                name: "system".into()
            })
        );
        assert!(Allocator::parse_list(",").is_err());
    }
}
