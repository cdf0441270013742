//! `cpu.pb`: the CPU profile in pprof's protobuf format, written from the folded stacks, so
//! that `go tool pprof` sees the very frames `cpu.folded` and `serprof hotspots` have: one
//! location per physical function, no inline chain (pprof-rs's own export adds the inline
//! chain of the first sample of each key, such as `core::result::Result<&T,E>::copied`; see
//! `measure::cpu::fold_report`), with each function's source file from the side table.
//!
//! The protobuf is written here, field by field, after pprof's `profile.proto` (only the
//! fields serprof fills): pprof-rs's own encoder would build prost and its code generator into
//! every crate that depends on serprof. The tests read it back with pprof-rs's decoder.

use std::collections::HashMap;

use crate::profile::folded::Folded;
use crate::profile::sources::Sources;

/// Strings of a profile, deduplicated; index 0 is the empty string, as the format requires.
#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn id(&mut self, s: &str) -> i64 {
        if self.table.is_empty() {
            self.table.push(String::new());
            self.index.insert(String::new(), 0);
        }
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// Timing of the recording, for the profile's header.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Timing {
    /// Nanoseconds of CPU time one sample stands for.
    pub period_ns: i64,
    /// Start of the recording, nanoseconds since the Unix epoch.
    pub time_nanos: i64,
    pub duration_nanos: i64,
}

/// The encoded profile: sample types `samples/count` and `cpu/nanoseconds` (count times the
/// period), the configuration's name (the folded root) left out of every stack.
pub(crate) fn cpu_pprof(folded: &Folded, sources: &Sources, timing: Timing) -> Vec<u8> {
    let mut strings = Strings::default();
    // Each function is its own location (same id), one line of it, line number unknown.
    let mut functions: Vec<Vec<u8>> = Vec::new();
    let mut ids: HashMap<String, u64> = HashMap::new();
    let mut samples: Vec<Vec<u8>> = Vec::new();
    for (stack, &count) in &folded.stacks {
        let mut location_ids = Vec::new();
        // pprof lists a sample's locations leaf first.
        for frame in stack
            .split(';')
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let id = match ids.get(frame) {
                Some(&id) => id,
                None => {
                    let id = functions.len() as u64 + 1;
                    let file = sources
                        .get(frame)
                        .and_then(|s| s.file.as_deref().or(s.library.as_deref()))
                        .unwrap_or("");
                    let name = strings.id(frame);
                    let mut function = Vec::new();
                    varint_field(&mut function, 1, id);
                    varint_field(&mut function, 2, name as u64);
                    varint_field(&mut function, 3, name as u64);
                    varint_field(&mut function, 4, strings.id(file) as u64);
                    functions.push(function);
                    ids.insert(frame.to_string(), id);
                    id
                }
            };
            location_ids.push(id);
        }
        let n = count as i64;
        let mut sample = Vec::new();
        packed_field(&mut sample, 1, location_ids.iter().copied());
        packed_field(&mut sample, 2, [n, n * timing.period_ns].map(|v| v as u64));
        samples.push(sample);
    }
    let value_type = |strings: &mut Strings, ty: &str, unit: &str| {
        let mut v = Vec::new();
        varint_field(&mut v, 1, strings.id(ty) as u64);
        varint_field(&mut v, 2, strings.id(unit) as u64);
        v
    };
    let sample_types = [
        value_type(&mut strings, "samples", "count"),
        value_type(&mut strings, "cpu", "nanoseconds"),
    ];
    let period_type = value_type(&mut strings, "cpu", "nanoseconds");
    let mut out = Vec::new();
    for t in &sample_types {
        bytes_field(&mut out, 1, t);
    }
    for sample in &samples {
        bytes_field(&mut out, 2, sample);
    }
    for (i, _) in functions.iter().enumerate() {
        let id = i as u64 + 1;
        let mut line = Vec::new();
        varint_field(&mut line, 1, id);
        let mut location = Vec::new();
        varint_field(&mut location, 1, id);
        bytes_field(&mut location, 4, &line);
        bytes_field(&mut out, 4, &location);
    }
    for function in &functions {
        bytes_field(&mut out, 5, function);
    }
    for s in &strings.table {
        bytes_field(&mut out, 6, s.as_bytes());
    }
    varint_field(&mut out, 9, timing.time_nanos as u64);
    varint_field(&mut out, 10, timing.duration_nanos as u64);
    bytes_field(&mut out, 11, &period_type);
    varint_field(&mut out, 12, timing.period_ns as u64);
    out
}

/// A base-128 varint (an `int64` is its two's complement as a `u64`, as protobuf writes it).
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Field `number` with a varint value (wire type 0); zero is the default and not written.
fn varint_field(out: &mut Vec<u8>, number: u64, v: u64) {
    if v != 0 {
        varint(out, number << 3);
        varint(out, v);
    }
}

/// Field `number` with length-delimited bytes (wire type 2): a string, a message.
fn bytes_field(out: &mut Vec<u8>, number: u64, bytes: &[u8]) {
    varint(out, (number << 3) | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A packed repeated varint field (wire type 2), not written when empty.
fn packed_field(out: &mut Vec<u8>, number: u64, values: impl IntoIterator<Item = u64>) {
    let mut body = Vec::new();
    for v in values {
        varint(&mut body, v);
    }
    if !body.is_empty() {
        bytes_field(out, number, &body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pprof::protos::{self, Message};

    #[test]
    fn one_location_per_frame_leaf_first_with_files() {
        let folded = Folded::parse("cfg;main;a 3\ncfg;main;b;a 2\n").unwrap();
        let mut sources = Sources::default();
        sources.note("a", Some("/src/a.rs"), None);
        sources.note("main", None, Some("/lib/libc.so.6"));
        let bytes = cpu_pprof(
            &folded,
            &sources,
            Timing {
                period_ns: 1000,
                ..Default::default()
            },
        );
        let p = protos::Profile::decode(bytes.as_slice()).unwrap();
        let name = |id: u64| {
            let f = p.function.iter().find(|f| f.id == id).unwrap();
            p.string_table[f.name as usize].as_str()
        };
        let stacks: Vec<(Vec<&str>, Vec<i64>)> = p
            .sample
            .iter()
            .map(|s| {
                (
                    s.location_id.iter().map(|&l| name(l)).collect(),
                    s.value.clone(),
                )
            })
            .collect();
        assert_eq!(
            stacks,
            [
                (vec!["a", "main"], vec![3, 3000]),
                (vec!["a", "b", "main"], vec![2, 2000])
            ]
        );
        assert_eq!(p.function.len(), 3, "one function per frame name");
        let file = |n: &str| {
            let f = p
                .function
                .iter()
                .find(|f| p.string_table[f.name as usize] == n)
                .unwrap();
            p.string_table[f.filename as usize].clone()
        };
        assert_eq!(file("a"), "/src/a.rs");
        assert_eq!(file("main"), "/lib/libc.so.6");
        assert_eq!(p.string_table[0], "");
        assert_eq!(p.period, 1000);
    }
}
