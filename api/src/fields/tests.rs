use std::collections::BTreeMap;

use serde::Serialize;

use super::tally::Tally;
use super::*;
use crate::verify::Finding;

#[derive(Serialize)]
struct Place {
    lat: f64,
    lon: f64,
}

#[derive(Serialize)]
enum Status {
    Ok,
    Alarm { code: u16, text: String },
}

#[derive(Serialize)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize)]
struct Reading {
    id: u32,
    place: Place,
    status: Status,
    note: Option<String>,
    labels: BTreeMap<String, String>,
    tags: Vec<String>,
    points: Vec<Point>,
    raw: Vec<u8>,
}

fn reading(alarm: bool) -> Reading {
    Reading {
        id: 7,
        place: Place {
            lat: 52.52,
            lon: 13.405,
        },
        status: if alarm {
            Status::Alarm {
                code: 503,
                text: "pump \"B\" stalled".into(),
            }
        } else {
            Status::Ok
        },
        note: alarm.then(|| "checked".into()),
        labels: [("site", "north"), ("unit", "kPa")]
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        tags: vec!["a".into(), "bb".into()],
        points: vec![Point { x: 1, y: -2 }, Point { x: 30, y: 4 }],
        raw: (0..40).map(|i| (i * 37 % 256) as u8).collect(),
    }
}

fn json(v: &impl Serialize) -> usize {
    serde_json::to_string(v).unwrap().len()
}

/// The bytes of a struct member as serde_json writes it: the comma before it unless it is the
/// first, its key and colon, its value.
fn member(first: bool, key: &str, value: &impl Serialize) -> usize {
    usize::from(!first) + key.len() + 3 + json(value)
}

fn split_json(r: &Reading) -> BTreeMap<String, usize> {
    let paths = record(r, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    assert_eq!(paths.bytes(), serde_json::to_vec(r).unwrap());
    paths
        .paths
        .into_iter()
        .map(|(path, p)| (path, p.own))
        .collect()
}

#[test]
fn serde_jsons_split_is_each_fields_json_text() {
    for alarm in [false, true] {
        let r = reading(alarm);
        let got = split_json(&r);
        // Computed from each field's own JSON text, independently of the recorder.
        let mut want = BTreeMap::new();
        let lat = member(true, "lat", &r.place.lat);
        let lon = member(false, "lon", &r.place.lon);
        want.insert("Reading.id", member(true, "id", &r.id));
        want.insert(
            "Reading.place",
            member(false, "place", &r.place) - lat - lon,
        );
        want.insert("Reading.place.lat", lat);
        want.insert("Reading.place.lon", lon);
        let mut status = member(false, "status", &r.status);
        if let Status::Alarm { code, text } = &r.status {
            let code = member(true, "code", code);
            let text = member(false, "text", text);
            want.insert("Reading.status::Alarm.code", code);
            want.insert("Reading.status::Alarm.text", text);
            status -= code + text;
        }
        want.insert("Reading.status", status);
        want.insert("Reading.note", member(false, "note", &r.note));
        want.insert("Reading.labels", member(false, "labels", &r.labels));
        want.insert("Reading.tags", member(false, "tags", &r.tags));
        let (mut elements, mut under) = (0, 0);
        for (i, p) in r.points.iter().enumerate() {
            let x = member(true, "x", &p.x);
            let y = member(false, "y", &p.y);
            want.insert(
                "Reading.points[].x",
                want.get("Reading.points[].x").unwrap_or(&0) + x,
            );
            want.insert(
                "Reading.points[].y",
                want.get("Reading.points[].y").unwrap_or(&0) + y,
            );
            elements += usize::from(i > 0) + json(p) - x - y;
            under += usize::from(i > 0) + json(p);
        }
        want.insert("Reading.points[]", elements);
        want.insert("Reading.points", member(false, "points", &r.points) - under);
        want.insert("Reading.raw", member(false, "raw", &r.raw));
        want.insert("Reading", 2);
        let want: BTreeMap<String, usize> =
            want.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert_eq!(got, want, "alarm: {alarm}");
        assert_eq!(got.values().sum::<usize>(), json(&r));
    }
}

#[test]
fn a_byte_array_of_u8s_is_a_finding_and_serde_bytes_is_not() {
    #[derive(Serialize)]
    struct Blob {
        name: String,
        raw: Vec<u8>,
        #[serde(with = "bytes")]
        native: Vec<u8>,
    }
    mod bytes {
        pub(super) fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }
    let b = Blob {
        name: "x".into(),
        raw: vec![200; 64],
        native: vec![1; 64],
    };
    let mut tally = Tally::default();
    let paths = record(&b, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    let payload = serde_json::to_vec(&b).unwrap();
    tally.add(0, paths, &payload).unwrap();
    // In JSON both are numbers: both are written element by element.
    let report = tally.report(true);
    let paths: Vec<_> = report
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::ElementByElement {
                path, rust_type, ..
            } => Some((path.as_str(), rust_type.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(paths, [("Blob.raw", "Vec<u8>"), ("Blob.native", "")]);
    let sum: f64 = report.fields.iter().map(|f| f.bytes).sum();
    assert_eq!(sum, payload.len() as f64);
    // A binary reading of the same calls: only the u8 sequence is.
    let mut tally = Tally::default();
    let paths = record(&b, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    tally.add(0, paths, &payload).unwrap();
    let report = tally.report(false);
    assert!(
        matches!(&report.findings[..], [Finding::ElementByElement { path, .. }] if path == "Blob.raw")
    );
}

#[test]
fn a_recording_that_is_not_the_payload_gives_no_split() {
    let r = reading(true);
    let paths = record(&r, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    let mut other = serde_json::to_vec(&r).unwrap();
    other[3] ^= 1;
    let err = Tally::default().add(4, paths, &other).unwrap_err();
    let err = err.to_string();
    assert!(err.contains("value 4") && err.contains("byte 3"), "{err}");
}

#[test]
fn json_text_splits_as_the_serde_recording_does_for_structs_and_lists() {
    #[derive(Serialize)]
    struct Doc {
        id: u32,
        points: Vec<Point>,
        raw: Vec<u8>,
    }
    let d = Doc {
        id: 1,
        points: vec![Point { x: 1, y: 2 }, Point { x: 3, y: 4 }],
        raw: vec![255, 0, 7],
    };
    let text = serde_json::to_vec(&d).unwrap();
    let from_text = json_text("Doc", &[], &text).unwrap();
    let recorded = record(&d, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    let own = |l: &PayloadPaths| -> BTreeMap<String, (usize, usize)> {
        l.paths
            .iter()
            .map(|(k, p)| (k.clone(), (p.own, p.u8_elements)))
            .collect()
    };
    assert_eq!(own(&from_text), own(&recorded));
    assert!(json_text("Doc", &[], b"{\"id\":1").is_err());
    assert_eq!(
        json_text("Doc", &[], b"{\"id\":1} x").unwrap_err(),
        FieldsError::Json {
            problem: JsonProblem::Trailing,
            at: 9
        }
    );
    // A map's keys are not paths: the same as serde's recording of a map. (The JSON text of
    // an enum variant with data is an object like any other, so this reading has none.)
    let r = reading(false);
    let text = serde_json::to_vec(&r).unwrap();
    let as_map = json_text("Reading", &["Reading.labels"], &text).unwrap();
    let recorded = record(&r, |t, sink| serde_json::to_writer(sink, t)).unwrap();
    let paths = |l: &PayloadPaths| -> BTreeMap<String, usize> {
        l.paths.iter().map(|(k, p)| (k.clone(), p.own)).collect()
    };
    assert_eq!(paths(&as_map), paths(&recorded));
    let as_fields = json_text("Reading", &[], &text).unwrap();
    assert!(as_fields.paths.contains_key("Reading.labels.site"));
}

#[test]
fn short_types_drop_module_paths() {
    assert_eq!(short_type("alloc::vec::Vec<my::Reading>"), "Vec<Reading>");
    assert_eq!(
        short_type("core::option::Option<(u8, a::B)>"),
        "Option<(u8, B)>"
    );
}

#[test]
fn names_count_every_key_and_variant_tag_serde_json_writes() {
    let r = reading(true);
    let paths = record(&r, |t, sink| serde_json::to_writer(sink, &t)).unwrap();
    let names: usize = paths.paths.values().map(|p| p.names).sum();
    // Every struct field's key (Reading's eight, Place's two, the alarm's two, each Point's
    // two) and the variant tag `Alarm`; the map's keys are data, not names.
    let keys = [
        "id", "place", "status", "note", "labels", "tags", "points", "raw",
    ]
    .iter()
    .chain(&["lat", "lon", "code", "text"])
    .chain(&["x", "y", "x", "y"])
    .map(|k| k.len())
    .sum::<usize>()
        + "Alarm".len();
    assert_eq!(names, keys);
    // A unit variant's tag counts with its field's key.
    let ok = record(&reading(false), |t, sink| serde_json::to_writer(sink, &t)).unwrap();
    let status = &ok.paths["Reading.status"];
    assert_eq!(
        (status.names, status.own),
        ("status".len() + "Ok".len(), ",\"status\":\"Ok\"".len())
    );
}
