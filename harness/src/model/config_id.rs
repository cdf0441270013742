//! The typed name of a row of a run: `STUDY/CONFIG`, or `STUDY/CONFIG@ALLOCATOR` for a
//! configuration measured under an allocator (`run --allocators`).
//!
//! The allocator is a field here, from the plan to the result. The name with `@ALLOCATOR` is
//! spelled in one place ([`ConfigId::in_study`], which `Display` and the folder names use) and
//! read back in one ([`FromStr`], for a user's text, a child's request and an old folder's
//! file names).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::allocator::Allocator;

/// `STUDY/CONFIG` (with `@ALLOCATOR` under an allocator), as `serprof list` and the tables
/// print it. Written to files as that one string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigId {
    /// The study.
    pub study: String,
    /// The configuration's name inside the study, as the study names it (no allocator).
    pub config: String,
    /// The allocator its children allocate with, when the run names allocators.
    pub allocator: Option<Allocator>,
}

impl ConfigId {
    /// The configuration `config` of `study`, under no named allocator.
    pub fn new(study: &str, config: &str) -> ConfigId {
        ConfigId {
            study: study.to_string(),
            config: config.to_string(),
            allocator: None,
        }
    }

    /// The same configuration under `allocator`.
    pub fn under(&self, allocator: Option<Allocator>) -> ConfigId {
        ConfigId {
            allocator,
            ..self.clone()
        }
    }

    /// The name inside the study as a row and its folder are named: `CONFIG`, or
    /// `CONFIG@ALLOCATOR` under an allocator.
    pub fn in_study(&self) -> Cow<'_, str> {
        match self.allocator {
            None => Cow::Borrowed(&self.config),
            Some(a) => Cow::Owned(format!("{}@{}", self.config, a.name())),
        }
    }
}

impl fmt::Display for ConfigId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.study, self.in_study())
    }
}

/// Why a text is not a configuration id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadConfigId(pub String);

impl fmt::Display for BadConfigId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not STUDY/CONFIG", self.0)
    }
}

impl std::error::Error for BadConfigId {}

impl FromStr for ConfigId {
    type Err = BadConfigId;

    fn from_str(s: &str) -> Result<ConfigId, BadConfigId> {
        match s.split_once('/') {
            Some((study, config)) if !study.is_empty() && !config.is_empty() => {
                // A name without a known allocator after its last `@` is the study's own.
                let (config, allocator) = match config.rsplit_once('@') {
                    Some((base, a)) => match Allocator::parse(a) {
                        Some(a) if !base.is_empty() => (base, Some(a)),
                        _ => (config, None),
                    },
                    None => (config, None),
                };
                Ok(ConfigId::new(study, config).under(allocator))
            }
            _ => Err(BadConfigId(s.to_string())),
        }
    }
}

impl Serialize for ConfigId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ConfigId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ConfigId, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prints_and_serializes_as_one_string() {
        let id: ConfigId = "bytes/json-base64-table".parse().unwrap();
        assert_eq!(id, ConfigId::new("bytes", "json-base64-table"));
        assert_eq!(id.to_string(), "bytes/json-base64-table");
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"bytes/json-base64-table\""
        );
        let back: ConfigId = serde_json::from_str("\"formats/postcard+bytes\"").unwrap();
        assert_eq!(back.config, "postcard+bytes");
        let under: ConfigId = "formats/serde_json@mimalloc".parse().unwrap();
        assert_eq!(under.config, "serde_json");
        assert_eq!(under.allocator, Some(Allocator::Mimalloc));
        assert_eq!(under.to_string(), "formats/serde_json@mimalloc");
        assert_eq!(under.in_study(), "serde_json@mimalloc");
        let own: ConfigId = "docs/doc@v2".parse().unwrap();
        assert_eq!((own.config.as_str(), own.allocator), ("doc@v2", None));
        for bad in ["", "bytes", "/x", "x/"] {
            assert!(bad.parse::<ConfigId>().is_err(), "{bad}");
        }
    }
}
