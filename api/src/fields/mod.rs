//! Bytes by field: which paths of a value (`Reading.raw`, `Order.lines[].product.thumbnail`)
//! take a payload's bytes, measured outside every timed loop.
//!
//! An engine says how its payload splits ([`FieldSplit`]):
//! - [`FieldSplit::Record`]: the value is serialized again by the engine's format through a
//!   recording serializer ([`record`]), which forwards every call and notes the byte position
//!   around each field; the workload checks the recorded bytes equal the timed call's payload,
//!   value by value, and gives no split where they differ;
//! - [`FieldSplit::Payload`]: the timed call's payload itself is read by field ([`json_text`],
//!   for JSON engines that do not go through serde);
//! - [`FieldSplit::Not`]: the format does not lay out by field (columns, relative pointers),
//!   or its writer cannot be recorded; the reason is kept instead of a guess.
//!
//! A split partitions the payload: each path's own bytes are its key, its framing and every
//! leaf value under it that no listed child holds, and the root (the type's name) keeps the
//! outer framing, so the paths add up to the payload exactly. A sequence's compound elements
//! (structs, sequences, maps, enums with data) are one path, `[]`, summed over the elements; a
//! map's compound values are `{}`; a tuple's compound fields are `.0`, `.1`; the fields of an
//! enum variant with data are under `::Variant`.

mod error;
mod json;
mod record;

use std::collections::BTreeMap;
use std::fmt::Display;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use error::{FieldsError, JsonProblem};
pub use json::json_text;
pub use record::{Layout, Sink, Tracked};

use crate::verify::Finding;
use record::{PathBytes, Recorder};

/// One path's share of a configuration's payloads (`result.json` `fields`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldBytes {
    /// `Type.field.sub`, `Type.list[].field`, `Type.map{}`, `Type.kind::Variant.field`.
    pub path: String,
    /// Its own bytes, mean per value (see the module's documentation).
    pub bytes: f64,
    /// `bytes` as a share of the payload, 0 to 1.
    pub share: f64,
    /// The Rust type written there, without module paths (`Vec<u8>`), when it is known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rust_type: String,
}

/// Records a value's serialization ([`FieldSplit::Record`]).
pub type Recording<T> = Arc<dyn Fn(&T) -> Result<Layout, FieldsError> + Send + Sync>;
/// Reads a payload by field ([`FieldSplit::Payload`]).
pub type PayloadReader = Arc<dyn Fn(&[u8]) -> Result<Layout, FieldsError> + Send + Sync>;

/// How an engine's payload splits by field.
pub enum FieldSplit<T> {
    /// Serialize the value again through a recording serializer ([`record`]).
    Record(Recording<T>),
    /// Read the timed call's payload by field.
    Payload(PayloadReader),
    /// No split, and why.
    Not(String),
}

impl<T> Clone for FieldSplit<T> {
    fn clone(&self) -> Self {
        match self {
            FieldSplit::Record(f) => FieldSplit::Record(Arc::clone(f)),
            FieldSplit::Payload(f) => FieldSplit::Payload(Arc::clone(f)),
            FieldSplit::Not(why) => FieldSplit::Not(why.clone()),
        }
    }
}

/// The reason of an engine that names none.
pub const NOT_SERDE: &str =
    "no field split: the engine does not write through serde, whose calls serprof records by field";

/// Records `value` as `write` serializes it: `write` hands the [`Tracked`] value, in place of
/// the value, to the format's writer, which writes into the [`Sink`]
/// (`|t, sink| serde_json::to_writer(sink, t)`).
pub fn record<T: Serialize + ?Sized, E: Display>(
    value: &T,
    write: impl for<'r> FnOnce(&Tracked<'r, T>, Sink<'r>) -> Result<(), E>,
) -> Result<Layout, FieldsError> {
    let (bytes, paths) = Recorder::record(value, short_type(std::any::type_name::<T>()), write)?;
    Ok(Layout { bytes, paths })
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
    /// Adds one value's layout, whose bytes must be `payload` (the timed call's).
    pub fn add(&mut self, index: usize, layout: Layout, payload: &[u8]) -> Result<(), FieldsError> {
        if layout.bytes != payload {
            let at = layout
                .bytes
                .iter()
                .zip(payload)
                .take_while(|(a, b)| a == b)
                .count();
            return Err(FieldsError::NotThePayload {
                index,
                recorded: layout.bytes.len(),
                payload: payload.len(),
                first_difference: at,
            });
        }
        self.values += 1;
        self.total += payload.len();
        let mut paths: Vec<(String, PathBytes)> = layout.paths.into_iter().collect();
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

#[cfg(test)]
mod tests;
