//! `cpu.pb`: the CPU profile in pprof's protobuf format, written from the folded stacks, so
//! that `go tool pprof` sees the very frames `cpu.folded` and `serprof hotspots` have: one
//! location per physical function, no inline chain (pprof-rs's own export adds the inline
//! chain of the first sample of each key, such as `core::result::Result<&T,E>::copied`; see
//! `measure::cpu::fold_report`), with each function's source file from the side table.

use std::collections::HashMap;

use pprof::protos::{self, Message};

use crate::analyze::folded::Folded;
use crate::analyze::sources::Sources;

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
    let mut functions: Vec<protos::Function> = Vec::new();
    let mut locations: Vec<protos::Location> = Vec::new();
    let mut ids: HashMap<String, u64> = HashMap::new();
    let mut samples = Vec::new();
    for (stack, &count) in &folded.stacks {
        let mut location_id = Vec::new();
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
                    functions.push(protos::Function {
                        id,
                        name: strings.id(frame),
                        system_name: strings.id(frame),
                        filename: strings.id(file),
                        ..Default::default()
                    });
                    locations.push(protos::Location {
                        id,
                        line: vec![protos::Line {
                            function_id: id,
                            line: 0,
                        }],
                        ..Default::default()
                    });
                    ids.insert(frame.to_string(), id);
                    id
                }
            };
            location_id.push(id);
        }
        let n = count as i64;
        samples.push(protos::Sample {
            location_id,
            value: vec![n, n * timing.period_ns],
            label: Vec::new(),
        });
    }
    let value = |strings: &mut Strings, ty: &str, unit: &str| protos::ValueType {
        ty: strings.id(ty),
        unit: strings.id(unit),
    };
    let sample_type = vec![
        value(&mut strings, "samples", "count"),
        value(&mut strings, "cpu", "nanoseconds"),
    ];
    let period_type = Some(value(&mut strings, "cpu", "nanoseconds"));
    protos::Profile {
        sample_type,
        sample: samples,
        location: locations,
        function: functions,
        string_table: strings.table,
        time_nanos: timing.time_nanos,
        duration_nanos: timing.duration_nanos,
        period_type,
        period: timing.period_ns,
        ..Default::default()
    }
    .encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

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
