//! serprof's side of a split by field: a dataset's payloads by path added up ([`Tally`]) into the
//! report the driver stores and reads (`result.json` `fields`, its findings). A user's crate
//! writes none of this: it reaches the driver through the API's hidden module.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::record::PathBytes;
use super::{FieldsError, PayloadPaths};
use crate::verify::Finding;

/// The reason of an engine that names none.
pub const NOT_SERDE: &str =
    "no field split: the engine does not write through serde, whose calls serprof records by field";

/// One path's share of a configuration's payloads (`result.json` `fields`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldBytes {
    /// `Type.field.sub`, `Type.list[].field`, `Type.map{}`, `Type.kind::Variant.field`.
    pub path: String,
    /// Its own bytes, mean per value (see [`crate::fields`]).
    pub bytes: f64,
    /// `bytes` as a share of the payload, 0 to 1.
    pub share: f64,
    /// The Rust type written there, without module paths (`Vec<u8>`), when it is known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rust_type: String,
    /// Of its own bytes, those of field and variant names (a self-describing format's keys
    /// and tags), mean per value; 0 in a positional format.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub names: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A Rust type's name without module paths: `alloc::vec::Vec<my::Reading>` is
/// `Vec<Reading>`.
pub fn short_type(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit("::").next().unwrap_or(""));
        word.clear();
    };
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The split of a dataset's payloads, added up value by value.
#[derive(Debug, Default)]
pub struct Tally {
    values: usize,
    total: usize,
    paths: BTreeMap<String, PathBytes>,
}

/// What the split of a configuration gives: its paths, or why there are none, and its findings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldsReport {
    /// The paths, in the order they first appear in a payload.
    pub fields: Vec<FieldBytes>,
    /// Why there is no split.
    pub note: Option<String>,
    /// Byte arrays written element by element, and fields that take most of the payload.
    pub findings: Vec<Finding>,
}

impl FieldsReport {
    /// No split, and why.
    pub fn none(note: impl Into<String>) -> FieldsReport {
        FieldsReport {
            note: Some(note.into()),
            ..FieldsReport::default()
        }
    }
}

/// A byte array's elements must take this share of the payload for a finding: below it, the
/// remedy cannot move the payload or the time by more than a run's noise.
pub const ELEMENTS_THRESHOLD: f64 = 0.01;
/// A field takes most of the payload at this share of its own bytes: more than every other
/// part of the value together, so shaping it is the change that moves the payload most.
pub const LARGE_FIELD_THRESHOLD: f64 = 0.5;

impl Tally {
    /// Adds one value's paths, whose bytes must be `payload` (the timed call's).
    pub fn add(
        &mut self,
        index: usize,
        paths: PayloadPaths,
        payload: &[u8],
    ) -> Result<(), FieldsError> {
        if paths.bytes != payload {
            let at = paths
                .bytes
                .iter()
                .zip(payload)
                .take_while(|(a, b)| a == b)
                .count();
            return Err(FieldsError::NotThePayload {
                index,
                recorded: paths.bytes.len(),
                payload: payload.len(),
                first_difference: at,
            });
        }
        self.values += 1;
        self.total += payload.len();
        let mut paths: Vec<(String, PathBytes)> = paths.paths.into_iter().collect();
        paths.sort_by_key(|(_, p)| p.order);
        for (path, p) in paths {
            let order = self.paths.len();
            let t = self.paths.entry(path).or_insert_with(|| PathBytes {
                order,
                ..PathBytes::default()
            });
            t.own += p.own;
            t.u8_elements += p.u8_elements;
            t.native_bytes += p.native_bytes;
            t.names += p.names;
            if t.rust_type.is_empty() {
                t.rust_type = p.rust_type;
            }
        }
        Ok(())
    }

    /// The mean split per value, and its findings (`json`: the payload is JSON text, whose
    /// remedy differs).
    pub fn report(self, json: bool) -> FieldsReport {
        let n = self.values.max(1) as f64;
        let total = self.total.max(1) as f64;
        let mut paths: Vec<(String, PathBytes)> = self.paths.into_iter().collect();
        paths.sort_by_key(|(_, p)| p.order);
        let root = paths.first().map(|(path, _)| path.clone());
        let mut report = FieldsReport::default();
        for (path, p) in &paths {
            let share = p.own as f64 / total;
            let rust_type = short_type(p.rust_type);
            report.fields.push(FieldBytes {
                path: path.clone(),
                bytes: p.own as f64 / n,
                share,
                rust_type: rust_type.clone(),
                names: p.names as f64 / n,
            });
            // serde_json, simd-json and sonic-rs write `serialize_bytes` as an array of numbers.
            let numbers = json && p.native_bytes > 0;
            let elements = if numbers { p.own } else { p.u8_elements };
            if elements as f64 / total >= ELEMENTS_THRESHOLD {
                report.findings.push(Finding::ElementByElement {
                    path: path.clone(),
                    rust_type,
                    share,
                    bytes: p.own as f64 / n,
                    remedy: remedy(json).into(),
                    profile_share: None,
                });
            } else if share >= LARGE_FIELD_THRESHOLD && Some(path) != root.as_ref() {
                report.findings.push(Finding::LargeField {
                    path: path.clone(),
                    share,
                });
            }
        }
        report
    }
}

/// What the bytes study measures for a byte array written element by element.
fn remedy(json: bool) -> &'static str {
    match json {
        true => "write it as base64 text (a `#[serde(with = ...)]` module over the base64 crate; the bytes study's serde_json-base64 row); serde_bytes does not help in JSON, which writes bytes as numbers either way",
        false => "`#[serde(with = \"serde_bytes\")]` on the field writes it as one byte string (the formats study's `+bytes` rows)",
    }
}
