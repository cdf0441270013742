//! The typed name of a configuration: `STUDY/CONFIG`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `STUDY/CONFIG`, as `serprof list` prints it. Written to files as that one string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigId {
    pub study: String,
    pub config: String,
}

impl ConfigId {
    pub fn new(study: &str, config: &str) -> ConfigId {
        ConfigId {
            study: study.to_string(),
            config: config.to_string(),
        }
    }
}

impl fmt::Display for ConfigId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.study, self.config)
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
                Ok(ConfigId::new(study, config))
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
        for bad in ["", "bytes", "/x", "x/"] {
            assert!(bad.parse::<ConfigId>().is_err(), "{bad}");
        }
    }
}
