//! The hidden `testkit-types` study: a type of one's own with every shape the split by field
//! and the type view read (a nested struct, an enum with data, an `Option`, a map, a list of
//! strings and a `Vec<u8>`), through serde_json and bincode, for the harness's tests of
//! "your type explained". Compiled only with the `testkit` cargo feature.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Operation, Study};
use crate::external;
use crate::model::SerdeBytes;

/// Where a station stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Place {
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lon: f64,
}

/// What a station reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Status {
    /// Nothing to report.
    Ok,
    /// An alarm.
    Alarm {
        /// Its code.
        code: u16,
        /// What it says.
        text: String,
    },
}

/// A station's report: one field of each shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Station {
    /// The station's number.
    pub id: u32,
    /// Where it stands.
    pub place: Place,
    /// What it reports.
    pub status: Status,
    /// A note, when there is one.
    pub note: Option<String>,
    /// Labels by name.
    pub labels: BTreeMap<String, String>,
    /// Tags.
    pub tags: Vec<String>,
    /// A raw reading's bytes.
    pub raw: Vec<u8>,
}

/// 100 stations, each with a 512-byte `raw`.
pub fn stations() -> Vec<Station> {
    (0..100u32)
        .map(|i| Station {
            id: i,
            place: Place {
                lat: 45.0 + f64::from(i) / 8.0,
                lon: 7.0 + f64::from(i) / 16.0,
            },
            status: if i % 4 == 0 {
                Status::Alarm {
                    code: 500 + (i % 7) as u16,
                    text: format!("valve {i} stuck"),
                }
            } else {
                Status::Ok
            },
            note: (i % 3 == 0).then(|| format!("serviced in week {}", i % 52)),
            labels: (0..i % 4)
                .map(|k| (format!("label{k}"), format!("value {}", k + i)))
                .collect(),
            tags: (0..1 + i % 5).map(|t| format!("tag-{t}")).collect(),
            raw: (0..512u32).map(|b| (b * 131 + i * 17) as u8).collect(),
        })
        .collect()
}

/// The study.
pub fn study() -> Study {
    Study::new("testkit-types", "A type of one's own, explained")
        .source("serprof's test suite")
        .hidden()
        .dataset(stations)
        .engine(external::serde_json::engine(SerdeBytes::Seq))
        .engine(external::bincode::engine(SerdeBytes::Seq))
        .operations([Operation::Serialize, Operation::Deserialize])
        .into()
}
