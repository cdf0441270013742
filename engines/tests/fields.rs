//! Bytes by field (`serprof_api::fields`) through the engines: every serde engine's split of a
//! type of one's own adds up to its payload exactly, and the Order graph's thumbnail is named as
//! written element by element exactly where it is.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serprof_api::__private::FieldsReport;
use serprof_api::__private::Finding;
use serprof_api::__private::Verified;
use serprof_api::Operation;
use serprof_api::Study;
use serprof_engines::studies::{bytes, formats, Config};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Place {
    lat: f64,
    lon: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Status {
    Ok,
    Alarm { code: u16, text: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    id: u32,
    place: Place,
    status: Status,
    note: Option<String>,
    labels: BTreeMap<String, String>,
    tags: Vec<String>,
    raw: Vec<u8>,
}

fn readings() -> Vec<Reading> {
    (0..50u32)
        .map(|i| Reading {
            id: i,
            place: Place {
                lat: 50.0 + f64::from(i) / 7.0,
                lon: 8.0 - f64::from(i) / 3.0,
            },
            status: if i % 3 == 0 {
                Status::Alarm {
                    code: 500 + i as u16,
                    text: format!("pump {i} stalled"),
                }
            } else {
                Status::Ok
            },
            note: (i % 2 == 0).then(|| format!("note {i}")),
            labels: (0..i % 4)
                .map(|k| (format!("k{k}"), format!("v{}", k * i)))
                .collect(),
            tags: (0..i % 5).map(|t| "t".repeat(t as usize + 1)).collect(),
            raw: (0..64 + i).map(|b| (b * 31 + i) as u8).collect(),
        })
        .collect()
}

/// Verification, then the split by field, as the verification recording runs them.
fn verified(config: &Config) -> (Verified, FieldsReport) {
    let mut w = config.workload().unwrap();
    let v = w
        .verify()
        .unwrap_or_else(|e| panic!("{}: {e}", config.info.config));
    (v, w.split_fields())
}

fn element_paths(v: &FieldsReport) -> Vec<String> {
    v.findings
        .iter()
        .filter_map(|f| match f {
            Finding::ElementByElement { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_serde_engines_split_of_a_users_type_adds_up_to_its_payload() {
    let study: Study = Study::new("readings", "readings")
        .dataset(readings)
        .engines(serprof_engines::external::serde_engines())
        .operations([Operation::Serialize])
        .into();
    let mut split = 0;
    for config in study.configs() {
        let name = &config.info.config;
        let (verified, v) = verified(config);
        if name.starts_with("bitcode") {
            assert!(v.fields.is_empty(), "{name}");
            assert!(v.note.as_deref().unwrap().contains("columns"), "{name}");
            continue;
        }
        assert_eq!(v.note, None, "{name}");
        let sum: f64 = v.fields.iter().map(|f| f.bytes).sum();
        assert!(
            (sum - verified.payload_bytes).abs() < 1e-9,
            "{name}: the fields add up to {sum}, the payload is {}",
            verified.payload_bytes
        );
        let shares: f64 = v.fields.iter().map(|f| f.share).sum();
        assert!((shares - 1.0).abs() < 1e-9, "{name}: shares {shares}");
        assert_eq!(v.fields[0].path, "Reading", "{name}: the root comes first");
        assert_eq!(element_paths(&v), ["Reading.raw"], "{name}");
        split += 1;
    }
    assert!(split >= 1, "serde_json at least is always built");
}

#[test]
fn the_thumbnail_is_written_element_by_element_exactly_where_it_is() {
    const THUMBNAIL: &str = "Order.lines[].product.thumbnail";
    let mut seen = Vec::new();
    for (study, expect_some) in [
        (bytes::study(), &["serde_json-default", "json-decimal"][..]),
        (
            formats::study(),
            &[
                "rmp-serde",
                "ciborium",
                "bincode",
                "bincode1",
                "postcard",
                "postcard-extend",
            ][..],
        ),
    ] {
        for config in study
            .configs()
            .iter()
            .filter(|c| c.info.operation == Operation::RoundTrip)
        {
            let name = config.info.config.clone();
            let (_, v) = verified(config);
            let paths = element_paths(&v);
            let named = paths.iter().any(|p| p == THUMBNAIL);
            let expected = expect_some.contains(&name.as_str());
            if v.note.is_some() {
                assert!(!expected, "{name} has no split: {:?}", v.note);
                continue;
            }
            assert_eq!(named, expected, "{name}: {paths:?}");
            // A map's keys are never paths (our JSON engines read the attributes as a map).
            let keys: Vec<&str> = v
                .fields
                .iter()
                .map(|f| f.path.as_str())
                .filter(|p| p.starts_with("Order.attributes."))
                .collect();
            assert!(keys.is_empty(), "{name}: {keys:?}");
            seen.push(name);
        }
    }
    assert!(seen.iter().any(|n| n == "serde_json-default"), "{seen:?}");
    assert!(seen.iter().any(|n| n == "serde_json-base64"), "{seen:?}");
}
